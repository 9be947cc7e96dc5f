"""Writes docs/BENCHMARKS.md from the RESULT lines of a scripts/bench run.

    report.py META_JSON RESULTS_TSV... > docs/BENCHMARKS.md
    report.py --part ledger|tracing META_JSON RESULTS_TSV... > PART   (one part alone)
    report.py --splice docs/BENCHMARKS.md PART                         (PART put in the doc in place)

The ledger's part (issue 28) sits between `LEDGER_BEGIN` and `LEDGER_END` in the doc, and the
traces' cost (issue 30) between `TRACING_BEGIN` and `TRACING_END`, each with its own run line,
so `scripts/bench --only ledger` (or `--only tracing`) replaces that part and leaves every other
figure (from an earlier run) as it was.

A RESULT line is `RESULT<TAB>group<TAB>contender<TAB>unit<TAB>value`; each group is one
interleaved comparison. The ratio of a row is always "how many times better the SDK is":
for calls/s the SDK's median over the row's, for times the row's median over the SDK's.
"""

from __future__ import annotations

import json
import os
import statistics
import sys

# group: (title, the SDK contender every row is compared with, bounded by the sandbox?)
GROUPS = {
    "py_verify_sequential": ("Python: sequential verify_transaction (one caller)", "sika.BlockingClient"),
    "py_verify_100_in_flight": ("Python: asyncio, 100 calls in flight", "sika.Client"),
    "kt_verify_sequential": ("Kotlin (JVM): sequential verifyTransaction", "sika BlockingClient"),
    "kt_verify_100_in_flight": ("Kotlin (JVM): coroutines, 100 calls in flight", "sika Client (suspend)"),
    "swift_verify_sequential": ("Swift: sequential verifyTransaction", "sika BlockingClient"),
    "swift_verify_100_in_flight": ("Swift: async, 100 calls in flight", "sika Client (async)"),
    "sandbox_ceiling": ("The sandbox's own ceiling (wrk, no client work)", None),
    "py_ffi_call": ("Python: one FFI call without I/O", None),
    "kt_ffi_call": ("Kotlin: one FFI call without I/O", None),
    "swift_ffi_call": ("Swift: one FFI call without I/O", None),
    "py_decode_5000_banks": ("Python: decoding a 5,000-bank list response (no I/O)", "sika.decode_banks_response (typed)"),
    "py_cached_banks": ("Python: cached bank-list calls", None),
    "py_rss": ("Python: RSS over 100,000 verifications", None),
    "py_import": ("Python: `import sika` in a fresh interpreter (-X importtime)", None),
    "py_lift_transaction": ("Python: lifting one full Transaction from its buffer (no I/O)", "flat reader (the SDK's lift)"),
}

# (label, group, SDK contender, other contender, kind, threshold)
#   kind "ratio>=": SDK at least threshold times better; "within": other at most threshold
#   times better than the SDK; "max": the contender's median at most threshold.
TARGETS = [
    ("Python BlockingClient >= 5x requests.Session", "py_verify_sequential", "sika.BlockingClient", "requests.Session", "ratio>=", 5),
    ("Python BlockingClient >= 3x httpx.Client", "py_verify_sequential", "sika.BlockingClient", "httpx.Client", "ratio>=", 3),
    ("Python Client (100 in flight) >= 1.2x aiohttp", "py_verify_100_in_flight", "sika.Client", "aiohttp", "ratio>=", 1.2),
    ("Python Client (100 in flight) >= 10x httpx.AsyncClient", "py_verify_100_in_flight", "sika.Client", "httpx.AsyncClient", "ratio>=", 10),
    ("Python sequential within 1.5x of raw Rust", "py_verify_sequential", "sika.BlockingClient", "rust reqwest+serde (raw)", "within", 1.5),
    ("(for reference) Python BlockingClient from a worker thread >= 5x requests.Session", "py_verify_sequential", "sika.BlockingClient, from a worker thread", "requests.Session", "ratio>=", 5),
    ("(for reference) Rust SDK within 1.5x of raw Rust", "py_verify_sequential", "rust sika_core::BlockingClient", "rust reqwest+serde (raw)", "within", 1.5),
    ("(for reference) Python sequential within 1.5x of raw Rust on a multi-thread runtime", "py_verify_sequential", "sika.BlockingClient", "rust reqwest+serde (raw, multi-thread runtime)", "within", 1.5),
    ("Kotlin >= 1.5x java.net.http + Jackson", "kt_verify_sequential", "sika BlockingClient", "java.net.http + Jackson", "ratio>=", 1.5),
    ("Kotlin sequential within 1.5x of raw Rust", "kt_verify_sequential", "sika BlockingClient", "rust reqwest+serde (raw)", "within", 1.5),
    ("Swift >= 2x URLSession + JSONDecoder", "swift_verify_sequential", "sika BlockingClient", "URLSession + JSONDecoder", "ratio>=", 2),
    ("Swift sequential within 1.5x of raw Rust", "swift_verify_sequential", "sika BlockingClient", "rust reqwest+serde (raw)", "within", 1.5),
    ("Python lift of one full Transaction <= 15 us", "py_lift_transaction", None, "flat reader (the SDK's lift)", "max", 15),
    ("Python no-I/O FFI call <= 3 us", "py_ffi_call", None, "TransactionStatus.is_final (FFI)", "max", 3),
    ("Python typed 5,000-bank list <= 2x untyped json", "py_decode_5000_banks", "sika.decode_banks_response (typed)", "json.loads (untyped)", "within", 2),
    ("Python RSS growth over 100,000 verifications < 2 MB", "py_rss", None, "growth", "max", 2048),
    ("import sika < 30 ms", "py_import", None, "import sika (-X importtime, cumulative)", "max", 30),
    ("(for reference) import sika < 30 ms with asyncio already imported", "py_import", None, "import sika after asyncio (Sika's own part)", "max", 30),
]


