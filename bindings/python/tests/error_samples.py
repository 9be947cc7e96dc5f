"""One instance of every `SikaError` kind, from tests/fixtures/errors.json (ADR 0084): the error
tests of this suite (B16, B38, B96, B97, B295) read their samples here, and none keeps a list of
kinds. The kinds are the generated module's subclasses of `SikaError` (UniFFI's metadata), and
`samples()` fails while one of them has no sample, or a sample names a kind that does not exist."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

from sika import SikaError

FIXTURE = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "errors.json"
KINDS = json.loads(FIXTURE.read_text())["kinds"]


def variants() -> list[type]:
    """Every kind of error the generated module defines, in its order."""
    return [value for value in vars(SikaError).values() if isinstance(value, type) and issubclass(value, SikaError)]


def build(sample: dict) -> SikaError:
    """The sample's error. Its fields are taken by position: the constructor's names are the
    core's, but for the renames of uniffi.toml (`Api`'s `message` is `service_message`)."""
    variant = getattr(SikaError, sample["kind"], None)
    assert isinstance(variant, type) and issubclass(variant, SikaError), f"errors.json: no kind {sample['kind']}"
    fields = list(sample.get("fields", {}).values())
    assert len(inspect.signature(variant).parameters) == len(fields), f"{sample['kind']}: the core's fields"
    return variant(*fields)


def samples() -> list[tuple[dict, SikaError]]:
    """(the fixture's entry, its error) for every kind, in the core's order."""
    sampled = [sample["kind"] for sample in KINDS]
    assert len(sampled) == len(set(sampled)), f"tests/fixtures/errors.json: a kind twice in {sampled}"
    assert set(sampled) == {variant.__name__ for variant in variants()}, (
        "tests/fixtures/errors.json: one sample per kind of the generated module"
    )
    return [(sample, build(sample)) for sample in KINDS]


def errors() -> list[SikaError]:
    return [error for _, error in samples()]
