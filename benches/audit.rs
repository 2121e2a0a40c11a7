//! What the audit log adds to one adjudication: building the record, the
//! hash chain, the challenge counter's reservation (one small write and
//! `fdatasync`), one append and one `fdatasync` on this machine's disk (plus
//! handing the journald copy to its worker, which is not waited for); and
//! the reservation alone, the price of a power cut leaving no run of
//! numbers never shown.
//!
//! Runs in a directory under /var/tmp (a real disk, not tmpfs; override with
//! WORDJUDGE_BENCH_DIR). Criterion reports the median; the p99 (and p50, p90,
//! max) come from a separate run of raw timings printed at the end.

use criterion::{criterion_group, Criterion};
use std::time::{Duration, Instant};
use wordjudge_core::audit::LexiconIdentity;
use wordjudge_core::judge::{judge, Challenge};
use wordjudge_core::lexicon::catalog;
use wordjudge_core::panel::Trigger;
use wordjudge_core::recorder::{AdjudicationInput, AuditLog};

fn bench_dir() -> tempfile::TempDir {
    let base = std::env::var_os("WORDJUDGE_BENCH_DIR").unwrap_or_else(|| "/var/tmp".into());
    tempfile::Builder::new().prefix("wordjudge-audit-bench-").tempdir_in(base).expect("bench directory")
}

fn filesystem_of(path: &std::path::Path) -> String {
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    let path = path.to_string_lossy();
    mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            (f.len() > 2 && path.starts_with(f[1])).then(|| (f[1].len(), format!("{} on {} ({})", f[0], f[1], f[2])))
        })
        .max()
        .map(|(_, s)| s)
        .unwrap_or_else(|| "unknown".into())
}

fn audit(c: &mut Criterion) {
    let lexicon = catalog::open_demo().expect("demo lexicon");
    let identity = LexiconIdentity::of(&lexicon);
    let adjudication = judge(&lexicon, &Challenge::new(&["QUIXOTIC", "ZEBRA", "XYZZYQ"]).unwrap()).unwrap();
    let input =
        AdjudicationInput { lexicon: &identity, adjudication: &adjudication, trigger: Trigger::Button, profile: None };

    let dir = bench_dir();
    println!("audit bench directory: {} — {}", dir.path().display(), filesystem_of(dir.path()));
    let mut log = AuditLog::open(dir.path(), "Bench station").expect("a fresh directory has no other writer");
    assert!(log.problem().is_none(), "{:?}", log.problem());
    c.bench_function("audit record_adjudication (append + fdatasync)", |b| b.iter(|| log.record_adjudication(&input)));

    // Raw timings for the tail of the distribution.
    let samples = 2000;
    let mut times: Vec<Duration> = (0..samples)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(log.record_adjudication(&input).expect("recorded"));
            start.elapsed()
        })
        .collect();
    assert!(log.problem().is_none(), "{:?}", log.problem());
    times.sort();
    let at = |q: f64| times[((samples as f64 * q) as usize).min(samples - 1)];
    println!(
        "audit record_adjudication over {samples} raw samples: p50 {:?}  p90 {:?}  p99 {:?}  max {:?}",
        at(0.50),
        at(0.90),
        at(0.99),
        times[samples - 1]
    );
    let report = wordjudge_core::inspect::verify(dir.path()).expect("verify");
    assert!(report.ok(), "{report}");

    // The share of that which is the challenge counter's reservation, synced
    // once per challenge since numbers are reserved one at a time (a power
    // cut then leaves no run of numbers never shown): the same write and
    // `fdatasync` on the same disk, alone.
    let counter_dir = bench_dir();
    let mut counter = wordjudge_core::audit::numbering::Counter::open(counter_dir.path()).expect("counter");
    let mut reserved = 0;
    let mut times: Vec<Duration> = (0..samples)
        .map(|_| {
            reserved += 1;
            let start = Instant::now();
            counter
                .store(wordjudge_core::audit::numbering::CounterState { reserved, unrecorded: None })
                .expect("store");
            start.elapsed()
        })
        .collect();
    times.sort();
    let at = |q: f64| times[((samples as f64 * q) as usize).min(samples - 1)];
    println!(
        "challenge counter reservation (write + fdatasync, once per challenge) over {samples} raw samples: p50 {:?}  \
         p90 {:?}  p99 {:?}  max {:?}",
        at(0.50),
        at(0.90),
        at(0.99),
        times[samples - 1]
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(200).measurement_time(Duration::from_secs(10));
    targets = audit
}

/// With `WORDJUDGE_AUDIT_LOG_OUT=DIR`, writes a log of that many records
/// (`WORDJUDGE_AUDIT_RECORDS`, 10,000 by default) into DIR through the one
/// writer, and stops: `benches/process.sh` times `wordjudge audit verify`
/// over it as a whole process.
fn write_log(dir: &std::path::Path) {
    let records: usize = std::env::var("WORDJUDGE_AUDIT_RECORDS").ok().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let lexicon = catalog::open_demo().expect("demo lexicon");
    let identity = LexiconIdentity::of(&lexicon);
    let adjudication = judge(&lexicon, &Challenge::new(&["QUIXOTIC", "ZEBRA"]).unwrap()).unwrap();
    let input = AdjudicationInput {
        lexicon: &identity,
        adjudication: &adjudication,
        trigger: Trigger::Keyboard,
        profile: None,
    };
    let mut log = AuditLog::open(dir, "Bench station").expect("a fresh directory has no other writer");
    for _ in 0..records {
        log.record_adjudication(&input).expect("recorded");
    }
    assert!(log.problem().is_none(), "{:?}", log.problem());
    println!("wrote {records} adjudications to {}", dir.display());
}

fn main() {
    if let Some(dir) = std::env::var_os("WORDJUDGE_AUDIT_LOG_OUT") {
        return write_log(std::path::Path::new(&dir));
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
