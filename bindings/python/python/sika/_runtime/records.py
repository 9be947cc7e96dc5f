"""Records are data, service texts are text, and records' docs list their fields (ADR 0015).

UniFFI's Python records are `@dataclass` classes with their own `__init__` and no annotated
fields, so `dataclasses.fields()` is empty and `asdict()`, pydantic and FastAPI see `{}`; their
`__eq__` reads the other side's fields (`tx == None` raises); their docstring drops the fields'
docs. And the enums that carry the service's text (a status, a payment type) are field-less
dataclasses too, which serialise as `{}`. Here, from the lists the generator derives from the
metadata (`sika_ffi_meta`):
- every record gets its fields as annotations, with the types UniFFI gave its `__init__`, and
  is made a dataclass again (UniFFI's `__init__`, `__eq__` and exported `__repr__` stay); its
  `__eq__` answers `NotImplemented` for another type; one with the core's `to_json()` gets
  `to_dict()`, and pydantic (FastAPI's declared types, a model's fields) writes it as that JSON
  (ADR 0047); its docstring gets an `Attributes:` section;
- the variants of the other enums with data (`PaymentCheck`) get their fields the same way, and
  positional `match` patterns (`__match_args__`);
- a record that holds an object (`ClientConfig`'s `SecretKey` and `SecretUrl`, `AwaitOptions`'
  `Cancellation`) takes that object only: anything else (a `str` key or proxy URL, which its
  `repr()` would have printed whole, password and all) is `SikaError.InvalidInput` naming the
  field, when the record is made or the field set, its value never repeated (issue 47). Its
  `repr()` and `str()` show no URL's credentials (`https://user:password@...`) either;
- an enum with a `<name>_from_text` parser in the core becomes text: its values are `str`
  instances holding the core's `Display` of them, still their variant classes, hashed as and
  compared with their text, written as text by `json`, FastAPI and pydantic, read from text by
  pydantic and `from_text()`, and copied and pickled by fields.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import sys
import types
import typing

from . import _shape

# What the first `@dataclass` (of a class without fields) made; made again from the fields.
_DATACLASS_MADE = ("__dataclass_fields__", "__dataclass_params__", "__match_args__")


def _made_by_dataclass(cls: type, name: str, generated_file: str) -> bool:
    value = cls.__dict__.get(name)
    code = getattr(inspect.unwrap(value), "__code__", None) if callable(value) else None
    return code is not None and code.co_filename != generated_file


def _is_dataclass_type(value: object) -> bool:
    return isinstance(value, type) and dataclasses.is_dataclass(value)


def _as_data(cls: type, generated_file: str) -> None:
    """Makes `cls` (a generated `@dataclass` without fields) a dataclass of its `__init__`'s
    fields."""
    init = _shape.own(cls, "__init__")
    if not dataclasses.is_dataclass(cls):
        raise _shape.mismatch(f"`{cls.__qualname__}` is not a dataclass")
    annotations = {name: hint for name, hint in init.__annotations__.items() if name != "return"}
    for name in _DATACLASS_MADE:
        if name in cls.__dict__:
            delattr(cls, name)
    if _made_by_dataclass(cls, "__repr__", generated_file):
        delattr(cls, "__repr__")
    cls.__annotations__ = annotations
    # Only what the class lacks: `dataclass` keeps a method the class has, but compiles its own
    # first (an `exec` each: about half of this module's share of `import sika`, issue 27).
    dataclasses.dataclass(
        cls, init="__init__" not in cls.__dict__, repr="__repr__" not in cls.__dict__, eq="__eq__" not in cls.__dict__
    )


def _eq_of_type(cls: type) -> None:
    generated = _shape.function(cls, "__eq__", ["self", "other"])

    def __eq__(self: object, other: object, _cls: type = cls, _generated: typing.Any = generated) -> typing.Any:
        # Another type is not equal (never an AttributeError).
        if not isinstance(other, _cls):
            return NotImplemented
        return _generated(self, other)

    cls.__eq__ = __eq__  # type: ignore[method-assign, assignment]


def _to_dict(self: typing.Any) -> dict[str, typing.Any]:
    """
    The record as a dict of JSON values, for storing and logging: `to_json()` parsed (the
    core's text: the service's field names, amounts as exact decimal strings, timestamps as
    ISO 8601 UTC).
    """
    result: dict[str, typing.Any] = json.loads(self.to_json())
    return result


def _pydantic_schema(cls: type, source: typing.Any, handler: typing.Any) -> typing.Any:
    """pydantic's schema of a record with `to_json()`, asked only by pydantic (a declared FastAPI
    type, a model's field): read as the dataclass it is, written in JSON as the core's JSON
    (`to_dict()`), so that a declared FastAPI type and a model holding the record give the bytes
    of `to_json()` (exact amount text, the core's timestamps; ADR 0047)."""
    from pydantic_core import core_schema

    schema = handler(source)
    schema["serialization"] = core_schema.plain_serializer_function_ser_schema(_to_dict, when_used="json")
    return schema


def _document_fields(cls: type, fields: typing.Sequence[tuple[str, str]]) -> None:
    doc = cls.__doc__
    if not doc or not doc.endswith("\n"):
        raise _shape.mismatch(f"`{cls.__qualname__}` has no docstring of UniFFI's layout")
    section = "\n\n    Attributes:"
    for name, text in fields:
        lines = text.splitlines() or [""]
        section += f"\n        {name}: {lines[0]}"
        for line in lines[1:]:
            section += f"\n            {line}"
    cls.__doc__ = doc[:-1] + section + "\n"


_Text = typing.TypeVar("_Text", bound="ServiceText")


class ServiceText(str):
    """
    A value that is the service's text (a status, a payment type, a bank scheme): a `str`
    holding the core's text of it, so it compares with, hashes as and is written as that text
    (`json`, FastAPI, pydantic), while it stays its enum variant.
    """

    __slots__ = ()
    # The text of a variant without fields, set on the variant's class once known.
    _sika_text: typing.ClassVar[str | None] = None
    _sika_parse: typing.ClassVar[typing.Callable[[str], typing.Any]]

    # A TypeVar, not `typing.Self`: Python 3.9 has no `Self` and the package needs no backport.
    def __new__(cls: type[_Text], *args: typing.Any, **kwargs: typing.Any) -> _Text:  # noqa: PYI019
        text = cls._sika_text
        if text is None:
            # The core's text (the exported Display) of this value; a variant without fields
            # keeps it, so lifting one costs no call to the core.
            probe = str.__new__(cls)
            probe.__init__(*args, **kwargs)  # type: ignore[misc]
            text = probe.__str__()
            if not args and not kwargs:
                cls._sika_text = text
        return str.__new__(cls, text)

    def __ne__(self, other: object) -> bool:
        # The negation of the variant's `==` (`str.__ne__` would compare the text alone).
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in vars(self).items())
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> typing.Any:
        # Copied and pickled as its variant and fields, never rebuilt from the text alone.
        return (type(self), tuple(vars(self).values()))

    @classmethod
    def from_text(cls, text: str) -> typing.Any:
        """
        The value of the service's text (`"successful"`), parsed by the core exactly as it
        decodes responses: an unknown text is the `UNKNOWN` (or `OTHER`) variant holding it.
        """
        return cls._sika_parse(text)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: typing.Any, handler: typing.Any) -> typing.Any:
        # pydantic, only when pydantic asks: read from the text (or a value), written as text.
        from pydantic_core import core_schema

        from_text = core_schema.no_info_after_validator_function(cls.from_text, core_schema.str_schema())
        return core_schema.json_or_python_schema(
            json_schema=from_text,
            python_schema=core_schema.union_schema([core_schema.is_instance_schema(cls), from_text]),
            serialization=core_schema.plain_serializer_function_ser_schema(str.__str__),
        )


