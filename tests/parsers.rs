//! Every parser of outside input, fed random bytes and mutations of a real
//! example: the config and its last good copy, the PIN guard, lexicon
//! definitions and manifests, word lists, `fleet.toml`, an audit log's JSONL
//! line, slips and slip lists, noted fingerprints and verifier keys, a signed
//! checkpoint note, the update folder's boot-check mark and RAUC's answers,
//! the challenge counter file, certificate requests' names,
//! and the journal lines `fleet status` reads. The only allowed outcomes are
//! a typed error or a parse; never a panic (a panic fails the case) and
//! never unbounded work (each case has a time budget).
//!
//! The cases come from the seed `.ci/test` prints (`PROPTEST_RNG_SEED`
//! replays a run); `WORDJUDGE_PARSER_CASES` sets how many per parser
//! (10,000 by default).

#[path = "kiosk/support.rs"]
mod support;

use proptest::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// Bytes an outsider could put in the file: random ones, or the example with
/// a few bytes changed, cut short, or repeated.
fn hostile(example: &'static [u8]) -> impl Strategy<Value = Vec<u8>> {
    let mutated = (
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        any::<prop::sample::Index>(),
        0usize..4,
    )
        .prop_map(move |(changes, cut, repeat)| {
            let mut bytes = example.to_vec();
            for (at, byte) in changes {
                if !bytes.is_empty() {
                    let i = at.index(bytes.len());
                    bytes[i] = byte;
                }
            }
            if !bytes.is_empty() && cut.index(4) == 0 {
                bytes.truncate(cut.index(bytes.len()));
            }
            let once = bytes.clone();
            for _ in 0..repeat {
                bytes.extend_from_slice(&once);
            }
            bytes
        });
    prop_oneof![1 => prop::collection::vec(any::<u8>(), 0..512), 3 => mutated]
}

