//! The second read of a document that held numbers or booleans: the first read's shape
//! followed, every scalar asked for as a string, so its source text is kept.

use super::{key_text, Node, Scalar};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_norway::Value;
use std::fmt;

/// Reads a document a second time, following `shape` (the first read), asking for
/// every scalar as a string so that its source text is kept.
pub(super) struct RawSeed<'a> {
    pub(super) shape: &'a Value,
}

impl<'de> DeserializeSeed<'de> for RawSeed<'_> {
    type Value = Node;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        match self.shape {
            Value::Sequence(items) => deserializer.deserialize_seq(SeqShape { items }),
            Value::Mapping(map) => deserializer.deserialize_map(MapShape { map }),
            Value::Tagged(tagged) => RawSeed { shape: &tagged.value }.deserialize(deserializer),
            other => {
                let null = matches!(other, Value::Null);
                deserializer.deserialize_str(ScalarText).map(|text| Node::Scalar(Scalar { text, null }))
            }
        }
    }
}

struct ScalarText;

impl Visitor<'_> for ScalarText {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a scalar")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }
}

struct SeqShape<'a> {
    items: &'a [Value],
}

impl<'de> Visitor<'de> for SeqShape<'_> {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut out = Vec::with_capacity(self.items.len());
        for shape in self.items {
            match seq.next_element_seed(RawSeed { shape })? {
                Some(node) => out.push(node),
                None => return Err(de::Error::custom("sequence shorter on second read")),
            }
        }
        Ok(Node::Seq(out))
    }
}

struct MapShape<'a> {
    map: &'a serde_norway::Mapping,
}

impl<'de> Visitor<'de> for MapShape<'_> {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a mapping")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Node, A::Error> {
        let mut out = Vec::with_capacity(self.map.len());
        for (key_shape, value_shape) in self.map.iter() {
            let Some(key) = access.next_key_seed(RawSeed { shape: key_shape })? else {
                return Err(de::Error::custom("mapping shorter on second read"));
            };
            let value = access.next_value_seed(RawSeed { shape: value_shape })?;
            out.push((key_text(&key), value));
        }
        Ok(Node::Map(out))
    }
}
