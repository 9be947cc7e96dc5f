# Sourced by scripts/test-python and scripts/example-python, after scripts/lib/common.sh:
# the cached venv with the pinned tools, and a fresh build of the package installed into it.
# shellcheck source=../../scripts/lib/package-native.sh
source "$ROOT/scripts/lib/package-native.sh"
PYTHON_DIR="$ROOT/bindings/python"
# SIKA_PYTHON_VENV: another venv, so two work trees can test at once without sharing one.
VENV="${SIKA_PYTHON_VENV:-$SIKA_CACHE/python-venv}"

# Creates the venv once; reinstalls the tools whenever requirements-dev.txt changes.
ensure_python_venv() {
  if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    command -v apt-get >/dev/null || die "python3 with its venv module is required"
    step "python: installing python3-venv"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >/dev/null
  fi
  if ! "$VENV/bin/python" -c '' 2>/dev/null; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
  fi
  if ! cmp -s "$PYTHON_DIR/requirements-dev.txt" "$VENV/requirements-dev.txt"; then
    step "python: installing the pinned tools into $VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$PYTHON_DIR/requirements-dev.txt"
    cp "$PYTHON_DIR/requirements-dev.txt" "$VENV/requirements-dev.txt"
  fi
}

# Builds the wheel (maturin: the release cdylib, then bindings generated from it) and installs
# it over any previous build, so the venv never runs stale bindings. The release build is the
# release files' (maturin --zig for glibc 2.17, scripts/lib/package-native.sh): the suites test
# the library that ships, and CI builds it once (ADR 0089). SIKA_PYTHON_BUILD=debug
# (scripts/dev-python) builds it from the debug cdylib instead, the one `cargo build` and the Rust
# suite already made: seconds instead of a release build's minutes, for the edit-test loop only
# (the suites and the release files are always built with --release).
install_sika() {
  local wheels="$ROOT/target/python-wheels"
  if [[ "${SIKA_PYTHON_BUILD:-release}" == debug ]]; then
    wheels="$ROOT/target/python-wheels-debug"
    rm -rf "$wheels"
    (cd "$PYTHON_DIR" && "$VENV/bin/maturin" build --out "$wheels")
  else
    rm -rf "$wheels"
    ensure_package_venv >&2
    maturin_zig "$PYTHON_DIR" --out "$wheels"
  fi
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/sika-*.whl
}

# The installed package's `sika/_ffi/sika_ffi.py` must be exactly what UniFFI's stock generator
# writes from the same library and uniffi.toml (`uniffi-bindgen generate-stock`: UniFFI alone,
# none of Sika's steps), with no name of Sika's in it: Sika's runtime is sika/_runtime (ADR 0033).
check_generated_as_generated() {
  local site stock library
  site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  # The library maturin generated the bindings from (the wheel's copy may be stripped).
  library="$SIKA_NATIVE_DIR/libsika_ffi.so"
  [[ -f "$library" && -f "$site/sika/_ffi/sika_ffi.py" ]] || die "no built library or installed sika_ffi.py"
  stock="$(mktemp -d)"
  # The binary maturin ran (`generate`), in its mode that runs UniFFI's generator alone.
  "$ROOT/target/debug/uniffi-bindgen" \
    generate-stock --library "$library" --language python --out-dir "$stock" --no-format
  if ! cmp "$stock/sika_ffi.py" "$site/sika/_ffi/sika_ffi.py"; then
    diff -u "$stock/sika_ffi.py" "$site/sika/_ffi/sika_ffi.py" | head -40
    rm -rf "$stock"
    die "the shipped sika_ffi.py is not what UniFFI generates"
  fi
  rm -rf "$stock"
  if grep -n "_uniffi_sika" "$site/sika/_ffi/sika_ffi.py"; then
    die "the shipped sika_ffi.py holds Sika's names"
  fi
  echo "sika_ffi.py: identical to UniFFI's stock output, no _uniffi_sika name"
}
