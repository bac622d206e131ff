//! The second read of a document that held numbers or booleans: the first read's shape
//! followed, every scalar asked for as a string, so its source text is kept. And the
//! reads that are not the usual one: [`Wide`], for integers past 64 bits, and [`Counted`],
//! which measures a document, aliases expanded, up to a bound.

use super::{key_text, Node, Scalar};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_norway::Value;
use std::cell::Cell;
use std::fmt;

/// Reads a document a second time, following `shape` (the first read), asking for
/// every scalar as a string so that its source text is kept: each text and a byte for it
/// taken from `left`, failing (`left` then `None`) past it.
pub(super) struct RawSeed<'a> {
    pub(super) shape: &'a Value,
    pub(super) left: &'a Cell<Option<usize>>,
}

impl<'de> DeserializeSeed<'de> for RawSeed<'_> {
    type Value = Node;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        let left = self.left;
        match self.shape {
            Value::Sequence(items) => deserializer.deserialize_seq(SeqShape { items, left }),
            Value::Mapping(map) => deserializer.deserialize_map(MapShape { map, left }),
            Value::Tagged(tagged) => RawSeed { shape: &tagged.value, left }.deserialize(deserializer),
            other => {
                let null = matches!(other, Value::Null);
                deserializer.deserialize_str(ScalarText { left }).map(|text| Node::Scalar(Scalar { text, null }))
            }
        }
    }
}

struct ScalarText<'a> {
    left: &'a Cell<Option<usize>>,
}

impl Visitor<'_> for ScalarText<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a scalar")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        spend(self.left, v.len())?;
        Ok(v.to_owned())
    }
}

struct SeqShape<'a> {
    items: &'a [Value],
    left: &'a Cell<Option<usize>>,
}

impl<'de> Visitor<'de> for SeqShape<'_> {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut out = Vec::with_capacity(self.items.len());
        for shape in self.items {
            match seq.next_element_seed(RawSeed { shape, left: self.left })? {
                Some(node) => out.push(node),
                None => return Err(de::Error::custom("sequence shorter on second read")),
            }
        }
        Ok(Node::Seq(out))
    }
}

struct MapShape<'a> {
    map: &'a serde_norway::Mapping,
    left: &'a Cell<Option<usize>>,
}

impl<'de> Visitor<'de> for MapShape<'_> {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a mapping")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Node, A::Error> {
        let mut out = Vec::with_capacity(self.map.len());
        for (key_shape, value_shape) in self.map.iter() {
            let Some(key) = access.next_key_seed(RawSeed { shape: key_shape, left: self.left })? else {
                return Err(de::Error::custom("mapping shorter on second read"));
            };
            let value = access.next_value_seed(RawSeed { shape: value_shape, left: self.left })?;
            out.push((key_text(&key), value));
        }
        Ok(Node::Map(out))
    }
}

/// A first read for a document `serde_norway::Value` refuses for an integer past 64 bits
/// (`invalid type: integer … as u128`; PyYAML reads it): such an integer is kept as its
/// decimal text (neither a YAML number here nor JSON holds it), every other value as
/// `Value` reads it.
pub(super) struct Wide;

impl<'de> DeserializeSeed<'de> for Wide {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(WideVisitor)
    }
}

struct WideVisitor;

impl<'de> Visitor<'de> for WideVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        Wide.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Wide)? {
            items.push(item);
        }
        Ok(Value::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = serde_norway::Mapping::new();
        while let Some(key) = access.next_key_seed(Wide)? {
            if map.contains_key(&key) {
                return Err(de::Error::custom("duplicate entry in a mapping"));
            }
            let value = access.next_value_seed(Wide)?;
            map.insert(key, value);
        }
        Ok(Value::Mapping(map))
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let (tag, contents): (String, _) = data.variant()?;
        if tag.is_empty() {
            return Err(de::Error::custom("empty YAML tag is not allowed"));
        }
        let value = de::VariantAccess::newtype_variant_seed(contents, Wide)?;
        Ok(Value::Tagged(Box::new(serde_norway::value::TaggedValue { tag: serde_norway::value::Tag::new(tag), value })))
    }
}

/// Reads a document keeping nothing, measuring it (aliases expanded, as every read expands
/// them: a byte for each scalar, sequence, mapping and tag, each string's text, and for a
/// scalar read as a number, a boolean or null `typed_bytes`, the longest its text may be)
/// down from `left`, and failing, `left` then `None`, past it: what bounds a document's
/// aliases before a read that keeps values (or reads a long number again at each alias).
#[derive(Clone, Copy)]
pub(super) struct Counted<'a> {
    pub(super) left: &'a Cell<Option<usize>>,
    pub(super) typed_bytes: usize,
}

/// Takes a value of `text_bytes` of text (and a byte for the value) from `left`: an error,
/// `left` then `None`, past it.
fn spend<E: de::Error>(left: &Cell<Option<usize>>, text_bytes: usize) -> Result<(), E> {
    let rest = left.get().and_then(|left| left.checked_sub(text_bytes.saturating_add(1)));
    left.set(rest);
    match rest {
        Some(_) => Ok(()),
        None => Err(de::Error::custom("too large")),
    }
}

/// [`Counted`]'s visits of a scalar read as a number, a boolean or null: its text is not
/// seen, so it is taken as `typed_bytes` long, the longest it may be.
macro_rules! typed_visits {
    ($($visit:ident($($value:ty)?)),* $(,)?) => {
        $(fn $visit<E: de::Error>(self $(, _: $value)?) -> Result<(), E> {
            spend(self.left, self.typed_bytes)
        })*
    };
}

impl<'de> DeserializeSeed<'de> for Counted<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counted<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    typed_visits!(visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_i128(i128), visit_u128(u128), visit_f64(f64));
    typed_visits!(visit_unit(), visit_none());

    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        spend(self.left, text.len())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        spend(self.left, 0)?;
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        spend(self.left, 0)?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<(), A::Error> {
        spend(self.left, 0)?;
        while access.next_key_seed(self)?.is_some() {
            access.next_value_seed(self)?;
        }
        Ok(())
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        spend(self.left, 0)?;
        let ((), contents) = data.variant_seed(self)?;
        de::VariantAccess::newtype_variant_seed(contents, self)
    }
}
