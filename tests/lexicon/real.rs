//! The lexicon engine on the real tournament lists in `../shared/lexicons`
//! (licensed data: read from there, never copied into the repository). Every
//! test here is `real_data_*` and ignored unless that folder exists (the CI
//! script runs them then); run without it, each fails with a clear message.

use crate::support::*;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use wordjudge_core::judge::{judge, Challenge, Verdict};
use wordjudge_core::lexicon::build::{build_lexicon, compile, install_official, BuildError};
use wordjudge_core::lexicon::catalog::Catalog;
use wordjudge_core::lexicon::{official, Lexicon, Proof, Status};

fn shared() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/lexicons");
    assert!(dir.join("CSW15.txt").exists(), "real-data test: {} (the licensed word lists) not found", dir.display());
    dir
}

fn words_of(path: &Path) -> Vec<String> {
    let text = std::fs::read(path).unwrap();
    wordjudge_core::word::parse_word_list(&text, &path.display().to_string(), false).unwrap().words
}

/// Every listed word (or every `step`th) is ACCEPTABLE; a one-letter change
/// of each, not listed, is UNACCEPTABLE.
fn judges_list(lexicon: &Lexicon, words: &[String], step: usize, when: &str) -> usize {
    let set: HashSet<&str> = words.iter().map(String::as_str).collect();
    let mut checked = 0;
    for word in words.iter().step_by(step) {
        let yes = judge(lexicon, &Challenge::new(&[word]).unwrap()).unwrap();
        assert_eq!(yes.verdict(), Verdict::Acceptable, "{when}: {word}");
        let miss = near_miss(word, &set);
        let no = judge(lexicon, &Challenge::new(&[&miss]).unwrap()).unwrap();
        assert_eq!(no.verdict(), Verdict::Unacceptable, "{when}: {miss} (from {word})");
        checked += 1;
    }
    checked
}

#[test]
#[ignore = "needs ../shared/lexicons"]
fn real_data_pins_are_the_shared_lists_built_by_this_builder() {
    let shared = shared();
    let built: Vec<_> = [("CSW15", "CSW15.txt"), ("NWL2018", "NWL2018.txt"), ("TWL06", "TWL06.txt")]
        .into_iter()
        .map(|(id, file)| {
            let list =
                wordjudge_core::word::parse_word_list(&std::fs::read(shared.join(file)).unwrap(), file, false).unwrap();
            let (bytes, manifest) = compile(&list, &format!("{id}.fst"), file, "");
            eprintln!(
                "{id}: content {} fst {} fp {} words {}",
                manifest.content_sha256.as_deref().unwrap(),
                manifest.fst_sha256,
                manifest.fingerprint,
                manifest.word_count
            );
            (id, bytes, manifest)
        })
        .collect();
    for (id, bytes, manifest) in built {
        let pin = official::find(id).unwrap().layers[0].pin.unwrap();
        assert_eq!(manifest.content_sha256.as_deref(), Some(pin.content_sha256), "{id}");
        assert_eq!(manifest.fst_sha256, pin.fst_sha256, "{id}");
        assert_eq!(manifest.fingerprint.to_string(), pin.fingerprint, "{id}");
        assert_eq!(manifest.word_count, pin.word_count, "{id}");
        assert_eq!(wordjudge_core::digest::sha256_hex(&bytes), pin.fst_sha256);
        // A pinned build is opened without the fst's own checksum pass (the
        // digest says it is this build): this build's checksum holds.
        fst::raw::Fst::new(bytes).unwrap().verify().expect("the pinned build's checksum");
    }
}

