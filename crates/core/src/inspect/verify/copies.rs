//! `audit verify` against copies taken off the station: slip codes, the
//! journald copies of the lines, the key fingerprint noted at set-up and a
//! signed checkpoint. Each works from what the chain's walk left
//! ([`super::chain::Walked`]).

use super::chain::Seen;
use super::{BreakKind, JournalCheck, KeyCheck, Location, VerifyOptions, VerifyReport};
use crate::audit::checkpoint::{self};
use crate::audit::slip::{Slip, SlipCode};
use std::collections::{BTreeMap, HashMap};

/// Each slip against the records of its challenge number.
pub(super) fn check_slips(report: &mut VerifyReport, slips: &[Slip], by_challenge: &BTreeMap<u64, Vec<Seen>>) {
    let mut slips = slips.to_vec();
    slips.sort_by_key(|s| s.challenge);
    for slip in slips {
        let candidates = by_challenge.get(&slip.challenge).map(Vec::as_slice).unwrap_or(&[]);
        let matching = candidates.iter().find(|s| SlipCode::of_line_hash(&s.hash).as_ref() == Some(&slip.code));
        let text = slip.to_string();
        // Exactly another challenge's code: the number on the slip was
        // miscopied, not the record rewritten.
        let owner = || {
            by_challenge.iter().filter(|(n, _)| **n != slip.challenge).find_map(|(n, seen)| {
                seen.iter().find(|s| SlipCode::of_line_hash(&s.hash).as_ref() == Some(&slip.code)).map(|s| (*n, s))
            })
        };
        match (matching, candidates.first()) {
            (Some(seen), _) if seen.clean => report.slips_matched.push(slip),
            (Some(seen), _) => report.add_break(seen.at.clone(), BreakKind::SlipChainBroken { slip: text }),
            (None, _) if owner().is_some() => {
                let (owner, seen) = owner().expect("just found");
                report.add_break(seen.at.clone(), BreakKind::SlipOtherChallenge { slip, owner })
            }
            (None, Some(first)) => {
                // A code a hand could have miscopied is told apart from one
                // that differs more (still a break: only the slip can tell).
                let near = candidates.iter().find_map(|seen| {
                    let found = SlipCode::of_line_hash(&seen.hash)?;
                    let differences = slip.code.copying_errors(&found)?;
                    Some((seen, found, differences))
                });
                match near {
                    Some((seen, found, differences)) => {
                        report.add_break(seen.at.clone(), BreakKind::SlipLikelyMiscopied { slip, found, differences })
                    }
                    None => {
                        let found = SlipCode::of_line_hash(&first.hash).map(|c| c.to_string()).unwrap_or_default();
                        report.add_break(first.at.clone(), BreakKind::SlipMismatch { slip: text, found })
                    }
                }
            }
            (None, None) => {
                report.add_break(Location { file: "slips".into(), line: 0 }, BreakKind::SlipNoRecord { slip: text })
            }
        }
    }
}

/// The journald copies of this chain's lines against the lines.
pub(super) fn check_journal(report: &mut VerifyReport, options: &VerifyOptions, by_seq: &HashMap<u64, Seen>) {
    if let Some(copies) = &options.journal {
        // Only the copies of this chain: from a copy of record 1 whose line
        // is this file's record 1, to the next record 1 (another chain).
        let first = by_seq.get(&1).map(|s| s.hash.clone());
        let mut in_chain = false;
        let mut compared = 0;
        let last = report.last_seq.unwrap_or(0);
        for copy in copies {
            if copy.seq == 1 {
                in_chain = first.as_deref() == Some(copy.line_sha256.as_str());
            }
            if !in_chain {
                continue;
            }
            compared += 1;
            let at = Location { file: "journald".into(), line: copy.seq };
            match by_seq.get(&copy.seq) {
                Some(seen) if seen.hash == copy.line_sha256 => {}
                Some(_) => report.add_break(
                    at,
                    BreakKind::JournalDisagrees { seq: copy.seq, challenge: copy.challenge, cut: false },
                ),
                None if copy.seq > last => report
                    .add_break(at, BreakKind::JournalDisagrees { seq: copy.seq, challenge: copy.challenge, cut: true }),
                None => {}
            }
        }
        report.journal = if compared == 0 { JournalCheck::NoneFound } else { JournalCheck::Compared(compared) };
    } else if let Some(why) = &options.journal_unavailable {
        report.journal = JournalCheck::NotRead(why.clone());
    }
}

