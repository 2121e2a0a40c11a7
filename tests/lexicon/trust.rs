//! Trust in what judges, on small lists the tests write: files changed while
//! a lexicon is open, forged fingerprints, definition files that claim an
//! official id, installs by word file, and who may judge.

use crate::support::*;
use std::collections::HashSet;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use wordjudge_core::judge::{judge, Challenge, Verdict};
use wordjudge_core::lexicon::build::{build_lexicon, install_official, BuildError};
use wordjudge_core::lexicon::catalog::Catalog;
use wordjudge_core::lexicon::{Lexicon, Proof, Status};

fn custom(dir: &Path, id: &str, fst: &str) {
    std::fs::write(
        dir.join(format!("{id}.toml")),
        format!("id = \"{id}\"\nname = \"{id}\"\nedition = \"test\"\n[[layer]]\nfst = \"{fst}\"\n"),
    )
    .unwrap();
}

/// Every word of `words` is ACCEPTABLE and a near miss of each UNACCEPTABLE.
fn verdicts_hold(lexicon: &Lexicon, words: &[String], when: &str) {
    let set: HashSet<&str> = words.iter().map(String::as_str).collect();
    for word in words {
        let yes = judge(lexicon, &Challenge::new(&[word]).unwrap()).unwrap().verdict();
        assert_eq!(yes, Verdict::Acceptable, "{when}: {word}");
        let miss = near_miss(word, &set);
        let no = judge(lexicon, &Challenge::new(&[&miss]).unwrap()).unwrap().verdict();
        assert_eq!(no, Verdict::Unacceptable, "{when}: {miss}");
    }
}

/// Lets the file's timestamps move on (they have clock-tick granularity).
fn tick() {
    std::thread::sleep(std::time::Duration::from_millis(20));
}

#[test]
fn changes_to_the_file_while_open_change_no_verdict_and_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let words = random_words(3000, 1);
    write_words(&d.join("l.txt"), &words);
    build_lexicon(&d.join("l.txt"), &d.join("L.fst"), false).unwrap();
    // Another list, larger and smaller, to copy over it.
    let larger = random_words(9000, 2);
    write_words(&d.join("larger.txt"), &larger);
    build_lexicon(&d.join("larger.txt"), &d.join("LARGER.fst"), false).unwrap();
    write_words(&d.join("smaller.txt"), &words[..40]);
    build_lexicon(&d.join("smaller.txt"), &d.join("SMALLER.fst"), false).unwrap();
    custom(d, "L", "L.fst");
    let fst = d.join("L.fst");
    let original = std::fs::read(&fst).unwrap();

    type Change = Box<dyn Fn(&Path)>;
    let changes: Vec<(&str, Change)> = vec![
        (
            "a byte flipped in place",
            Box::new(|p: &Path| {
                let mut f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
                let len = f.metadata().unwrap().len();
                let mut b = [0u8];
                let at = len / 2;
                let bytes = std::fs::read(p).unwrap();
                b[0] = bytes[at as usize] ^ 0x10;
                f.seek(SeekFrom::Start(at)).unwrap();
                f.write_all(&b).unwrap();
            }),
        ),
        // `cp` writes into the same inode (O_TRUNC), as std::fs::copy does.
        (
            "overwritten by a larger list",
            Box::new(|p: &Path| {
                std::fs::copy(p.with_file_name("LARGER.fst"), p).unwrap();
            }),
        ),
        (
            "overwritten by a smaller list",
            Box::new(|p: &Path| {
                std::fs::copy(p.with_file_name("SMALLER.fst"), p).unwrap();
            }),
        ),
        (
            "truncated",
            Box::new(|p: &Path| {
                let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
                f.set_len(f.metadata().unwrap().len() / 3).unwrap();
            }),
        ),
        ("removed", Box::new(|p: &Path| std::fs::remove_file(p).unwrap())),
    ];
    for (what, change) in changes {
        std::fs::write(&fst, &original).unwrap();
        let lexicon = Catalog::load(d).open("L").unwrap();
        assert_eq!(lexicon.status(), Status::Custom);
        assert_eq!(lexicon.source_changed(), None, "nothing changed yet");
        verdicts_hold(&lexicon, &words, "before");
        tick();
        change(&fst);
        verdicts_hold(&lexicon, &words, what);
        let reported = lexicon.source_changed().unwrap_or_else(|| panic!("{what}: not reported"));
        let text = reported.to_string();
        assert!(text.contains("L.fst") && text.contains("still judging with the verified copy"), "{what}: {text}");
        // Polling again is cheap and still reports it.
        assert_eq!(lexicon.source_changed(), Some(reported), "{what}");
    }
    // Rewriting the same bytes is not a change.
    std::fs::write(&fst, &original).unwrap();
    let lexicon = Catalog::load(d).open("L").unwrap();
    tick();
    std::fs::write(&fst, &original).unwrap();
    assert_eq!(lexicon.source_changed(), None);
}

