//! Lexicon engine on small word lists the tests write themselves: building,
//! opening, statuses, layers and corrections, and refusing damaged files.
//! (Trust under attack — files changed while open, forged fingerprints,
//! official ids — is in `lexicon_trust.rs`.)

use std::path::{Path, PathBuf};
use wordjudge_core::fingerprint::Fingerprint;
use wordjudge_core::judge::{judge, Challenge, Verdict};
use wordjudge_core::lexicon::build::{build_lexicon, manifest_path_for, BuildError};
use wordjudge_core::lexicon::catalog::Catalog;
use wordjudge_core::lexicon::{LexiconError, Status};
use wordjudge_core::word::WordListError;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A lexicon directory with one single-layer lexicon `id` built from `words`.
fn single(dir: &Path, id: &str, words: &str, published: Option<&str>) {
    let src = write(dir, &format!("{id}.txt"), words);
    build_lexicon(&src, &dir.join(format!("{id}.fst")), false).unwrap();
    let fp = published.map(|p| format!("published_fingerprint = \"{p}\"\n")).unwrap_or_default();
    write(
        dir,
        &format!("{id}.toml"),
        &format!("id = \"{id}\"\nname = \"n\"\nedition = \"e\"\n[[layer]]\nfst = \"{id}.fst\"\n{fp}"),
    );
}

fn verdict(catalog: &Catalog, id: &str, words: &[&str]) -> Verdict {
    let lexicon = catalog.open(id).unwrap();
    judge(&lexicon, &Challenge::new(words).unwrap()).unwrap().verdict()
}

#[test]
fn build_writes_fst_and_manifest_with_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "small.txt", "# comment\r\nzebra\r\nQI\nqi\n\nCAT # pet\nABANDONS\n");
    let out = dir.path().join("SMALL.fst");
    let report = build_lexicon(&src, &out, false).unwrap();
    let m = &report.manifest;
    assert_eq!(m.word_count, 4);
    assert_eq!((m.shortest, m.longest), (2, 8));
    assert_eq!(m.count_by_length[2], 1);
    assert_eq!(m.count_by_length[3], 1);
    assert_eq!(m.count_by_length[5], 1);
    assert_eq!(m.count_by_length[8], 1);
    assert_eq!(report.duplicates, 1);
    assert_eq!(m.fst_file, "SMALL.fst");
    assert_eq!(m.source_file, "small.txt");
    assert_eq!(m.fst_sha256, wordjudge_core::digest::sha256_hex(&std::fs::read(&out).unwrap()));
    assert_eq!(m.source_sha256, wordjudge_core::digest::sha256_hex(&std::fs::read(&src).unwrap()));
    assert_eq!(m.fingerprint, Fingerprint::of_words([b"ABANDONS".as_slice(), b"CAT", b"QI", b"ZEBRA"]));
    assert_eq!(
        m.content_sha256.as_deref(),
        Some(wordjudge_core::digest::sha256_hex(b"ABANDONS\nCAT\nQI\nZEBRA\n").as_str())
    );
    assert!(m.tool_version.starts_with("wordjudge "));
    assert!(m.built_at.parse::<jiff::Timestamp>().is_ok(), "{}", m.built_at);
    let text = std::fs::read_to_string(manifest_path_for(&out)).unwrap();
    assert_eq!(&wordjudge_core::lexicon::manifest::Manifest::from_toml(&text).unwrap(), m);
}

