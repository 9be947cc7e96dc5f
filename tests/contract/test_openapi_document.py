"""docs/openapi.yaml against itself and against the spec, without a server: every example
validates against its schema (Prism serves them as they are), and the document has exactly
the fields, statuses and error messages of docs/spec/service-interface.md.

Run by scripts/test-contract with the contract venv's pytest (PyYAML and jsonschema_rs come
with Schemathesis)."""

from __future__ import annotations

import jsonschema_rs
import pytest

from openapi_doc import DOC, operations


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
    assert {label for label, _ in operations()} == {
        "GET /mobile-money-providers",
        "GET /bank",
        "GET /transaction/verify/{reference}",
        "POST /charge",
        "POST charge.success",
    }


@pytest.mark.parametrize(("where", "schema", "value"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_every_example_is_valid(where, schema, value):
    validator = jsonschema_rs.Draft202012Validator(schema, validate_formats=True)
    errors = [f"{'/'.join(map(str, e.instance_path))}: {e.message}" for e in validator.iter_errors(value)]
    assert not errors, f"{where}: {errors}"


# The spec's tables (docs/spec/service-interface.md), written out once more here.

SPEC_FIELDS = {
    "MobileMoneyProvider": [
        "id", "name", "code", "active", "country", "currency", "type", "logo", "createdAt", "updatedAt",
    ],
    "Bank": ["id", "name", "code", "active", "country", "currency", "type", "createdAt", "updatedAt"],
    "Transaction": [
        "id", "domain", "amount", "currency", "due_date", "has_invoice", "invoice_number", "description",
        "tx_ref", "gw_ref", "status", "payment_type", "created_at", "updated_at", "customer", "meta",
    ],
    "Customer": ["id", "name", "phone_number", "email", "created_at", "updated_at"],
    "CustomField": ["display_name", "variable_name", "value"],
    "ChargeRequest": [
        "amount", "email", "phone_number", "reference", "currency", "payment_type", "provider", "callback_url",
    ],
}  # fmt: skip

SPEC_TYPES = {
    ("MobileMoneyProvider", "id"): "integer",
    ("MobileMoneyProvider", "active"): "boolean",
    ("Bank", "id"): "integer",
    ("Bank", "active"): "boolean",
    ("Transaction", "id"): "integer",
    ("Transaction", "amount"): "number",
    ("Transaction", "has_invoice"): "boolean",
    ("Transaction", "tx_ref"): "string",
    ("Transaction", "gw_ref"): "string",
    ("Customer", "id"): "integer",
    ("ChargeRequest", "amount"): "number",
}

SPEC_ERRORS = {
    "GET /mobile-money-providers": {"Unauthorized", "Invalid country code", "No providers found"},
    "GET /bank": {"Unauthorized", "Invalid country code"},
    "GET /transaction/verify/{reference}": {"Unauthorized", "Transaction not found", "Invalid reference"},
    "POST /charge": {"Unauthorized"},
}


@pytest.mark.parametrize("name", SPEC_FIELDS)
def test_objects_have_exactly_the_spec_fields(name):
    schema = DOC["components"]["schemas"][name]
    assert list(schema["properties"]) == SPEC_FIELDS[name], "same fields, in the spec's order"
    # Response objects list every field as present; the charge's required fields are not shown.
    assert schema.get("required", []) == ([] if name == "ChargeRequest" else SPEC_FIELDS[name])
    for (owner, field), type_name in SPEC_TYPES.items():
        if owner == name:
            assert schema["properties"][field]["type"] == type_name, field


def test_transaction_types_follow_the_spec():
    properties = DOC["components"]["schemas"]["Transaction"]["properties"]
    assert properties["status"]["enum"] == ["successful", "pending", "failed", "abandoned", "reversed"]
    for field in ("due_date", "invoice_number", "description"):
        assert "type" not in properties[field], f"{field}: null or a value of an undocumented type"
    assert "enum" not in properties["payment_type"], "the full list of payment types is not documented"
    assert DOC["components"]["schemas"]["Bank"]["properties"]["type"]["enum"] == ["nuban", "account_number"]


@pytest.mark.parametrize("label", SPEC_ERRORS)
def test_error_examples_are_the_documented_messages(label):
    operation = dict(operations())[label]
    default = operation["responses"]["default"]["content"]["application/json"]
    messages = {example["value"]["message"] for example in default["examples"].values()}
    assert messages == SPEC_ERRORS[label]
    assert set(operation["responses"]) == {"200", "default"}, "HTTP statuses are not documented"


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
