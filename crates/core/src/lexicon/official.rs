//! The official catalogue, compiled into the binary: every tournament lexicon
//! a director may install by its word file alone, with the facts that decide
//! whether an installed file *is* that lexicon.
//!
//! It lives here, not in editable files, because a status a director leans on
//! in a dispute must not depend on a file anyone with a text editor can
//! change: an id, its layers and length rules, the published fingerprint and
//! the pinned digests are part of the program. A definition file in the
//! lexicon directory cannot change an official id (see [`super::catalog`]).
//!
//! Two kinds of evidence, of different strength:
//!
//! * **Pinned content digest** ([`Pin::content_sha256`]): SHA-256 of the
//!   sorted unique words, each followed by `\n` (uppercase A–Z). It is
//!   collision resistant, so a list with the pinned digest is the official
//!   list, letter for letter. Only lists whose real content was at hand are
//!   pinned (CSW15, NWL2018, TWL06); a digest cannot be taken from a
//!   published 8-digit fingerprint.
//! * **Published fingerprint**: the first 8 hex digits of the XOR of per-word
//!   MD5s that word-game tools publish. It stays on screen and in records so
//!   people can compare it with other tools, but it is linear over GF(2):
//!   anyone can balance a list with chosen words to any fingerprint. Where no
//!   digest is pinned, a match earns only [`super::Status::FingerprintMatch`].
//!
//! [`Pin::fst_sha256`] is a shortcut, not a third kind of evidence: building
//! an fst from a sorted word list is deterministic, so the SHA-256 of the
//! bytes *this* builder produces for the pinned list identifies that list as
//! well as the content digest does, and checking it costs one hash of the
//! .fst (about a millisecond for CSW15) instead of reading every word back
//! (about 60 ms). An .fst made by another builder or fst version simply takes
//! the slow path, which computes the content digest itself.

/// The strong identity of one official word list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pin {
    /// SHA-256 of the sorted unique words, each followed by `\n`.
    pub content_sha256: &'static str,
    /// SHA-256 of the .fst bytes [`super::build::compile`] makes of the list.
    pub fst_sha256: &'static str,
    /// The full 32-hex-digit fingerprint of the list.
    pub fingerprint: &'static str,
    /// Number of words.
    pub word_count: u64,
}

/// A published word count: exact, or a lower bound where public sources
/// give only "more than".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordCount {
    Exact(u64),
    AtLeast(u64),
}

impl WordCount {
    /// Whether `words` agrees with it.
    pub fn allows(self, words: u64) -> bool {
        match self {
            WordCount::Exact(n) => words == n,
            WordCount::AtLeast(n) => words >= n,
        }
    }
}

impl std::fmt::Display for WordCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WordCount::Exact(n) => write!(f, "{n}"),
            WordCount::AtLeast(n) => write!(f, "at least {n}"),
        }
    }
}

/// One layer of an official lexicon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OfficialLayer {
    /// The .fst file name in the lexicon directory (its stem names the word
    /// file `lexicon install` takes, e.g. `CSW21.txt` → `CSW21.fst`).
    pub fst: &'static str,
    /// Shortest word this layer may accept.
    pub min_len: usize,
    /// Longest word this layer may accept.
    pub max_len: usize,
    /// The published fingerprint (8 hex digits), where one is published.
    pub published_fingerprint: Option<&'static str>,
    /// What public sources say of the number of words (each cited beside
    /// it below). A fingerprint is linear and can be balanced by a forger
    /// with chosen words; the count is checked with it, so a balanced list
    /// must also keep to the count (exactly, where it is known).
    pub published_words: Option<WordCount>,
    /// The pinned digests, where the real list was at hand to compute them.
    pub pin: Option<Pin>,
}

/// One official lexicon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OfficialLexicon {
    pub id: &'static str,
    pub name: &'static str,
    pub edition: &'static str,
    pub layers: &'static [OfficialLayer],
}

const fn whole(
    fst: &'static str,
    published: &'static str,
    words: Option<WordCount>,
    pin: Option<Pin>,
) -> OfficialLayer {
    OfficialLayer { fst, min_len: 2, max_len: 15, published_fingerprint: Some(published), published_words: words, pin }
}