_CLASS_MADE = ("__dict__", "__weakref__")


def _body(cls: type, generated_file: str, drop: typing.Iterable[str] = ()) -> dict[str, typing.Any]:
    """The class body `cls` was made from, without what `type` and `@dataclass` added."""
    dropped = set(_CLASS_MADE) | set(_DATACLASS_MADE) | set(drop)
    if _made_by_dataclass(cls, "__repr__", generated_file):
        dropped.add("__repr__")
    return {name: value for name, value in cls.__dict__.items() if name not in dropped}


def _as_text(
    ffi: types.ModuleType, name: str, parser: str, variants: typing.Sequence[str], generated_file: str
) -> None:
    """Makes the generated enum `name` text: the same body over `ServiceText`, its variants
    rebuilt over it, bound in the generated module in its place (its converters and methods
    find it there by name)."""
    generated = _shape.class_(ffi, name)
    if generated.__bases__ != (object,):
        raise _shape.mismatch(f"`{name}` is not a plain class")
    enum = type(name, (ServiceText,), _body(generated, generated_file, drop=variants))
    for variant in variants:
        made = _shape.attribute(generated, variant)
        nested = made.__bases__[0] if made.__bases__[1:] == (generated,) else None
        if nested is None or not _is_dataclass_type(nested):
            raise _shape.mismatch(f"`{name}.{variant}` is not UniFFI's variant class")
        own = type(nested.__name__, (), _body(nested, generated_file))
        own.__qualname__ = nested.__qualname__
        hashed: dict[str, typing.Any] = {"__hash__": str.__hash__, "__module__": made.__module__}
        setattr(enum, variant, type(made.__name__, (own, enum), hashed))
    enum._sika_parse = staticmethod(_shape.attribute(ffi, parser))  # type: ignore[attr-defined]
    # In its place wherever the old class is bound: the generated module, and the modules of
    # its package that imported it before (maturin's `__init__.py` imports every module of the
    # package, the derived ones first).
    package = ffi.__name__.rpartition(".")[0]
    for module in list(sys.modules.values()):
        module_name = getattr(module, "__name__", "")
        if (module_name == package or module_name.startswith(package + ".")) and vars(module).get(name) is generated:
            setattr(module, name, enum)


