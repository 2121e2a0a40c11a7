//! A station's journal as the fleet tests and the fleet bench write it: the
//! Journal Export Format that `systemd-journal-remote -` reads, and an audit
//! record's sealed line with the checkpoint a station signs for its copy.
#![allow(dead_code)] // each test crate uses what it needs

use wordjudge_core::audit::checkpoint::StationKey;
use wordjudge_core::audit::Record;

/// One journal entry: its fields in order.
pub type Fields = Vec<(String, String)>;

/// `entries` in the Journal Export Format: `NAME=value` lines, or for a
/// value with a newline the name, a little-endian 64-bit length and the
/// bytes; a blank line after each entry.
pub fn export(entries: &[Fields]) -> Vec<u8> {
    let mut out = Vec::new();
    for fields in entries {
        for (name, value) in fields {
            if value.contains('\n') {
                out.extend_from_slice(name.as_bytes());
                out.push(b'\n');
                out.extend_from_slice(&(value.len() as u64).to_le_bytes());
                out.extend_from_slice(value.as_bytes());
                out.push(b'\n');
            } else {
                out.extend_from_slice(format!("{name}={value}\n").as_bytes());
            }
        }
        out.push(b'\n');
    }
    out
}

/// `record` sealed into its line, and the checkpoint its journal copy
/// carries, signed with `key` (as the station's writer makes them): (line,
/// its hash, the signed checkpoint).
pub fn signed_line(key: &StationKey, record: &Record) -> (String, String, String) {
    let line = wordjudge_core::audit::format::seal(&serde_json::to_string(record).unwrap());
    let hash = wordjudge_core::audit::format::line_hash(line.as_bytes());
    let note = wordjudge_core::recorder::journal::line_checkpoint(
        key,
        record.seq,
        &hash,
        record.time.clone(),
        &record.station,
    );
    (line, hash, note)
}