const CSW15_PIN: Pin = Pin {
    content_sha256: "ce702157757d1a29560767c5f7ce583303d66262b1677368925eb63170c42efc",
    fst_sha256: "40129f162632a51a212ff5ee7222674508a4ccf3ca05254a605a536368dc866e",
    fingerprint: "48dea2c8aa4f5ecc3325b3cad6e62cf2",
    word_count: 276_663,
};
const NWL2018_PIN: Pin = Pin {
    content_sha256: "a360d589dbe9305b876546f94b82463b074385720fd96440c790e45411ec1e33",
    fst_sha256: "448205c527b7969fba210514504abff36931006b0bcbdb852fc7f900dfd4f026",
    fingerprint: "41da74af4d703662be3a7224e53b48fa",
    word_count: 192_111,
};
const TWL06_PIN: Pin = Pin {
    content_sha256: "576f29fa16c7ee47621300c877b5ce338beeb5d34fff1d289ed37310522bfee8",
    fst_sha256: "800f8c00d3b97b5b308d9c5ca6908f2c9cf7463089400b24c71d78761dc27edb",
    fingerprint: "64bdbe658f13f5e80638d8279b54e412",
    word_count: 178_691,
};

/// Every official lexicon, NASPA's first, then WESPA's (Collins), then school play.
/// What public sources say of every Collins edition's size: "over 260,000
/// words" (Denki, "Collins FAQ": "The full word list includes over 260,000
/// words"); the 2019 edition "has more than 279,000 entries" (YourDictionary,
/// "What Is Collins Scrabble Words"); CSW15, pinned here, has 276,663. A
/// lower bound only: no exact count per edition was found in public sources.
const CSW_WORDS: Option<WordCount> = Some(WordCount::AtLeast(260_000));