# The ledger's groups (bench/rust/src/ledger.rs): rendered in their own part, never in GROUPS.
LEDGER_GROUPS = {
    "ledger_decision_sqlite": ("One webhook decision with and without the ledger, SQLite", None),
    "ledger_decision_postgres": ("One webhook decision with and without the ledger, PostgreSQL on loopback", None),
    "ledger_claims_sqlite": ("Claims per second, SQLite", "ledger.handle_webhook (SQLite), 32 in flight"),
    "ledger_claims_postgres": ("Claims per second, PostgreSQL on loopback", "ledger.handle_webhook (PostgreSQL), 32 in flight"),
}
LEDGER_TARGETS = [
    ("The ledger adds < 2 ms to a webhook decision at the median, PostgreSQL on loopback", "ledger_decision_postgres", None, "added by the ledger, median", "max", 2),
    ("(for reference) the same on SQLite", "ledger_decision_sqlite", None, "added by the ledger, median", "max", 2),
]
LEDGER_BEGIN = "<!-- ledger: written by scripts/bench (ledger part); do not edit by hand -->"
LEDGER_END = "<!-- /ledger -->"

# The traces' cost (bench/python/tracing.py, issue 30): rendered in their own part.
TRACING_GROUPS = {
    "py_tracing_verify": ("verify_transaction per call, one process per setup", None),
    "py_tracing_added": ("Added to a call, against (a) in the same round", None),
    "py_tracing_bridge": ("The bridge alone, no I/O (its steps timed directly)", None),
}
TRACING_TARGETS = [
    ("(c) - (a) < 5 us: OpenTelemetry with sampling off, per call", "py_tracing_added", None, "(c) - (a)", "max", 5),
]
TRACING_BEGIN = "<!-- tracing: written by scripts/bench (tracing part); do not edit by hand -->"
TRACING_END = "<!-- /tracing -->"
PARTS = {"ledger": (LEDGER_BEGIN, LEDGER_END), "tracing": (TRACING_BEGIN, TRACING_END)}


def load(paths: list[str]) -> dict[str, dict[str, tuple[str, list[float]]]]:
    groups: dict[str, dict[str, tuple[str, list[float]]]] = {}
    for path in paths:
        with open(path) as results:
            for line in results:
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 5 or parts[0] != "RESULT":
                    continue
                _, group, contender, unit, value = parts
                groups.setdefault(group, {}).setdefault(contender, (unit, []))[1].append(float(value))
    return groups


def fmt(value: float) -> str:
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


def higher_is_better(unit: str) -> bool:
    return unit.endswith("/s")


def ratio(groups, group: str, sdk: str, other: str) -> float | None:
    try:
        sdk_unit, sdk_values = groups[group][sdk]
        _, other_values = groups[group][other]
    except KeyError:
        return None
    a, b = statistics.median(sdk_values), statistics.median(other_values)
    return a / b if higher_is_better(sdk_unit) else b / a


