"""docs/openapi.yaml against itself and against the spec, without a server: every example
validates against its schema (Prism serves them as they are), and the document has exactly
the fields, statuses and error messages of docs/spec/service-interface.md.

Run by scripts/test-contract with the contract venv's pytest (PyYAML and jsonschema_rs come
with Schemathesis)."""

from __future__ import annotations

import jsonschema_rs
import pytest

import spec_doc
from openapi_doc import DOC, METHODS, RAW, operations


def media_examples(where: str, media: dict):
    schema = media["schema"]
    if "example" in media:
        yield f"{where} example", schema, media["example"]
    for name, example in media.get("examples", {}).items():
        yield f"{where} example {name}", schema, example["value"]


def collect_examples():
    """(where, schema, value) for every example of the document."""
    found = []
    for label, operation in operations():
        for parameter in operation.get("parameters", []):
            for name, example in parameter.get("examples", {}).items():
                where = f"{label} parameter {parameter['name']} example {name}"
                found.append((where, parameter["schema"], example["value"]))
        body = operation.get("requestBody", {}).get("content", {})
        for media_type, media in body.items():
            found.extend(media_examples(f"{label} request {media_type}", media))
        for code, response in operation.get("responses", {}).items():
            for media_type, media in response.get("content", {}).items():
                found.extend(media_examples(f"{label} {code} {media_type}", media))

    def walk(where, schema):
        if not isinstance(schema, dict):
            return
        for index, value in enumerate(schema.get("examples", [])):
            found.append((f"{where} examples[{index}]", schema, value))
        for key in ("properties", "patternProperties"):
            for name, sub in schema.get(key, {}).items():
                walk(f"{where}.{name}", sub)
        for key in ("items", "additionalProperties", "not"):
            walk(f"{where}.{key}", schema.get(key))
        for key in ("allOf", "anyOf", "oneOf"):
            for index, sub in enumerate(schema.get(key, [])):
                walk(f"{where}.{key}[{index}]", sub)

    for name, schema in DOC["components"]["schemas"].items():
        walk(name, schema)
    return found


EXAMPLES = collect_examples()


def test_the_document_is_openapi_3_1():
    assert DOC["openapi"].startswith("3.1.")


def test_b297_the_document_has_exactly_the_spec_operations():
    assert {label for label, _ in operations()} == spec_doc.operations()


@pytest.mark.parametrize(("where", "schema", "value"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_every_example_is_valid(where, schema, value):
    validator = jsonschema_rs.Draft202012Validator(schema, validate_formats=True)
    errors = [f"{'/'.join(map(str, e.instance_path))}: {e.message}" for e in validator.iter_errors(value)]
    assert not errors, f"{where}: {errors}"


# The spec's tables are read from docs/spec/service-interface.md (spec_doc.py); a schema names
# the table it was written from (`x-spec-table`).

SCHEMAS = DOC["components"]["schemas"]
SPEC_TABLES = spec_doc.field_tables()
SCHEMAS_OF_TABLES = {
    title: [name for name, schema in SCHEMAS.items() if schema.get("x-spec-table") == title] for title in SPEC_TABLES
}


def request_body_schemas() -> set[str]:
    """The schemas a request body is written in (their required fields are not documented)."""
    found = set()
    for group in ("paths", "webhooks"):
        for item in RAW.get(group, {}).values():
            for method, operation in item.items():
                if method in METHODS:
                    for media in operation.get("requestBody", {}).get("content", {}).values():
                        found.add(media["schema"]["$ref"].rsplit("/", 1)[-1])
    return found


def test_b297_every_spec_table_has_its_schema_and_every_claim_a_table():
    missing = [title for title, names in SCHEMAS_OF_TABLES.items() if not names]
    assert not missing, f"spec tables without a schema naming them (x-spec-table): {missing}"
    claimed = {schema["x-spec-table"] for schema in SCHEMAS.values() if "x-spec-table" in schema}
    assert claimed <= set(SPEC_TABLES), f"x-spec-table naming no field table of the spec: {claimed - set(SPEC_TABLES)}"


@pytest.mark.parametrize(
    ("title", "name"), [(title, name) for title, names in SCHEMAS_OF_TABLES.items() for name in names]
)
def test_b297_objects_have_exactly_the_spec_fields_and_types(title, name):
    table, schema = SPEC_TABLES[title], SCHEMAS[name]
    fields = table.column(table.header[0])
    assert list(schema["properties"]) == fields, "same fields, in the spec's order"
    # Response objects list every field as present; a request body's required fields are not shown.
    assert schema.get("required", []) == ([] if name in request_body_schemas() else fields)
    descriptions = table.column("Description") if "Description" in table.header else [""] * len(fields)
    for field, spec_type, description in zip(fields, table.column("Type"), descriptions):
        written = schema["properties"][field]
        if (stated := spec_doc.json_type(spec_type)) is not None:
            assert written.get("type") == stated, f"{field}: the spec's {spec_type!r}"
        elif spec_type == "null or value":
            assert "type" not in written, f"{field}: null or a value of an undocumented type"
        if (values := spec_doc.allowed_values(description)) is not None:
            assert written.get("enum") == values, f"{field}: the spec's allowed values"


def test_b297_transaction_types_follow_the_spec():
    properties = SCHEMAS["Transaction"]["properties"]
    assert properties["status"]["enum"] == spec_doc.statuses()
    assert "enum" not in properties["payment_type"], "the full list of payment types is not documented"


@pytest.mark.parametrize("label", spec_doc.errors_by_operation())
def test_b297_error_examples_are_the_documented_messages(label):
    operation = dict(operations())[label]
    default = operation["responses"]["default"]["content"]["application/json"]
    messages = {example["value"]["message"] for example in default["examples"].values()}
    assert messages == spec_doc.errors_by_operation()[label]
    assert set(operation["responses"]) == {"200", "default"}, "HTTP statuses are not documented"


def test_b297_the_error_envelope_lists_every_documented_message():
    assert set(SCHEMAS["ErrorEnvelope"]["properties"]["message"]["examples"]) == set(spec_doc.error_messages())


def test_defaults_and_auth_follow_the_spec():
    parameters = {
        label: {p["name"]: p for p in operation.get("parameters", [])} for label, operation in operations()
    }
    assert parameters["GET /mobile-money-providers"]["country"]["schema"]["default"] == "GH"
    assert parameters["GET /bank"]["country"]["schema"]["default"] == "NG"
    assert not parameters["GET /bank"]["country"]["required"]
    assert DOC["components"]["securitySchemes"]["secretKey"] == {
        **DOC["components"]["securitySchemes"]["secretKey"],
        "type": "http",
        "scheme": "bearer",
    }
    assert DOC["security"] == [{"secretKey": []}]
