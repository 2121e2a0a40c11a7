//! Issue 40's first attack, on the summary: entries that name a station are
//! its records only when they carry its line signed with the audit key the
//! laptop paired with it. Forged, edited, re-sealed, unsigned, replayed and
//! impersonating entries are refused, change nothing a station shows, and
//! are named in red on the line of the station they name (or sign for).

use crate::support::*;
use wordjudge_core::audit::format;
use wordjudge_core::fleet::{render, status_of, LinkBreak, Status};

fn csw() -> wordjudge_core::audit::LexiconIdentity {
    lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified official")
}

/// The summary with `paired` as the laptop's paired keys.
fn summary(stations: &[&Station], paired: &[&Station]) -> Status {
    let lines: Vec<String> = stations.iter().flat_map(|s| s.json_lines()).collect();
    status_of(lines.iter().map(String::as_str), paired.iter().map(|s| s.paired()).collect()).unwrap()
}

fn named<'a>(status: &'a Status, name: &str) -> &'a wordjudge_core::fleet::Station {
    status.stations.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("{name} in {status:?}"))
}

/// Two honest stations, table-1 and table-2, two verdicts each.
fn honest() -> (Station, Station) {
    let mut one = Station::new("table-1", "wj-01");
    one.judge(&csw(), &["QI"], true).judge(&csw(), &["ZA"], true);
    let mut two = Station::new("table-2", "wj-02");
    two.judge(&csw(), &["CAT"], true).judge(&csw(), &["XQZT"], false);
    (one, two)
}

#[test]
fn a_record_signed_by_another_key_is_refused_on_the_station_it_names() {
    let (one, two) = honest();
    // An attacker with any event certificate writes table-2's next record,
    // an ACCEPTABLE #3, signed with a key of their own.
    let mut forger = Station::new("table-2", "wj-02");
    forger.challenge = 3;
    forger.seq = 3;
    forger.judge(&csw(), &["XQZT"], true);
    let status = summary(&[&one, &two, &forger], &[&one, &two]);
    let t2 = named(&status, "table-2");
    assert_eq!(t2.records, 2);
    assert_eq!(t2.last_challenge.map(|c| c.0), Some(2), "the forged #3 is not shown");
    assert_eq!(t2.per_hour.values().copied().collect::<Vec<_>>(), [(1, 1)]);
    assert!(t2.alarm() && t2.forged());
    assert!(t2.refused[0].1.contains("a key no station was paired with"), "{:?}", t2.refused);
    assert!(!named(&status, "table-1").alarm());
    let text = render::text(&status, jiff::Timestamp::from_microsecond(START_US).unwrap(), &jiff::tz::TimeZone::UTC);
    assert!(
        text.lines().any(|l| l.starts_with("table-2 ") && l.contains("NOT ITS RECORDS: 1 entry refused")),
        "{text}"
    );
}

#[test]
fn a_stations_own_signed_line_sent_under_another_name_is_its_impersonation() {
    let (mut one, two) = honest();
    one.judge(&csw(), &["XU"], true).set_last("WORDJUDGE_STATION", "table-2");
    let status = summary(&[&one, &two], &[&one, &two]);
    let (t1, t2) = (named(&status, "table-1"), named(&status, "table-2"));
    assert!(!t2.forged() && t2.last_challenge.map(|c| c.0) == Some(2), "never table-2's: {t2:?}");
    assert!(t1.forged(), "the sender's line is red");
    assert!(
        t1.refused[0].1.contains("naming table-2: impersonation: the station's own signed line"),
        "{:?}",
        t1.refused
    );
    assert_eq!(t1.records, 2);
}

#[test]
fn an_edited_line_is_refused_whether_or_not_it_is_sealed_again() {
    for reseal in [false, true] {
        let (mut one, two) = honest();
        one.judge(&csw(), &["ZZZ"], false);
        let entry = one.entries.last_mut().unwrap();
        let line = &mut entry.iter_mut().find(|(n, _)| n == "WORDJUDGE_LINE").unwrap().1;
        let edited = line.replace("UNACCEPTABLE", "ACCEPTABLE");
        *line = if reseal {
            let body = &edited[..edited.find(format::SEAL_KEY).unwrap()];
            format::seal(&format!("{body}}}"))
        } else {
            edited
        };
        let status = summary(&[&one, &two], &[&one, &two]);
        let t1 = named(&status, "table-1");
        assert_eq!((t1.records, t1.last_challenge.map(|c| c.0)), (2, Some(2)), "reseal {reseal}");
        let why = &t1.refused[0].1;
        let expected = if reseal { "for another line" } else { "the line was edited" };
        assert!(why.contains(expected), "reseal {reseal}: {why}");
    }
}

