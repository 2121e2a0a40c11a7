//! What `audit verify` says besides the chain: the names the station had,
//! where its wall clock jumped, and which copies kept off the station the
//! log was (and was not) checked against.
//!
//! None of this fails an honest log: a station renamed by its director, or
//! a clock set during an event, still verifies. But a reader who trusts the
//! times or the station name in a record needs to know when they changed,
//! and a plain "OK" after a check that was never made (no journald copies,
//! a key not compared with the one noted at set-up) would claim more than
//! was checked.

use super::Location;
use crate::audit::clock::{jump_between, jump_text, Moment};
use crate::audit::record::{AuditEvent, Body, Record};
use jiff::Timestamp;
use std::fmt;

/// Characters of a station name printed (names from the log are outside
/// text: escaped and kept short).
const NAME_CHARS: usize = 48;

/// Earlier names listed at most (a crafted log could rename at every line).
const MAX_NAMES_SHOWN: usize = 5;

/// A name the station had, and the records that carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StationSpan {
    pub name: String,
    pub first_seq: u64,
    pub last_seq: u64,
}

/// Adds record `seq`, carrying station `name`, to the names seen so far.
pub(super) fn note_station(spans: &mut Vec<StationSpan>, seq: u64, name: &str) {
    match spans.last_mut() {
        Some(span) if span.name == name => span.last_seq = seq,
        _ => spans.push(StationSpan { name: name.to_string(), first_seq: seq, last_seq: seq }),
    }
}

/// A station name as printed: escaped, short, and never empty.
pub fn shown_name(name: &str) -> String {
    if name.is_empty() {
        "(no name)".to_string()
    } else {
        crate::word::printable(name, NAME_CHARS)
    }
}

/// `Table 7 (was Station 1 until record #14)`: the name now, then the
/// earlier ones, latest first.
pub fn stations_text(spans: &[StationSpan]) -> Option<String> {
    let (now, before) = spans.split_last()?;
    let mut text = shown_name(&now.name);
    if !before.is_empty() {
        let earlier: Vec<String> = before
            .iter()
            .rev()
            .take(MAX_NAMES_SHOWN)
            .map(|s| format!("{} until record #{}", shown_name(&s.name), s.last_seq))
            .collect();
        let more = before.len().saturating_sub(MAX_NAMES_SHOWN);
        let more = if more > 0 { format!(", and {more} earlier name(s)") } else { String::new() };
        text.push_str(&format!(" (was {}{more})", earlier.join(", ")));
    }
    Some(text)
}

/// A jump of the wall clock between two records of one boot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockJump {
    /// The record before the jump and the first after it.
    pub before_seq: u64,
    pub after_seq: u64,
    pub at: Location,
    /// What the wall clock would have read without the jump, and what it read.
    pub from: String,
    pub to: String,
    pub seconds: i64,
    /// Whether the station recorded it (a `clock_jumped` record), and why
    /// it jumped when the station knew.
    pub recorded: bool,
    pub cause: Option<String>,
}

impl fmt::Display for ClockJump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "between records #{} and #{} ({}): the wall clock jumped {}, from {} to {}; ",
            self.before_seq,
            self.after_seq,
            self.at,
            jump_text(self.seconds),
            self.from,
            self.to
        )?;
        match (self.recorded, &self.cause) {
            (true, Some(cause)) => write!(f, "recorded by the station ({})", crate::word::printable(cause, 80)),
            (true, None) => f.write_str("recorded by the station"),
            (false, _) => {
                f.write_str("NOT recorded by the station (seen by comparing the records' wall and boot clocks)")
            }
        }
    }
}

/// The wall and boot times of the records so far, to see jumps with the
/// same rule as the writer ([`crate::audit::clock::jump_between`]).
#[derive(Debug, Default)]
pub(super) struct Times {
    /// seq, boot id, wall time, boot time of the last record.
    last: Option<(u64, String, Timestamp, u64)>,
}

