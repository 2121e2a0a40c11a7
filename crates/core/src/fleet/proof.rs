//! What makes a journal entry a station's record on the laptop: the line
//! itself and a checkpoint of the log up to it, signed by the audit key the
//! laptop paired with that station when it signed the station's certificate.
//!
//! Everything else in a journal entry (`WORDJUDGE_STATION`, `_HOSTNAME`,
//! `WORDJUDGE_VERDICT`, the time) is what the sender says, and anyone with a
//! certificate of the event can send it. The signed line is what the station
//! wrote into its audit file: its seal ([`crate::audit::format`]) is its
//! hash, its `prev` the hash before it, and the checkpoint (count = `seq`,
//! head = that hash) is signed with a key that never leaves the station. So
//! [`check`] accepts an entry only when all of these hold, and the summary
//! ([`super::Fleet`]) takes the station, the verdict and the lexicon from the
//! verified line, never from the other fields.

use crate::audit::checkpoint::{open_note, NoteError, NoteVerifier};
use crate::audit::format::sealed_line_hash;
use crate::audit::record::{CheckpointReason, Record};
use std::fmt;

/// A station's audit key as the laptop paired it at `fleet sign`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairedKey {
    /// The station's name in the fleet: its certificate's CN.
    pub station: String,
    pub verifier: NoteVerifier,
    /// When `fleet sign --replace` paired another key with the station
    /// (seconds since the epoch): this key's records are the station's from
    /// before, shown apart; `None` for the key paired now.
    pub replaced_at: Option<i64>,
}

/// A record proven to be a paired station's.
#[derive(Debug, Clone)]
pub struct Proven {
    /// Index of the paired key that signed it.
    pub key: usize,
    pub record: Record,
    /// The line's `line_sha256`, computed from the line.
    pub hash: String,
}

/// Why an entry is not a paired station's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No line or no signed checkpoint with it: a station of this version
    /// sends both with every record it wrote.
    Unsigned,
    /// Signed by a key no station was paired with.
    UnknownKey { key_name: String },
    /// The checkpoint does not verify under the key its origin names.
    BadSignature(NoteError),
    /// The line's seal is not its hash: the line was edited.
    LineEdited,
    /// The line is sealed but is not a record.
    NotARecord(String),
    /// The checkpoint is for another line or another place in the chain.
    NotThisLine,
    /// A field of the entry says something else than the signed line.
    FieldDiffers { field: &'static str },
    /// Another station's signed line, sent with this station's certificate.
    SentByOther { signer: String },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Unsigned => write!(f, "unsigned: no signed line, not the station's record"),
            Refusal::UnknownKey { key_name } => {
                write!(f, "signed by a key no station was paired with ({})", crate::word::printable(key_name, 60))
            }
            Refusal::BadSignature(e) => write!(f, "forged: {e}"),
            Refusal::LineEdited => write!(f, "edited: the line's seal is not its hash, the line was edited"),
            Refusal::NotARecord(why) => write!(f, "not a record: {}", crate::word::printable(why, 60)),
            Refusal::NotThisLine => write!(f, "edited: the signature is for another line or another place in the log"),
            Refusal::FieldDiffers { field: "station" } => {
                write!(f, "impersonation: the station's own signed line, sent as another station's")
            }
            Refusal::FieldDiffers { field } => write!(f, "its {field} is not the signed line's"),
            Refusal::SentByOther { signer } => write!(
                f,
                "impersonation: a line signed by {}, sent with this station's certificate",
                crate::word::printable(signer, 60)
            ),
        }
    }
}

/// The key name a signed note says it is signed by: its first line.
fn origin(note: &str) -> &str {
    note.lines().next().unwrap_or("")
}

/// Checks `line` and `checkpoint` (the entry's `WORDJUDGE_LINE` and
/// `WORDJUDGE_CHECKPOINT`) against the paired `keys`.
pub fn check(keys: &[PairedKey], line: Option<&str>, checkpoint: Option<&str>) -> Result<Proven, Refusal> {
    let (Some(line), Some(note)) = (line, checkpoint) else { return Err(Refusal::Unsigned) };
    let name = origin(note);
    let mut candidates = keys.iter().enumerate().filter(|(_, k)| k.verifier.name == name).peekable();
    if candidates.peek().is_none() {
        return Err(Refusal::UnknownKey { key_name: name.to_string() });
    }
    let mut last = Refusal::UnknownKey { key_name: name.to_string() };
    for (index, key) in candidates {
        match open_note(note, &key.verifier) {
            Ok(checkpoint) => {
                let hash = sealed_line_hash(line.as_bytes()).map_err(|_| Refusal::LineEdited)?;
                let record = Record::parse(line.as_bytes()).map_err(|e| Refusal::NotARecord(e.to_string()))?;
                if checkpoint.head != hash
                    || checkpoint.count != record.seq
                    || checkpoint.reason != CheckpointReason::Journal.as_str()
                {
                    return Err(Refusal::NotThisLine);
                }
                return Ok(Proven { key: index, record, hash });
            }
            Err(e) => last = Refusal::BadSignature(e),
        }
    }
    Err(last)
}