def spread(values: list[float]) -> str:
    if len(values) >= 4:
        q = statistics.quantiles(values, n=4)
        return f"IQR {fmt(q[0])}-{fmt(q[2])}"
    return f"{fmt(min(values))}-{fmt(max(values))}"


def main() -> None:
    meta = json.load(open(sys.argv[1]))
    groups = load(sys.argv[2:])
    out = []
    w = out.append
    w("# Benchmarks")
    w("")
    w("Written by `scripts/bench` from its last run; do not edit by hand. Rerun with")
    w("`scripts/bench` (full, about 10 minutes) or `scripts/bench --quick` (fewer rounds, for iteration).")
    w("Performance claims about Sika come only from this script's output; the test suites hold")
    w("no timed assertions.")
    w("")
    w("## The run")
    w("")
    for key, value in meta["machine"].items():
        w(f"- {key}: {value}")
    w(f"- mode: {meta['mode']} ({meta['rounds']} interleaved rounds; {meta['calls']} sequential calls per round per contender)")
    w(f"- date: {meta['date']}")
    w("")
    w("Method: the release sandbox (`cargo build --release -p sika-sandbox`) on 127.0.0.1 serves a seeded")
    w("transaction with every field (customer, custom fields, exact amount, timestamps). Every")
    w("comparison is interleaved in one process run (A, B, C, A, B, C, ...); each row gives the median")
    w("over the rounds and the spread (min-max, or the inter-quartile range from 4 rounds up). **Ratio** is")
    w("how many times better the SDK is than that row (throughput: SDK / row; time: row / SDK), from")
    w("the medians; below 1 the row is faster. The sandbox and the client share the machine's 2 cores,")
    w("so every figure here is client plus server cost; see \"Bounded by the sandbox\" below.")
    w("")
    w("## Targets")
    w("")
    targets(w, groups, TARGETS)
    w("")
    tables(w, meta, groups, GROUPS)
    if any(group in groups for group in LEDGER_GROUPS):
        ledger_part(w, meta, groups)
        w("")
    if any(group in groups for group in TRACING_GROUPS):
        tracing_part(w, meta, groups)
        w("")
    for section in meta.get("sections", []):
        w(section)
        w("")
    # One newline at the end: a blank last line is a whitespace error (scripts/check).
    print("\n".join(out).rstrip("\n"))


def targets(w, groups, rows) -> None:
    w("| target | measured | met |")
    w("|---|---|---|")
    for label, group, sdk, other, kind, threshold in rows:
        if group not in groups:
            w(f"| {label} | not measured in this run | - |")
            continue
        if kind == "max":
            if other not in groups[group]:
                w(f"| {label} | not measured in this run | - |")
                continue
            unit, values = groups[group][other]
            value = statistics.median(values)
            w(f"| {label} | {fmt(value)} {unit} | {'yes' if value <= threshold else '**no**'} |")
            continue
        r = ratio(groups, group, sdk, other)
        if r is None:
            w(f"| {label} | not measured in this run | - |")
        elif kind == "ratio>=":
            w(f"| {label} | {r:.2f}x | {'yes' if r >= threshold else '**no**'} |")
        else:
            # "within": the other contender is at most `threshold` times better than the SDK.
            w(f"| {label} | {other} / SDK = {1 / r:.2f}x | {'yes' if 1 / r <= threshold else '**no**'} |")


def tables(w, meta, groups, titles, level: str = "##") -> None:
    for group, (title, sdk) in titles.items():
        if group not in groups:
            continue
        w(f"{level} {title}")
        w("")
        w("| contender | median | spread | rounds | ratio (SDK vs row) |")
        w("|---|---|---|---|---|")
        for contender, (unit, values) in groups[group].items():
            r = ratio(groups, group, sdk, contender) if sdk and contender != sdk else None
            shown = f"{r:.2f}x" if r is not None else ("(the SDK)" if contender == sdk else "")
            w(f"| {contender} | {fmt(statistics.median(values))} {unit} | {spread(values)} | {len(values)} | {shown} |")
        w("")
        note = meta.get("notes", {}).get(group)
        if note:
            w(note)
            w("")


