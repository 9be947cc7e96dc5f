# shellcheck shell=bash
# The Swift artifacts (ADR 0026), sourced by scripts/package after scripts/lib/common.sh and
# scripts/lib/package-native.sh:
#   package_swift DIST   writes DIST/swift:
#     libsika-ffi_<version>_amd64.deb   the stripped glibc 2.17 libsika_ffi.so in
#                                       /usr/lib/x86_64-linux-gnu and its sika_ffi.pc in
#                                       /usr/lib/pkgconfig, where SwiftPM finds it (ADR 0020)
#     sika-swift-<version>.tar.gz       the package (bindings/swift) with the sources generated
#                                       from that library, in sika-swift-<version>/
# The package's manifest is the repository's: it names the library only through pkg-config.

SIKA_DEB_LIBDIR=/usr/lib/x86_64-linux-gnu
# SwiftPM reads .pc files itself from PKG_CONFIG_PATH and a fixed list (/usr/local/lib/pkgconfig,
# /usr/local/share/pkgconfig, /usr/lib/pkgconfig, /usr/share/pkgconfig), asking pkg-config for
# more only when that program is installed: /usr/lib/pkgconfig works with and without it.
SIKA_DEB_PCDIR=/usr/lib/pkgconfig

package_swift() {
  local dist="${1:?usage: package_swift DIST}"
  local version library work="$ROOT/target/package/swift"
  version="$(workspace_version)"
  library="$(package_native_library)"
  rm -rf "$work" "$dist/swift"
  mkdir -p "$work" "$dist/swift"

  step "package: Swift bindings from the glibc $SIKA_GLIBC_FLOOR library"
  cargo build --quiet -p uniffi-bindgen
  "$ROOT/target/debug/uniffi-bindgen" generate --library "$library" --language swift \
    --out-dir "$work/generated" --no-format >&2

  step "package: the Swift package's sources (sika-swift-$version.tar.gz)"
  local name="sika-swift-$version" file
  local tree="$work/$name"
  mkdir -p "$tree"
  # What git tracks (never a build's leftovers) but its .gitignore, which ignores the generated
  # sources a release must carry (and a merchant may commit); then the generated files where
  # Package.swift expects them (as scripts/lib/swift-chroot.sh places them).
  while IFS= read -r file; do
    [[ "$file" != .gitignore ]] || continue
    mkdir -p "$tree/$(dirname "$file")"
    cp "$ROOT/bindings/swift/$file" "$tree/$file"
  done < <(git -C "$ROOT/bindings/swift" ls-files)
  mkdir -p "$tree/Sources/SikaFFI"
  cp "$work/generated/SikaFFI.h" "$tree/Sources/SikaFFI/SikaFFI.h"
  cp "$work/generated/SikaFFI.modulemap" "$tree/Sources/SikaFFI/module.modulemap"
  cp "$work/generated/Sika.swift" "$tree/Sources/Sika/Sika.swift"
  cp "$work/generated/Sika+Codable.swift" "$tree/Sources/Sika/Sika+Codable.swift"
  cp "$ROOT/tests/fixtures/sandbox_control.json" "$tree/Sources/SikaTesting/sandbox_control.json"
  _copy_licences "$tree"
  _deterministic_tar "$work" "$name" "$dist/swift/$name.tar.gz"

  step "package: the native library for SwiftPM (libsika-ffi_${version}_amd64.deb)"
  local root="$work/deb"
  strip_copy "$library" "$root$SIKA_DEB_LIBDIR/libsika_ffi.so"
  chmod 0644 "$root$SIKA_DEB_LIBDIR/libsika_ffi.so"
  assert_glibc_floor "$root$SIKA_DEB_LIBDIR/libsika_ffi.so"
  mkdir -p "$root$SIKA_DEB_PCDIR" "$root/usr/share/doc/libsika-ffi" "$root/DEBIAN"
  cat >"$root$SIKA_DEB_PCDIR/sika_ffi.pc" <<PC
libdir=$SIKA_DEB_LIBDIR

Name: sika_ffi
Description: Sika payments SDK, the native library of the Swift package
Version: $version
Libs: -L\${libdir} -lsika_ffi
PC
  _copy_licences "$root/usr/share/doc/libsika-ffi"
  cat >"$root/usr/share/doc/libsika-ffi/copyright" <<'COPYRIGHT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: sika

Files: *
Copyright: The Sika developers
License: MIT or Apache-2.0
 The texts are in /usr/share/doc/libsika-ffi/LICENSE-MIT and LICENSE-APACHE.
COPYRIGHT
  local size
  size="$(du -sk --exclude=DEBIAN "$root" | cut -f 1)"
  # libgcc_s (Rust's unwinder) is libgcc1 before Debian 11 and Ubuntu 20.04.
  cat >"$root/DEBIAN/control" <<CONTROL
Package: libsika-ffi
Version: $version
Architecture: amd64
Maintainer: The Sika developers <sika@example.invalid>
Installed-Size: $size
Depends: libc6 (>= $SIKA_GLIBC_FLOOR), libgcc-s1 | libgcc1
Section: libs
Priority: optional
Homepage: https://example.invalid/sika
Description: Sika payments SDK, native library for the Swift package
 libsika_ffi.so, the Rust core of the Sika payments SDK, with the pkg-config
 file (sika_ffi.pc) through which the Swift package Sika links it.
CONTROL
  # The loader's cache learns the new library (dpkg runs ldconfig once per transaction).
  echo "activate-noawait ldconfig" >"$root/DEBIAN/triggers"
  (cd "$root" && find usr -type f -printf '%P\0' | sort -z | sed -z 's|^|usr/|' | xargs -0 md5sum >DEBIAN/md5sums)
  dpkg-deb --root-owner-group -Zxz --build "$root" "$dist/swift/libsika-ffi_${version}_amd64.deb" >&2
  _check_swift_artifacts "$dist/swift" "$version"
  ls -l "$dist/swift"
}