#[test]
fn custom_definitions_are_custom_or_mismatch_never_official() {
    let dir = tempfile::tempdir().unwrap();
    let words = "CAT\nDOG\nQI\n";
    let real = Fingerprint::of_words([b"CAT".as_slice(), b"DOG", b"QI"]).short();
    single(dir.path(), "MATCHING", words, Some(&real));
    single(dir.path(), "PLAIN", words, None);
    single(dir.path(), "WRONG", words, Some("0badf00d"));
    write(dir.path(), "GONE.toml", "id = \"GONE\"\nname = \"n\"\nedition = \"e\"\n[[layer]]\nfst = \"GONE.fst\"\n");
    let catalog = Catalog::load(dir.path());
    assert!(catalog.problems().is_empty(), "{:?}", catalog.problems());
    // A director's own definition is Custom even when its fingerprint matches.
    assert_eq!(catalog.open("MATCHING").unwrap().status(), Status::Custom);
    let plain = catalog.open("PLAIN").unwrap();
    assert_eq!(plain.status(), Status::Custom);
    assert!(
        plain.status_text().contains("PLAIN.toml") && plain.status_text().contains("SHA-256"),
        "{}",
        plain.status_text()
    );
    let wrong = catalog.open("WRONG").unwrap();
    assert_eq!(wrong.status(), Status::Mismatch);
    assert!(judge(&wrong, &Challenge::new(&["CAT"]).unwrap()).is_err(), "a Mismatch lexicon never judges");
    let gone = catalog.open("GONE").err().unwrap();
    assert_eq!(gone.status(), Status::Missing);
    assert!(gone.to_string().contains("GONE.fst"), "{gone}");
    assert_eq!(catalog.open("NOPE").err().unwrap().status(), Status::Missing);
    assert_eq!(verdict(&catalog, "PLAIN", &["cat", "qi"]), Verdict::Acceptable);
    assert_eq!(verdict(&catalog, "PLAIN", &["CAT", "QIS"]), Verdict::Unacceptable);
}

#[test]
fn layers_limit_lengths_and_corrections_win() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.txt", "CAT\nDOG\nZEBRAS\n");
    let long = write(dir.path(), "long.txt", "ASSHOLE\nABANDONMENT\nCATS\nZEBRAS\n");
    build_lexicon(&base, &dir.path().join("BASE.fst"), false).unwrap();
    build_lexicon(&long, &dir.path().join("LONG.fst"), false).unwrap();
    write(
        dir.path(),
        "school.toml",
        "id = \"SCHOOL\"\nname = \"n\"\nedition = \"e\"\nremove = [\"dog\"]\nadd = [\"EW\"]\n\
         [[layer]]\nfst = \"BASE.fst\"\n[[layer]]\nfst = \"LONG.fst\"\nmin_len = 9\n",
    );
    let catalog = Catalog::load(dir.path());
    let lexicon = catalog.open("SCHOOL").unwrap();
    assert_eq!(lexicon.status(), Status::Custom);
    let identity = lexicon.identity();
    assert_eq!(
        (identity.corrections.add.as_slice(), identity.corrections.remove.as_slice()),
        (["EW".to_string()].as_slice(), ["DOG".to_string()].as_slice())
    );
    assert!(
        identity.status_text.contains("add EW") && identity.status_text.contains("remove DOG"),
        "{}",
        identity.status_text
    );
    assert_eq!(identity.layers.len(), 2);
    assert!(matches!(identity.definition, wordjudge_core::lexicon::DefinitionSource::File { ref sha256, .. }
        if *sha256 == wordjudge_core::digest::sha256_hex(&std::fs::read(dir.path().join("school.toml")).unwrap())));
    assert!(lexicon.contains("CAT"));
    assert!(lexicon.contains("ZEBRAS"));
    assert!(lexicon.contains("ABANDONMENT"), "9+ letters through the long-word layer");
    assert!(!lexicon.contains("ASSHOLE"), "7 letters: never from the long-word layer");
    assert!(!lexicon.contains("CATS"), "4 letters: never from the long-word layer");
    assert!(!lexicon.contains("DOG"), "remove wins over the layers");
    assert!(lexicon.contains("EW"), "add wins over the layers");
}

#[test]
fn every_word_is_looked_up_and_per_word_results_are_kept_for_audit() {
    let dir = tempfile::tempdir().unwrap();
    single(dir.path(), "L", "CAT\nDOG\nQI\n", None);
    let lexicon = Catalog::load(dir.path()).open("L").unwrap();
    let a = judge(&lexicon, &Challenge::new(&["XX", "CAT", "YY", "QI"]).unwrap()).unwrap();
    assert_eq!(a.verdict(), Verdict::Unacceptable);
    assert_eq!(a.per_word_for_audit(), [false, true, false, true]);
    assert_eq!(a.words(), ["XX", "CAT", "YY", "QI"]);
}