# The credentials of a URL in a text (`scheme://user:password@`): what is before the host.
_CREDENTIALS = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s'\"]*@")


def _without_credentials(text: str) -> str:
    return _CREDENTIALS.sub(r"\1[REDACTED]@", text)


def _holds_objects(
    cls: type, fields: typing.Sequence[tuple[str, str, bool]], ffi: types.ModuleType, invalid_input: typing.Any
) -> None:
    """Each field of `fields` takes its object only (None too when optional), whenever it is
    set; the record's `repr()` and `str()` hide URL credentials."""
    kinds = {name: (_shape.class_(ffi, object_name), object_name, optional) for name, object_name, optional in fields}
    parameters = inspect.signature(cls).parameters
    if not all(name in parameters for name in kinds) or "__setattr__" in cls.__dict__:
        raise _shape.mismatch(f"`{cls.__qualname__}` does not take the fields {tuple(kinds)}")

    def __setattr__(self: object, name: str, value: object) -> None:
        kind = kinds.get(name)
        if kind is not None:
            expected, object_name, optional = kind
            if not isinstance(value, expected) and not (optional and value is None):
                reason = f"must be a sika.{object_name}, not {type(value).__name__}"
                if isinstance(value, str):
                    reason += f" (wrap the text: sika.{object_name}(text), which never prints it)"
                raise invalid_input(field=name, reason=reason)
        object.__setattr__(self, name, value)

    cls.__setattr__ = __setattr__  # type: ignore[assignment]
    # `str()` is the dataclass's `repr()`, as for any dataclass, not the core's `Display` that
    # UniFFI generates for Kotlin's and Swift's sake: that one lowers the fields, so a field of
    # a wrong type would make printing the record raise.
    printed = cls.__repr__
    for method in ("__repr__", "__str__"):

        def hidden(self: object, _printed: typing.Any = printed) -> str:
            return _without_credentials(_printed(self))

        hidden.__name__ = method
        setattr(cls, method, hidden)


def install(ffi: types.ModuleType, meta: types.ModuleType) -> None:
    generated_file = _shape.attribute(ffi, "__file__")
    for name, has_to_json in meta.RECORDS:
        cls = _shape.class_(ffi, name)
        _as_data(cls, generated_file)
        _eq_of_type(cls)
        if has_to_json:
            cls.to_dict = _to_dict  # type: ignore[attr-defined]
            cls.__get_pydantic_core_schema__ = classmethod(_pydantic_schema)  # type: ignore[attr-defined]
    invalid_input = _shape.attribute(_shape.class_(ffi, "SikaError"), "InvalidInput")
    for name, object_fields in meta.OBJECT_FIELDS.items():
        _holds_objects(_shape.class_(ffi, name), object_fields, ffi, invalid_input)
    for name, fields in meta.FIELD_DOCS.items():
        _document_fields(_shape.class_(ffi, name), fields)
    for name, variants in meta.DATA_ENUMS.items():
        enum = _shape.class_(ffi, name)
        for variant in variants:
            made = _shape.attribute(enum, variant)
            _as_data(made.__bases__[0], generated_file)
    for name, (parser, variants) in meta.TEXT_ENUMS.items():
        _as_text(ffi, name, parser, variants, generated_file)
    for (name, variant), fields in meta.MATCH_ARGS.items():
        made = _shape.attribute(_shape.class_(ffi, name), variant)
        setattr(made, "__match_args__", fields)  # noqa: B010  (mypy refuses the assignment statement)