/// Runs `parse` over hostile forms of `example`; fails on a panic or on a
/// case that takes more than a second.
fn never_panics(name: &str, example: &'static [u8], parse: impl Fn(&[u8])) {
    let cases = std::env::var("WORDJUDGE_PARSER_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let (mut runner, seed) = support::seeded_runner(name, cases);
    let slowest = std::cell::Cell::new(Duration::ZERO);
    runner
        .run(&hostile(example), |bytes| {
            let started = Instant::now();
            parse(&bytes);
            let took = started.elapsed();
            slowest.set(slowest.get().max(took));
            prop_assert!(took < Duration::from_secs(1), "{} bytes took {:?}", bytes.len(), took);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{name}: {e}\nreplay: PROPTEST_RNG_SEED={seed}"));
    println!("{name}: slowest case {:?}", slowest.get());
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_config_and_its_last_good_copy() {
    let example = b"station_name = \"Table 3\"\nactive_lexicon = \"CSW15\"\naudit_dir = \"/var/lib/wordjudge/audit\"\nprofile = \"NASPA-CSW-5\"\nrotation = 90\ndirector_pin_hash = \"$argon2id$v=19$m=19456,t=2,p=1$abc$def\"\n[timeouts]\nverdict_seconds = 10.0\n[gpio]\ndebounce_ms = 30\n";
    never_panics("config", example, |b| {
        let _ = wordjudge_core::config::Config::parse(&text(b), Path::new("config.toml"));
    });
}

#[test]
fn the_pin_guard() {
    let example = b"# guard\nfailures 2\nlockouts 1\nlocked_left_ms 30000\nboot_id 3a52\nsince_boot_ms 1200\npin_hash $argon2id$v=19$x\naudit_dir /var/lib/wordjudge/audit\n";
    never_panics("PIN guard", example, |b| {
        let guard = wordjudge_core::guard::Guard::parse(&text(b));
        // Whatever it says, a lockout it gives is never longer than the cap.
        let now = wordjudge_core::guard::BootInstant { boot_id: "3a52".into(), since_boot: Duration::from_secs(5) };
        assert!(guard.remaining(&now, Duration::from_secs(3600)).locked_for <= Duration::from_secs(3600));
    });
}

#[test]
fn lexicon_definitions_and_manifests() {
    never_panics("definition", include_bytes!("../lexicons/demo/DEMO.toml"), |b| {
        let _ = wordjudge_core::lexicon::definition::Definition::from_toml(&text(b));
    });
    never_panics("manifest", include_bytes!("../lexicons/demo/DEMO.fst.toml"), |b| {
        let _ = wordjudge_core::lexicon::manifest::Manifest::from_toml(&text(b));
    });
}

#[test]
fn word_lists() {
    never_panics("word list", b"# a list\nCAT\ndog\r\nZEBRA # a comment\n\nqi\nABANDONMENT\n", |b| {
        if let Ok(list) = wordjudge_core::word::parse_word_list(b, "list.txt", false) {
            assert!(list.words.iter().all(|w| (2..=15).contains(&w.len())), "only words are kept");
        }
        let _ = wordjudge_core::word::parse_word_list(b, "list.txt", true);
    });
}

#[test]
fn the_fleet_stick_file() {
    let example = b"event = \"Nationals 2026\"\nupload_url = \"https://192.168.10.2:19532\"\nca_sha256 = \"abababababababababababababababababababababababababababababababab\"\naddress = \"192.168.10.21/24\"\ngateway = \"192.168.10.1\"\n";
    never_panics("fleet.toml", example, |b| {
        let _ = wordjudge_core::fleet::stick::FleetFile::parse(&text(b));
    });
}

#[test]
fn audit_records_slips_and_keys() {
    let record = b"{\"seq\":9,\"prev\":\"d92c816b1b3d699a69384e6238f48ad05319bde07fa49c4357b15363e0e546f2\",\"time\":\"2026-11-27T17:34:55.264Z\",\"boot_id\":\"3a52\",\"mono_ns\":2386940762087,\"clock_synced\":false,\"station\":\"Table 3\",\"event\":\"lexicon_switched\",\"from\":\"DEMO\",\"to\":\"CSW15\",\"line_sha256\":\"0c1e1d664fe8d7a220fb524bbea72bda29c87a02b1e44e0bc84178e4b2f452e9\"}";
    never_panics("audit JSONL line", record, |b| {
        let _ = wordjudge_core::audit::Record::parse(b);
    });
    never_panics("slip list", b"3=T3AS849W\n# note\n12 = 8P1E8JXN\n", |b| {
        let _ = wordjudge_core::audit::Slip::parse_list(&text(b));
        let _ = wordjudge_core::audit::SlipCode::parse(&text(b));
    });
    never_panics("noted fingerprint", b"4F2A-91C0-7D3E-B6A8", |b| {
        let _ = wordjudge_core::audit::NotedFingerprint::parse(&text(b));
    });
    never_panics(
        "verifier key",
        b"wordjudge.audit/table-3-adbbcbc0+70a38fb7+AQvoQk+SPDs7ix28y4yT6TnkR25Wsl6xPIwcytrLqIbS",
        |b| {
            let _ = wordjudge_core::audit::NoteVerifier::parse(&text(b));
        },
    );
}

#[test]
fn a_signed_checkpoint_note() {
    let verifier = wordjudge_core::audit::NoteVerifier::parse(
        "wordjudge.audit/table-3-adbbcbc0+70a38fb7+AQvoQk+SPDs7ix28y4yT6TnkR25Wsl6xPIwcytrLqIbS",
    )
    .unwrap();
    let note = b"wordjudge.audit/table-3-adbbcbc0\n42\nq1bBL8mT4h6EhK0tLsLqf0Wk0l5yX7ZQx9F8T3N5Zy0=\n\n\xe2\x80\x94 wordjudge.audit/table-3-adbbcbc0 cKOPt1QwZm1n9Wv0zq2Y4S3w8Qk3mF6e0W5Y2p1Z4Q6kq8f3J8F7n2l0X9eR1c5T6Z2Q==\n";
    never_panics("checkpoint note", note, |b| {
        let _ = wordjudge_core::audit::checkpoint::open_note(&text(b), &verifier);
    });
}

#[test]
fn the_update_folders_marks_and_raucs_answers() {
    never_panics("boot-check mark", b"slot=B\nversion=0.1.1\noutcome=marked-good\ndetail=READY in 9 s\n", |b| {
        let _ = wordjudge_core::update::parse_boot_check(&text(b));
    });
    never_panics(
        "rauc info",
        b"{\"compatible\":\"wordjudge-amd64\",\"version\":\"0.1.1\",\"description\":\"x\"}",
        |b| {
            let _ = wordjudge_core::update::parse_info_json(&text(b));
            let _ = wordjudge_core::update::parse_signer(&text(b));
            let _ = wordjudge_core::update::parse_progress(&text(b));
        },
    );
}

#[test]
fn the_journal_lines_fleet_status_reads() {
    let line = b"{\"_HOSTNAME\":\"wj-01\",\"WORDJUDGE_STATION\":\"Table 1\",\"WORDJUDGE_EVENT\":\"adjudication\",\"WORDJUDGE_CHALLENGE\":\"3\",\"WORDJUDGE_SEQ\":\"9\",\"__REALTIME_TIMESTAMP\":\"1764260000000000\",\"MESSAGE\":\"ACCEPTABLE\"}";
    never_panics("fleet status line", line, |b| {
        let mut fleet = wordjudge_core::fleet::Fleet::new(Vec::new());
        let _ = fleet.add_line(&text(b));
        let _ = fleet.finish();
    });
}

#[test]
fn the_challenge_counter() {
    // The counter is read from its file (two checksummed slots): every
    // form is written to a folder of its own and opened as the writer
    // would. A damaged counter is an error (numbering must not restart at
    // 1), never a panic.
    let slot = "wordjudge-challenge-counter-1 7 48 0 0 0123456789abcdef";
    let example: &'static [u8] = Box::leak(format!("{slot:<127}\n{slot:<127}\n").into_bytes().into_boxed_slice());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(wordjudge_core::audit::numbering::COUNTER_FILE);
    never_panics("challenge-counter", example, |b| {
        std::fs::write(&path, b).unwrap();
        if let Ok(counter) = wordjudge_core::audit::numbering::Counter::open(dir.path()) {
            let _ = counter.state();
        }
    });
}

#[test]
fn certificate_request_names() {
    // `requests/NAME.csr` on a fleet stick: the name is the station's
    // fleet name, checked before anything is signed for it.
    never_panics("request name", b"table-3", |b| {
        let name = text(b);
        if wordjudge_core::fleet::stick::check_station_name(&name).is_ok() {
            let fleet = wordjudge_core::fleet::join::fleet_name(&name);
            assert!(
                !fleet.is_empty() && fleet.len() <= 63 && fleet.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-'),
                "{fleet:?}"
            );
        }
    });
}
