//! Appending: one sealed line at the chain's end, the file rotated first
//! when the day changed or it is full, then written and `fdatasync`ed.

use super::{AuditLog, Output};
use crate::audit::clock::Stamp;
use crate::audit::format::{self, LogName};
use crate::audit::record::{AuditEvent, Body, CheckpointReason, Record};
use crate::recorder::AuditError;
use jiff::civil::Date;
use std::io::Write;

impl AuditLog {
    pub(super) fn create_file(&self, name: LogName) -> Result<Output, AuditError> {
        let path = self.dir.join(name.file_name());
        let file = crate::outside_files::open_regular_rw(&path, true, true)
            .map_err(|source| AuditError::Open { path: path.clone(), source })?;
        let len = file.metadata().map_err(|source| AuditError::Open { path: path.clone(), source })?.len();
        // The new directory entry must be durable before records go in it.
        crate::outside_files::sync_folder(&self.dir)
            .map_err(|source| AuditError::Open { path: path.clone(), source })?;
        Ok(Output { file, path, name, len })
    }

    /// Appends one record made at `stamp` at the chain's end, rotating first
    /// when the day changed (by the clock `now`: a delayed record never sends
    /// the log back to an earlier day) or the file is full. Returns the
    /// line's hash.
    pub(super) fn append(
        &mut self,
        now: &Stamp,
        stamp: &Stamp,
        body: &Body,
        delayed: bool,
    ) -> Result<String, AuditError> {
        let date = self.local_date(now);
        let line = self.encode(stamp, body, delayed)?;
        let rotate = match &self.out {
            Some(out) if out.len > 0 && out.name.date != date => Some("new day"),
            Some(out) if out.len > 0 && out.len + line.len() as u64 + 1 > self.options.max_file_bytes => Some("size"),
            _ => None,
        };
        if let Some(reason) = rotate {
            self.rotate(now, date, reason)?;
            if reason == "new day" {
                self.checkpoint_due = Some(CheckpointReason::NewDay);
            }
        }
        let line = if rotate.is_some() { self.encode(stamp, body, delayed)? } else { line };
        self.write_line(line, body)
    }

    /// Starts the next file: created (and its directory entry synced) first,
    /// then a `rotated` record naming it closes the old file, so a deleted
    /// last file is visible from the one before.
    pub(super) fn rotate(&mut self, stamp: &Stamp, date: Date, reason: &str) -> Result<(), AuditError> {
        let index = self.out.as_ref().map_or(0, |o| o.name.index) + 1;
        let next = self.create_file(LogName { index, date })?;
        let event = Body::Event(AuditEvent::Rotated { next_file: next.name.file_name(), reason: reason.to_string() });
        let line = self.encode(stamp, &event, false)?;
        self.write_line(line, &event)?;
        self.out = Some(next);
        Ok(())
    }

    pub(super) fn encode(&self, stamp: &Stamp, body: &Body, delayed: bool) -> Result<String, AuditError> {
        let chain = self.chain.as_ref().ok_or_else(|| AuditError::Encode("the chain end is not known".into()))?;
        let record = Record {
            seq: chain.next_seq,
            prev: chain.prev.clone(),
            time: stamp.rfc3339(),
            boot_id: self.boot_id.clone(),
            mono_ns: stamp.mono_ns,
            clock_synced: stamp.synced,
            station: self.station.clone(),
            delayed,
            body: body.clone(),
            line_sha256: None,
            code: None,
        };
        let json = serde_json::to_string(&record).map_err(|e| AuditError::Encode(e.to_string()))?;
        Ok(format::seal(&escape_c1(json)))
    }

    /// Appends `line` (the record `body`, encoded) and a newline in one
    /// write, then `fdatasync`. On any error the file is cut back to its last
    /// good length, so a half-written line never stays in front of later ones.
    ///
    /// Every line that reaches the file goes through here, and so does its
    /// journald copy ([`Self::send_written`]): a fleet's laptop that checks
    /// the chain needs every line, the `rotated` ones and those written late
    /// from the backlog included.
    pub(super) fn write_line(&mut self, line: String, body: &Body) -> Result<String, AuditError> {
        let out = self.out.as_mut().ok_or_else(|| AuditError::Encode("no audit file is open".into()))?;
        let mut bytes = line.into_bytes();
        let hash = format::line_hash(&bytes);
        bytes.push(b'\n');
        let result = out.file.write_all(&bytes).and_then(|()| out.file.sync_data());
        if let Err(source) = result {
            let _ = out.file.set_len(out.len).and_then(|()| out.file.sync_data());
            return Err(AuditError::Write { path: out.path.clone(), source });
        }
        out.len += bytes.len() as u64;
        let seq = self.chain.as_ref().map(|c| c.next_seq);
        if let Some(chain) = &mut self.chain {
            chain.next_seq = chain.next_seq.saturating_add(1);
            chain.prev = hash.clone();
        }
        bytes.pop();
        self.send_written(body, seq, &hash, bytes);
        Ok(hash)
    }

    /// The journald copy of a line just written: the record's fields, the
    /// line itself and a checkpoint of the log up to it, signed with the
    /// station's key, so that a copy that left the station proves on its own
    /// that this station wrote this line at this place in its chain
    /// ([`crate::fleet`] checks it on the laptop). Nothing is signed when no
    /// `tracing` subscriber would take the copy.
    fn send_written(&mut self, body: &Body, seq: Option<u64>, hash: &str, line: Vec<u8>) {
        if !self.journal.listening() {
            return;
        }
        let mut entry = self.journal_entry(body, seq, Some(hash.to_string()));
        if let (Some(key), Some(count)) = (&self.key, seq) {
            let time = Stamp::take(self.options.clock.as_ref()).rfc3339();
            entry.checkpoint = Some(crate::recorder::journal::line_checkpoint(key, count, hash, time, &self.station));
        }
        entry.line = String::from_utf8(line).ok();
        self.journal.send(entry);
    }
}

/// DEL and the C1 controls (U+0080–U+009F) as `\u00XX` escapes: serde_json
/// escapes only U+0000–U+001F, and a raw U+009B is a terminal's CSI. In a
/// JSON document they can only be inside strings, where the escape means
/// the same character.
fn escape_c1(json: String) -> String {
    if !json.chars().any(|c| c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c)) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c1_controls_are_escaped() {
        assert_eq!(escape_c1("{\"a\":\"x\u{9b}31m\u{7f}\"}".into()), "{\"a\":\"x\\u009b31m\\u007f\"}");
    }
}
