# Shared helpers for the scripts. Source it; it sets `set -euo pipefail` and ROOT.
set -euo pipefail
# A failing command inside $(...) (e.g. a sandbox build) must stop the script too.
shopt -s inherit_errexit
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
# Machine-wide cache for things the scripts install (venvs, the Swift chroot); never in the repo.
SIKA_CACHE="${SIKA_CACHE:-$HOME/.cache/sika}"
mkdir -p "$SIKA_CACHE"

step() { printf '\n==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The sandbox binary, built once per run (debug profile: shared with `cargo test`).
sandbox_binary() {
  cargo build --quiet -p sika-sandbox >&2
  printf '%s/target/debug/sika-sandbox' "$ROOT"
}

# start_sandbox KEY [extra args...]: starts the sandbox on a free loopback port, sets
# SANDBOX_URL and SANDBOX_PID, and stops it when the script exits.
start_sandbox() {
  local key="$1"; shift
  local bin out
  bin="$(sandbox_binary)"
  out="$(mktemp)"
  "$bin" --port 0 --secret-key "$key" "$@" >"$out" 2>"$out.err" &
  SANDBOX_PID=$!
  trap stop_sandbox EXIT
  local line=""
  for _ in $(seq 1 100); do
    line="$(head -n 1 "$out" 2>/dev/null || true)"
    [[ "$line" == "listening on "* ]] && break
    kill -0 "$SANDBOX_PID" 2>/dev/null || { cat "$out.err" >&2; die "the sandbox exited at start"; }
    sleep 0.1
  done
  [[ "$line" == "listening on "* ]] || die "the sandbox did not start within 10 s"
  SANDBOX_URL="${line#listening on }"
  export SANDBOX_URL SANDBOX_PID
}

stop_sandbox() {
  if [[ -n "${SANDBOX_PID:-}" ]] && kill -0 "$SANDBOX_PID" 2>/dev/null; then
    kill "$SANDBOX_PID" 2>/dev/null || true
    wait "$SANDBOX_PID" 2>/dev/null || true
  fi
  SANDBOX_PID=""
}

# Sums cargo's "test result" lines of a log: prints "PASSED FAILED".
sum_cargo_results() {
  awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
       END { printf "%d %d\n", p, f }' "$1"
}
