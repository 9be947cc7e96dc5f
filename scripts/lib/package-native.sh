# The native builds every release artifact ships, for x86_64 Linux with glibc 2.17 or newer
# (ADR 0025): zig links against glibc 2.17's symbol versions, so one build runs on every
# distribution of the last ten years (Amazon Linux 2, Ubuntu 20.04, Debian 11, RHEL 8).
# Source it after scripts/lib/common.sh.
#
#   ensure_package_venv      installs the pinned tools (maturin, auditwheel, wheel) and zig once
#   maturin_zig DIR ARGS...  runs `maturin build` for glibc 2.17 (manylinux2014) in DIR
#   package_native_library   the release libsika_ffi.so for glibc 2.17: the one the Python wheel
#                            is built from (maturin --zig; again only if its sources changed), so
#                            the wheel, the jar and the .deb ship one build, the one the suites
#                            test. Sets
#                            SIKA_NATIVE_LIBRARY (UNSTRIPPED: bindings are generated from its
#                            symbols) and prints its path.
#   strip_copy SRC DEST      writes a stripped copy of SRC (for shipping, after generation)
#   assert_glibc_floor FILE...  fails, naming the symbols, if a file needs glibc newer than 2.17
#   ensure_zig               installs zig (PyPI's ziglang) once and puts it on PATH

SIKA_GLIBC_FLOOR=2.17
SIKA_NATIVE_TRIPLE=x86_64-unknown-linux-gnu
# Pinned; the cached venv is rebuilt when the pin changes.
SIKA_ZIGLANG_VERSION=0.17.0
# Where maturin --zig puts its builds (cargo's --target directory): apart from target/release.
# The suites build and test this library too (scripts/build-ffi, install_sika: ADR 0089).
SIKA_NATIVE_DIR="$ROOT/target/$SIKA_NATIVE_TRIPLE/release"

ensure_zig() {
  local venv="$SIKA_CACHE/zig-venv"
  if [[ "$(cat "$venv/ziglang-version" 2>/dev/null)" != "$SIKA_ZIGLANG_VERSION" ]]; then
    step "package: installing zig $SIKA_ZIGLANG_VERSION (PyPI's ziglang) into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "ziglang==$SIKA_ZIGLANG_VERSION"
    # Only `zig` on PATH, not the venv's python (it would shadow the system's python3).
    mkdir -p "$venv/zig-bin"
    ln -sf "$("$venv/bin/python" -c 'import ziglang, os; print(os.path.dirname(ziglang.__file__))')/zig" \
      "$venv/zig-bin/zig"
    echo "$SIKA_ZIGLANG_VERSION" >"$venv/ziglang-version"
  fi
  case ":$PATH:" in *":$venv/zig-bin:"*) ;; *) PATH="$venv/zig-bin:$PATH" ;; esac
  export PATH
}

SIKA_PACKAGE_VENV="$SIKA_CACHE/package-venv"
# maturin --zig takes the glibc floor from --compatibility manylinux2014 (glibc 2.17).
SIKA_MATURIN_ZIG=(--release --locked --zig --compatibility manylinux2014 --target "$SIKA_NATIVE_TRIPLE")

ensure_package_venv() {
  local requirements="$ROOT/scripts/lib/package-requirements.txt"
  if ! "$SIKA_PACKAGE_VENV/bin/python" -c '' 2>/dev/null ||
    ! cmp -s "$requirements" "$SIKA_PACKAGE_VENV/requirements.txt"; then
    step "package: installing the pinned tools into $SIKA_PACKAGE_VENV"
    rm -rf "$SIKA_PACKAGE_VENV"
    python3 -m venv "$SIKA_PACKAGE_VENV"
    "$SIKA_PACKAGE_VENV/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$SIKA_PACKAGE_VENV/requirements.txt"
  fi
  ensure_zig
}

maturin_zig() {
  local directory="${1:?usage: maturin_zig DIR ARGS...}"; shift
  (cd "$directory" && "$SIKA_PACKAGE_VENV/bin/maturin" build "${SIKA_MATURIN_ZIG[@]}" "$@")
}

package_native_library() {
  ensure_package_venv >&2
  step "package: libsika_ffi.so for glibc $SIKA_GLIBC_FLOOR (the Python wheel's build)" >&2
  # One build for every artifact: a second toolchain (cargo-zigbuild) configures the linker
  # differently, so cargo would rebuild everything for it (8-11 minutes measured). The wheel
  # made here is thrown away; after scripts/package's python part, cargo has nothing to do.
  local scratch
  scratch="$(mktemp -d)"
  maturin_zig "$ROOT/bindings/python" --out "$scratch" >&2
  rm -rf "$scratch"
  SIKA_NATIVE_LIBRARY="$SIKA_NATIVE_DIR/libsika_ffi.so"
  export SIKA_NATIVE_LIBRARY
  assert_glibc_floor "$SIKA_NATIVE_LIBRARY" >&2
  echo "$SIKA_NATIVE_LIBRARY"
}

# The release profile never strips (uniffi-bindgen reads the metadata from the symbol table);
# shipped copies drop the symbol table and debug sections, keeping the dynamic symbols the
# languages load.
strip_copy() {
  local src="${1:?usage: strip_copy SRC DEST}" dest="${2:?usage: strip_copy SRC DEST}"
  mkdir -p "$(dirname "$dest")"
  strip --strip-all -o "$dest" "$src"
}

assert_glibc_floor() {
  local file newer status=0
  (($#)) || die "usage: assert_glibc_floor FILE..."
  for file in "$@"; do
    [[ -f "$file" ]] || die "assert_glibc_floor: no file $file"
    # Every GLIBC_x.y[.z] version the file needs (dynamic symbols and version references),
    # those above the floor kept with their symbol names.
    newer="$(objdump -T "$file" | awk -v floor="$SIKA_GLIBC_FLOOR" '
      function newer(v,   a, b, i) {
        split(v, a, "."); split(floor, b, ".")
        for (i = 1; i <= 3; i++) { if ((a[i] + 0) != (b[i] + 0)) return (a[i] + 0) > (b[i] + 0) }
        return 0
      }
      match($0, /GLIBC_[0-9]+(\.[0-9]+)+/) {
        v = substr($0, RSTART + 6, RLENGTH - 6)
        if (newer(v)) print "GLIBC_" v " " $NF
      }')"
    if [[ -n "$newer" ]]; then
      printf 'error: %s needs glibc newer than %s:\n%s\n' "$file" "$SIKA_GLIBC_FLOOR" "$newer" >&2
      status=1
    fi
  done
  ((status == 0)) || die "glibc floor $SIKA_GLIBC_FLOOR exceeded (see above)"
}
