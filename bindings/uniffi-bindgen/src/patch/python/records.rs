//! Python: records are data, and service texts are text (ADR 0015).
//!
//! UniFFI's Python records are `@dataclass` classes with a hand-written `__init__` and no
//! annotated fields, so `dataclasses.fields()` is empty and `asdict()`, pydantic and FastAPI
//! see `{}`; their `__eq__` reads the other side's fields (`tx == None` raises). And the values
//! of the enums that carry the service's text (a status, a payment type, a bank scheme) are
//! field-less dataclasses too, which serialise as `{}`.
//! - Every record gets its fields as class annotations, with the types UniFFI gave its
//!   `__init__` (copied at import by `_uniffi_sika_record_fields`, applied before `@dataclass`,
//!   so the types are UniFFI's own and cannot drift); its `__eq__` answers `NotImplemented`
//!   for another type; a record with the core's `to_json()` gets `to_dict()`, its parse. The
//!   variants of the other enums with data (`PaymentCheck`, `WebhookDecision`) get their fields
//!   the same way.
//! - An enum with a `<name>_from_text` function in the interface (the core's parser of its
//!   text) becomes text: its values are `str` instances holding the core's `Display` of them
//!   (cached per variant without fields), still their variant classes (no longer dataclasses),
//!   hashed as their text, compared with text as text, written as text by `json`, FastAPI and
//!   pydantic, read from text by pydantic and `from_text()`, and copied and pickled by fields.

use uniffi_bindgen::ComponentInterface;
use uniffi_bindgen::interface::Enum;

use crate::patch::replace_exactly;

pub fn patch(text: String, interfaces: &[ComponentInterface]) -> Result<String, String> {
    let mut text = text;
    for ci in interfaces {
        for record in ci.record_definitions().iter().filter(|record| record.has_fields()) {
            let has_to_json = record.methods().iter().any(|method| method.name() == "to_json");
            text = record_as_data(text, record.name(), has_to_json)?;
        }
        let text_enums = text_enums(ci)?;
        for enumeration in ci.enum_definitions() {
            let data_enum = !enumeration.is_flat() && !ci.is_name_used_as_error(enumeration.name());
            if data_enum && !text_enums.iter().any(|(text_enum, _)| text_enum.name() == enumeration.name()) {
                text = variants_as_data(text, enumeration)?;
            }
        }
        for (enumeration, parser) in text_enums {
            text = enum_as_text(text, enumeration, &parser)?;
        }
    }
    let anchor = "\n_DEFAULT = object() # type: typing.Any\n";
    replace_exactly(&text, anchor, &format!("{anchor}{HELPERS}"), 1, "the `_DEFAULT` marker")
}

/// The top-level class `name` of the generated code: from its `class` line (found exactly
/// once) to the next top-level class (its FFI converter). Returns `(start, end)`.
fn class_span(text: &str, header: &str, name: &str) -> Result<(usize, usize), String> {
    let start = match text.matches(header).count() {
        1 => text.find(header).expect("counted"),
        found => return Err(format!("expected one `{}`, found {found}", header.trim())),
    };
    let converter = format!("\nclass _UniffiFfiConverterType{name}(");
    let end = start + text[start..].find(&converter).ok_or_else(|| format!("no FFI converter after `{name}`"))?;
    Ok((start, end))
}

fn patch_span(
    text: String,
    (start, end): (usize, usize),
    patch: impl FnOnce(&str) -> Result<String, String>,
) -> Result<String, String> {
    let patched = patch(&text[start..end])?;
    Ok(format!("{}{}{}", &text[..start], patched, &text[end..]))
}

fn record_as_data(text: String, name: &str, has_to_json: bool) -> Result<String, String> {
    let header = format!("\n@dataclass\nclass {name}:\n");
    let span = class_span(&text, &header, name)?;
    let text = patch_span(text, span, |class| {
        let class = replace_exactly(
            class,
            &header,
            &format!("\n@dataclass\n@_uniffi_sika_record_fields\nclass {name}:\n"),
            1,
            &format!("the `{name}` record's class line"),
        )?;
        let to_dict = if has_to_json { TO_DICT } else { "" };
        replace_exactly(
            &class,
            "\n    def __eq__(self, other):\n",
            &format!(
                "{to_dict}\n    def __eq__(self, other):\n        \
                 # Sika: another type is not equal (never an AttributeError).\n        \
                 if not isinstance(other, {name}):\n            return NotImplemented\n"
            ),
            1,
            &format!("UniFFI's field-by-field `__eq__` of `{name}`"),
        )
    })?;
    Ok(text)
}

/// The variants of an enum with data (`PaymentCheck.CONFIRMED(transaction)`) get their fields as
/// a record does: `dataclasses`, pydantic and `match` see them.
fn variants_as_data(text: String, enumeration: &Enum) -> Result<String, String> {
    let name = enumeration.name();
    let span = class_span(&text, &format!("\nclass {name}:\n"), name)?;
    patch_span(text, span, |class| {
        replace_exactly(
            class,
            "\n    @dataclass\n    class ",
            "\n    @dataclass\n    @_uniffi_sika_record_fields\n    class ",
            enumeration.variants().len(),
            &format!("`{name}`'s variants"),
        )
    })
}