def ledger_part(w, meta, groups) -> None:
    w(LEDGER_BEGIN)
    w("## The payments ledger (issue 28)")
    w("")
    w("Its own run (`scripts/bench --only ledger` replaces this part alone):")
    w("")
    w(f"- date: {meta['date']}")
    w(f"- mode: {meta['mode']} ({meta['rounds']} interleaved rounds; {meta.get('ledger_calls', '?')} decisions per kind per round)")
    w(f"- CPU: {meta['machine']['CPU']}; {meta['machine']['Rust']}")
    w("")
    w("`sika-bench ledger-sqlite` and `ledger-postgres` (bench/rust/src/ledger.rs): the Rust core")
    w("against the release sandbox, one process per database. SQLite: a file in a temporary")
    w("directory, the ledger's defaults.")
    w("PostgreSQL: a throwaway cluster on 127.0.0.1 (TCP), PostgreSQL's defaults (fsync and")
    w("`synchronous_commit` on), the ledger's pool at 32 connections.")
    w("")
    w("- **One decision**: each step times `ledger.handle_webhook(body)` on a new expected reference")
    w("  (read the record, verify, record the decision and the claim: `Fulfil`) and")
    w("  `client.handle_webhook(body, expected)` (parse, verify, decide; no database), in alternating")
    w("  order. Per round: the median and p90 of each, and what the ledger adds (its median or p90")
    w("  minus the client's). The rows give the median of those over the rounds.")
    w("- **Claims per second**: distinct new references, 32 decisions in flight, each a `Fulfil` with")
    w("  its claim; then the same references through `client.handle_webhook` alone (same verify, no")
    w("  ledger). Ratio: the ledger's rate over the row's.")
    w("")
    targets(w, groups, LEDGER_TARGETS)
    w("")
    tables(w, meta, groups, LEDGER_GROUPS, level="###")
    # The part's hand-written analysis, rendered with it (a `--only ledger` run keeps the rest).
    if os.path.exists("bench/analysis-ledger.md"):
        w(open("bench/analysis-ledger.md").read().strip())
        w("")
    w(LEDGER_END)


def python_today(groups) -> float | None:
    """The `python` part's BlockingClient figure in us per call: this run's, else the one in
    docs/BENCHMARKS.md (the last full run's)."""
    if "sika.BlockingClient" in groups.get("py_verify_sequential", {}):
        return 1e6 / statistics.median(groups["py_verify_sequential"]["sika.BlockingClient"][1])
    if not os.path.exists("docs/BENCHMARKS.md"):
        return None
    table = open("docs/BENCHMARKS.md").read().partition("## Python: sequential verify_transaction")[2]
    for line in table.splitlines():
        if line.startswith("| sika.BlockingClient |") and "calls/s" in line:
            return 1e6 / float(line.split("|")[2].split()[0].replace(",", ""))
    return None


def python_ffi_reference(groups) -> float | None:
    """The `python` part's one FFI call (`TransactionStatus.is_final`) in us: this run's, else
    the one in docs/BENCHMARKS.md."""
    row = "TransactionStatus.is_final (FFI)"
    if row in groups.get("py_ffi_call", {}):
        return statistics.median(groups["py_ffi_call"][row][1])
    if not os.path.exists("docs/BENCHMARKS.md"):
        return None
    table = open("docs/BENCHMARKS.md").read().partition("## Python: one FFI call without I/O")[2]
    for line in table.splitlines():
        if line.startswith(f"| {row} |"):
            return float(line.split("|")[2].split()[0].replace(",", ""))
    return None


