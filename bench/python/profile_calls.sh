#!/usr/bin/env bash
# Instructions per call of the Python hot paths (bench/python/profile_calls.py), counted by
# callgrind: each mode run twice (SMALL and LARGE calls), the difference of the totals over the
# difference of the counts. Repeatable under load, where wall-clock figures are not.
#   bench/python/profile_calls.sh PYTHON [MODE...]   (default: every mode)
# PYTHON: an interpreter with the sika wheel and the bench's requirements installed. Starts a
# sandbox ($SIKA_SANDBOX_BIN, else the release build) on a free loopback port.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
cd "$ROOT"
python="$1"; shift
modes=("$@")
((${#modes[@]})) || modes=(lift async aiohttp floor blocking-main blocking-worker requests)
command -v valgrind >/dev/null || die "valgrind is not installed"
export SIKA_BENCH_KEY="sk_test_canary_profile_$RANDOM$RANDOM"
sandbox_binary() { printf '%s/target/release/sika-sandbox' "$ROOT"; }
start_sandbox "$SIKA_BENCH_KEY"
reference="BENCH-ORDER-1001"
python3 - "$SANDBOX_URL" "$reference" <<'EOF'
import json, sys, urllib.request
data = json.load(open("tests/fixtures/responses/verify_successful.json"))["data"]
data["tx_ref"] = sys.argv[2]
request = urllib.request.Request(sys.argv[1] + "/__sandbox/transactions", json.dumps(data).encode(), {"content-type": "application/json"})
assert urllib.request.urlopen(request).status == 201
EOF
out="$(mktemp -d)"
instructions() {
  # The total of every thread of the process (callgrind's "Collected" summary line).
  valgrind --tool=callgrind --callgrind-out-file="$out/cg.%p" "$python" bench/python/profile_calls.py \
    "$1" "$SANDBOX_URL" "$reference" "$2" 2>&1 >/dev/null | awk '/Collected :/ { print $NF }'
}
for mode in "${modes[@]}"; do
  small=200 large=1200
  [[ "$mode" == lift ]] && small=1000 large=11000
  a="$(instructions "$mode" "$small")"
  b="$(instructions "$mode" "$large")"
  printf '%s\t%s instructions/call\n' "$mode" "$(( (b - a) / (large - small) ))"
done
rm -rf "$out"