/// Copies a built lexicon `L` into a fresh directory and lets `damage` change it.
fn damaged(damage: impl FnOnce(&Path)) -> (tempfile::TempDir, LexiconError) {
    let dir = tempfile::tempdir().unwrap();
    single(dir.path(), "L", "CAT\nDOG\nQI\nZEBRA\nABANDONMENT\n", None);
    damage(dir.path());
    let err = Catalog::load(dir.path()).open("L").err().expect("damaged lexicon must not open");
    (dir, err)
}

#[test]
fn damaged_files_are_refused_with_file_and_problem() {
    let (_d, e) = damaged(|d| {
        let p = d.join("L.fst");
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() - 1]).unwrap();
    });
    assert!(matches!(e, LexiconError::BadFst { .. }), "truncated: {e}");
    assert!(e.to_string().contains("L.fst") && e.to_string().contains("corrupt"), "{e}");
    assert_eq!(e.status(), Status::Corrupt);

    for at in [10, 20] {
        let (_d, e) = damaged(|d| {
            let p = d.join("L.fst");
            let mut bytes = std::fs::read(&p).unwrap();
            bytes[at] ^= 0x01;
            std::fs::write(&p, &bytes).unwrap();
        });
        assert!(matches!(e, LexiconError::BadFst { .. }), "flipped byte {at}: {e}");
    }

    let (_d, e) = damaged(|d| std::fs::remove_file(d.join("L.fst")).unwrap());
    assert_eq!(e.status(), Status::Missing);

    let (_d, e) = damaged(|d| {
        std::fs::remove_file(d.join("L.fst")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", d.join("L.fst")).unwrap();
    });
    assert!(matches!(e, LexiconError::Unreadable { .. }), "{e}");
    assert!(e.to_string().contains("not a regular file"), "{e}");
}

#[test]
fn manifests_are_informative_only() {
    // A missing, broken or forged manifest changes nothing: what the lexicon
    // is comes from the .fst bytes.
    let dir = tempfile::tempdir().unwrap();
    single(dir.path(), "L", "CAT\nDOG\n", None);
    let p = dir.path().join("L.fst.toml");
    let forged = Fingerprint::of_words([b"CAT".as_slice(), b"DOGS"]).to_string();
    let text = std::fs::read_to_string(&p).unwrap();
    let real = text.lines().find(|l| l.starts_with("fingerprint")).unwrap().to_string();
    std::fs::write(&p, text.replace(&real, &format!("fingerprint = \"{forged}\""))).unwrap();
    let expected = Fingerprint::of_words([b"CAT".as_slice(), b"DOG"]);
    assert_eq!(Catalog::load(dir.path()).open("L").unwrap().fingerprint(), expected);
    std::fs::write(&p, "not = [toml").unwrap();
    assert_eq!(Catalog::load(dir.path()).open("L").unwrap().fingerprint(), expected);
    std::fs::remove_file(&p).unwrap();
    let lexicon = Catalog::load(dir.path()).open("L").unwrap();
    assert_eq!((lexicon.fingerprint(), lexicon.status()), (expected, Status::Custom));
}

#[test]
fn bad_word_lists_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("X.fst");
    let empty = write(dir.path(), "empty.txt", "# only a comment\n\n");
    match build_lexicon(&empty, &out, false) {
        Err(BuildError::WordList(WordListError::Empty { file })) => assert!(file.ends_with("empty.txt")),
        other => panic!("{other:?}"),
    }
    let binary = dir.path().join("binary.txt");
    std::fs::write(&binary, [0x7fu8, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0xff, b'\n', 0x90]).unwrap();
    let e = build_lexicon(&binary, &out, false).unwrap_err();
    assert!(e.to_string().contains("binary.txt, line 1"), "{e}");
    let bad = write(dir.path(), "bad.txt", "CAT\nDOG\nR2D2\n");
    let e = build_lexicon(&bad, &out, false).unwrap_err();
    assert!(e.to_string().contains("bad.txt, line 3") && e.to_string().contains("R2D2"), "{e}");
    let report = build_lexicon(&bad, &out, true).unwrap();
    assert_eq!((report.skipped, report.manifest.word_count), (1, 2));
    let e = build_lexicon(&bad, &dir.path().join("X.bin"), false).unwrap_err();
    assert!(matches!(e, BuildError::BadOutputName { .. }));
    let e = build_lexicon(&dir.path().join("none.txt"), &out, false).unwrap_err();
    assert!(e.to_string().contains("none.txt"), "{e}");
}

