//! Lexicon engine speed: opening and verifying (official CSW15 through its
//! pinned .fst digest, and a custom lexicon read back word by word), one
//! lookup, an 8-word challenge, the change poll, and building CSW15 from
//! text. Uses `../shared/lexicons/CSW15.txt` when present (the budgets are
//! stated for it: open + verify ≤ 5 ms), else the built-in demo list, and
//! says which.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::path::{Path, PathBuf};
use wordjudge_core::judge::{judge, Challenge};
use wordjudge_core::lexicon::build::{build_lexicon, install_official};
use wordjudge_core::lexicon::catalog::Catalog;
use wordjudge_core::lexicon::Status;

fn source() -> (PathBuf, &'static str) {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/lexicons/CSW15.txt");
    if shared.exists() {
        (shared, "CSW15")
    } else {
        eprintln!("../shared/lexicons not found: benchmarking the demo list instead of CSW15");
        (Path::new(env!("CARGO_MANIFEST_DIR")).join("lexicons/demo/DEMO.txt"), "DEMO-LIST")
    }
}

fn benches(c: &mut Criterion) {
    let (src, name) = source();
    let dir = tempfile::tempdir().unwrap();
    let fst = dir.path().join("BENCH.fst");
    build_lexicon(&src, &fst, false).unwrap();
    eprintln!("{name}: .fst is {} bytes", std::fs::metadata(&fst).unwrap().len());
    std::fs::write(
        dir.path().join("BENCH.toml"),
        "id = \"BENCH\"\nname = \"b\"\nedition = \"b\"\n[[layer]]\nfst = \"BENCH.fst\"\n",
    )
    .unwrap();
    let catalog = Catalog::load(dir.path());

    if name == "CSW15" {
        install_official(&src, dir.path(), None, false).unwrap();
        let catalog = Catalog::load(dir.path());
        assert_eq!(catalog.open("CSW15").unwrap().status(), Status::VerifiedOfficial);
        c.bench_function("CSW15: open + verify official (read, SHA-256 = pinned build, fst checksum)", |b| {
            b.iter(|| catalog.open("CSW15").unwrap())
        });
        c.bench_function("CSW15: catalog load + open + verify official", |b| {
            b.iter(|| Catalog::load(dir.path()).open("CSW15").unwrap())
        });
    }
    c.bench_function(&format!("{name}: open + verify custom (every word read back, content digest)"), |b| {
        b.iter(|| catalog.open("BENCH").unwrap())
    });
    let lexicon = catalog.open("BENCH").unwrap();
    c.bench_function(&format!("{name}: one lookup"), |b| b.iter(|| lexicon.contains(black_box("QUIXOTRY"))));
    let words = ["QUA", "ZAX", "JIAO", "OXAZEPAM", "ZYZZYVAS", "XYZZYQ", "CAT", "ABANDONMENT"];
    let challenge = Challenge::new(&words).unwrap();
    c.bench_function(&format!("{name}: 8-word challenge"), |b| {
        b.iter(|| judge(&lexicon, black_box(&challenge)).unwrap())
    });
    c.bench_function(&format!("{name}: source_changed poll (unchanged)"), |b| b.iter(|| lexicon.source_changed()));
    let out = dir.path().join("REBUILD.fst");
    let mut group = c.benchmark_group("build");
    group.sample_size(10);
    group.bench_function(format!("{name}: build from text (parse, fst, manifest, fsync)"), |b| {
        b.iter(|| build_lexicon(&src, &out, false).unwrap())
    });
    group.finish();
}

criterion_group!(lexicon_benches, benches);
criterion_main!(lexicon_benches);