pub const OFFICIAL: &[OfficialLexicon] = &[
    OfficialLexicon {
        id: "TWL06",
        name: "Official Tournament and Club Word List 2006",
        edition: "NSA / Merriam-Webster, 2006 (TWL06, OWL2)",
        layers: &[whole("TWL06.fst", "64bdbe65", Some(WordCount::Exact(TWL06_PIN.word_count)), Some(TWL06_PIN))],
    },
    OfficialLexicon {
        id: "OTCWL2014",
        name: "Official Tournament and Club Word List 2014",
        edition: "NASPA / Merriam-Webster, 2014 (OTCWL2014)",
        layers: &[whole("OTCWL2014.fst", "0109ce12", None, None)],
    },
    OfficialLexicon {
        id: "TWL2016",
        name: "Official Tournament and Club Word List 2016",
        edition: "NASPA / Merriam-Webster, 2016 (OTCWL2016)",
        layers: &[whole("TWL2016.fst", "9ea8d964", None, None)],
    },
    OfficialLexicon {
        id: "NWL2018",
        name: "NASPA Word List 2018",
        edition: "NASPA, 2018 (NWL2018)",
        layers: &[whole("NWL2018.fst", "41da74af", Some(WordCount::Exact(NWL2018_PIN.word_count)), Some(NWL2018_PIN))],
    },
    OfficialLexicon {
        id: "NWL2020",
        name: "NASPA Word List 2020",
        edition: "NASPA, 2020 (NWL2020)",
        // 191,852 = NWL2018's 192,111 (pinned above, counted from the list)
        // less the 259 slurs NWL2020 removed: "It differs from its
        // predecessor, NWL2018, only in the removal of 259 words deemed to be
        // personally applicable offensive slurs" (Wikipedia, "NASPA Word
        // List", past editions; NASPA's NWL2020 final report, 2020-09-30).
        layers: &[whole("NWL2020.fst", "23673600", Some(WordCount::Exact(191_852)), None)],
    },
    OfficialLexicon {
        id: "NWL2023",
        name: "NASPA Word List 2023",
        edition: "NASPA, 2023 (NWL2023)",
        // NWL2020's 191,852 plus "over 4,500 words" (Wikipedia, "NASPA Word
        // List": NWL2023 "differs from its predecessor, NWL2020, in the
        // introduction of over 4,500 words"), rounded down.
        layers: &[whole("NWL2023.fst", "155a50a1", Some(WordCount::AtLeast(196_000)), None)],
    },
    OfficialLexicon {
        id: "CSW07",
        name: "Collins Scrabble Words 2007 (April update)",
        edition: "HarperCollins, 2007 (CSW07)",
        layers: &[whole("CSW07.fst", "23cd8bb8", CSW_WORDS, None)],
    },
    OfficialLexicon {
        id: "CSW12",
        name: "Collins Scrabble Words 2012",
        edition: "HarperCollins, 2011 (CSW12)",
        layers: &[whole("CSW12.fst", "eea8dfe5", CSW_WORDS, None)],
    },
    OfficialLexicon {
        id: "CSW15",
        name: "Collins Scrabble Words 2015",
        edition: "HarperCollins, 2015 (CSW15)",
        layers: &[whole("CSW15.fst", "48dea2c8", Some(WordCount::Exact(CSW15_PIN.word_count)), Some(CSW15_PIN))],
    },
    OfficialLexicon {
        id: "CSW19",
        name: "Collins Scrabble Words 2019",
        edition: "HarperCollins, 2019 (CSW19)",
        layers: &[whole("CSW19.fst", "f4fec274", CSW_WORDS, None)],
    },
    OfficialLexicon {
        id: "CSW21",
        name: "Collins Scrabble Words 2021",
        edition: "HarperCollins, 2021 (CSW21)",
        layers: &[whole("CSW21.fst", "3724aee7", CSW_WORDS, None)],
    },
    OfficialLexicon {
        id: "CSW24",
        name: "Collins Scrabble Words 2024",
        edition: "HarperCollins, 2024 (CSW24)",
        layers: &[whole("CSW24.fst", "7f0e9ef8", CSW_WORDS, None)],
    },
    OfficialLexicon {
        id: "SSWL2016",
        name: "School Scrabble Word List 2016",
        edition: "NASPA / Merriam-Webster, 2016 (SSWL2016; school play)",
        layers: &[whole("SSWL2016.fst", "5a728cf0", None, None)],
    },
    OfficialLexicon {
        id: "NSWL2018",
        name: "NASPA School Word List 2018",
        edition: "NASPA, 2018 (NSWL2018; school play)",
        layers: &[whole("NSWL2018.fst", "de591703", None, None)],
    },
    OfficialLexicon {
        id: "NSWL2020",
        name: "NASPA School Word List 2020",
        edition: "NASPA, 2020 (NSWL2020; school play)",
        layers: &[whole("NSWL2020.fst", "f2c7005d", None, None)],
    },
    OfficialLexicon {
        id: "NSWL2023",
        name: "NASPA School Word List 2023",
        edition: "NASPA, 2023 (NSWL2023; school play)",
        layers: &[whole("NSWL2023.fst", "283115a1", None, None)],
    },
    // School play: a word of any length is acceptable when it is in OSPD4; a
    // word of 9 or more letters not in OSPD4 is acceptable when it is in MW11
    // (omitting foreign, capitalized, hyphenated and offensive entries). No
    // fingerprint is published for either list, so this lexicon can at most
    // be Unverified (it still judges; the director sees why).
    OfficialLexicon {
        id: "OSPD4+MW11",
        name: "OSPD4 with MW11 long words (school play)",
        edition: "Merriam-Webster: OSPD 4th ed. (2005) + Collegiate 11th ed. (2003)",
        layers: &[
            OfficialLayer {
                fst: "OSPD4.fst",
                min_len: 2,
                max_len: 15,
                published_fingerprint: None,
                published_words: None,
                pin: None,
            },
            OfficialLayer {
                fst: "MW11-long.fst",
                min_len: 9,
                max_len: 15,
                published_fingerprint: None,
                published_words: None,
                pin: None,
            },
        ],
    },
];

/// Other names word files go by, and the layer file they install as.
const ALIASES: &[(&str, &str)] = &[("OTCWL2016", "TWL2016.fst"), ("MW11", "MW11-long.fst")];

/// The official lexicon with this id.
/// The published word count of layer `index` of official lexicon `id`.
pub fn published_words(id: &str, index: usize) -> Option<WordCount> {
    find(id)?.layers.get(index)?.published_words
}

pub fn find(id: &str) -> Option<&'static OfficialLexicon> {
    OFFICIAL.iter().find(|l| l.id == id)
}