#[test]
#[ignore = "needs ../shared/lexicons"]
fn real_data_csw15_nwl2018_twl06_are_verified_official_and_judge_every_word_and_near_miss() {
    let shared = shared();
    let dir = tempfile::tempdir().unwrap();
    for (id, file, expected_words) in
        [("CSW15", "CSW15.txt", 276_663), ("NWL2018", "NWL2018.txt", 192_111), ("TWL06", "TWL06.txt", 178_691)]
    {
        let report = install_official(&shared.join(file), dir.path(), None, false).unwrap();
        assert_eq!((report.build.manifest.word_count, report.evidence), (expected_words, "pinned digest"), "{id}");
        let started = Instant::now();
        let lexicon = Catalog::load(dir.path()).open(id).unwrap();
        let took = started.elapsed();
        assert_eq!(lexicon.status(), Status::VerifiedOfficial, "{id}");
        assert_eq!(lexicon.layers()[0].proof(), Proof::PinnedFst, "{id}");
        assert_eq!(lexicon.status_text(), "Verified official");
        let checked = judges_list(&lexicon, &words_of(&shared.join(file)), 1, id);
        assert_eq!(checked, expected_words as usize);
        eprintln!("{id}: opened in {took:?}; {checked} words and {checked} near misses judged");
    }
}

