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

# UniFFI's Kotlin errors build `message` from their field names ("field=amount, reason=...",
# and "" for variants without fields); only toString() uses the core's exported Display. Kotlin
# and Java code (and loggers) read `message`, so it returns the core's text, through the
# exported `message()` method: presentation only, the text itself comes from Rust.
generated="$sources_dir/dev/sika/sika_ffi.kt"
perl -0pi -e 's/override val message\n(\s*)get\(\) = "[^"\n]*"/override val message: String\n$1get() = this.message()/g' "$generated"
if ! grep -q 'get() = this.message()' "$generated" || grep -Pzo 'override val message\n\s*get\(\) = "' "$generated" >/dev/null; then
  echo "error: the generated SikaException no longer matches the expected shape; update build-native.sh" >&2
  exit 1
fi
