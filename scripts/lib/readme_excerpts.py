"""Every documentation block that says it is an excerpt is one: a fenced block of a Markdown file
whose first line is `// From PATH` or `# From PATH` (PATH relative to the Markdown file) must be a
run of consecutive lines of PATH, compared with their common indentation removed. An example
edited in its tested file and not in the README (or the other way round) fails here, before a
reader copies code that no test runs.

Usage: python3 scripts/lib/readme_excerpts.py [FILE.md ...] (default: every tracked *.md).
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

FENCE = re.compile(r"^(\s*)```")
SOURCE = re.compile(r"^(?://|#) From (\S+)\s*$")


def blocks(markdown: str) -> list[tuple[int, list[str]]]:
    """Each fenced block's first line number (1-based, of its first line of code) and its lines."""
    found: list[tuple[int, list[str]]] = []
    lines = markdown.splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent = len(opening.group(1))
        start = index + 1
        end = start
        while end < len(lines) and not FENCE.match(lines[end]):
            end += 1
        found.append((start + 1, [line[indent:] for line in lines[start:end]]))
        index = end + 1
    return found


def dedented(lines: list[str]) -> list[str]:
    return textwrap.dedent("\n".join(lines)).splitlines()


def is_excerpt(excerpt: list[str], source: list[str]) -> bool:
    wanted = dedented(excerpt)
    width = len(wanted)
    return any(dedented(source[at : at + width]) == wanted for at in range(len(source) - width + 1))


def problems(markdown_path: Path) -> list[str]:
    found = []
    for line_number, lines in blocks(markdown_path.read_text()):
        named = SOURCE.match(lines[0].strip()) if lines else None
        if named is None:
            continue
        source_path = markdown_path.parent / named.group(1)
        where = f"{markdown_path}:{line_number}"
        if not source_path.is_file():
            found.append(f"{where}: names {named.group(1)}, which does not exist")
        elif not is_excerpt(lines[1:], source_path.read_text().splitlines()):
            found.append(f"{where}: is not, line for line, an excerpt of {named.group(1)} (edit both the same way)")
    return found


def main(arguments: list[str]) -> int:
    paths = arguments or subprocess.run(
        ["git", "ls-files", "*.md"], capture_output=True, text=True, check=True
    ).stdout.split()
    found = [problem for path in paths for problem in problems(Path(path))]
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