def tracing_part(w, meta, groups) -> None:
    w(TRACING_BEGIN)
    w("## What traces cost a Python call (issue 30)")
    w("")
    w("Its own run (`scripts/bench --only tracing` replaces this part alone):")
    w("")
    w(f"- date: {meta['date']}")
    w(f"- mode: {meta['mode']} ({meta['rounds']} interleaved rounds; {meta.get('tracing_calls', '?')} calls per setup per round)")
    w(f"- CPU: {meta['machine']['CPU']}; {meta['machine']['Python']}; opentelemetry-api and -sdk 1.45.2")
    w("")
    w("`bench/python/tracing.py`: `BlockingClient.verify_transaction` against the release sandbox,")
    w("each setup in its own interpreter (OpenTelemetry's providers are set once per process), the")
    w("setups interleaved in every round: (a) `opentelemetry` not importable (nothing wrapped, as")
    w("without `sika[otel]`), (a') the same again (A/A: the noise), (b) the API, no SDK, (c) an SDK")
    w("`TracerProvider` with the `ALWAYS_OFF` sampler and no `MeterProvider`, (d) sampling on, spans")
    w("exported in memory. The differences are taken per round, against (a) of the same round. The")
    w("bridge's own steps are then timed with no I/O, on a real call's end (one attempt).")
    w("")
    w("| target | measured | met |")
    w("|---|---|---|")
    today = python_today(groups)
    absent = groups.get("py_tracing_verify", {}).get("(a) OpenTelemetry absent")
    if today is None or absent is None:
        w("| (a) within noise of today (the `python` part's BlockingClient) | not measured in this run | - |")
    else:
        low, high = min(absent[1]), max(absent[1])
        median = statistics.median(absent[1])
        within = low <= today <= high
        w(f"| (a) within noise of today (the `python` part's BlockingClient: {fmt(today)} us/call) "
          f"| {fmt(median)} us/call, rounds {fmt(low)}-{fmt(high)} | {'yes' if within else '**no**'} |")
    out: list[str] = []
    targets(out.append, groups, TRACING_TARGETS)
    for line in out[2:]:
        w(line)
    # The same target on the bridge alone, out of the network's noise: the whole wrapper around
    # a method without I/O plus the lift of the call's end, sampling off; and that figure scaled
    # by the load (the reference FFI call of the same processes against the `python` part's).
    bridge = groups.get("py_tracing_bridge", {})
    off = "(c) SDK, sampling off (ALWAYS_OFF), no MeterProvider"
    whole = bridge.get(f"{off}: the whole bridge, the lift aside")
    lift = bridge.get(f"{off}: lift of the call's end (one attempt)")
    reference = bridge.get(f"{off}: reference, TransactionStatus.is_final (one FFI call)")
    if whole is None or lift is None:
        w("| (c) the bridge alone, no I/O (the whole wrapper + the lift of the call's end) < 5 us | not measured in this run | - |")
    else:
        value = statistics.median(whole[1]) + statistics.median(lift[1])
        scaled = ""
        quiet = python_ffi_reference(groups)
        if reference is not None and quiet is not None:
            factor = quiet / statistics.median(reference[1])
            scaled = f"; {fmt(value * factor)} us scaled by the load (one FFI call: {fmt(statistics.median(reference[1]))} us here, {fmt(quiet)} us in the `python` part)"
        w(f"| (c) the bridge alone, no I/O (the whole wrapper + the lift of the call's end) < 5 us | {fmt(value)} us/call{scaled} | {'yes' if value <= 5 else '**no**'} |")
    w("")
    tables(w, meta, groups, TRACING_GROUPS, level="###")
    if os.path.exists("bench/analysis-tracing.md"):
        w(open("bench/analysis-tracing.md").read().strip())
        w("")
    w(TRACING_END)


def splice(doc_path: str, part_path: str) -> None:
    """Puts the part in the doc: in place of the old one, else before the hand-written analysis."""
    doc = open(doc_path).read()
    part = open(part_path).read().strip("\n")
    begin, end = next((begin, end) for begin, end in PARTS.values() if part.startswith(begin))
    if begin in doc and end in doc:
        before, rest = doc.split(begin, 1)
        after = rest.split(end, 1)[1]
        doc = before + part + after
    else:
        analysis = open("bench/analysis.md").read().strip().splitlines()[0] if os.path.exists("bench/analysis.md") else None
        if analysis and analysis in doc:
            at = doc.index(analysis)
            doc = doc[:at] + part + "\n\n" + doc[at:]
        else:
            doc = doc.rstrip("\n") + "\n\n" + part + "\n"
    open(doc_path, "w").write(doc)


def main_part() -> None:
    meta = json.load(open(sys.argv[3]))
    groups = load(sys.argv[4:])
    out: list[str] = []
    {"ledger": ledger_part, "tracing": tracing_part}[sys.argv[2]](out.append, meta, groups)
    print("\n".join(out))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--part"]:
        assert sys.argv[2] in PARTS, "the parts are `ledger` and `tracing`"
        main_part()
    elif sys.argv[1:2] == ["--splice"]:
        splice(sys.argv[2], sys.argv[3])
    else:
        main()
