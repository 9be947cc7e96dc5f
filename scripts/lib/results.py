#!/usr/bin/env python3
"""Per-test results of every suite, and the summary line per category that scripts/test prints.

Each test script turns its runner's own report into lines of `SUITE<TAB>GROUP<TAB>TEST<TAB>pass|fail`
(GROUP: the Rust test file, the Python module, the Kotlin or Swift test class) in
$SIKA_RESULTS/SUITE.tsv:

    results.py cargo SUITE LOG OUT      cargo test's output (`Running tests/x.rs`, `test name ... ok`)
    results.py junit SUITE OUT XML...   JUnit XML reports (pytest --junitxml, Surefire)
    results.py xctest SUITE LOG OUT     XCTest's output (`Test Case '...' passed`)
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
    ("faults and hostile responses", {29}, ("hostile", "fault")),
    ("bad-input matrix", {12, 13, 30}, ("bad_input", "badinput")),
    ("concurrency", {18, 31}, ("concurren",)),
    ("cancellation and leaks", {23, 32}, ("cancel",)),
    ("memory", {33}, ("memory",)),
    ("payment safety", set(range(21, 29)), ("safety",)),
]
BEHAVIOUR = "behaviour list (B01-B20) and units"
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


def from_cargo(log: str):
    group = "?"
    running = re.compile(r"^\s*Running (?:unittests )?(\S+)")
    result = re.compile(r"^test (\S+) \.\.\. (ok|FAILED)")
    with open(log, encoding="utf-8", errors="replace") as file:
        for line in file:
            if match := running.match(line):
                group = os.path.basename(match.group(1))
            elif match := result.match(line):
                yield group, match.group(1), match.group(2) == "ok"


def from_junit(paths):
    for path in paths:
        for case in ElementTree.parse(path).getroot().iter("testcase"):
            if case.find("skipped") is not None:
                continue
            failed = case.find("failure") is not None or case.find("error") is not None
            yield case.get("classname", "?"), case.get("name", "?"), not failed


def from_xctest(log: str):
    # Linux: `Test Case 'HostileTests.testB29X' passed`; Darwin: `Test Case '-[Sika.HostileTests testB29X]' passed`.
    case = re.compile(r"^Test Case '-?\[?([^' \]]+?)[. ]([^' .\]]+)\]?' (passed|failed)")
    with open(log, encoding="utf-8", errors="replace") as file:
        for line in file:
            if match := case.match(line):
                yield match.group(1), match.group(2), match.group(3) == "passed"


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
    if command == "cargo" and len(argv) == 5:
        write(argv[4], argv[2], from_cargo(argv[3]))
    elif command == "junit" and len(argv) >= 4:
        write(argv[3], argv[2], from_junit(argv[4:]))
    elif command == "xctest" and len(argv) == 5:
        write(argv[4], argv[2], from_xctest(argv[3]))
    elif command == "categories" and len(argv) == 3:
        categories(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
