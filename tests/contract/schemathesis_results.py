"""Counts a Schemathesis run for scripts/test-contract, from its JUnit and HAR reports.

    python3 schemathesis_results.py REPORT_DIR

One unit per JUnit test case: each API operation (passed when every check passed on every
case generated for it, in every phase) and the stateful scenarios. An operation counts as
failed, even when Schemathesis passed it, if no success answer (2xx) of it was checked: a
run in which the sandbox only ever answered errors has not tested the success schemas.
Prints one line per unit, then `PASSED FAILED` as the last line. Standard library only."""

from __future__ import annotations

import collections
import glob
import json
import re
import sys
import xml.etree.ElementTree as ET


def only(pattern: str) -> str:
    found = sorted(glob.glob(pattern))
    if len(found) != 1:
        raise SystemExit(f"expected one report {pattern}, found {found}")
    return found[0]


def operation_of(method: str, url: str, templates: list[tuple[str, str]]) -> str | None:
    path = re.sub(r"^[a-z]+://[^/]+", "", url).split("?", 1)[0]
    for template_method, template in templates:
        pattern = "^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]*", re.escape(template)) + "$"
        if method == template_method and re.match(pattern, path):
            return f"{method} {template}"
    return None


def main(report_dir: str) -> None:
    junit = ET.parse(only(f"{report_dir}/junit*.xml")).getroot()
    cases = []
    for case in junit.iter("testcase"):
        failed = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped") is not None
        cases.append((case.get("name", "?"), failed, skipped))
    templates = [tuple(name.split(" ", 1)) for name, _, _ in cases if re.match(r"^[A-Z]+ /", name)]

    statuses: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    har = json.load(open(only(f"{report_dir}/har*.json")))
    for entry in har["log"]["entries"]:
        operation = operation_of(entry["request"]["method"], entry["request"]["url"], templates)
        if operation:
            statuses[operation][entry["response"]["status"]] += 1

    passed = failed = 0
    for name, case_failed, skipped in cases:
        seen = statuses.get(name, collections.Counter())
        answers = ", ".join(f"{code} x{count}" for code, count in sorted(seen.items()))
        verdict = "failed" if case_failed else "skipped" if skipped else "passed"
        is_operation = re.match(r"^[A-Z]+ /", name) is not None
        if verdict == "passed" and is_operation and not any(200 <= code < 300 for code in seen):
            verdict = "failed (no success answer was checked)"
        print(f"  {verdict:<8} {name}" + (f"  [{answers}]" if answers else ""))
        if verdict == "passed":
            passed += 1
        elif verdict != "skipped":
            failed += 1
    print(f"{passed} {failed}")


if __name__ == "__main__":
    main(sys.argv[1])
