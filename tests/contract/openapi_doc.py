"""docs/openapi.yaml loaded for the tests of this folder, with every local `$ref` resolved."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"
RAW = yaml.safe_load(DOCUMENT.read_text())


def resolve(node, root=RAW, seen=()):
    """The document with every local `$ref` replaced by a copy of its target."""
    if isinstance(node, dict):
        if "$ref" in node:
            ref = node["$ref"]
            assert ref.startswith("#/"), f"only local references: {ref}"
            assert ref not in seen, f"recursive reference {ref}"
            target = root
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            resolved = resolve(copy.deepcopy(target), root, (*seen, ref))
            if siblings and isinstance(resolved, dict):
                resolved = {**resolved, **resolve(siblings, root, seen)}
            return resolved
        return {key: resolve(value, root, seen) for key, value in node.items()}
    if isinstance(node, list):
        return [resolve(item, root, seen) for item in node]
    return node


DOC = resolve(RAW)
METHODS = {"get", "put", "post", "delete", "patch", "options", "head", "trace"}


def operations():
    for group in ("paths", "webhooks"):
        for path, item in DOC.get(group, {}).items():
            for method, operation in item.items():
                if method in METHODS:
                    yield f"{method.upper()} {path}", operation