#[test]
fn an_unsigned_copy_and_a_copy_for_an_unpaired_station_are_not_records() {
    let (mut one, two) = honest();
    one.judge(&csw(), &["XU"], true);
    one.entries.last_mut().unwrap().retain(|(n, _)| n != "WORDJUDGE_CHECKPOINT");
    let mut stray = Station::new("stray", "wj-99");
    stray.judge(&csw(), &["QI"], true);
    let status = summary(&[&one, &two, &stray], &[&one, &two]);
    assert_eq!(status.stations.len(), 2, "no line for a station the laptop never paired");
    let t1 = named(&status, "table-1");
    assert_eq!(t1.records, 2);
    assert!(t1.refused[0].1.contains("no signed line"), "{:?}", t1.refused);
    assert_eq!(status.unattributed.len(), 1, "{:?}", status.unattributed);
    let text = render::text(&status, jiff::Timestamp::from_microsecond(START_US).unwrap(), &jiff::tz::TimeZone::UTC);
    assert!(
        text.contains("REFUSED, NO PAIRED STATION: entry naming stray: seq 1: signed by a key no station was paired with (wordjudge.audit/stray-"),
        "{text}"
    );
    // With no key paired at all, nothing is anyone's record, and it says so.
    let none = summary(&[&one, &two], &[]);
    assert!(none.stations.is_empty());
    let text = render::text(&none, jiff::Timestamp::from_microsecond(START_US).unwrap(), &jiff::tz::TimeZone::UTC);
    assert!(text.contains("NO PAIRED STATION: the CA folder holds no station's audit key"), "{text}");
}

#[test]
fn a_replayed_line_counts_once_and_reordered_or_forked_lines_are_breaks() {
    let (mut one, two) = honest();
    // Replayed: table-1's first entry again, later.
    let first = one.entries[0].clone();
    one.entries.push(first);
    one.judge(&csw(), &["XU"], true);
    let status = summary(&[&one, &two], &[&one, &two]);
    let t1 = named(&status, "table-1");
    assert!(t1.breaks.is_empty(), "a line seen before is the same record: {:?}", t1.breaks);
    assert!(!t1.alarm(), "a copy sent twice is no alarm");
    assert_eq!((t1.records, t1.last_challenge.map(|c| c.0)), (3, Some(3)));
    assert_eq!(t1.per_hour.values().map(|(a, u)| a + u).sum::<u64>(), 3);

    // Reordered: two records swapped in the journal.
    let (mut one, two) = honest();
    one.entries.swap(0, 1);
    let t1 = named(&summary(&[&one, &two], &[&one, &two]), "table-1").clone();
    assert_eq!(t1.breaks, [LinkBreak::SeqWentBack { from: 2, to: 1 }, LinkBreak::ChallengeWentBack { from: 2, to: 1 }]);
    assert!(t1.alarm(), "reordered records turn the tile red");

    // Forked: a signed line whose prev is not the line before it.
    let (mut one, two) = honest();
    one.fork_chain().judge(&csw(), &["XU"], true);
    let t1 = named(&summary(&[&one, &two], &[&one, &two]), "table-1").clone();
    assert_eq!(t1.breaks, [LinkBreak::ChainBroken { seq: 3 }]);
    assert!(t1.alarm(), "a fork turns the tile red");
    assert!(wordjudge_core::fleet::render::links(&t1).contains("record 3 of its log does not follow the one before it"));
}

