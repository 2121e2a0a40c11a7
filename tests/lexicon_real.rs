//! The lexicon engine on the real tournament lists in `../shared/lexicons`
//! (licensed data: read from there, never copied into the repository).
//! Skipped, with a plain message, when that folder is absent.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use wordjudge::judge::{judge, Challenge, Verdict};
use wordjudge::lexicon::build::build_lexicon;
use wordjudge::lexicon::catalog::Catalog;
use wordjudge::lexicon::{Lexicon, Status, Verification};

fn shared() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/lexicons");
    if dir.join("CSW15.txt").exists() {
        Some(dir)
    } else {
        eprintln!("SKIPPED: real-data test: {} not found", dir.display());
        None
    }
}

fn words_of(path: &Path) -> Vec<String> {
    let text = std::fs::read(path).unwrap();
    wordjudge::word::parse_word_list(&text, &path.display().to_string(), false).unwrap().words
}

fn definition(dir: &Path, id: &str, fst: &str, published: Option<&str>) {
    let fp = published.map(|p| format!("published_fingerprint = \"{p}\"\n")).unwrap_or_default();
    std::fs::write(
        dir.join(format!("{id}.toml")),
        format!("id = \"{id}\"\nname = \"{id}\"\nedition = \"test\"\n[[layer]]\nfst = \"{fst}\"\n{fp}"),
    )
    .unwrap();
}

/// A word one letter away from `word` that is not in `list` (first position,
/// first letter that works), so every test word has a near miss.
fn near_miss(word: &str, list: &HashSet<&str>) -> String {
    let mut bytes = word.as_bytes().to_vec();
    for i in 0..bytes.len() {
        let original = bytes[i];
        for offset in 1..26u8 {
            bytes[i] = b'A' + (original - b'A' + offset) % 26;
            let candidate = std::str::from_utf8(&bytes).unwrap();
            if !list.contains(candidate) {
                return candidate.to_string();
            }
        }
        bytes[i] = original;
    }
    panic!("no one-letter change of {word} is outside the list");
}

/// Every listed word is ACCEPTABLE; a one-letter change of each, not listed, is UNACCEPTABLE.
fn judges_whole_list(lexicon: &Lexicon, words: &[String]) {
    let set: HashSet<&str> = words.iter().map(String::as_str).collect();
    let mut checked = 0;
    for word in words {
        let yes = judge(lexicon, &Challenge::new(&[word]).unwrap()).unwrap();
        assert_eq!(yes.verdict(), Verdict::Acceptable, "{word}");
        let miss = near_miss(word, &set);
        let no = judge(lexicon, &Challenge::new(&[&miss]).unwrap()).unwrap();
        assert_eq!(no.verdict(), Verdict::Unacceptable, "{miss} (from {word})");
        checked += 1;
    }
    assert_eq!(checked, words.len());
}

#[test]
fn csw15_nwl2018_twl06_judge_every_word_and_every_near_miss() {
    let Some(shared) = shared() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (id, file, expected_words) in
        [("CSW15", "CSW15.txt", 276_663), ("NWL2018", "NWL2018.txt", 192_111), ("TWL06", "TWL06.txt", 178_691)]
    {
        let report = build_lexicon(&shared.join(file), &dir.path().join(format!("{id}.fst")), false).unwrap();
        assert_eq!(report.manifest.word_count, expected_words, "{id}");
        definition(dir.path(), id, &format!("{id}.fst"), None);
        let lexicon = Catalog::load(dir.path()).open(id, Verification::Full).unwrap();
        judges_whole_list(&lexicon, &words_of(&shared.join(file)));
        eprintln!("{id}: {expected_words} words and {expected_words} near misses judged");
    }
}

fn wordjudge(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wordjudge")).args(args).env_remove("WORDJUDGE_CONFIG").output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn lexicon_info_prints_published_fingerprints_and_statuses() {
    let Some(shared) = shared() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let config = dir.path().join("none.toml");
    let config = config.to_str().unwrap();
    // Built through the CLI, as a director would.
    for (file, fst) in [("CSW15.txt", "CSW15.fst"), ("NWL2018.txt", "TWL2016.fst"), ("TWL06.txt", "TWL06.fst")] {
        let src = shared.join(file);
        let (code, out, err) = wordjudge(&["lexicon", "build", src.to_str().unwrap(), "--out", &format!("{d}/{fst}")]);
        assert_eq!(code, 0, "{out}{err}");
    }
    // The shipped definitions, as the station has them.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("lexicons");
    for id in ["CSW15", "TWL2016"] {
        std::fs::copy(repo.join(format!("{id}.toml")), dir.path().join(format!("{id}.toml"))).unwrap();
    }
    definition(dir.path(), "TWL06", "TWL06.fst", Some("64bdbe65"));
    let cases = [
        ("CSW15", "48dea2c8", "Verified official"),
        ("TWL2016", "41da74af", "Mismatch"), // an NWL2018 file installed as TWL2016
        ("TWL06", "64bdbe65", "Verified official"),
    ];
    for (id, fingerprint, status) in cases {
        let (code, out, err) = wordjudge(&["--config", config, "--lexicons", d, "lexicon", "info", id]);
        assert_eq!(code, 0, "{out}{err}");
        let line = |key: &str| out.lines().find(|l| l.starts_with(key)).unwrap_or_default().to_string();
        assert!(line("fingerprint:").contains(&format!(" {fingerprint}")), "{id}: {out}");
        assert!(line("status:").ends_with(status), "{id}: {out}");
        eprintln!("{id}: {} / {}", line("fingerprint:"), line("status:"));
    }
    let (code, out, _) = wordjudge(&["--config", config, "--lexicons", d, "judge", "--lexicon", "TWL2016", "CAT"]);
    assert_eq!(code, 2, "a Mismatch lexicon must not judge: {out}");
    let (code, out, _) = wordjudge(&["--config", config, "--lexicons", d, "judge", "--lexicon", "CSW15", "QI", "ZA"]);
    assert_eq!((code, out.trim()), (0, "ACCEPTABLE"));
}

#[test]
fn ospd4_with_mw11_long_word_layer_follows_the_school_rule() {
    let Some(shared) = shared() else { return };
    let dir = tempfile::tempdir().unwrap();
    build_lexicon(&shared.join("OSPD4-upto8.txt"), &dir.path().join("OSPD4.fst"), false).unwrap();
    build_lexicon(&shared.join("TWL06.txt"), &dir.path().join("MW11-long.fst"), false).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("lexicons/OSPD4+MW11.toml");
    std::fs::copy(repo, dir.path().join("OSPD4+MW11.toml")).unwrap();
    let lexicon = Catalog::load(dir.path()).open("OSPD4+MW11", Verification::Full).unwrap();
    assert_eq!(lexicon.status(), Status::Verified);
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