impl Times {
    /// Looks at record `head` (at `at`) after the one before it. The log's
    /// own bookkeeping (`rotated`, `write_failed`) is written with the time
    /// of the record that follows it, outside the writer's comparison: it is
    /// passed over, so a jump is placed where the station placed it.
    pub(super) fn see(&mut self, at: &Location, head: &Record, jumps: &mut Vec<ClockJump>) {
        if matches!(head.body, Body::Event(AuditEvent::Rotated { .. } | AuditEvent::WriteFailed { .. })) {
            return;
        }
        let Ok(time) = head.time.parse::<Timestamp>() else { return };
        let seen = self.last.as_ref().and_then(|(seq, boot, before, mono)| {
            let before = Moment { boot_id: boot, time: *before, mono_ns: *mono };
            let after = Moment { boot_id: &head.boot_id, time, mono_ns: head.mono_ns };
            jump_between(&before, &after).map(|j| (*seq, j))
        });
        let recorded = match &head.body {
            Body::Event(AuditEvent::ClockJumped { from, to, seconds, cause }) => Some((from, to, *seconds, cause)),
            _ => None,
        };
        let before_seq = self.last.as_ref().map_or(0, |l| l.0);
        match (seen, recorded) {
            (Some((before_seq, jump)), recorded) => jumps.push(ClockJump {
                before_seq,
                after_seq: head.seq,
                at: at.clone(),
                from: format!("{:.3}", jump.from),
                to: format!("{:.3}", jump.to),
                seconds: jump.seconds,
                recorded: recorded.is_some(),
                cause: recorded.and_then(|r| r.3.clone()),
            }),
            // Recorded where the times alone do not show it (across a
            // restart whose boot id could not be read, say): listed as the
            // station wrote it.
            (None, Some((from, to, seconds, cause))) => jumps.push(ClockJump {
                before_seq,
                after_seq: head.seq,
                at: at.clone(),
                from: from.clone(),
                to: to.clone(),
                seconds,
                recorded: true,
                cause: cause.clone(),
            }),
            (None, None) => {}
        }
        self.last = Some((head.seq, head.boot_id.clone(), time, head.mono_ns));
    }
}

/// Whether the records were compared with journald's copies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum JournalCheck {
    /// Not asked for (a copy of a log checked off the station).
    #[default]
    NotAsked,
    /// Asked for, but journald's copies could not be read (why).
    NotRead(String),
    /// journald was read and holds no copy of this log's records.
    NoneFound,
    /// This many copies were compared with the file.
    Compared(usize),
}

/// Whether the station's key was checked against the fingerprint a
/// director noted at set-up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum KeyCheck {
    /// No fingerprint was given.
    #[default]
    NotNoted,
    /// The key matched the noted fingerprint (grouped): the checkpoint's
    /// key when one was given, else the key the log's `key_created` names.
    Matches { noted: String, checkpoint: bool },
    /// It did not (a break says so).
    Differs,
    /// A fingerprint was given, but neither a checkpoint nor a
    /// `key_created` record names a key to compare it with.
    NothingToCompare,
}

/// The lines after "OK": what the log was checked against, and what not.
pub(super) fn checked_lines(
    slips: usize,
    checkpoint: bool,
    journal: &JournalCheck,
    key: &KeyCheck,
) -> (Vec<String>, Vec<String>) {
    let (mut done, mut not) = (Vec::new(), Vec::new());
    match slips {
        0 => not.push("slips (--slip N=CODE)".to_string()),
        n => done.push(format!("{n} slip(s)")),
    }
    if checkpoint {
        done.push("a signed checkpoint".to_string());
    } else {
        not.push("a signed checkpoint (--pubkey FILE --checkpoint FILE)".to_string());
    }
    match key {
        KeyCheck::Matches { noted, .. } => done.push(format!("the station key code noted at set-up ({noted})")),
        KeyCheck::Differs => {}
        KeyCheck::NotNoted | KeyCheck::NothingToCompare => {
            not.push("the station key code noted at set-up (--station-key-code XXXX-XXXX-XXXX-XXXX)".to_string())
        }
    }
    match journal {
        JournalCheck::Compared(n) => done.push(format!("journald's copies ({n})")),
        JournalCheck::NoneFound => not.push("journald's copies (none found)".to_string()),
        JournalCheck::NotRead(why) => not.push(format!("journald's copies ({why})")),
        JournalCheck::NotAsked => {}
    }
    (done, not)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_listed_latest_first_escaped() {
        let mut spans = Vec::new();
        for (seq, name) in [(1, "Station 1"), (2, "Station 1"), (3, "Table 7"), (4, "T\u{202e}8\u{1b}[2J")] {
            note_station(&mut spans, seq, name);
        }
        let text = stations_text(&spans).unwrap();
        assert_eq!(text, "T\\u{202e}8\\u{1b}[2J (was Table 7 until record #3, Station 1 until record #2)");
        assert_eq!(stations_text(&spans[..1]).unwrap(), "Station 1");
        assert_eq!(stations_text(&[]), None);
    }
}
