//! The pure summary (`wordjudge_core::fleet`) on `journalctl -o json` lines.

use crate::support::*;
use wordjudge_core::audit::{AdjudicationRecord, AuditEvent, Body};
use wordjudge_core::fleet::{render, status_of, FleetError, LinkBreak, Range, Service, Status};
use wordjudge_core::judge::Verdict;
use wordjudge_core::panel::Trigger;

/// The summary of the stations' entries, every station paired.
fn status(stations: &[&Station]) -> Result<Status, FleetError> {
    let lines: Vec<String> = stations.iter().flat_map(|s| s.json_lines()).collect();
    status_of(lines.iter().map(String::as_str), stations.iter().map(|s| s.paired()).collect())
}

fn now() -> jiff::Timestamp {
    jiff::Timestamp::from_microsecond(START_US + 3 * 3_600_000_000).unwrap()
}

#[test]
fn two_stations_a_gap_an_out_of_service_and_a_lexicon_mismatch() {
    let (one, two) = two_stations();
    let status = status(&[&one, &two]).unwrap();
    assert_eq!(status.entries, one.entries.len() + two.entries.len());
    let [a, b] = &status.stations[..] else { panic!("{status:?}") };

    assert_eq!(a.name, "table-1");
    assert_eq!(a.hosts, ["wj-01"]);
    assert_eq!(a.records, 6);
    assert_eq!(a.lexicon.as_deref(), Some("CSW21"));
    assert_eq!(a.fingerprint.as_deref(), Some("0123456789abcdef0123456789abcdef"));
    assert_eq!(a.profile.as_deref(), Some("NASPA-CSW-5"));
    assert_eq!(a.last_challenge.map(|(n, _)| n), Some(6));
    assert_eq!(a.service, Service::In);
    assert_eq!(a.breaks, [LinkBreak::RecordsMissing(Range(5, 6)), LinkBreak::ChallengesMissing(Range(3, 4))]);
    assert_eq!(a.sealed, 6);
    assert_eq!(a.mismatch, [("table-2".to_string(), "fedcba9876543210fedcba9876543210".to_string())]);
    assert!(a.alarm() && a.wrong_lexicon());
    let verdicts: Vec<(u64, u64)> = a.per_hour.values().copied().collect();
    assert_eq!(verdicts, [(2, 0), (1, 1)], "13:00 two acceptable; 14:00 one of each");

    assert_eq!(b.name, "table-2");
    assert_eq!(b.records, 5, "the kernel's and systemd's entries are not the station's records");
    assert!(b.breaks.is_empty(), "{:?}", b.breaks);
    assert_eq!(b.last_challenge.map(|(n, _)| n), Some(2));
    assert_eq!(b.profile, None);
    match &b.service {
        Service::Out(why) => assert!(why.contains("index out of bounds"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(b.warnings.len(), 1, "the judging fault");
    assert_eq!(b.mismatch, [("table-1".to_string(), "0123456789abcdef0123456789abcdef".to_string())]);
}

#[test]
fn the_text_has_a_line_per_station_and_says_what_is_wrong() {
    let (one, two) = two_stations();
    let status = status(&[&one, &two]).unwrap();
    let text = render::text(&status, now(), &jiff::tz::TimeZone::UTC);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("fleet status at 2026-11-22 16:00:00 UTC: 2 station(s)"), "{text}");
    assert!(lines[1].starts_with("STATION") && lines[1].contains("LAST CHALLENGE"), "{text}");
    let a = lines[2];
    assert!(a.starts_with("table-1 "), "{a}");
    assert!(a.contains("14:10:07 (1 h 49 min ago)"), "last seen: {a}");
    assert!(
        a.contains("NASPA CSW, 5 points per word") && !a.contains("NASPA-CSW-5") && a.contains("#6 at 14:10:07"),
        "profile by its name: {a}"
    );
    assert!(a.contains("BROKEN: records 5-6 of its log never arrived; challenge 3-4 missing"), "{a}");
    assert!(a.contains("LEXICON MISMATCH: table-2 has fedcba98"), "{a}");
    let b = lines[3];
    assert!(b.starts_with("table-2 ") && b.contains("ok over 5 records"), "{b}");
    assert!(b.contains("OUT OF SERVICE: judging with CSW21 failed unexpectedly"), "{b}");
    assert!(b.contains("1 warning(s)"), "{b}");
    assert!(
        text.contains(
            "LEXICON MISMATCH: CSW21 is judged with different word lists: 01234567 at table-1, fedcba98 at table-2"
        ),
        "{text}"
    );
    assert!(
        text.contains("signed with the audit key paired with that station")
            && !text.contains("prev hash")
            && !text.contains("seq"),
        "{text}"
    );
}

#[test]
fn a_gap_the_station_recorded_is_no_break() {
    let csw = lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified official");
    let mut s = Station::new("t", "h");
    s.judge(&csw, &["QI"], true);
    // Numbers 2 and 3 were reserved by a process that stopped; 4 says so.
    s.challenge = 4;
    s.record(Body::Adjudication(AdjudicationRecord {
        challenge: 4,
        lexicon: csw.clone(),
        words: vec!["ZA".into()],
        verdict: Verdict::Acceptable,
        per_word: vec![true],
        trigger: Trigger::Button,
        repeat_of: None,
        profile: None,
        skipped: vec![[2, 3]],
    }));
    // 5 and 6 shown while the log failed, their records lost: recorded too.
    s.event(AuditEvent::ChallengesLost { first: 5, last: 6, since: None });
    s.challenge = 7;
    s.judge(&csw, &["XU"], true);
    // 8 never arrives and nothing explains it.
    s.lose(1).judge(&csw, &["QIS"], true);
    let status = status(&[&s]).unwrap();
    let t = &status.stations[0];
    assert_eq!(t.explained, [Range(2, 3), Range(5, 6)]);
    assert_eq!(t.breaks, [LinkBreak::RecordsMissing(Range(5, 5)), LinkBreak::ChallengesMissing(Range(8, 8))]);
    assert!(t.warnings.iter().any(|(_, w)| w.contains("challenges 5 to 6")), "{:?}", t.warnings);
    assert!(
        render::links(t).contains("(#2–#3, #5–#6 were reserved and never shown, so no slip carries them"),
        "{}",
        render::links(t)
    );
}

#[test]
fn a_station_that_left_the_fleet_is_not_in_service() {
    let csw = lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified official");
    let mut s = Station::new("t", "h");
    s.judge(&csw, &["QI"], true);
    s.event(AuditEvent::FleetLeft {
        fleet: "Nationals".into(),
        upload_url: "https://l:19532".into(),
        ca_sha256: "ab".into(),
    });
    let status = status(&[&s]).unwrap();
    let state = render::state(&status.stations[0], jiff::Timestamp::now());
    assert!(state.starts_with("left the fleet at ") && state.contains(" UTC"), "{state}");
    assert!(!state.contains("in service"), "{state}");
}

#[test]
fn a_copy_sent_twice_is_one_record_and_a_second_log_under_one_key_is_a_break() {
    let csw = lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified");
    let mut s = Station::new("t", "h");
    s.judge(&csw, &["QI"], true);
    s.judge(&csw, &["ZA"], true);
    let again = s.entries.last().unwrap().clone();
    s.entries.push(again);
    // The station's log restored from an old copy: seq 1 again, another line.
    s.seq = 1;
    s.judge(&csw, &["XU"], true);
    let t = &status(&[&s]).unwrap().stations[0];
    assert_eq!(t.breaks, [LinkBreak::TwoHashes { seq: 1 }]);
    assert_eq!(t.records, 2, "the copy sent twice and the second log's line are not counted");
    assert!(!t.forged(), "{:?}", t.refused);
}

#[test]
fn a_lexicon_that_failed_its_check_is_out_of_service_until_one_opens() {
    let mut s = Station::new("t", "h");
    s.event(AuditEvent::LexiconOpened {
        id: "NWL2023".into(),
        status: "Mismatch".into(),
        fingerprint: None,
        problem: Some("not the pinned word list".into()),
    });
    let t = &status(&[&s]).unwrap().stations[0];
    assert_eq!(t.service, Service::Out("lexicon NWL2023: not the pinned word list".into()));
    assert!(t.wrong_lexicon() && t.alarm());
    s.event(AuditEvent::LexiconOpened {
        id: "NWL2023".into(),
        status: "Verified official".into(),
        fingerprint: Some("00112233445566778899aabbccddeeff".into()),
        problem: None,
    });
    let t = &status(&[&s]).unwrap().stations[0];
    assert_eq!(t.service, Service::In);
    assert!(!t.alarm());
}

#[test]
fn the_name_and_lexicon_come_from_the_signed_line_and_odd_values_are_read() {
    let csw = lexicon("CSW21\u{1b}", "0123456789abcdef0123456789abcdef", "Verified");
    let mut s = Station::new("table-7", "wj-07");
    s.judge(&csw, &["QI"], true);
    s.entries.last_mut().unwrap().retain(|(n, _)| n != "WORDJUDGE_STATION");
    let mut lines = s.json_lines();
    // journalctl writes a value that is not printable text as an array of
    // bytes, and a field given twice as an array of values.
    let mut entry: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    entry["WORDJUDGE_LEXICON"] = serde_json::json!([67, 83, 87, 50, 49]);
    entry["WORDJUDGE_PROFILE_UNKNOWN"] = serde_json::json!(["a", "b"]);
    entry["_HOSTNAME"] = serde_json::json!(["old", "wj-07"]);
    lines[0] = entry.to_string();
    let status = status_of(lines.iter().map(String::as_str), vec![s.paired()]).unwrap();
    let t = &status.stations[0];
    assert_eq!(t.name, "table-7");
    assert_eq!(t.hosts, ["wj-07"]);
    assert_eq!(t.lexicon.as_deref(), Some("CSW21\u{1b}"), "the signed line's, not the entry's field");
    let text = render::text(&status, now(), &jiff::tz::TimeZone::UTC);
    assert!(text.contains("CSW21\\u{1b}") && !text.contains('\u{1b}'), "escaped, never sent to the terminal: {text}");
}

#[test]
fn bad_input_is_refused_with_what_is_wrong() {
    let csw = lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified");
    let err = status_of(["{\"MESSAGE\":\"x\"", ""], Vec::new()).unwrap_err();
    assert!(matches!(err, FleetError::NotJson { line: 1, .. }), "{err:?}");
    assert!(err.to_string().contains("journalctl -o json"), "{err}");

    let mut s = Station::new("t", "h");
    s.other("sshd", "Accepted publickey").other("kernel", "eth0 up");
    let err = status(&[&s]).unwrap_err();
    assert_eq!(err, FleetError::NoRecords { entries: 2 });
    assert!(err.to_string().contains("no wordjudge audit record among the 2 journal entries"), "{err}");
    assert_eq!(status_of([], Vec::new()).unwrap_err(), FleetError::NoRecords { entries: 0 });
    // A wordjudge entry that is not an audit record (no WORDJUDGE_EVENT).
    s.other("wordjudge", "kiosk started");
    assert_eq!(status(&[&s]).unwrap_err(), FleetError::NoRecords { entries: 3 });

    // Fields beside the signed line say nothing: what is shown comes from
    // the line. Those the line also has must agree with it.
    for (field, value) in [
        ("WORDJUDGE_CHALLENGE", "seven"),
        ("WORDJUDGE_VERDICT", "MAYBE"),
        ("WORDJUDGE_RECORD", "{\"event\":"),
        ("__REALTIME_TIMESTAMP", "yesterday"),
        ("WORDJUDGE_LEXICON", "TWL06"),
    ] {
        let mut s = Station::new("t", "h");
        s.judge(&csw, &["QI"], true).set_last(field, value);
        let status = status(&[&s]).unwrap();
        let t = &status.stations[0];
        assert!(!t.forged(), "{field}: {:?}", t.refused);
        assert_eq!((t.last_challenge.map(|c| c.0), t.lexicon.as_deref()), (Some(1), Some("CSW21")), "{field}");
        assert_eq!(t.per_hour.values().copied().collect::<Vec<_>>(), [(1, 0)], "{field}");
    }
    for (field, value, refusal) in [
        ("WORDJUDGE_SEQ", "7", "its seq is not the signed line's"),
        ("WORDJUDGE_LINE_SHA256", &"ab".repeat(32)[..], "its line_sha256 is not the signed line's"),
        ("WORDJUDGE_EVENT", "shutdown", "its event is not the signed line's"),
    ] {
        let mut s = Station::new("t", "h");
        s.judge(&csw, &["QI"], true).set_last(field, value);
        let status = status(&[&s]).unwrap();
        let t = &status.stations[0];
        assert_eq!(t.records, 0, "{field}");
        assert!(t.refused.iter().any(|(_, why)| why.contains(refusal)), "{field}: {:?}", t.refused);
        assert!(t.alarm(), "{field}");
    }
}

#[test]
fn the_page_escapes_every_journal_string_and_needs_nothing_outside() {
    let (one, two) = two_stations();
    let csw = lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified official");
    let mut evil = Station::new("<script>alert('x')</script>", "wj-09");
    evil.judge(&csw, &["QI"], true)
        .event(AuditEvent::DisplayProblem { problem: "<img src=http://evil/x.png> & co".into() });
    let status = status(&[&one, &two, &evil]).unwrap();
    let page = render::html(&status, now(), &jiff::tz::TimeZone::UTC);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("<script") && !page.contains("<img"), "{page}");
    assert!(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"), "{page}");
    assert!(page.contains("&lt;img src=http://evil/x.png&gt; &amp; co"), "{page}");
    // Self-contained: the only address is the one escaped from the journal.
    assert_eq!(page.matches("http").count(), 1, "{page}");
    assert!(!page.contains("<link") && !page.contains("url("), "{page}");
    assert_eq!(
        page.matches("<section class=\"tile alarm\">").count(),
        3,
        "all red: mismatch, out of service twice: {page}"
    );
    assert!(page.contains("Verdicts per hour") && page.contains("11-22 14:00"), "{page}");
    assert!(page.contains("✓ 1</td><td>✗ 1"), "{page}");
}

/// Attack 5 of issue 40: challenge 1, then challenge 10^15. The gap is one
/// range, found at once (the old walk went number by number: days).
#[test]
fn a_gap_of_ten_to_the_fifteen_challenges_is_one_range_found_at_once() {
    let csw = lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified");
    let mut s = Station::new("t", "h");
    s.judge(&csw, &["QI"], true);
    // The station said it skipped a few in the middle of the gap.
    s.challenge = 1_000_000_000_000_000;
    s.record(Body::Adjudication(AdjudicationRecord {
        challenge: 1_000_000_000_000_000,
        lexicon: csw.clone(),
        words: vec!["ZA".into()],
        verdict: Verdict::Acceptable,
        per_word: vec![true],
        trigger: Trigger::Button,
        repeat_of: None,
        profile: None,
        skipped: vec![[500, 600], [601, 700], [999_999_999_999_999, 999_999_999_999_999]],
    }));
    let status = status(&[&s]).unwrap();
    let t = &status.stations[0];
    assert_eq!(
        t.breaks,
        [LinkBreak::ChallengesMissing(Range(2, 499)), LinkBreak::ChallengesMissing(Range(701, 999_999_999_999_998))]
    );
    assert_eq!(t.explained, [Range(500, 700), Range(999_999_999_999_999, 999_999_999_999_999)]);
    assert!(render::links(t).contains("challenge 701-999999999999998 missing"), "{}", render::links(t));
}

/// A journal of thousands of breaks: the first ones are named, the rest
/// counted, in a line of bounded length.
#[test]
fn breaks_per_station_are_capped_and_summarised() {
    let csw = lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified");
    let mut s = Station::new("t", "h");
    for _ in 0..2000 {
        s.judge(&csw, &["QI"], true);
        s.challenge += 1; // one number never arrives
    }
    let status = status(&[&s]).unwrap();
    let t = &status.stations[0];
    assert_eq!(t.breaks.len(), wordjudge_core::fleet::MAX_BREAKS);
    assert_eq!(t.breaks[0], LinkBreak::ChallengesMissing(Range(2, 2)), "the first break is kept");
    assert_eq!(t.more_breaks, 1999 - wordjudge_core::fleet::MAX_BREAKS as u64);
    let links = render::links(t);
    assert!(links.contains(&format!("and {} more break(s)", t.more_breaks)), "{links}");
    assert!(links.len() < 2000, "{} bytes", links.len());
}

#[test]
fn fingerprints_show_8_digits_unless_two_compared_lists_share_them() {
    use wordjudge_core::fleet::render::fingerprint_shown;
    let (a, b) = ("0123456789abcdef0123456789abcdef", "01234567ffffffffffffffffffffffff");
    assert_eq!(fingerprint_shown(a, &[]), "01234567", "the form stations and publishers show");
    assert_eq!(fingerprint_shown(a, &["fedcba9876543210fedcba9876543210"]), "01234567");
    assert_eq!(fingerprint_shown(a, &[b]), a, "made to share 8 digits: shown whole, never as two equal codes");
    assert_eq!(fingerprint_shown(a, &[a]), "01234567", "the same list is no clash");
    // In the table and its mismatch line.
    let mut one = Station::new("table-1", "h1");
    one.judge(&lexicon("CSW21", a, "Verified official"), &["QI"], true);
    let mut two = Station::new("table-2", "h2");
    two.judge(&lexicon("CSW21", b, "Verified official"), &["QI"], true);
    let status = status(&[&one, &two]).unwrap();
    let text = render::text(&status, now(), &jiff::tz::TimeZone::UTC);
    assert!(text.contains(&format!("{a} at table-1, {b} at table-2")), "{text}");
}

#[test]
fn a_station_signing_under_another_name_is_red_with_both_names_and_a_renamed_one_is_not() {
    let csw = lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified official");
    // Paired as table-1, judged under its own name, then renamed by its director.
    let mut renamed = Station::new("table-1", "h1");
    let renamed_key = renamed.paired();
    renamed.judge(&csw, &["QI"], true);
    renamed.name = "Hall B 1".into();
    renamed.judge(&csw, &["ZA"], true);
    // Paired as table-3, signing every record as "Table 2".
    let mut borrower = Station::new("table-3", "h3");
    let borrower_key = borrower.paired();
    borrower.name = "Table 2".into();
    borrower.judge(&csw, &["QI"], true);
    let lines: Vec<String> = [&renamed, &borrower].iter().flat_map(|s| s.json_lines()).collect();
    let status = status_of(lines.iter().map(String::as_str), vec![renamed_key, borrower_key]).unwrap();
    let text = render::text(&status, now(), &jiff::tz::TimeZone::UTC);
    let row = |start: &str| {
        text.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("{start}: {text}")).to_string()
    };
    let b = row("Table 2 (certificate table-3)");
    assert!(b.contains("NAME DIFFERS: its records say Table 2, its certificate was made for table-3"), "{b}");
    let r = row("Hall B 1 (certificate table-1)");
    assert!(!r.contains("NAME DIFFERS"), "a rename after joining is no alarm: {r}");
    let tile = |fleet: &str| status.stations.iter().find(|s| s.fleet_name == fleet).unwrap().alarm();
    assert!(tile("table-3") && !tile("table-1"));
}

/// Issue 55, item 7: a station in service that sends nothing (no record,
/// no sign of life) for three signs of life is SILENT since its last
/// entry, red on the page; its unsigned sign-of-life lines, attributed by
/// the certificate that sent them (the file they arrived in), keep it in
/// service without being records, and another station's file says nothing
/// of it.
#[test]
fn a_station_not_heard_for_three_signs_of_life_is_silent_and_a_sign_of_life_keeps_it_in_service() {
    let lex = lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified official");
    let mut a = Station::new("table-1", "wj-01");
    a.judge(&lex, &["QI"], true);
    let last_record = a.json_lines().len();
    let every = wordjudge_core::fleet::SIGN_OF_LIFE_EVERY.as_secs() as i64 / 60;
    for _ in 0..6 {
        a.wait_minutes(every).push("wordjudge", 6, "sign of life: the station is in service", vec![]);
    }
    let paired = a.paired();
    let summary = |groups: &[(&str, &[String])]| {
        let mut fleet = wordjudge_core::fleet::Fleet::new(vec![paired.clone()]);
        for (sender, lines) in groups {
            fleet.from_sender(Some(sender.to_string()));
            for line in lines.iter() {
                fleet.add_line(line).unwrap();
            }
        }
        fleet.finish().unwrap()
    };
    let all = a.json_lines();
    let last_heard: i64 = serde_json::from_str::<serde_json::Value>(all.last().unwrap()).unwrap()
        ["__REALTIME_TIMESTAMP"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let at = |minutes_after: i64| jiff::Timestamp::from_microsecond(last_heard + minutes_after * 60_000_000).unwrap();
    let tz = jiff::tz::TimeZone::UTC;

    // Heard 10 minutes ago: in service, whatever the last record's age.
    let own = a.fleet_name();
    let heard = summary(&[(&own, &all)]);
    assert_eq!(heard.stations[0].records, 1, "a sign of life is no record");
    assert_eq!(render::state(&heard.stations[0], at(10)), "in service");
    // 16 minutes: silent since the last line, red.
    let state = render::state(&heard.stations[0], at(16));
    assert!(state.starts_with("SILENT since ") && state.contains("nothing received for 16 min"), "{state}");
    assert!(render::html_reloading(&heard, at(16), &tz, None).contains("tile alarm"));
    assert!(!render::html_reloading(&heard, at(10), &tz, None).contains("tile alarm"));

    // The same lines from another station's file are no sign of this one's
    // life: silent since its record.
    let other = summary(&[(&own, &all[..last_record]), ("table-9", &all[last_record..])]);
    let state = render::state(other.stations.iter().find(|s| s.fleet_name == own).unwrap(), at(10));
    assert!(state.contains("SILENT since"), "another certificate's lines kept it alive: {state}");
    // Its record alone: silent since the record.
    let record_only = summary(&[(&own, &all[..last_record])]);
    assert!(render::state(&record_only.stations[0], at(10)).contains("SILENT since"));
    // Lines of no known sender say nothing of silence.
    let lines = a.json_lines();
    let unknown = status_of(lines.iter().map(String::as_str), vec![paired.clone()]).unwrap();
    assert_eq!(render::state(&unknown.stations[0], at(600)), "in service");
    // Out of service or gone: said as that, never as silent.
    a.event(AuditEvent::FleetLeft {
        fleet: "Nationals".into(),
        upload_url: "https://l:19532".into(),
        ca_sha256: "ab".into(),
    });
    let lines = a.json_lines();
    let left = summary(&[(&own, &lines)]);
    let state = render::state(&left.stations[0], at(60));
    assert!(state.contains("left the fleet") && !state.contains("SILENT"), "{state}");
}

/// A weak row of issue 56: after `fleet sign --replace`, the station's
/// records signed with its earlier key turned into "NOT ITS RECORDS". The
/// replaced key stays paired, marked with when it was replaced: its records
/// are the station's, on a line of their own (a reflashed station starts
/// its log again, so the two logs are not chained into one), never red for
/// being old; red when that key still signs records made after it was
/// replaced (the old box, or a copy of its key, still in use).
#[test]
fn after_replace_the_old_keys_records_stay_the_stations_apart_and_red_only_while_it_still_signs() {
    let lex = lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified official");
    let mut old = Station::new("table-2", "wj-02");
    old.judge(&lex, &["QI"], true).judge(&lex, &["ZA"], true);
    let replaced_at = old.time_us / 1_000_000 + 60;
    let mut new = Station::new("table-2", "wj-02");
    new.time_us = (replaced_at + 60) * 1_000_000;
    new.judge(&lex, &["CAT"], true);
    let summary = |old: &Station| {
        let keys =
            vec![wordjudge_core::fleet::PairedKey { replaced_at: Some(replaced_at), ..old.paired() }, new.paired()];
        let mut fleet = wordjudge_core::fleet::Fleet::new(keys);
        fleet.from_sender(Some("table-2".into()));
        for line in old.json_lines().iter().chain(&new.json_lines()) {
            fleet.add_line(line).unwrap();
        }
        fleet.finish().unwrap()
    };
    let at = jiff::Timestamp::from_second(replaced_at + 600).unwrap();
    let status = summary(&old);
    assert_eq!(status.stations.len(), 2, "{status:?}");
    let (current, before) = (&status.stations[0], &status.stations[1]);
    assert_eq!((current.records, current.refused.len(), current.replaced_at), (1, 0, None), "{current:?}");
    assert_eq!((before.records, before.refused.len(), before.replaced_at), (2, 0, Some(replaced_at)), "{before:?}");
    assert!(!current.alarm() && !before.alarm() && current.breaks.is_empty() && before.breaks.is_empty());
    let text = render::text(&status, at, &jiff::tz::TimeZone::UTC);
    assert!(!text.contains("NOT ITS RECORDS") && !text.contains("SILENT") && !text.contains("MISMATCH"), "{text}");
    assert!(text.contains("table-2 (replaced key)") && text.contains("KEY REPLACED at"), "{text}");
    let old_state = render::state(before, at);
    assert!(!old_state.contains("in service"), "the past's service is not the station's state now: {old_state}");
    assert_eq!(render::state(current, at), "in service");

    // The old key signs on after the replacement: red, and said why.
    let mut still = old;
    still.time_us = (replaced_at + 120) * 1_000_000;
    still.judge(&lex, &["XU"], true);
    let status = summary(&still);
    let before = &status.stations[1];
    assert!(before.alarm(), "{before:?}");
    let state = render::state(before, at);
    assert!(state.contains("STILL SIGNING: 1 record(s) made after its key was replaced"), "{state}");
    assert!(!status.stations[0].alarm());
}