/// The enums whose values are service text: those the core exports a `<snake name>_from_text`
/// parser for. Each must have variants with data (a flat enum is a Python `enum.Enum`
/// already) and export `Display` (the text).
fn text_enums(ci: &ComponentInterface) -> Result<Vec<(&Enum, String)>, String> {
    let mut found = Vec::new();
    for enumeration in ci.enum_definitions() {
        let parser = format!("{}_from_text", snake_case(enumeration.name()));
        if !ci.function_definitions().iter().any(|function| function.name() == parser) {
            continue;
        }
        if enumeration.is_flat() || enumeration.uniffi_trait_methods().display_fmt.is_none() {
            return Err(format!("`{}` has `{parser}` but is flat or does not export Display", enumeration.name()));
        }
        found.push((enumeration, parser));
    }
    if found.is_empty() {
        return Err("no enum has a `<name>_from_text` parser in the interface".to_owned());
    }
    Ok(found)
}

fn enum_as_text(text: String, enumeration: &Enum, parser: &str) -> Result<String, String> {
    let name = enumeration.name();
    let variants = enumeration.variants().len();
    let header = format!("\nclass {name}:\n");
    let span = class_span(&text, &header, name)?;
    let mut text = patch_span(text, span, |class| {
        let class = replace_exactly(
            class,
            &header,
            &format!("\nclass {name}(_UniffiSikaServiceText):\n"),
            1,
            &format!("the `{name}` enum's class line"),
        )?;
        let class = replace_exactly(
            &class,
            "\n    @dataclass\n    class ",
            "\n    class ",
            variants,
            &format!("`{name}`'s variants"),
        )?;
        // The variant classes UniFFI builds from the nested ones: hashed as their text (a class
        // defining `__eq__` is otherwise unhashable), consistently with `== "text"`.
        replace_exactly(
            &class,
            &format!(", {name},), {{}})  # type: ignore\n"),
            &format!(", {name},), {{\"__hash__\": _UniffiSikaServiceText.__hash__}})  # type: ignore\n"),
            variants,
            &format!("`{name}`'s variant classes"),
        )
    })?;
    // The parser is a module function, defined after the classes.
    text.push_str(&format!(
        "\n# Sika: `{name}.from_text` is the core's parser of the service's text.\n\
         {name}._uniffi_sika_parse = staticmethod({parser})\n"
    ));
    Ok(text)
}

fn snake_case(name: &str) -> String {
    let mut snake = String::with_capacity(name.len() + 4);
    for (index, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && index > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    snake
}

const TO_DICT: &str = r#"
    def to_dict(self) -> typing.Dict[str, typing.Any]:
        """
        The record as a dict of JSON values, for storing and logging: `to_json()` parsed (the
        core's text: the service's field names, amounts as exact decimal strings, timestamps
        as ISO 8601 UTC).
"""
        return _uniffi_sika_json.loads(self.to_json())
"#;

const HELPERS: &str = r#"
import json as _uniffi_sika_json


def _uniffi_sika_record_fields(cls):
    # Sika (ADR 0015): the record's fields, typed as UniFFI typed its `__init__`, become the
    # class's annotations, so `@dataclass` (applied next) knows them: `dataclasses.fields()`,
    # `asdict()`, pydantic and FastAPI see the record's data. `__init__`, `__eq__` and an
    # exported `__repr__` stay UniFFI's: a dataclass keeps what the class defines.
    init = cls.__dict__.get("__init__")
    if init is not None:
        cls.__annotations__ = {name: hint for name, hint in init.__annotations__.items() if name != "return"}
    return cls


class _UniffiSikaServiceText(str):
    """
    Sika (ADR 0015): a value that is the service's text (a status, a payment type, a bank
    scheme): a `str` holding the core's text of it, so it compares with, hashes as and is
    written as that text (`json`, FastAPI, pydantic), while it stays its enum variant.
"""

    __slots__ = ()
    # The text of a variant without fields, set on the variant's class once known.
    _uniffi_sika_text = None

    def __new__(cls, *args, **kwargs):
        text = cls._uniffi_sika_text
        if text is None:
            # The core's text (the exported Display) of this value; a variant without fields
            # keeps it, so lifting one costs no call to the core.
            probe = str.__new__(cls)
            probe.__init__(*args, **kwargs)
            text = probe.__str__()
            if not args and not kwargs:
                cls._uniffi_sika_text = text
        return str.__new__(cls, text)

    def __ne__(self, other):
        # The negation of the variant's `==` (`str.__ne__` would compare the text alone).
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __repr__(self):
        fields = ", ".join("{}={!r}".format(name, value) for name, value in vars(self).items())
        return "{}({})".format(type(self).__name__, fields)

    def __reduce__(self):
        # Copied and pickled as its variant and fields, never rebuilt from the text alone.
        return (type(self), tuple(vars(self).values()))

    @classmethod
    def from_text(cls, text: str):
        """
        The value of the service's text (`"successful"`), parsed by the core exactly as it
        decodes responses: an unknown text is the `UNKNOWN` (or `OTHER`) variant holding it.
"""
        return cls._uniffi_sika_parse(text)

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler):
        # pydantic, only when pydantic asks: read from the text (or a value), written as text.
        from pydantic_core import core_schema

        from_text = core_schema.no_info_after_validator_function(cls.from_text, core_schema.str_schema())
        return core_schema.json_or_python_schema(
            json_schema=from_text,
            python_schema=core_schema.union_schema([core_schema.is_instance_schema(cls), from_text]),
            serialization=core_schema.plain_serializer_function_ser_schema(str.__str__),
        )
"#;