/// The key the log names, or the checkpoint's, against the fingerprint noted
/// at set-up; then the checkpoint against the record it names.
pub(super) fn check_key_and_checkpoint(
    report: &mut VerifyReport,
    options: &VerifyOptions,
    by_seq: &HashMap<u64, Seen>,
) {
    let noted = match options.key_fingerprint.as_deref().map(checkpoint::NotedFingerprint::parse) {
        None => None,
        Some(Ok(noted)) => Some(noted),
        Some(Err(e)) => {
            let at = Location { file: "--station-key-code".into(), line: 0 };
            report.add_break(at, BreakKind::FingerprintUnreadable { problem: e.to_string() });
            None
        }
    };
    if let (Some(noted), None) = (&noted, &options.checkpoint) {
        // No checkpoint: the key the log itself names is what can be checked.
        let named: Vec<checkpoint::KeyFingerprint> =
            report.keys_created.iter().map(|f| checkpoint::KeyFingerprint(f.clone())).collect();
        report.key_check = if named.is_empty() {
            KeyCheck::NothingToCompare
        } else if named.iter().any(|k| noted.matches(k)) {
            KeyCheck::Matches { noted: noted.to_string(), checkpoint: false }
        } else {
            let names = named.iter().map(checkpoint::KeyFingerprint::short).collect::<Vec<_>>().join(", ");
            let at = Location { file: "key_created".into(), line: 0 };
            report.add_break(at, BreakKind::LogKeyNotNoted { names, noted: noted.to_string() });
            KeyCheck::Differs
        };
    }
    if let Some((note, verifier)) = &options.checkpoint {
        let at = Location { file: "checkpoint".into(), line: 0 };
        let used = verifier.fingerprint();
        report.checkpoint_key = Some(format!(
            "{} (key id {}), station key code {} ({})",
            crate::word::printable(&verifier.name, 80),
            verifier.to_text().split('+').nth(1).unwrap_or(""),
            used.short(),
            used.0
        ));
        if !report.keys_created.is_empty() && !report.keys_created.contains(&used.0) {
            let expected = format!(
                "the log's key_created record names {}",
                report
                    .keys_created
                    .iter()
                    .map(|f| checkpoint::KeyFingerprint(f.clone()).short())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            report.add_break(at.clone(), BreakKind::CheckpointKeyNotStations { used: used.short(), expected });
        }
        if let Some(noted) = &noted {
            if noted.matches(&used) {
                report.key_check = KeyCheck::Matches { noted: noted.to_string(), checkpoint: true };
            } else {
                let expected = format!("the station key code noted at set-up is {noted}");
                report.add_break(at.clone(), BreakKind::CheckpointKeyNotStations { used: used.short(), expected });
                report.key_check = KeyCheck::Differs;
            }
        }
        match checkpoint::open_note(note, verifier) {
            Err(e) => report.add_break(at, BreakKind::CheckpointInvalid { problem: e.to_string() }),
            Ok(cp) => match by_seq.get(&cp.count) {
                // Record `count` is there but not readable as signed (edited).
                None if report.last_seq.unwrap_or(0) >= cp.count => {
                    report.add_break(at, BreakKind::CheckpointMismatch { count: cp.count })
                }
                None => report.add_break(
                    at,
                    BreakKind::CheckpointBeyondLog { count: cp.count, records: report.last_seq.unwrap_or(0) },
                ),
                Some(seen) if seen.hash != cp.head || !seen.clean => {
                    report.add_break(seen.at.clone(), BreakKind::CheckpointMismatch { count: cp.count })
                }
                Some(_) => report.checkpoint = Some(cp),
            },
        }
    }
}
