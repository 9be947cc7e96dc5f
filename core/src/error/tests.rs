//! B295: `tests/fixtures/errors.json`, the one sample of every error kind that every language's
//! error tests read, against the core: its kinds and their fields are the UniFFI metadata's (so a
//! kind added to the core fails here until it has its sample), and each sample reads as its text
//! and quotes its request id.

use serde_json::Value;

use super::SikaError;

pub(crate) fn fixture_kinds() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/errors.json");
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("errors.json")).expect("JSON");
    fixture["kinds"].as_array().expect("kinds").clone()
}

/// Each sample's kind and field names in the file's order (the core's declaration order, which
/// the hosts' positional constructors rely on): `serde_json::Map` would sort them.
#[cfg(feature = "uniffi")]
fn kinds_with_field_order() -> Vec<(String, Vec<String>)> {
    #[derive(serde::Deserialize)]
    struct Sample {
        kind: String,
        #[serde(default)]
        fields: Option<FieldOrder>,
    }
    #[derive(serde::Deserialize)]
    struct Fixture {
        kinds: Vec<Sample>,
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/errors.json");
    let fixture: Fixture = serde_json::from_str(&std::fs::read_to_string(path).expect("errors.json")).expect("JSON");
    fixture.kinds.into_iter().map(|sample| (sample.kind, sample.fields.map_or_else(Vec::new, |f| f.0))).collect()
}

/// An object's keys, in order.
#[cfg(feature = "uniffi")]
struct FieldOrder(Vec<String>);

#[cfg(feature = "uniffi")]
impl<'de> serde::Deserialize<'de> for FieldOrder {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> serde::de::Visitor<'de> for Keys {
            type Value = FieldOrder;
            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("an object of fields")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<FieldOrder, A::Error> {
                let mut keys = Vec::new();
                while let Some((key, serde::de::IgnoredAny)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                    keys.push(key);
                }
                Ok(FieldOrder(keys))
            }
        }
        deserializer.deserialize_map(Keys)
    }
}

/// The error the sample describes, built by serde from its kind and fields (no list of kinds).
pub(crate) fn build(sample: &Value) -> SikaError {
    let mut tagged = serde_json::Map::new();
    tagged.insert("kind".into(), sample["kind"].clone());
    if let Some(fields) = sample.get("fields") {
        tagged.insert("fields".into(), fields.clone());
    }
    serde_json::from_value(Value::Object(tagged)).unwrap_or_else(|e| panic!("{sample}: {e}"))
}

#[cfg(feature = "uniffi")]
#[test]
fn b295_the_fixture_has_one_sample_of_every_kind_of_the_metadata_with_its_fields() {
    let metadata = uniffi_meta::read_metadata(&super::UNIFFI_META_SIKA_CORE_ERROR_SIKAERROR).expect("metadata");
    let uniffi_meta::Metadata::Enum(error) = metadata else {
        panic!("SikaError's metadata is not an enum: {metadata:?}")
    };
    let exported: Vec<(String, Vec<String>)> = error
        .variants
        .iter()
        .map(|variant| (variant.name.clone(), variant.fields.iter().map(|field| field.name.clone()).collect()))
        .collect();
    let sampled = kinds_with_field_order();
    assert_eq!(
        sampled, exported,
        "tests/fixtures/errors.json has one sample per SikaError kind, in the core's order, with the kind's fields"
    );
}

#[test]
fn b295_every_sample_reads_as_its_text_and_names_its_kind() {
    let samples = fixture_kinds();
    assert!(!samples.is_empty());
    for sample in &samples {
        let error = build(sample);
        assert_eq!(error.kind(), sample["kind"], "{sample}");
        assert_eq!(error.to_string(), sample["text"].as_str().expect("text"), "{sample}");
        let request_id = sample.get("fields").and_then(|fields| fields.get("request_id")).and_then(Value::as_str);
        assert_eq!(error.request_id(), request_id, "{sample}: the id it quotes");
    }
}
