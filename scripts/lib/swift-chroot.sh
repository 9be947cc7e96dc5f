# shellcheck shell=bash
# The Swift toolchain in a Debian trixie chroot: Swift 6 is packaged for trixie (`swiftlang`)
# but not for the bookworm hosts we build on. Source it after common.sh, then:
#   swift_chroot_ensure                                  creates the chroot once (cached)
#   swift_package_prepare                                builds the library, places the bindings
#   swift_chroot_run DIR [NAME=VALUE...] -- COMMAND...   runs COMMAND in DIR inside the chroot
# The repo is bind-mounted at its own absolute path, so every path (the library, the sandbox
# binary, the fixtures) means the same file inside and outside. Needs root (chroot, mount).

SWIFT_CHROOT="$SIKA_CACHE/swift-trixie"
SWIFT_CHROOT_PACKAGES=(swiftlang libc6-dev libstdc++-14-dev ca-certificates)
# Written once the packages are installed: a run that finds it skips the whole setup.
SWIFT_CHROOT_READY="$SWIFT_CHROOT/.sika-swiftlang-ready"
SWIFT_CHROOT_SCRIPT="${BASH_SOURCE[0]}"

swift_chroot_ensure() {
  [[ -f "$SWIFT_CHROOT_READY" ]] && return 0
  ((EUID == 0)) || die "creating the Swift chroot needs root (debootstrap, chroot, mount)"
  # Two runs at once (a test and the example) must not build the chroot twice.
  local lock
  exec {lock}>"$SIKA_CACHE/swift-trixie.lock"
  flock "$lock"
  if [[ ! -f "$SWIFT_CHROOT_READY" ]]; then
    _swift_chroot_create
  fi
  exec {lock}>&-
}

_swift_chroot_create() {
  step "creating the Swift chroot in $SWIFT_CHROOT (once; about a minute)"
  if ! command -v debootstrap >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  fi
  local base_ready="$SWIFT_CHROOT/.sika-debootstrap-done"
  if [[ ! -f "$base_ready" ]]; then
    # A chroot without the marker is an interrupted debootstrap: start over. Mounts only live
    # in private namespaces (swift_chroot_run), but never delete through a live bind mount.
    if [[ -e "$SWIFT_CHROOT" ]]; then
      if grep -q " $SWIFT_CHROOT/" /proc/self/mounts; then
        die "something is mounted under $SWIFT_CHROOT; unmount it first"
      fi
      rm -rf --one-file-system "$SWIFT_CHROOT"
    fi
    # No mirror named: debootstrap's own default serves.
    debootstrap --variant=minbase trixie "$SWIFT_CHROOT" \
      >"$SIKA_CACHE/swift-debootstrap.log" 2>&1 ||
      { tail -n 20 "$SIKA_CACHE/swift-debootstrap.log" >&2; die "debootstrap failed (log: $SIKA_CACHE/swift-debootstrap.log)"; }
    touch "$base_ready"
  fi
  # For apt inside the chroot only; the tests use loopback.
  cp /etc/resolv.conf "$SWIFT_CHROOT/etc/resolv.conf"
  swift_chroot_run / DEBIAN_FRONTEND=noninteractive -- apt-get update -qq
  swift_chroot_run / DEBIAN_FRONTEND=noninteractive -- \
    apt-get install -y -qq --no-install-recommends "${SWIFT_CHROOT_PACKAGES[@]}" >"$SIKA_CACHE/swift-apt.log" 2>&1 ||
    { tail -n 20 "$SIKA_CACHE/swift-apt.log" >&2; die "installing swiftlang failed (log: $SIKA_CACHE/swift-apt.log)"; }
  swift_chroot_run / -- apt-get clean
  touch "$SWIFT_CHROOT_READY"
}

