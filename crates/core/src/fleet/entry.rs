//! One journal entry as `fleet status` reads it: the fields asked of
//! journalctl (`--output-fields`) and each one's value as text, whatever
//! form journalctl wrote it in.

use crate::recorder::journal_field_name;

/// The journal fields this module reads (for `journalctl --output-fields`;
/// `__REALTIME_TIMESTAMP` always comes). Only these: a record's verdict,
/// lexicon and number are read from its signed line, so the entry's own
/// copies of them (and its long `WORDJUDGE_RECORD`) are not asked for, and
/// journalctl does not spend time writing them out.
pub fn output_fields() -> Vec<String> {
    let mut fields: Vec<String> = ["_HOSTNAME", "SYSLOG_IDENTIFIER", "MESSAGE"].map(String::from).to_vec();
    for name in ["event", "station", "seq", "audit_written", "line_sha256", "line", "checkpoint"] {
        fields.push(journal_field_name(name));
    }
    fields
}

/// One journal entry's fields (`journalctl -o json`), read as text.
pub(super) struct Fields(pub(super) serde_json::Map<String, serde_json::Value>);

impl Fields {
    pub(super) fn get(&self, name: &str) -> Option<String> {
        self.0.get(name).and_then(text)
    }

    /// wordjudge's own field `name`, as the recorder names it in the journal.
    pub(super) fn wj(&self, name: &str) -> Option<String> {
        self.get(&journal_field_name(name))
    }
}

/// A journal field's value as text: journalctl writes a string, an array
/// of bytes (a value that is not printable UTF-8) or an array of values (a
/// field given more than once: the last counts).
fn text(value: &serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Array(items) if items.iter().all(|i| i.is_u64()) => {
            let bytes: Vec<u8> = items.iter().filter_map(|i| i.as_u64()).map(|b| b as u8).collect();
            Some(String::from_utf8_lossy(&bytes).into_owned())
        }
        serde_json::Value::Array(items) => items.last().and_then(text),
        _ => None,
    }
}
