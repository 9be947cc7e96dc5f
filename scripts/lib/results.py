#!/usr/bin/env python3
"""Per-test results of every suite, and the summary lines that scripts/test prints.

Each test script hands its runner's own machine-readable report (JUnit XML: cargo-nextest,
pytest --junitxml, Surefire, swift test --xunit-output) to `report`, which writes lines of
`SUITE<TAB>GROUP<TAB>TEST<TAB>pass|fail` (GROUP: the Rust test binary, the Python module, the
Kotlin or Swift test class) to OUT and prints the suite's line, `SUITE: N passed, M failed`:

    results.py report SUITE OUT XML...  JUnit XML reports -> OUT (TSV) and the suite's line
    results.py count XML...             `PASSED FAILED` of JUnit XML reports (for suites of stages)
    results.py categories DIR           one line per category over DIR/*.tsv

A test's category comes from its behaviour id (`b29_...`, `testB29...`, see tests/README.md), or else
from its group's name (`hostile.rs`, `BadInputsTest`), or else it is a plain behaviour test.
"""

import glob
import os
import re
import sys
import xml.etree.ElementTree as ElementTree

# (category, behaviour ids, words of a group name), in the order they are printed.
CATEGORIES = [
    ("faults and hostile responses", {29, 46, 47, 50, 51, 52}, ("hostile", "fault")),
    ("bad-input matrix", {12, 13, 30}, ("bad_input", "badinput")),
    ("concurrency", {18, 31, 48, 60}, ("concurren",)),
    ("cancellation and leaks", {23, 32}, ("cancel",)),
    ("memory", {33}, ("memory",)),
    ("payment safety", set(range(21, 29)) | {36, 53}, ("safety",)),
    ("process model", {37, 38, 39, 54}, ("process_model", "deployment")),
    ("host runtimes (records as data, logging, typing, Java, SwiftPM)", {40, 41, 42, 44, 45, 58, 59, 61}, ()),
    ("release artifacts as installed", {55, 56}, ("installed", "actionlint")),
    ("where Sika runs (server-only)", {57}, ("server_only", "serveronly")),
]
BEHAVIOUR = "behaviour list (B01-B20, B34-B35, B43) and units"
ID = re.compile(r"(?:^|[^a-z0-9])b(\d\d)(?:[^0-9]|$)", re.IGNORECASE)
CAMEL_ID = re.compile(r"testB(\d\d)")


def category(group: str, test: str) -> str:
    match = CAMEL_ID.search(test) or ID.search(test)
    if match:
        number = int(match.group(1))
        for name, ids, _ in CATEGORIES:
            if number in ids:
                return name
        return BEHAVIOUR
    lowered = group.lower()
    for name, _, words in CATEGORIES:
        if any(word in lowered for word in words):
            return name
    return BEHAVIOUR


def write(out: str, suite: str, rows) -> None:
    with open(out, "w", encoding="utf-8") as file:
        for group, test, passed in rows:
            file.write(f"{suite}\t{group}\t{test}\t{'pass' if passed else 'fail'}\n")


def from_junit(paths):
    """(group, test, passed) of every test case the reports ran; skipped ones are left out."""
    for path in paths:
        for case in ElementTree.parse(path).getroot().iter("testcase"):
            if case.find("skipped") is not None:
                continue
            failed = case.find("failure") is not None or case.find("error") is not None
            yield case.get("classname", "?"), case.get("name", "?"), not failed


def report(suite: str, out: str, paths) -> None:
    rows = list(from_junit(paths))
    write(out, suite, rows)
    passed = sum(1 for _, _, ok in rows if ok)
    print(f"{suite}: {passed} passed, {len(rows) - passed} failed")


def categories(directory: str) -> None:
    counts = {}  # category -> suite -> [passed, failed]
    for path in sorted(glob.glob(os.path.join(directory, "*.tsv"))):
        with open(path, encoding="utf-8") as file:
            for line in file:
                suite, group, test, outcome = line.rstrip("\n").split("\t")
                tally = counts.setdefault(category(group, test), {}).setdefault(suite, [0, 0])
                tally[0 if outcome == "pass" else 1] += 1
    for name in [name for name, _, _ in CATEGORIES] + [BEHAVIOUR]:
        if name not in counts:
            continue
        per_suite = counts[name]
        passed = sum(tally[0] for tally in per_suite.values())
        failed = sum(tally[1] for tally in per_suite.values())
        detail = ", ".join(f"{suite} {tally[0]}" + (f" ({tally[1]} failed)" if tally[1] else "")
                           for suite, tally in per_suite.items())
        print(f"{name}: {passed} passed, {failed} failed ({detail})")


def main(argv) -> int:
    command = argv[1] if len(argv) > 1 else ""
    if command == "report" and len(argv) >= 5:
        report(argv[2], argv[3], argv[4:])
    elif command == "count" and len(argv) >= 3:
        rows = list(from_junit(argv[2:]))
        passed = sum(1 for _, _, ok in rows if ok)
        print(passed, len(rows) - passed)
    elif command == "categories" and len(argv) == 3:
        categories(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
