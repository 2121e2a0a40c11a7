//! Installs are all-or-nothing: `kill -9` at random instants of `lexicon
//! build --out` over a working lexicon always leaves the old list or the new
//! one, verified, and no temporary files once the directory is next opened.

use crate::support::{random_words, write_words};
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::Instant;
use wordjudge_core::lexicon::catalog::Catalog;
use wordjudge_core::lexicon::content::facts_of;
use wordjudge_core::lexicon::Status;

fn has_temporary(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().starts_with(".wordjudge-"))
}

#[test]
fn kill_9_during_builds_leaves_old_or_new_and_no_stray_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lexicons = d.join("lexicons");
    std::fs::create_dir(&lexicons).unwrap();
    let lists = [random_words(50_000, 11), random_words(50_000, 12)];
    let digests: Vec<String> = lists.iter().map(|l| facts_of(l.iter().map(String::as_bytes)).content_sha256).collect();
    for (i, list) in lists.iter().enumerate() {
        write_words(&d.join(format!("{i}.txt")), list);
    }
    std::fs::write(lexicons.join("L.toml"), "id = \"L\"\nname = \"l\"\nedition = \"e\"\n[[layer]]\nfst = \"L.fst\"\n")
        .unwrap();
    let out = lexicons.join("L.fst");
    let build = |i: usize| {
        let mut c = Command::new(crate::built::wordjudge());
        c.args(["lexicon", "build", d.join(format!("{i}.txt")).to_str().unwrap(), "--out", out.to_str().unwrap()])
            .env("WORDJUDGE_CONFIG", d.join("none.toml"))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    };
    // How long a whole build takes here (the slowest of three).
    let mut full = std::time::Duration::ZERO;
    for _ in 0..3 {
        let started = Instant::now();
        assert!(build(0).status().unwrap().success());
        full = full.max(started.elapsed());
    }
    // Some (mode 0640) must survive an install too.
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
    let mut rng = fastrand::Rng::with_seed(0x9);
    let mut outcomes = [0usize; 3]; // old, new, finished
    let mut current = 0usize;
    let mut strays_seen = 0;
    for round in 0..60 {
        let next = 1 - current;
        let mut child = build(next).spawn().unwrap();
        if round % 3 == 1 {
            // The moment its temporary file appears: mid-write.
            let deadline = Instant::now() + full * 3;
            while Instant::now() < deadline && child.try_wait().unwrap().is_none() && !has_temporary(&lexicons) {
                std::hint::spin_loop();
            }
        } else {
            // Anywhere in the run, or near its end, where it writes.
            let wait = if round % 3 == 0 { full.mul_f64(1.2 * rng.f64()) } else { full.mul_f64(0.8 + 0.7 * rng.f64()) };
            std::thread::sleep(wait);
        }
        let _ = child.kill();
        let status = child.wait().unwrap();
        strays_seen += std::fs::read_dir(&lexicons)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with(".wordjudge-"))
            .count();
        // Opening the directory cleans up and verifies.
        let catalog = Catalog::load(&lexicons);
        let stray: Vec<String> = std::fs::read_dir(&lexicons)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(stray.is_empty(), "round {round}: stray files {stray:?}");
        let lexicon = catalog.open("L").unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert_eq!(lexicon.status(), Status::Custom, "round {round}");
        let digest = &lexicon.layers()[0].facts().content_sha256;
        let which = digests.iter().position(|x| x == digest).unwrap_or_else(|| panic!("round {round}: neither list"));
        if status.success() {
            outcomes[2] += 1;
            assert_eq!(which, next, "round {round}: a finished build installed the new list");
        } else {
            outcomes[usize::from(which == next)] += 1;
        }
        assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o640, "round {round}");
        current = which;
    }
    eprintln!(
        "60 builds ({full:?} each): killed leaving old {} times, killed after commit {} times, finished {} times; \
         {strays_seen} stray temporary files cleaned up",
        outcomes[0], outcomes[1], outcomes[2]
    );
    assert!(outcomes[0] >= 5, "enough kills landed before the commit: {outcomes:?}");
    assert!(strays_seen >= 5, "kills landed mid-write (leaving a temporary file to clean up): {strays_seen}");
    assert!(outcomes[1] + outcomes[2] >= 3, "enough builds committed: {outcomes:?}");
}