fn wordjudge(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(crate::built::wordjudge())
        .arg("--lexicons")
        .arg(dir)
        .args(args)
        .env("WORDJUDGE_CONFIG", dir.join("none.toml"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
#[ignore = "needs ../shared/lexicons"]
fn real_data_nwl2018_installed_as_twl2016_is_mismatch_everywhere() {
    let shared = shared();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nwl = shared.join("NWL2018.txt");
    // `install` refuses it outright, and changes nothing.
    let (code, _, err) = wordjudge(d, &["lexicon", "install", nwl.to_str().unwrap(), "--id", "TWL2016"]);
    assert_eq!(code, 2);
    assert!(err.contains("not TWL2016") && err.contains("9ea8d964") && err.contains("nothing was changed"), "{err}");
    assert!(!d.join("TWL2016.fst").exists());
    // `build --out` writes anything anywhere; then every view says Mismatch.
    let (code, out, err) =
        wordjudge(d, &["lexicon", "build", nwl.to_str().unwrap(), "--out", d.join("TWL2016.fst").to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let src = shared.join("CSW15.txt");
    assert_eq!(wordjudge(d, &["lexicon", "install", src.to_str().unwrap()]).0, 0);
    let (code, out, _) = wordjudge(d, &["lexicon", "list"]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l.starts_with("TWL2016 ") && l.contains("Mismatch")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("CSW15 ") && l.contains("Verified official")), "{out}");
    let (code, out, _) = wordjudge(d, &["lexicon", "info", "TWL2016"]);
    assert_eq!(code, 1);
    let status = out.lines().find(|l| l.starts_with("status:")).unwrap_or_default();
    assert!(status.contains("Mismatch") && status.contains("41da74af") && status.contains("9ea8d964"), "{out}");
    assert!(out.contains("fingerprint: 41da74af"), "{out}");
    let (code, out, _) = wordjudge(d, &["lexicon", "verify", "TWL2016"]);
    assert_eq!(code, 1);
    assert!(out.contains("Mismatch"), "{out}");
    for words in [&["OK"][..], &["CAT"], &["EW", "QI"]] {
        let mut args = vec!["judge", "--lexicon", "TWL2016"];
        args.extend_from_slice(words);
        let (code, out, err) = wordjudge(d, &args);
        assert_eq!((code, out.as_str()), (2, ""), "no verdict from a Mismatch lexicon: {err}");
        assert!(err.contains("Mismatch"), "{err}");
    }
    let (code, out, _) = wordjudge(d, &["judge", "--lexicon", "TWL2016", "--each"]);
    assert_eq!((code, out.as_str()), (2, ""));
    let (code, out, _) = wordjudge(d, &["judge", "--lexicon", "CSW15", "QI", "ZA"]);
    assert_eq!((code, out.trim()), (0, "ACCEPTABLE"));
}

#[test]
#[ignore = "needs ../shared/lexicons"]
fn real_data_a_forged_same_fingerprint_csw15_is_mismatch_and_never_judges() {
    let shared = shared();
    let csw = words_of(&shared.join("CSW15.txt"));
    let mut forged: HashSet<String> = csw.iter().cloned().collect();
    assert!(forged.insert("XYZZY".into()), "XYZZY is not in CSW15");
    let pin = official::find("CSW15").unwrap().layers[0].pin.unwrap();
    let target = u128::from_str_radix(pin.fingerprint, 16).unwrap();
    let junk = forge_junk(&forged, target, u128::MAX, 15);
    forged.extend(junk.iter().cloned());
    let mut forged: Vec<String> = forged.into_iter().collect();
    forged.sort();
    assert_eq!(fingerprint_of(&forged).to_string(), pin.fingerprint, "the full 128-bit fingerprint is forged");
    eprintln!("forged CSW15: XYZZY plus {} junk words; fingerprint {}", junk.len(), fingerprint_of(&forged));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_words(&d.join("CSW15.txt"), &forged);
    // install refuses it: the content digest is not the pinned one.
    match install_official(&d.join("CSW15.txt"), &d.join("lex"), None, false) {
        Err(BuildError::NotTheList { id, .. }) => assert_eq!(id, "CSW15"),
        other => panic!("{other:?}"),
    }
    // Put in place anyway: Mismatch, and no verdict.
    std::fs::create_dir(d.join("lex")).unwrap();
    build_lexicon(&d.join("CSW15.txt"), &d.join("lex/CSW15.fst"), false).unwrap();
    let lexicon = Catalog::load(&d.join("lex")).open("CSW15").unwrap();
    assert_eq!(lexicon.fingerprint().to_string(), pin.fingerprint, "the fingerprint alone would pass");
    assert_eq!(lexicon.status(), Status::Mismatch);
    assert!(!lexicon.status().can_judge());
    let refused = judge(&lexicon, &Challenge::new(&["XYZZY"]).unwrap()).unwrap_err();
    assert!(refused.to_string().contains("content digest"), "{refused}");
    let (code, out, _) = wordjudge(&d.join("lex"), &["judge", "--lexicon", "CSW15", "XYZZY"]);
    assert_eq!((code, out.as_str()), (2, ""));
    // The genuine list is Verified official.
    install_official(&shared.join("CSW15.txt"), &d.join("lex"), None, false).unwrap();
    let genuine = Catalog::load(&d.join("lex")).open("CSW15").unwrap();
    assert_eq!(genuine.status(), Status::VerifiedOfficial);
    assert!(!genuine.contains("XYZZY"));
}

#[test]
#[ignore = "needs ../shared/lexicons"]
fn real_data_an_edited_csw15_definition_is_never_official() {
    let shared = shared();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    install_official(&shared.join("CSW15.txt"), d, None, false).unwrap();
    for edit in ["add = [\"XYZZY\"]\n", "remove = [\"QI\"]\n"] {
        std::fs::write(
            d.join("CSW15.toml"),
            format!("id = \"CSW15\"\nname = \"c\"\nedition = \"e\"\n{edit}[[layer]]\nfst = \"CSW15.fst\"\n"),
        )
        .unwrap();
        let catalog = Catalog::load(d);
        assert!(
            catalog.problems().iter().any(|p| p.contains("CSW15.toml") && p.contains("ignored")),
            "{:?}",
            catalog.problems()
        );
        let lexicon = catalog.open("CSW15").unwrap();
        assert_eq!(lexicon.status(), Status::VerifiedOfficial, "the official CSW15, not the edited one");
        assert!(lexicon.contains("QI") && !lexicon.contains("XYZZY"), "{edit}");
        // Under an id of its own it judges, as Custom, with its corrections in the status.
        std::fs::write(
            d.join("CSW15.toml"),
            format!("id = \"CSW15-club\"\nname = \"c\"\nedition = \"e\"\n{edit}[[layer]]\nfst = \"CSW15.fst\"\n"),
        )
        .unwrap();
        let custom = Catalog::load(d).open("CSW15-club").unwrap();
        assert_eq!(custom.status(), Status::Custom);
        assert!(custom.status_text().contains("corrections: "), "{}", custom.status_text());
        assert_eq!(custom.contains("XYZZY"), edit.contains("XYZZY"));
        assert_eq!(custom.contains("QI"), !edit.contains("QI"));
    }
    // A changed fingerprint in a file claiming CSW15: ignored too.
    std::fs::write(d.join("CSW15.toml"), "id = \"CSW15\"\nname = \"c\"\nedition = \"e\"\n[[layer]]\nfst = \"CSW15.fst\"\npublished_fingerprint = \"41da74af\"\n").unwrap();
    let catalog = Catalog::load(d);
    assert_eq!(catalog.problems().len(), 1);
    assert_eq!(catalog.open("CSW15").unwrap().status(), Status::VerifiedOfficial);
}

#[test]
#[ignore = "needs ../shared/lexicons"]
fn real_data_csw15_changed_while_open_keeps_every_verdict() {
    let shared = shared();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    install_official(&shared.join("CSW15.txt"), d, None, false).unwrap();
    let csw = words_of(&shared.join("CSW15.txt"));
    // A larger list (CSW15, NWL2018 and 5000 more) and a smaller one (NWL2018) to copy over it.
    let nwl = words_of(&shared.join("NWL2018.txt"));
    let mut larger: Vec<String> = csw.iter().chain(nwl.iter()).chain(random_words(5000, 8).iter()).cloned().collect();
    larger.sort();
    larger.dedup();
    write_words(&d.join("larger.txt"), &larger);
    build_lexicon(&d.join("larger.txt"), &d.join("LARGER.fst"), false).unwrap();
    assert!(
        std::fs::metadata(d.join("LARGER.fst")).unwrap().len() > std::fs::metadata(d.join("CSW15.fst")).unwrap().len()
    );
    build_lexicon(&shared.join("NWL2018.txt"), &d.join("NWL.fst"), false).unwrap();
    let fst = d.join("CSW15.fst");
    let original = std::fs::read(&fst).unwrap();
    let changes: [(&str, &dyn Fn()); 4] = [
        ("a byte flipped in place", &|| {
            use std::io::{Seek, SeekFrom, Write};
            let mut f = std::fs::OpenOptions::new().write(true).open(&fst).unwrap();
            f.seek(SeekFrom::Start(original.len() as u64 / 2)).unwrap();
            f.write_all(&[original[original.len() / 2] ^ 0x04]).unwrap();
        }),
        ("overwritten by a larger list", &|| {
            std::fs::copy(d.join("LARGER.fst"), &fst).unwrap();
        }),
        ("overwritten by a smaller list (NWL2018)", &|| {
            std::fs::copy(d.join("NWL.fst"), &fst).unwrap();
        }),
        ("truncated", &|| {
            std::fs::OpenOptions::new().write(true).open(&fst).unwrap().set_len(original.len() as u64 / 2).unwrap();
        }),
    ];
    for (what, change) in changes {
        std::fs::write(&fst, &original).unwrap();
        let lexicon = Catalog::load(d).open("CSW15").unwrap();
        assert_eq!(lexicon.status(), Status::VerifiedOfficial);
        assert_eq!(lexicon.source_changed(), None);
        std::thread::sleep(std::time::Duration::from_millis(20));
        change();
        let checked = judges_list(&lexicon, &csw, 7, what);
        for (w, v) in [("MAYDAY", true), ("QI", true), ("CAT", true), ("OK", false), ("EW", false)] {
            assert_eq!(lexicon.contains(w), v, "{what}: {w}");
        }
        let change = lexicon.source_changed().unwrap_or_else(|| panic!("{what}: not reported"));
        assert!(change.to_string().contains("CSW15.fst"), "{change}");
        eprintln!("{what}: {checked} words and near misses unchanged; reported: {change}");
    }
}

#[test]
#[ignore = "needs ../shared/lexicons"]
fn real_data_ospd4_with_mw11_long_word_layer_follows_the_school_rule() {
    let shared = shared();
    let dir = tempfile::tempdir().unwrap();
    // Test stand-ins (see the shared README): installed under the layer
    // names with `build --out`, since they are not the real OSPD4 and MW11.
    build_lexicon(&shared.join("OSPD4-upto8.txt"), &dir.path().join("OSPD4.fst"), false).unwrap();
    build_lexicon(&shared.join("TWL06.txt"), &dir.path().join("MW11-long.fst"), false).unwrap();
    let lexicon = Catalog::load(dir.path()).open("OSPD4+MW11").unwrap();
    assert_eq!(lexicon.status(), Status::Unverified);
    let verdict = |w: &str| judge(&lexicon, &Challenge::new(&[w]).unwrap()).unwrap().verdict();
    assert_eq!(verdict("CAT"), Verdict::Acceptable);
    assert_eq!(verdict("ASSHOLE"), Verdict::Unacceptable);
    assert_eq!(verdict("ABANDONMENT"), Verdict::Acceptable);
    let ospd = words_of(&shared.join("OSPD4-upto8.txt"));
    let twl = words_of(&shared.join("TWL06.txt"));
    let in_ospd: HashSet<&str> = ospd.iter().map(String::as_str).collect();
    let mut counted = [0usize; 2];
    for word in ospd.iter().chain(twl.iter()) {
        let expected = in_ospd.contains(word.as_str()) || word.len() >= 9;
        let got = verdict(word) == Verdict::Acceptable;
        assert_eq!(got, expected, "{word}");
        counted[got as usize] += 1;
    }
    eprintln!("OSPD4+MW11: {} acceptable, {} unacceptable, over both files", counted[1], counted[0]);
    assert!(counted[0] > 0 && counted[1] > 0);
}

#[test]
#[ignore = "needs ../shared/lexicons"]
fn real_data_kill_9_during_csw15_installs_leaves_old_or_new() {
    // The same all-or-nothing check as lexicon_install_kill.rs, on CSW15 over NWL2018 and back.
    let shared = shared();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("L.fst");
    std::fs::write(d.join("L.toml"), "id = \"L\"\nname = \"l\"\nedition = \"e\"\n[[layer]]\nfst = \"L.fst\"\n")
        .unwrap();
    let sources = [shared.join("NWL2018.txt"), shared.join("CSW15.txt")];
    let pins = ["NWL2018", "CSW15"].map(|id| official::find(id).unwrap().layers[0].pin.unwrap().content_sha256);
    let build = |i: usize| {
        let mut c = Command::new(crate::built::wordjudge());
        c.args(["lexicon", "build", sources[i].to_str().unwrap(), "--out", out.to_str().unwrap()])
            .env("WORDJUDGE_CONFIG", d.join("none.toml"))
            .stdout(std::process::Stdio::null());
        c
    };
    let started = Instant::now();
    assert!(build(0).status().unwrap().success());
    let full = started.elapsed();
    let mut rng = fastrand::Rng::with_seed(99);
    for round in 0..50 {
        let mut child = build((round + 1) % 2).spawn().unwrap();
        std::thread::sleep(full.mul_f64(rng.f64()));
        let _ = child.kill();
        let _ = child.wait();
        let catalog = Catalog::load(d);
        let stray = std::fs::read_dir(d)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with('.'))
            .count();
        assert_eq!(stray, 0, "round {round}");
        let lexicon = catalog.open("L").unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert!(pins.contains(&lexicon.layers()[0].facts().content_sha256.as_str()), "round {round}");
    }
}

#[test]
#[ignore = "needs ../shared/lexicons"]
fn real_data_nwl2018_plus_a_made_up_word_balanced_to_nwl2020_is_refused_by_its_word_count() {
    // The attack of issue 23: NWL2018, one made-up word and a few balancing
    // words match NWL2020's published 8-digit fingerprint.
    let shared = shared();
    let mut forged: HashSet<String> = words_of(&shared.join("NWL2018.txt")).into_iter().collect();
    assert!(forged.insert("XYZZYQ".into()));
    let target = u128::from_str_radix("23673600", 16).unwrap() << 96;
    let junk = forge_junk(&forged, target, u128::MAX << 96, 20);
    forged.extend(junk.iter().cloned());
    let mut forged: Vec<String> = forged.into_iter().collect();
    forged.sort();
    assert_eq!(fingerprint_of(&forged).short(), "23673600", "the published fingerprint is matched");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_words(&d.join("NWL2020.txt"), &forged);
    match install_official(&d.join("NWL2020.txt"), &d.join("lex"), None, false) {
        Err(BuildError::NotTheList { id, problem, .. }) => {
            assert_eq!(id, "NWL2020");
            assert!(problem.contains("published 191852"), "{problem}");
        }
        other => panic!("installed a forgery: {other:?}"),
    }
    // Put in place anyway: Mismatch, never "Matches the published fingerprint".
    std::fs::create_dir(d.join("lex")).unwrap();
    build_lexicon(&d.join("NWL2020.txt"), &d.join("lex/NWL2020.fst"), false).unwrap();
    let lexicon = Catalog::load(&d.join("lex")).open("NWL2020").unwrap();
    assert_eq!(lexicon.status(), Status::Mismatch, "{}", lexicon.status_text());
    assert!(!lexicon.status().can_judge());
}

#[test]
#[ignore = "needs ../shared/lexicons"]
fn real_data_a_stick_list_is_recognised_by_its_words_whatever_its_file_name() {
    let shared = shared();
    let stick = tempfile::tempdir().unwrap();
    let lexicons = tempfile::tempdir().unwrap();
    // A genuine CSW15 as a director's stick may carry it, and NWL2018 under
    // a name it is not.
    for (file, from, is) in [("Collins 2015.txt", "CSW15.txt", "CSW15"), ("CSW19.txt", "NWL2018.txt", "NWL2018")] {
        let path = stick.path().join(file);
        std::fs::copy(shared.join(from), &path).unwrap();
        let compiled = wordjudge_core::lexicon::build::compile_file(&path, false).unwrap();
        let name = wordjudge_core::lexicon::import::name_for(&path, &compiled);
        assert_eq!(name.as_deref(), Some(is), "{file} is {is} by its words");
        let preview = wordjudge_core::lexicon::import::preview(compiled, name.as_deref(), lexicons.path()).unwrap();
        let wordjudge_core::lexicon::import::Preview::Named(named) = preview else { panic!("{file}: named") };
        assert_eq!(named.status, Status::VerifiedOfficial, "{file}: {}", named.note);
        assert!(named.installable, "{file}");
        assert!(!named.already_installed, "{file}: nothing is installed yet");
    }
    // Installed, the same list opened again says so: installing it again
    // would change nothing.
    let collins = stick.path().join("Collins 2015.txt");
    wordjudge_core::lexicon::build::install_official(&collins, lexicons.path(), Some("CSW15"), false).unwrap();
    let compiled = wordjudge_core::lexicon::build::compile_file(&collins, false).unwrap();
    let preview = wordjudge_core::lexicon::import::preview(compiled, Some("CSW15"), lexicons.path()).unwrap();
    let wordjudge_core::lexicon::import::Preview::Named(named) = preview else { panic!("named") };
    assert!(named.already_installed && named.installable);
    // Named as the list it is not (chosen by hand), the refusal names the
    // list it is, in fingerprints, never in 64-digit digests.
    let path = stick.path().join("CSW19.txt");
    let compiled = wordjudge_core::lexicon::build::compile_file(&path, false).unwrap();
    let preview = wordjudge_core::lexicon::import::preview(compiled, Some("CSW15"), lexicons.path()).unwrap();
    let wordjudge_core::lexicon::import::Preview::Named(named) = preview else { panic!("named") };
    assert_eq!(named.status, Status::Mismatch);
    assert!(named.note.contains("it is NWL2018") && named.note.contains("CSW15's is 48dea2c8"), "{}", named.note);
    assert!(!named.note.contains("ce702157757d1a29"), "no digest on the install page: {}", named.note);
}
