"""docs/spec/service-interface.md read as data: its operations, its field tables, its statuses and
its error table. The markdown spec stays the user's document; the tests of this folder check
docs/openapi.yaml, the sandbox and sandbox/README.md against what this module reads from it, so
none of them keeps a copy of the spec's lists (issue 44, ADR 0084)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "spec" / "service-interface.md"


@dataclass(frozen=True)
class Table:
    section: str  # the `## ...` heading it is under
    title: str  # its caption line (`Customer object:`), else its `###` heading, else the section
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def column(self, name: str) -> list[str]:
        index = self.header.index(name)
        return [row[index] for row in self.rows]


def cells(line: str) -> tuple[str, ...]:
    return tuple(cell.strip() for cell in line.strip().strip("|").split("|"))


def tables(text: str | None = None) -> list[Table]:
    """Every table of the spec, with the heading and caption it sits under."""
    lines = (SPEC.read_text() if text is None else text).splitlines()
    found: list[Table] = []
    section = heading = caption = ""
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        if line.startswith("## "):
            section, heading, caption = line[3:], "", ""
        elif line.startswith("### "):
            heading, caption = line[4:], ""
        elif line.startswith("|") and index + 1 < len(lines) and set(lines[index + 1].strip()) <= set("|-: "):
            header = cells(line)
            index += 2
            rows = []
            while index < len(lines) and lines[index].strip().startswith("|"):
                rows.append(cells(lines[index]))
                index += 1
            found.append(Table(section, caption or heading or section, header, tuple(rows)))
            caption = ""
            continue
        elif line.endswith(":"):
            caption = line.lstrip("- ").rstrip(":")
        index += 1
    return found


def field_tables() -> dict[str, Table]:
    """The tables of an object's fields (`Field | Type ...` or `Property | Type ...`), by title."""
    found: dict[str, Table] = {}
    for table in tables():
        if table.header[:2] in {("Field", "Type"), ("Property", "Type")}:
            assert table.title not in found, f"two field tables titled {table.title!r}: give one a caption"
            found[table.title] = table
    return found


ENDPOINT = re.compile(r"^### \d+\.\s+(?P<name>.+)$")
METHOD_AND_PATH = re.compile(r"^- Method and path:\s+(?P<method>[A-Z]+)\s+\{base_url\}(?P<path>\S+)$")


def endpoints() -> dict[str, str]:
    """`METHOD /path` -> the endpoint's name (`List banks`), in the spec's order."""
    found: dict[str, str] = {}
    name = ""
    for line in SPEC.read_text().splitlines():
        if match := ENDPOINT.match(line.strip()):
            name = match["name"]
        elif match := METHOD_AND_PATH.match(line.strip()):
            assert name, f"{line!r} outside an endpoint's section"
            found[f"{match['method']} {match['path']}"] = name
    assert found, "the spec's endpoints were not found: was '- Method and path:' reworded?"
    return found


def events() -> list[str]:
    """The webhook events of the spec's Events table."""
    (table,) = [t for t in tables() if t.section == "Events" and t.header[0] == "Event name"]
    return table.column("Event name")


def operations() -> set[str]:
    """What docs/openapi.yaml must describe: every endpoint, and every event as the POST the
    merchant receives (`POST charge.success`, as openapi_doc.operations() labels a webhook)."""
    return set(endpoints()) | {f"POST {event}" for event in events()}


def statuses() -> list[str]:
    """The transaction statuses of the States table, in the spec's order."""
    (table,) = [t for t in tables() if t.section == "States and transitions" and t.header[0] == "Status"]
    return table.column("Status")


def error_table() -> Table:
    (table,) = [t for t in tables() if t.section == "Errors" and t.header[0] == "Message"]
    return table


def error_messages() -> list[str]:
    """The documented error messages, in the spec's order."""
    return error_table().column("Message")


def errors_by_operation() -> dict[str, set[str]]:
    """`METHOD /path` -> the messages the Errors table documents for it. Its Operations column
    names endpoints by the start of their names (`list banks`, `Verify`) or says `All`."""
    names = endpoints()
    found: dict[str, set[str]] = {label: set() for label in names}
    for message, operations_text in zip(error_table().column("Message"), error_table().column("Operations")):
        for named in (part.strip() for part in operations_text.split(",")):
            if named.lower() == "all":
                matches = list(names)
            else:
                matches = [label for label, name in names.items() if name.lower().startswith(named.lower())]
            assert len(matches) >= 1, f"the Errors table's {named!r} ({message}) names no endpoint"
            for label in matches:
                found[label].add(message)
    return found


JSON_TYPE = re.compile(r"^(integer|boolean|number|string|object)(\b(?! or)|$)")


def json_type(spec_type: str) -> str | None:
    """The JSON type a Type cell states (`string (international format ...)` is a string), or
    None when it states several or none (`null or value`, `array, object or null`)."""
    match = JSON_TYPE.match(spec_type)
    return match[1] if match else None


ALLOWED = re.compile(r"allowed values:\s*(?P<values>[\w, ]+)")


def allowed_values(description: str) -> list[str] | None:
    """The values a Description cell allows (`Account type; allowed values: nuban, account_number`)."""
    match = ALLOWED.search(description)
    return [value.strip() for value in match["values"].split(",")] if match else None
