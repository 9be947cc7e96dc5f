"""Where the event loop's thread spends its samples, from `py-spy record --format raw`
(issue 45, bench/analysis.md): the share of the main thread's samples whose stack holds each
step of an awaited call, and the leaf lines that take the most.

    py-spy record --rate 250 --format raw --output raw.txt -- python bench/python/profile_calls.py async ...
    python bench/python/pyspy_summary.py raw.txt
"""

from __future__ import annotations

import collections
import re
import sys

# A step of the call: a pattern of a frame in the stack (py-spy's "function (file:line)").
STEPS = {
    "lift (the flat reader, the converters' lift)": r"_uniffi_sika_read_|^lift \(.*readers\.py",
    "the call's end (ffi_complete, its status)": r"_uniffi_rust_call_with_error \(.*calls\.py",
    "ffi_free": r"_uniffi_rust_call_async \(.*asyncio_wakes\.py:2[01]\d\)",
    "poll (ffi_poll, the continuation inside it)": r"_uniffi_rust_call_async \(.*asyncio_wakes\.py:1[89]\d\)|_continuation \(",
    "the loop's drain of completions": r"drain \(.*asyncio_wakes\.py",
    "starting the call (lowering, the Rust future)": r"verify_transaction \(.*sika_ffi\.py",
    "the tracing wrapper (OpenTelemetry API, no SDK)": r"_start \(.*_tracing\.py",
    "asyncio's own loop (select, handles)": r"_run_once \(|select \(",
}


def main() -> None:
    steps: collections.Counter[str] = collections.Counter()
    leaves: collections.Counter[str] = collections.Counter()
    total = 0
    for line in open(sys.argv[1]):
        stack, _, count_text = line.rstrip("\n").rpartition(" ")
        frames = stack.split(";")
        # Without `--threads` a stack starts at its thread's first frame: the loop's thread is
        # the one running the event loop (the SDK's threads start in a continuation).
        if not any(frame.startswith("BaseEventLoop.run_until_complete") for frame in frames):
            continue
        count = int(count_text)
        total += count
        leaves[frames[-1]] += count
        for step, pattern in STEPS.items():
            if any(re.search(pattern, frame) for frame in frames[1:]):
                steps[step] += count
    print(f"main thread: {total} samples")
    for step in STEPS:
        print(f"  {100 * steps[step] / max(total, 1):5.1f}%  {step}")
    print("hottest leaf lines:")
    for leaf, count in leaves.most_common(15):
        print(f"  {100 * count / max(total, 1):5.1f}%  {leaf}")


if __name__ == "__main__":
    main()