#[test]
fn a_list_forged_to_a_published_fingerprint_earns_only_the_weaker_status() {
    // OTCWL2014 has a published fingerprint but no pinned digest and no
    // published word count. Forge a tiny list with XYZZY to that 8-digit value.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut words: HashSet<String> = random_words(500, 3).into_iter().collect();
    words.insert("XYZZY".into());
    let target = u128::from_str_radix("0109ce12", 16).unwrap() << 96;
    let junk = forge_junk(&words, target, u128::MAX << 96, 7);
    words.extend(junk);
    let list: Vec<&String> = words.iter().collect();
    let fp = fingerprint_of(&list);
    assert_eq!(fp.short(), "0109ce12", "the forgery works");
    write_words(&d.join("OTCWL2014.txt"), &list);
    let lexicons = d.join("lexicons");
    std::fs::create_dir(&lexicons).unwrap();
    let report = install_official(&d.join("OTCWL2014.txt"), &lexicons, None, false).unwrap();
    assert_eq!(report.evidence, "published fingerprint");
    let lexicon = Catalog::load(&lexicons).open("OTCWL2014").unwrap();
    assert_eq!(lexicon.status(), Status::FingerprintMatch);
    assert!(!lexicon.status().is_verified_official());
    assert_eq!(lexicon.status().label(), "Matches the published fingerprint (not a strong check)");
    // The same forgery made for CSW24 (whose editions all have over 260,000
    // words) is refused by its word count, at install and when put in place.
    let mut csw: HashSet<String> = random_words(500, 4).into_iter().collect();
    csw.insert("XYZZY".into());
    let junk = forge_junk(&csw, u128::from_str_radix("7f0e9ef8", 16).unwrap() << 96, u128::MAX << 96, 8);
    csw.extend(junk);
    let csw: Vec<&String> = csw.iter().collect();
    assert_eq!(fingerprint_of(&csw).short(), "7f0e9ef8");
    write_words(&d.join("CSW24.txt"), &csw);
    match install_official(&d.join("CSW24.txt"), &lexicons, None, false) {
        Err(BuildError::NotTheList { problem, .. }) => {
            assert!(problem.contains("published at least 260000"), "{problem}")
        }
        other => panic!("installed a forged CSW24: {other:?}"),
    }
    build_lexicon(&d.join("CSW24.txt"), &lexicons.join("CSW24.fst"), false).unwrap();
    assert_eq!(Catalog::load(&lexicons).open("CSW24").unwrap().status(), Status::Mismatch);
    // The same list claimed by a definition file with that fingerprint: Custom.
    std::fs::copy(lexicons.join("OTCWL2014.fst"), lexicons.join("MINE.fst")).unwrap();
    std::fs::write(
        lexicons.join("MINE.toml"),
        "id = \"MINE\"\nname = \"m\"\nedition = \"e\"\n[[layer]]\nfst = \"MINE.fst\"\npublished_fingerprint = \"0109CE12\"\n",
    )
    .unwrap();
    assert_eq!(Catalog::load(&lexicons).open("MINE").unwrap().status(), Status::Custom);
}