_copy_licences() {
  local licence
  for licence in LICENSE-MIT LICENSE-APACHE; do
    [[ -f "$ROOT/$licence" ]] || die "package: $ROOT/$licence is missing"
    cp "$ROOT/$licence" "$1/$licence"
  done
}

# tar of DIR/NAME into OUT, the same bytes for the same files: sorted, no owners, fixed times.
_deterministic_tar() {
  local epoch
  epoch="$(git -C "$ROOT" log -1 --format=%ct)"
  tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner --format=gnu \
    -C "$1" -cf - "$2" | gzip -n -9 >"$3"
}

_check_swift_artifacts() {
  local directory="$1" version="$2" contents
  local deb="$directory/libsika-ffi_${version}_amd64.deb"
  contents="$(dpkg-deb --contents "$deb")"
  for file in "$SIKA_DEB_LIBDIR/libsika_ffi.so" "$SIKA_DEB_PCDIR/sika_ffi.pc" \
    /usr/share/doc/libsika-ffi/LICENSE-MIT /usr/share/doc/libsika-ffi/LICENSE-APACHE; do
    grep -q " \.$file\$" <<<"$contents" || die "package: $deb lacks $file"
  done
  [[ "$(dpkg-deb --field "$deb" Version)" == "$version" ]] || die "package: $deb is not version $version"
  contents="$(tar -tzf "$directory/sika-swift-$version.tar.gz")"
  for file in Package.swift Sources/Sika/Sika.swift Sources/Sika/Sika+Codable.swift Sources/SikaFFI/SikaFFI.h \
    Sources/SikaFFI/module.modulemap Examples/MobileMoneyFlow/main.swift LICENSE-MIT LICENSE-APACHE; do
    grep -qx "sika-swift-$version/$file" <<<"$contents" || die "package: the Swift sources lack $file"
  done
}
