"""Every test carries its behaviour id (tests/README.md), and every id a test names has a row there.

Derived from the sources, not from a hand-kept list:
- Rust: each function under `#[test]` or `#[tokio::test...]` in core/, sandbox/ and
  bindings/uniffi-bindgen/ is named `bNN_...`;
- Python: each `def test_...` in bindings/python/tests*/ is named `test_bNN...`, or its file is
  (`test_b151_b154_pytest_plugin.py`);
- Kotlin: each `@Test`/`@TestFactory` function in the Kotlin test trees (bindings/kotlin, its
  examples, tests/maven-consumer) is named `testBNN...` or `bNN...` (or a backtick name `BNN ...`);
- Swift: each `func test...` of an XCTestCase in bindings/swift/Tests and tests/swiftpm-* is named
  `testBNN...`;
- every `NN` so named has a `| BNN |` row in tests/README.md.

    python3 scripts/lib/test_ids.py [--list]   (--list: print the tests without an id, by file)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP_DIRS = {"target", ".build", "build", "node_modules", ".venv", ".gradle", "__pycache__"}


def files(root: Path, suffix: str):
    for path in sorted(root.rglob(f"*{suffix}")):
        if not SKIP_DIRS.intersection(path.relative_to(ROOT).parts):
            yield path


RUST_ATTRIBUTE = re.compile(r"^\s*#\[(?:tokio::)?test\b")
RUST_FN = re.compile(r"^\s*(?:pub\s+)?(?:async\s+)?fn\s+([A-Za-z0-9_]+)")


def rust_tests():
    for top in ("core", "sandbox", "bindings/uniffi-bindgen"):
        for path in files(ROOT / top, ".rs"):
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines()
            for at, line in enumerate(lines):
                if not RUST_ATTRIBUTE.match(line):
                    continue
                if any("mod $" in before for before in lines[max(0, at - 12) : at]):
                    # A test a macro writes into `mod $name`: its name is each invocation's
                    # (`on_both!(b130_...)` gives `b130_...::sqlite`).
                    for invoked in re.finditer(r"^\s*\w+!\((\w+)\);", text, re.M):
                        name = f"{invoked.group(1)}::{RUST_FN.match(lines[at + 1]).group(1)}"
                        yield path, name, re.match(r"b(\d+)_", invoked.group(1))
                    continue
                # The function follows its attributes; a worker run by other tests names their
                # behaviour in its `#[ignore = "... B139 ..."]`.
                reason = None
                for following in lines[at + 1 : at + 8]:
                    reason = reason or re.search(r"#\[ignore\s*=.*\bB(\d+)\b", following)
                    found = RUST_FN.match(following)
                    if found:
                        yield path, found.group(1), re.match(r"b(\d+)_", found.group(1)) or reason
                        break


def python_tests():
    for path in files(ROOT / "bindings/python", ".py"):
        if not path.name.startswith("test_") or "tests" not in path.parent.name:
            continue
        for found in re.finditer(r"^\s*(?:async\s+)?def\s+(test_[A-Za-z0-9_]*)", path.read_text(encoding="utf-8"), re.M):
            # The id in the test's name, or in its file's (`test_b151_b154_pytest_plugin.py`).
            yield path, found.group(1), re.match(r"test_b(\d+)", found.group(1)) or re.match(r"test_b(\d+)", path.name)


def kotlin_tests():
    for top in ("bindings/kotlin", "bindings/jvm-testing", "tests/maven-consumer"):
        if not (ROOT / top).exists():
            continue
        for path in files(ROOT / top, ".kt"):
            if "/test/" not in str(path):
                continue
            text = path.read_text(encoding="utf-8")
            pattern = r"@(?:Test|TestFactory)\b[^\n]*\n(?:\s*@[^\n]*\n)*\s*(?:internal\s+)?fun\s+(`[^`]+`|[A-Za-z0-9_]+)"
            for found in re.finditer(pattern, text):
                name = found.group(1)
                yield path, name, re.match(r"`?(?:test)?B(\d+)", name, re.I)


def swift_tests():
    roots = [ROOT / "bindings/swift/Tests", *sorted((ROOT / "tests").glob("swiftpm-*"))]
    for top in roots:
        for path in files(top, ".swift"):
            for found in re.finditer(r"^\s*func\s+(test[A-Za-z0-9_]*)\s*\(", path.read_text(encoding="utf-8"), re.M):
                yield path, found.group(1), re.match(r"testB(\d+)", found.group(1))


def main() -> int:
    readme = (ROOT / "tests/README.md").read_text(encoding="utf-8")
    rows = {int(number) for number in re.findall(r"^\| B(\d+) \|", readme, re.M)}
    failures = []
    counts = {}
    for language, tests in (("rust", rust_tests), ("python", python_tests), ("kotlin", kotlin_tests), ("swift", swift_tests)):
        found = list(tests())
        counts[language] = len(found)
        for path, name, match in found:
            where = f"{path.relative_to(ROOT)}: {name}"
            if match is None:
                failures.append(f"{language}: no behaviour id: {where}")
            elif int(match.group(1)) not in rows:
                failures.append(f"{language}: B{int(match.group(1)):02d} has no row in tests/README.md: {where}")
    for failure in failures:
        print(failure)
    summary = ", ".join(f"{language} {count}" for language, count in counts.items())
    if failures:
        print(f"test ids: {len(failures)} test(s) without a behaviour id or its row ({summary} tests read)")
        return 1
    print(f"test ids: every test names a behaviour of tests/README.md ({summary} tests read)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