# Builds libsika_ffi.so on the host, generates the bindings (fresh every time: stale ones load
# silently) and puts them where bindings/swift/Package.swift expects them. Sets
# SWIFT_PACKAGE_DIR, SIKA_FFI_LIB_DIR (the library's directory) and SWIFT_FFI_ENV: the
# PKG_CONFIG_PATH through which SwiftPM finds sika_ffi.pc, and the LD_LIBRARY_PATH through which
# the built programs load the library (ADR 0020), for swift_chroot_run.
swift_package_prepare() {
  SWIFT_PACKAGE_DIR="$ROOT/bindings/swift"
  local generated="$SWIFT_PACKAGE_DIR/.generated" library
  step "building libsika_ffi.so and generating the Swift bindings"
  library="$("$ROOT/scripts/build-ffi" swift "$generated" | tail -n 1)"
  [[ "$library" == "$ROOT/"* ]] || die "the library ($library) must be inside the repo, which the chroot sees"
  # shellcheck disable=SC2034 # read by the calling script
  SIKA_FFI_LIB_DIR="$(dirname "$library")"
  # shellcheck disable=SC2034 # read by the calling script
  SWIFT_FFI_ENV=(PKG_CONFIG_PATH="$SIKA_FFI_LIB_DIR" LD_LIBRARY_PATH="$SIKA_FFI_LIB_DIR")
  mkdir -p "$SWIFT_PACKAGE_DIR/Sources/SikaFFI"
  _swift_install_if_changed "$generated/SikaFFI.h" "$SWIFT_PACKAGE_DIR/Sources/SikaFFI/SikaFFI.h"
  # SwiftPM reads a system library's module map only under this exact name.
  _swift_install_if_changed "$generated/SikaFFI.modulemap" "$SWIFT_PACKAGE_DIR/Sources/SikaFFI/module.modulemap"
  _swift_install_if_changed "$generated/Sika.swift" "$SWIFT_PACKAGE_DIR/Sources/Sika/Sika.swift"
  _swift_install_if_changed "$generated/Sika+Codable.swift" "$SWIFT_PACKAGE_DIR/Sources/Sika/Sika+Codable.swift"
  # SikaTesting's resource: the control API as tests/fixtures describes it (ADR 0051). A copy,
  # not a link: SwiftPM copies a link as it is into the resource bundle, where it dangles.
  _swift_install_if_changed "$ROOT/tests/fixtures/sandbox_control.json" \
    "$SWIFT_PACKAGE_DIR/Sources/SikaTesting/sandbox_control.json"
}

# Copies only a changed file: a new mtime alone would make SwiftPM recompile the module.
_swift_install_if_changed() {
  cmp -s "$1" "$2" || cp "$1" "$2"
}

# swift_chroot_run DIR [NAME=VALUE...] -- COMMAND...
# Only the variables given (plus PATH, HOME, LANG) reach COMMAND: the host's environment is
# not the chroot's. The mounts are made in a private mount namespace, so they are invisible
# to other runs and vanish with it even if this script is killed.
# With SWIFT_CHROOT_OVERLAY=DIR set, the chroot is an overlay whose changes go to DIR/upper
# (kept across runs with the same DIR): what COMMAND installs (`dpkg -i`) stays out of the
# shared chroot and out of every other run.
swift_chroot_run() {
  ((EUID == 0)) || die "running Swift in its chroot needs root (unshare, mount, chroot)"
  unshare --mount --propagation private -- bash "$SWIFT_CHROOT_SCRIPT" --enter "$SWIFT_CHROOT" "$ROOT" \
    "${SWIFT_CHROOT_OVERLAY:-}" "$@"
}

# Runs inside the private namespace: bind-mounts, runs the command, unmounts on any exit.
_swift_chroot_enter() {
  local chroot_dir="$1" repo="$2" overlay="$3" dir="$4"
  shift 4
  local -a env_vars=()
  while (($#)) && [[ "$1" != "--" ]]; do
    env_vars+=("$1")
    shift
  done
  shift # the "--"
  # Global, not local: the EXIT trap runs after this function has returned.
  SWIFT_CHROOT_MOUNTED=()
  trap _swift_chroot_unmount EXIT
  if [[ -n "$overlay" ]]; then
    mkdir -p "$overlay/upper" "$overlay/work" "$overlay/merged"
    mount -t overlay overlay -o "lowerdir=$chroot_dir,upperdir=$overlay/upper,workdir=$overlay/work" "$overlay/merged"
    SWIFT_CHROOT_MOUNTED+=("$overlay/merged")
    chroot_dir="$overlay/merged"
  fi
  local source target
  for source in /proc /sys /dev "$repo"; do
    target="$chroot_dir$source"
    mkdir -p "$target"
    # Idempotent: a target that is already a mount point is left as it is.
    if ! mountpoint -q "$target"; then
      mount --bind "$source" "$target"
      SWIFT_CHROOT_MOUNTED+=("$target")
    fi
  done
  local status=0
  chroot "$chroot_dir" /usr/bin/env -i --chdir="$dir" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    "${env_vars[@]}" "$@" || status=$?
  return "$status"
}

_swift_chroot_unmount() {
  local i
  for ((i = ${#SWIFT_CHROOT_MOUNTED[@]} - 1; i >= 0; i--)); do
    umount "${SWIFT_CHROOT_MOUNTED[i]}" 2>/dev/null || umount -l "${SWIFT_CHROOT_MOUNTED[i]}"
  done
}

# Executed (not sourced) by swift_chroot_run inside `unshare`.
if [[ "${BASH_SOURCE[0]}" == "$0" && "${1:-}" == "--enter" ]]; then
  set -euo pipefail
  shift
  _swift_chroot_enter "$@"
fi
