//! Lexicon definitions: the TOML files in a lexicon directory that say what a
//! tournament lexicon is made of.
//!
//! A definition has an id (`TWL2016`), a display name, a publisher/edition
//! line, ordered layers, and optional correction lists:
//!
//! ```toml
//! id = "OSPD4+MW11"
//! name = "OSPD4 with MW11 long words"
//! edition = "Merriam-Webster, 2005; school play"
//! remove = []   # words the publisher withdrew
//! add = []      # words the publisher added
//!
//! [[layer]]
//! fst = "OSPD4.fst"
//!
//! [[layer]]
//! fst = "MW11-long.fst"
//! min_len = 9   # shorter MW11 words are never acceptable
//! ```
//!
//! A word is acceptable when it is in `add`, or when it is not in `remove`
//! and some layer that admits its length contains it. So a correction list
//! always wins over the layers; a word may not be in both lists (such a
//! definition is refused, since nobody could tell which was meant).
//! A layer may carry the `published_fingerprint` of the official list it
//! holds (8 or more hex digits), which is what makes a lexicon
//! *Verified official*.

use crate::word::{normalize, MAX_LEN, MIN_LEN};
use serde::Deserialize;
use std::fmt;

/// One layer: a compiled .fst and the word lengths it may accept.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerDefinition {
    /// File name of the compiled .fst, relative to the lexicon directory.
    pub fst: String,
    /// Shortest word this layer may accept (default 2).
    #[serde(default = "default_min_len")]
    pub min_len: usize,
    /// Longest word this layer may accept (default 15).
    #[serde(default = "default_max_len")]
    pub max_len: usize,
    /// The fingerprint the publisher (or word-game tools) published for this list.
    pub published_fingerprint: Option<String>,
}

fn default_min_len() -> usize {
    MIN_LEN
}
fn default_max_len() -> usize {
    MAX_LEN
}

impl LayerDefinition {
    /// Whether this layer may accept a word of `len` letters.
    pub fn admits_length(&self, len: usize) -> bool {
        (self.min_len..=self.max_len).contains(&len)
    }
}

/// A tournament lexicon as its definition file describes it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Definition {
    /// Short id shown on screen and used on the command line (`CSW15`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Publisher and edition.
    pub edition: String,
    /// Words the publisher withdrew from the layers' lists.
    #[serde(default)]
    pub remove: Vec<String>,
    /// Words the publisher added to the layers' lists.
    #[serde(default)]
    pub add: Vec<String>,
    /// Ordered layers.
    #[serde(rename = "layer")]
    pub layers: Vec<LayerDefinition>,
}

/// Why a definition file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionError(pub String);

impl fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DefinitionError {}

/// Whether `id` is a usable lexicon id: 1–32 of `A-Z a-z 0-9 + - _ .`.
pub fn valid_id(id: &str) -> bool {
    (1..=32).contains(&id.len()) && id.chars().all(|c| c.is_ascii_alphanumeric() || "+-_.".contains(c))
}

impl Definition {
    /// Parses and checks a definition's text. Correction words come back uppercase and sorted.
    pub fn from_toml(text: &str) -> Result<Definition, DefinitionError> {
        let mut def: Definition = toml::from_str(text).map_err(|e| DefinitionError(e.message().to_string()))?;
        if !valid_id(&def.id) {
            return Err(DefinitionError(format!("id {:?} must be 1-32 letters, digits or + - _ .", def.id)));
        }
        if def.layers.is_empty() {
            return Err(DefinitionError("a lexicon needs at least one [[layer]]".into()));
        }
        for layer in &def.layers {
            if !(MIN_LEN <= layer.min_len && layer.min_len <= layer.max_len && layer.max_len <= MAX_LEN) {
                return Err(DefinitionError(format!(
                    "layer {}: min_len {} and max_len {} must satisfy {MIN_LEN} <= min_len <= max_len <= {MAX_LEN}",
                    layer.fst, layer.min_len, layer.max_len
                )));
            }
            if !layer.fst.ends_with(".fst") || layer.fst.contains('/') || layer.fst.starts_with('.') {
                return Err(DefinitionError(format!(
                    "layer {:?}: fst must be a file name in the lexicon directory ending in .fst",
                    layer.fst
                )));
            }
            if let Some(fp) = &layer.published_fingerprint {
                if fp.len() < 8 || fp.len() > 32 || !fp.chars().all(|c| c.is_ascii_hexdigit()) {
                    return Err(DefinitionError(format!(
                        "layer {}: published_fingerprint {fp:?} must be 8 to 32 hex digits",
                        layer.fst
                    )));
                }
            }
        }
        for list in [&mut def.remove, &mut def.add] {
            let mut words = Vec::with_capacity(list.len());
            for typed in list.iter() {
                words.push(normalize(typed).map_err(|e| DefinitionError(format!("correction list: {e}")))?);
            }
            words.sort();
            words.dedup();
            *list = words;
        }
        if let Some(both) = def.add.iter().find(|w| def.remove.binary_search(w).is_ok()) {
            return Err(DefinitionError(format!(
                "{both} is in both `add` and `remove`; a word may be in only one correction list"
            )));
        }
        Ok(def)
    }

    /// Published fingerprints, one per layer that has one.
    pub fn has_published_fingerprints(&self) -> bool {
        self.layers.iter().any(|l| l.published_fingerprint.is_some())
    }
}

/// An official lexicon as a definition.
pub fn official_definition(official: &super::official::OfficialLexicon) -> Definition {
    Definition {
        id: official.id.to_string(),
        name: official.name.to_string(),
        edition: official.edition.to_string(),
        remove: Vec::new(),
        add: Vec::new(),
        layers: official
            .layers
            .iter()
            .map(|l| LayerDefinition {
                fst: l.fst.to_string(),
                min_len: l.min_len,
                max_len: l.max_len,
                published_fingerprint: l.published_fingerprint.map(str::to_string),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OSPD: &str = r#"
        id = "OSPD4+MW11"
        name = "OSPD4 with MW11"
        edition = "school"
        [[layer]]
        fst = "OSPD4.fst"
        [[layer]]
        fst = "MW11.fst"
        min_len = 9
    "#;

    #[test]
    fn parses_layers_with_defaults() {
        let def = Definition::from_toml(OSPD).unwrap();
        assert_eq!(def.layers.len(), 2);
        assert_eq!((def.layers[0].min_len, def.layers[0].max_len), (2, 15));
        assert!(def.layers[1].admits_length(9) && !def.layers[1].admits_length(8));
    }

    #[test]
    fn refuses_bad_definitions_with_reasons() {
        let cases = [
            (OSPD.replace("min_len = 9", "min_len = 1"), "min_len"),
            (OSPD.replace("min_len = 9", "min_len = 16"), "min_len"),
            (OSPD.replace("\"OSPD4+MW11\"", "\"a b\""), "id"),
            (OSPD.replace("MW11.fst", "../MW11.fst"), "fst"),
            (OSPD.replace("edition = \"school\"", "edition = \"school\"\nadd = [\"CAT\"]\nremove = [\"cat\"]"), "both"),
            (OSPD.replace("edition = \"school\"", "edition = \"school\"\nadd = [\"C4T\"]"), "C4T"),
            (OSPD.replace("edition = \"school\"", "edition = \"school\"\nextra = 1"), "extra"),
            ("id = \"X\"\nname = \"x\"\nedition = \"x\"\nlayer = []".to_string(), "layer"),
        ];
        for (text, needle) in cases {
            let err = Definition::from_toml(&text).unwrap_err();
            assert!(err.to_string().contains(needle), "{needle}: {err}");
        }
    }
}