#[test]
fn install_takes_the_id_from_the_file_and_refuses_another_list() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lexicons = d.join("lexicons");
    std::fs::create_dir(&lexicons).unwrap();
    write_words(&d.join("CSW24.txt"), &random_words(100, 4));
    match install_official(&d.join("CSW24.txt"), &lexicons, None, false) {
        Err(e @ BuildError::NotTheList { .. }) => {
            let text = e.to_string();
            assert!(
                text.contains("not CSW24") && text.contains("7f0e9ef8") && text.contains("nothing was changed"),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read_dir(&lexicons).unwrap().count(), 0, "nothing written");
    write_words(&d.join("mine.txt"), &["CAT"]);
    let e = install_official(&d.join("mine.txt"), &lexicons, None, false).unwrap_err();
    assert!(matches!(e, BuildError::UnknownOfficial { .. }) && e.to_string().contains("CSW21"), "{e}");
    // Nothing is published for OSPD4 and MW11: installs, and says so.
    write_words(&d.join("OSPD4.txt"), &["CAT", "DOG"]);
    write_words(&d.join("long.txt"), &["ABANDONMENT", "CATS"]);
    assert_eq!(install_official(&d.join("OSPD4.txt"), &lexicons, None, false).unwrap().evidence, "nothing published");
    let report = install_official(&d.join("long.txt"), &lexicons, Some("MW11"), false).unwrap();
    assert_eq!(report.layer.fst, "MW11-long.fst");
    let school = Catalog::load(&lexicons).open("OSPD4+MW11").unwrap();
    assert_eq!(school.status(), Status::Unverified);
    assert!(school.status().can_judge());
    assert!(school.contains("ABANDONMENT") && school.contains("CAT") && !school.contains("CATS"));
    assert!(school.layers().iter().all(|l| l.proof() == Proof::FullRead));
}

#[test]
fn a_definition_file_cannot_change_an_official_id() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let words = random_words(50, 5);
    write_words(&d.join("w.txt"), &words);
    build_lexicon(&d.join("w.txt"), &d.join("CSW15.fst"), false).unwrap();
    // Exactly what the catalogue says (as older versions shipped): silently redundant.
    std::fs::write(d.join("CSW15.toml"), "id = \"CSW15\"\nname = \"x\"\nedition = \"y\"\n[[layer]]\nfst = \"CSW15.fst\"\npublished_fingerprint = \"48DEA2C8\"\n").unwrap();
    assert!(Catalog::load(d).problems().is_empty(), "{:?}", Catalog::load(d).problems());
    for edit in [
        "add = [\"XYZZY\"]\n",
        "remove = [\"QI\"]\n",
        "[[layer]]\nfst = \"CSW15.fst\"\npublished_fingerprint = \"0badf00d\"\n",
    ] {
        let text = if edit.starts_with("[[layer]]") {
            format!("id = \"CSW15\"\nname = \"x\"\nedition = \"y\"\n{edit}")
        } else {
            format!("id = \"CSW15\"\nname = \"x\"\nedition = \"y\"\n{edit}[[layer]]\nfst = \"CSW15.fst\"\n")
        };
        std::fs::write(d.join("CSW15.toml"), text).unwrap();
        let catalog = Catalog::load(d);
        assert_eq!(catalog.problems().len(), 1, "{edit}");
        assert!(
            catalog.problems()[0].contains("CSW15.toml") && catalog.problems()[0].contains("ignored"),
            "{:?}",
            catalog.problems()
        );
        // CSW15 is still the built-in definition: these bytes are not CSW15.
        let lexicon = catalog.open("CSW15").unwrap();
        assert_eq!(lexicon.status(), Status::Mismatch, "{edit}");
        assert!(lexicon.corrections().is_empty());
        assert!(judge(&lexicon, &Challenge::new(&["XYZZY"]).unwrap()).is_err());
    }
}

#[test]
fn identity_comes_from_the_bytes_and_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_words(&d.join("w.txt"), &["CAT", "DOG", "QI"]);
    build_lexicon(&d.join("w.txt"), &d.join("W.fst"), false).unwrap();
    std::fs::write(
        d.join("W.toml"),
        "id = \"W\"\nname = \"w\"\nedition = \"e\"\nadd = [\"xyzzy\"]\n[[layer]]\nfst = \"W.fst\"\n",
    )
    .unwrap();
    let lexicon = Catalog::load(d).open("W").unwrap();
    let id = lexicon.identity();
    assert_eq!(id.id, "W");
    assert_eq!(id.status, Status::Custom);
    assert_eq!(id.layers[0].fst_sha256, wordjudge_core::digest::sha256_hex(&std::fs::read(d.join("W.fst")).unwrap()));
    assert_eq!(id.layers[0].content_sha256, wordjudge_core::digest::sha256_hex(b"CAT\nDOG\nQI\n"));
    assert_eq!(id.layers[0].word_count, 3);
    assert_eq!(id.fingerprint, fingerprint_of(&["CAT", "DOG", "QI"]));
    assert_eq!(id.corrections.add, ["XYZZY"]);
    assert!(
        id.status_text.starts_with("Custom (definition W.toml, SHA-256 ") && id.status_text.contains("add XYZZY"),
        "{}",
        id.status_text
    );
    let json = serde_json::to_value(&id).unwrap();
    assert_eq!(json["status"], "Custom");
    assert_eq!(json["definition"]["kind"], "file");
    assert!(lexicon.contains("XYZZY") && lexicon.contains("QI") && !lexicon.contains("QIS"));
}