#[test]
fn a_flood_of_refused_entries_costs_a_bounded_line() {
    let (one, two) = honest();
    let mut forger = Station::new("table-2", "wj-02");
    for _ in 0..3000 {
        forger.judge(&csw(), &["QI"], true);
    }
    let status = summary(&[&one, &two, &forger], &[&one, &two]);
    let t2 = named(&status, "table-2");
    assert_eq!(t2.refused.len(), wordjudge_core::fleet::MAX_BREAKS);
    assert_eq!(t2.more_refused, 3000 - wordjudge_core::fleet::MAX_BREAKS as u64);
    assert!(render::state(t2, jiff::Timestamp::now()).len() < 400, "{}", render::state(t2, jiff::Timestamp::now()));
    assert!(render::state(t2, jiff::Timestamp::now()).contains("NOT ITS RECORDS: 3000 entries refused"));
}

/// The records of one log that follow each other are proven by the last
/// good signature among them (issue 56, item 3: one signature check per run,
/// not per record): a middle record whose own checkpoint was lost on the way
/// is vouched for by the signed line after it; a forged record chained onto
/// an honest run (its `prev` the last honest line's hash, signed with a key
/// of its own) is refused and the run before it still proven; a run with no
/// good signature proves nothing.
#[test]
fn one_signature_proves_the_run_before_it_and_a_forged_record_chained_on_is_refused() {
    let mut one = Station::new("table-1", "wj-01");
    for word in ["QI", "ZA", "XU", "OX"] {
        one.judge(&csw(), &[word], true);
    }
    let checkpoints: Vec<usize> =
        (0..one.entries.len()).filter(|&i| one.entries[i].iter().any(|(n, _)| n == "WORDJUDGE_CHECKPOINT")).collect();
    assert_eq!(checkpoints.len(), 4);
    let garble = |station: &mut Station, at: &[usize]| {
        for &i in at {
            let field = station.entries[i].iter_mut().find(|(n, _)| n == "WORDJUDGE_CHECKPOINT").unwrap();
            // A character of the signature itself (the note's last line).
            let mut note: Vec<char> = field.1.chars().collect();
            let at = field.1.trim_end().chars().count() - 6;
            note[at] = if note[at] == 'A' { 'B' } else { 'A' };
            field.1 = note.into_iter().collect();
        }
    };
    let mut forger = Station::new("table-1", "wj-01");
    (forger.seq, forger.challenge, forger.prev) = (one.seq, one.challenge, one.prev.clone());
    forger.judge(&csw(), &["XQZT"], true);

    // The middle two checkpoints garbled, a forged #5 chained on.
    let mut lost = Station::new("table-1", "wj-01");
    (lost.entries, lost.verifier) = (one.entries.clone(), one.verifier.clone());
    garble(&mut lost, &checkpoints[1..3]);
    let status = summary(&[&lost, &forger], &[&one]);
    let t1 = named(&status, "table-1");
    assert_eq!(t1.records, 4, "the middle records vouched for by #4's signature: {t1:?}");
    assert_eq!(t1.last_challenge.map(|c| c.0), Some(4), "the forged #5 is not shown");
    assert_eq!(t1.refused.len(), 1, "{:?}", t1.refused);
    assert!(t1.refused[0].1.contains("a key no station was paired with"), "{:?}", t1.refused);
    assert!(t1.breaks.is_empty(), "{:?}", t1.breaks);

    // Every checkpoint garbled: nothing proven, each refused as before.
    let mut none = Station::new("table-1", "wj-01");
    (none.entries, none.verifier) = (one.entries.clone(), one.verifier.clone());
    garble(&mut none, &checkpoints);
    let status = summary(&[&none], &[&one]);
    let t1 = named(&status, "table-1");
    assert_eq!((t1.records, t1.refused.len()), (0, 4), "{t1:?}");
    assert!(t1.refused.iter().all(|(_, why)| why.contains("forged")), "{:?}", t1.refused);

    // The last one garbled: #1-#3 proven by #3's signature, #4 refused.
    let mut last = Station::new("table-1", "wj-01");
    (last.entries, last.verifier) = (one.entries.clone(), one.verifier.clone());
    garble(&mut last, &checkpoints[3..]);
    let status = summary(&[&last], &[&one]);
    let t1 = named(&status, "table-1");
    assert_eq!((t1.records, t1.refused.len()), (3, 1), "{t1:?}");
}
