# Shared helpers for the scripts. Source it; it sets `set -euo pipefail` and ROOT.
set -euo pipefail
# A failing command inside $(...) (e.g. a sandbox build) must stop the script too.
shopt -s inherit_errexit
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
# CI builds each crate once, from a fresh clone: incremental state would only fill the disk.
if [[ "${CI:-}" == true ]]; then
  export CARGO_INCREMENTAL=0
fi
# Machine-wide cache for things the scripts install (venvs, the Swift chroot); never in the repo.
SIKA_CACHE="${SIKA_CACHE:-$HOME/.cache/sika}"
mkdir -p "$SIKA_CACHE"

# The version of every artifact: the workspace's ([workspace.package] in Cargo.toml), one source.
workspace_version() {
  sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/Cargo.toml" | head -n 1
}

# Each step is stamped with the wall clock, so a CI log shows where its minutes went.
step() { printf '\n==> [%s] %s\n' "$(date -u +%T)" "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The sandbox binary, built once per run (debug profile: shared with `cargo test`).
sandbox_binary() {
  cargo build --quiet -p sika-sandbox >&2
  printf '%s/target/debug/sika-sandbox' "$ROOT"
}

# start_sandbox KEY [extra args...]: starts the sandbox ($SIKA_SANDBOX_BIN, else the build's) on
# a free loopback port, sets SANDBOX_URL and SANDBOX_PID, and stops it when the script exits.
start_sandbox() {
  local key="$1"; shift
  local bin out
  bin="${SIKA_SANDBOX_BIN:-$(sandbox_binary)}"
  out="$(mktemp)"
  # The key goes through the environment, not the command line other users can read (B62).
  SIKA_SANDBOX_SECRET_KEY="$key" "$bin" --port 0 "$@" >"$out" 2>"$out.err" &
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

# report_results SUITE XML...: counts a suite from its runner's JUnit XML reports (never from
# its text output): writes the per-test results to $SIKA_RESULTS/SUITE.tsv for the category
# summary, prints `SUITE: N passed, M failed` and appends it to $SIKA_SUMMARY. Without a report
# (the runner died first) it appends nothing: scripts/test then says the suite stopped early.
report_results() {
  local suite="$1"; shift
  local reports=() file
  for file in "$@"; do [[ -s "$file" ]] && reports+=("$file"); done
  if ((${#reports[@]} == 0)); then
    echo "$suite: no test report was written"
    return 0
  fi
  local tsv="${SIKA_RESULTS:-$(mktemp -d)}/$suite.tsv" line
  line="$(python3 "$ROOT/scripts/lib/results.py" report "$suite" "$tsv" "${reports[@]}")"
  echo "$line"
  [[ -z "${SIKA_SUMMARY:-}" ]] || echo "$line" >>"$SIKA_SUMMARY"
}