/// The official lexicon and layer a word file named `name` installs as:
/// `CSW21` → CSW21's layer `CSW21.fst`; `OSPD4` → the first layer of
/// OSPD4+MW11; `OTCWL2016` → `TWL2016.fst`. Case matters (ids are exact).
pub fn layer_for_name(name: &str) -> Option<(&'static OfficialLexicon, &'static OfficialLayer)> {
    let fst = ALIASES.iter().find(|(alias, _)| *alias == name).map(|(_, fst)| fst.to_string());
    let fst = fst.unwrap_or_else(|| format!("{name}.fst"));
    OFFICIAL
        .iter()
        .find_map(|lexicon| lexicon.layers.iter().find(|layer| layer.fst == fst).map(|layer| (lexicon, layer)))
}

/// The official layer a word list *is*, by its words, whatever its file
/// is called: the layer whose pinned content digest it has, else the one
/// whose published fingerprint and published word count it matches (the
/// weaker check, as at install). `None` when it is no official list.
pub fn layer_for_content(
    content_sha256: Option<&str>,
    fingerprint: &crate::fingerprint::Fingerprint,
    word_count: u64,
) -> Option<(&'static OfficialLexicon, &'static OfficialLayer)> {
    let layers = || OFFICIAL.iter().flat_map(|lexicon| lexicon.layers.iter().map(move |layer| (lexicon, layer)));
    let pinned = layers().find(|(_, layer)| layer.pin.is_some_and(|pin| Some(pin.content_sha256) == content_sha256));
    pinned.or_else(|| {
        layers().find(|(_, layer)| {
            layer.pin.is_none()
                && layer.published_fingerprint.is_some_and(|p| fingerprint.matches_published(p))
                && layer.published_words.is_none_or(|words| words.allows(word_count))
        })
    })
}

/// The name a list installs as for `layer` (`CSW15`, `OSPD4`, `MW11-long`).
pub fn layer_name(layer: &OfficialLayer) -> &'static str {
    layer.fst.trim_end_matches(".fst")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_layer_files_are_unique_and_fingerprints_well_formed() {
        let mut ids: Vec<&str> = OFFICIAL.iter().map(|l| l.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), OFFICIAL.len());
        let mut files: Vec<&str> = OFFICIAL.iter().flat_map(|l| l.layers.iter().map(|x| x.fst)).collect();
        let n = files.len();
        files.sort();
        files.dedup();
        assert_eq!(files.len(), n);
        for layer in OFFICIAL.iter().flat_map(|l| l.layers) {
            if let Some(p) = layer.published_fingerprint {
                assert!(p.len() == 8 && p.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()), "{p}");
            }
            if let Some(pin) = layer.pin {
                assert!(pin.fingerprint.starts_with(layer.published_fingerprint.unwrap()), "{}", layer.fst);
                assert_eq!(pin.content_sha256.len(), 64);
            }
        }
    }

    #[test]
    fn only_lists_that_were_at_hand_are_pinned() {
        let pinned: Vec<&str> =
            OFFICIAL.iter().filter(|l| l.layers.iter().any(|x| x.pin.is_some())).map(|l| l.id).collect();
        assert_eq!(pinned, ["TWL06", "NWL2018", "CSW15"]);
        // NWL2018 is not TWL2016: the stand-in must never be pinned under TWL2016.
        assert!(find("TWL2016").unwrap().layers[0].pin.is_none());
    }

    #[test]
    fn every_official_lexicon_has_a_family_and_every_edition_is_official() {
        // A lexicon with no family would have no profile, so no challenge
        // rule could ever be shown under its verdicts.
        for lexicon in OFFICIAL {
            assert!(crate::profile::Family::of(lexicon.id).is_some(), "{} belongs to no profile family", lexicon.id);
        }
        for family in crate::profile::Family::ALL {
            for edition in family.editions() {
                assert!(
                    find(edition).is_some() || *edition == "DEMO",
                    "{edition} ({family:?}) is not in the catalogue"
                );
            }
        }
    }

    #[test]
    fn word_file_names_find_their_layer() {
        assert_eq!(layer_for_name("CSW21").unwrap().0.id, "CSW21");
        assert_eq!(layer_for_name("OTCWL2016").unwrap().1.fst, "TWL2016.fst");
        let (lexicon, layer) = layer_for_name("MW11-long").unwrap();
        assert_eq!((lexicon.id, layer.min_len), ("OSPD4+MW11", 9));
        assert!(layer_for_name("csw21").is_none());
        assert!(layer_for_name("XYZ").is_none());
    }
}