#[test]
fn bad_definitions_are_reported_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    single(dir.path(), "GOOD", "CAT\n", None);
    write(dir.path(), "broken.toml", "id = \"BROKEN\"\n[[layer]]\n");
    write(dir.path(), "demo.toml", "id = \"DEMO\"\nname = \"n\"\nedition = \"e\"\n[[layer]]\nfst = \"GOOD.fst\"\n");
    let catalog = Catalog::load(dir.path());
    assert_eq!(catalog.problems().len(), 2, "{:?}", catalog.problems());
    assert!(catalog.problems().iter().any(|p| p.contains("broken.toml")));
    assert!(catalog.open("GOOD").is_ok());
    assert!(catalog.open("DEMO").unwrap().is_demo());
    let missing_dir = Catalog::load(&dir.path().join("nope"));
    assert_eq!(missing_dir.problems().len(), 1);
    assert_eq!(missing_dir.entries().len(), 1, "the built-in demo is always there");
    assert!(missing_dir.find("CSW21").is_some(), "official lexicons are known even when not installed");
    let e = missing_dir.open("CSW21").err().unwrap();
    assert_eq!(e.status(), Status::Missing);
    assert!(e.to_string().contains("install CSW21.txt from a USB stick"), "{e}");
}

#[test]
fn shipped_demo_lexicon_is_verified_and_matches_its_source() {
    let demo = wordjudge_core::lexicon::catalog::open_demo().unwrap();
    assert_eq!(demo.status(), Status::Demo);
    assert!(demo.is_demo());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("lexicons/demo");
    let text = std::fs::read(root.join("DEMO.txt")).unwrap();
    let list = wordjudge_core::word::parse_word_list(&text, "DEMO.txt", false).unwrap();
    let (bytes, manifest) = wordjudge_core::lexicon::build::compile(&list, "DEMO.fst", "DEMO.txt", "");
    assert_eq!(bytes, std::fs::read(root.join("DEMO.fst")).unwrap(), "DEMO.fst must be rebuilt from DEMO.txt");
    assert_eq!(manifest.fingerprint, demo.fingerprint());
    assert_eq!(manifest.content_sha256.as_deref(), Some(demo.layers()[0].facts().content_sha256.as_str()));
    for word in ["CAT", "DOG", "ZEBRA", "ABANDONMENT"] {
        assert!(demo.contains(word), "{word}");
    }
    assert!(!demo.contains("XYZZYQ"));
}

#[test]
fn random_bytes_as_fst_or_word_list_never_panic() {
    let mut rng = fastrand::Rng::with_seed(0x5eed);
    let dir = tempfile::tempdir().unwrap();
    single(dir.path(), "L", "CAT\nDOG\nQI\nZEBRA\n", None);
    let fst = dir.path().join("L.fst");
    let good = std::fs::read(&fst).unwrap();
    for round in 0..600 {
        let bytes: Vec<u8> = if round % 2 == 0 {
            // A real fst with a few bytes changed, so parsing gets far.
            let mut b = good.clone();
            for _ in 0..rng.usize(1..4) {
                let i = rng.usize(..b.len());
                b[i] = rng.u8(..);
            }
            b
        } else {
            let len = rng.usize(0..400);
            let mut b: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
            if round % 3 == 0 && len > 8 {
                b[..8].copy_from_slice(&3u64.to_le_bytes());
            }
            b
        };
        std::fs::write(&fst, &bytes).unwrap();
        if let Ok(lexicon) = Catalog::load(dir.path()).open("L") {
            for w in ["CAT", "DOG", "QI", "ZEBRA", "CATS", "AA", "ZZZZZZZZZZZZZZZ"] {
                let _ = lexicon.contains(w);
            }
        }
        let _ = wordjudge_core::word::parse_word_list(&bytes, "random", false);
        let _ = wordjudge_core::word::parse_word_list(&bytes, "random", true);
        let _ = wordjudge_core::lexicon::manifest::Manifest::from_toml(&String::from_utf8_lossy(&bytes));
        let _ = wordjudge_core::lexicon::definition::Definition::from_toml(&String::from_utf8_lossy(&bytes));
    }
}
