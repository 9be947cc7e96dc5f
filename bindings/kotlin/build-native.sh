#!/usr/bin/env bash
# Run by Maven (generate-sources) on every build, because stale bindings load silently against
# a changed library: builds libsika_ffi.so, generates the Kotlin bindings into SOURCES_DIR and
# copies the library into LIBRARY_DIR (packaged as linux-x86-64/ in the jar, where JNA looks).
#   build-native.sh SOURCES_DIR LIBRARY_DIR
set -euo pipefail
sources_dir="${1:?usage: build-native.sh SOURCES_DIR LIBRARY_DIR}"
library_dir="${2:?usage: build-native.sh SOURCES_DIR LIBRARY_DIR}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

library="$("$root/scripts/build-ffi" kotlin "$sources_dir" | tail -n 1)"
mkdir -p "$library_dir"
cp "$library" "$library_dir/libsika_ffi.so"
