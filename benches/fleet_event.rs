//! `wordjudge fleet status` at tournament scale (issue 40, item 7): a
//! synthetic three-day event of twelve stations, each station's journal as
//! its uploader sends it (a boot each morning with the kernel's and the
//! services' messages, a service message every few minutes, about 300
//! challenges a day, every audit record with its signed line), written by
//! `systemd-journal-remote` into `from-table-N.journal` as `fleet serve`
//! writes it, the stations' audit keys paired as `fleet sign` pairs them.
//!
//! Measured, on the built program (whole processes):
//! - the first read: `fleet status --dir … --ca-dir …`, wall time and peak
//!   memory (the process's maximum resident set, from wait4(2));
//! - `fleet status --watch 1`: after its first round, one more hour of the
//!   event arrives for every station (appended to the same files); each
//!   round's time and new entries as the program reports them ("refreshed:
//!   N new journal entries read in X ms"), and its peak memory (VmHWM).
//!
//! `cargo bench --bench fleet_event` runs the whole event on
//! `target/release/wordjudge` (`cargo build --release` first; or
//! `WORDJUDGE_BIN=PATH`). `cargo test --bench fleet_event`, as `.ci/test`
//! runs it, runs two stations for one day on the test build and checks that
//! a refresh reads exactly what arrived.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wordjudge_core::audit::checkpoint::StationKey;
use wordjudge_core::audit::{AdjudicationRecord, AuditEvent, Body, LexiconIdentity, Record};
use wordjudge_core::judge::Verdict;
use wordjudge_core::panel::Trigger;

/// 2026-11-20T08:00:00Z, the first morning, in microseconds.
const START_US: i64 = 1_795_161_600_000_000;
const HOUR_US: i64 = 3_600_000_000;
const JOURNAL_REMOTE: &str = "/usr/lib/systemd/systemd-journal-remote";

/// One station's journal as it grows.
struct Station {
    name: String,
    key: StationKey,
    boot_id: String,
    seq: u64,
    prev: String,
    challenge: u64,
    lexicon: LexiconIdentity,
}

#[path = "../tests/common/journal_export.rs"]
mod journal_export;

use journal_export::Fields as Entry;

impl Station {
    fn new(n: usize, dir: &Path) -> Station {
        let name = format!("table-{n}");
        let key = StationKey::load_or_create(&dir.join(&name), &name, true).unwrap().unwrap().0;
        Station {
            boot_id: String::new(),
            name,
            key,
            seq: 1,
            prev: wordjudge_core::audit::format::GENESIS.to_string(),
            challenge: 1,
            lexicon: LexiconIdentity {
                id: "CSW21".into(),
                fingerprint: "3724aee70123456789abcdef01234567".into(),
                fst_sha256: vec!["ab".repeat(32)],
                status: "Verified official".into(),
                content_sha256: Vec::new(),
                definition_sha256: None,
                corrections: Vec::new(),
            },
        }
    }

    fn base(&self, at: i64, identifier: &str, priority: u8, message: String) -> Entry {
        vec![
            ("__REALTIME_TIMESTAMP".into(), at.to_string()),
            ("__MONOTONIC_TIMESTAMP".into(), (at % (24 * HOUR_US)).to_string()),
            ("_BOOT_ID".into(), self.boot_id.clone()),
            ("_HOSTNAME".into(), format!("wj-{}", self.name)),
            ("PRIORITY".into(), priority.to_string()),
            ("SYSLOG_IDENTIFIER".into(), identifier.into()),
            ("MESSAGE".into(), message),
        ]
    }

    /// An audit record's entry, with its sealed line and signed checkpoint,
    /// as crates/core/src/recorder/journal.rs sends it.
    fn record(&mut self, at: i64, body: Body) -> Entry {
        let time = jiff::Timestamp::from_microsecond(at).unwrap().to_string();
        let record = Record {
            seq: self.seq,
            prev: self.prev.clone(),
            time: time.clone(),
            boot_id: self.boot_id.clone(),
            mono_ns: 0,
            clock_synced: true,
            station: self.name.clone(),
            delayed: false,
            body: body.clone(),
            line_sha256: None,
            code: None,
        };
        let (line, hash, note) = journal_export::signed_line(&self.key, &record);
        let mut entry = self.base(at, "wordjudge", 6, body.describe());
        for (name, value) in [
            ("EVENT", body.name().to_string()),
            ("STATION", self.name.clone()),
            ("SEQ", self.seq.to_string()),
            ("LINE_SHA256", hash.clone()),
            ("AUDIT_WRITTEN", "true".into()),
            ("RECORD", serde_json::to_string(&body).unwrap()),
            ("LINE", line),
            ("CHECKPOINT", note),
        ] {
            entry.push((format!("WORDJUDGE_{name}"), value));
        }
        self.seq += 1;
        self.prev = hash;
        entry
    }

    /// Hour `hour` of the event (0 = the first morning's 08:00): a boot at
    /// 08:00 each day, the event's hours 08:00-18:00, a shutdown at 18:00.
    fn hour(&mut self, hour: i64, per_hour: i64, rng: &mut fastrand::Rng) -> Vec<Entry> {
        let (day, of_day) = (hour / 24, hour % 24);
        let start = START_US + hour * HOUR_US;
        let mut out = Vec::new();
        if of_day >= 10 {
            return out;
        }
        if of_day == 0 {
            self.boot_id = format!("{:032x}", rng.u128(..));
            for i in 0..400 {
                let who = ["kernel", "systemd", "systemd-udevd", "systemd-networkd"][i % 4];
                out.push(self.base(
                    start + i as i64 * 1_000,
                    who,
                    6,
                    format!("boot message {i} of day {day}: {}", "x".repeat(60)),
                ));
            }
            out.push(self.record(start + 500_000, Body::Event(AuditEvent::Startup { version: "0.1.0".into() })));
            out.push(self.record(
                start + 600_000,
                Body::Event(AuditEvent::LexiconOpened {
                    id: self.lexicon.id.clone(),
                    status: self.lexicon.status.clone(),
                    fingerprint: Some(self.lexicon.fingerprint.clone()),
                    problem: None,
                }),
            ));
        }
        // A service message every 5 minutes (the uploader, timers), and the
        // kiosk's sign of life.
        for m in (0..60).step_by(5) {
            out.push(self.base(
                start + m * 60_000_000 + 1_000,
                "systemd-journal-upload",
                6,
                "Uploading journal".into(),
            ));
            out.push(self.base(
                start + m * 60_000_000 + 2_000,
                "wordjudge",
                6,
                "sign of life: the station is in service".into(),
            ));
        }
        // `per_hour` challenges an hour (30: about 300 a day).
        for c in 0..per_hour {
            let n = self.challenge;
            self.challenge += 1;
            let words: Vec<String> =
                (0..1 + c % 3).map(|_| (0..2 + rng.usize(..6)).map(|_| rng.uppercase()).collect()).collect();
            let acceptable = rng.bool();
            out.push(self.record(
                start + c * (HOUR_US / per_hour - 10_000) + 3_000,
                Body::Adjudication(AdjudicationRecord {
                    challenge: n,
                    lexicon: self.lexicon.clone(),
                    per_word: words.iter().map(|_| acceptable).collect(),
                    words,
                    verdict: if acceptable { Verdict::Acceptable } else { Verdict::Unacceptable },
                    trigger: Trigger::Keyboard,
                    repeat_of: None,
                    profile: Some("NASPA-CSW-5".into()),
                    skipped: Vec::new(),
                }),
            ));
        }
        if of_day == 9 {
            out.push(self.record(start + HOUR_US - 1_000_000, Body::Event(AuditEvent::Shutdown)));
        }
        out
    }
}

/// Appends `entries` to the journal file `file` (made if missing), as the
/// laptop's receiver does.
fn receive(file: &Path, entries: &[Entry]) {
    let mut child = Command::new(JOURNAL_REMOTE)
        .arg(format!("--output={}", file.display()))
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("systemd-journal-remote runs (.ci/install-deps installs it)");
    child.stdin.take().unwrap().write_all(&journal_export::export(entries)).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "systemd-journal-remote: {}", String::from_utf8_lossy(&out.stderr));
}

/// The program measured: WORDJUDGE_BIN, else `wordjudge` of this build's
/// profile (beside this bench's own folder).
fn program() -> PathBuf {
    if let Some(bin) = std::env::var_os("WORDJUDGE_BIN") {
        return PathBuf::from(bin);
    }
    let me = std::env::current_exe().unwrap();
    let bin = me.parent().and_then(Path::parent).unwrap().join("wordjudge");
    assert!(bin.is_file(), "{} is not built: `cargo build --release` (or give WORDJUDGE_BIN)", bin.display());
    bin
}

/// Resident memory of `pid` and every process under it, in KiB, now.
fn tree_rss(pid: u32) -> u64 {
    let rss = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .unwrap_or(0);
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    rss + children.split_whitespace().filter_map(|c| c.parse().ok()).map(tree_rss).sum::<u64>()
}

/// What [`measured`] found: wall time, the largest process's peak (wait4's
/// figure, KiB), the whole process tree's peak (sampled every 5 ms, KiB),
/// and what it printed.
struct Measured {
    wall: Duration,
    peak: u64,
    tree_peak: u64,
    text: String,
}

/// Runs `command` to its end, reaped with wait4(2), whose rusage has the
/// peak of the largest process; the tree's resident memory (the program
/// and the journalctl it runs) is sampled meanwhile.
fn measured(command: &mut Command) -> Measured {
    let started = Instant::now();
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut peak = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(tree_rss(pid as u32));
                std::thread::sleep(Duration::from_millis(5));
            }
            peak
        })
    };
    let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    // SAFETY: wait4(2) on our own child, once; `child` is never waited on.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = started.elapsed();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let tree_peak = sampler.join().unwrap();
    let text = out.join().unwrap() + &err.join().unwrap();
    assert_eq!(reaped, pid, "wait4");
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "exit {status}: {text}");
    std::mem::forget(child);
    Measured { wall, peak: usage.ru_maxrss as u64, tree_peak, text }
}

/// The run's figures: printed, and with `--bench` also written to
/// `benches/runs/DATE-MACHINE/fleet_event[-PER_HOUR].txt` (the date in UTC,
/// the machine by its host name, cores and kernel), so each run's figures are
/// kept beside the ones before and the docs link the file, never copy it.
struct Figures {
    lines: Vec<String>,
}

impl Figures {
    fn say(&mut self, line: String) {
        println!("{line}");
        self.lines.push(line);
    }

    fn keep(&self, per_hour: i64) {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
        let date = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/runs").join(format!("{date}-{}", host.trim()));
        std::fs::create_dir_all(&dir).unwrap();
        let name =
            if per_hour == 30 { "fleet_event.txt".to_string() } else { format!("fleet_event-{per_hour}-per-hour.txt") };
        let journalctl = Command::new("journalctl")
            .arg("--version")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).lines().next().unwrap_or("").to_string());
        let mut text = format!(
            "# cargo bench --bench fleet_event (FLEET_EVENT_PER_HOUR={per_hour})\n# at {}, on {} ({cores} cores, Linux {}), {}\n",
            jiff::Timestamp::now(),
            host.trim(),
            kernel.trim(),
            journalctl.unwrap_or_default()
        );
        for line in &self.lines {
            text.push_str(line);
            text.push('\n');
        }
        std::fs::write(dir.join(&name), text).unwrap();
        println!("fleet_event: figures written to {}", dir.join(name).display());
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let mut figures = Figures { lines: Vec::new() };
    let (stations, days) = if full { (12, 3) } else { (2, 1) };
    // FLEET_EVENT_PER_HOUR=1200: the same event forty times as busy (about
    // 500,000 journal entries over twelve stations), for the scale target.
    let per_hour: i64 = std::env::var("FLEET_EVENT_PER_HOUR").ok().and_then(|v| v.parse().ok()).unwrap_or(30);
    let bin = program();
    // FLEET_EVENT_KEEP=1: the event's files are kept (their folder printed),
    // to look at with journalctl or `fleet status` by hand.
    let work = tempfile::Builder::new()
        .prefix("fleet-event-")
        .disable_cleanup(std::env::var_os("FLEET_EVENT_KEEP").is_some())
        .tempdir()
        .unwrap();
    println!("fleet_event: the event's files in {}", work.path().display());
    let (received, ca, keys) = (work.path().join("received"), work.path().join("ca"), work.path().join("keys"));
    for dir in [&received, &ca.join("signed"), &keys] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let mut rng = fastrand::Rng::with_seed(40);
    let mut all: Vec<Station> = (1..=stations).map(|n| Station::new(n, &keys)).collect();
    let file = |s: &Station| received.join(format!("from-{}.journal", s.name));
    let hours = days * 24;
    let made = Instant::now();
    let (mut entries, mut records) = (0, 0);
    let is_record = |e: &Entry| e.iter().any(|(n, v)| n == "SYSLOG_IDENTIFIER" && v == "wordjudge");
    for station in &mut all {
        let journal: Vec<Entry> = (0..hours).flat_map(|h| station.hour(h, per_hour, &mut rng)).collect();
        entries += journal.len();
        records += journal.iter().filter(|e| is_record(e)).count();
        receive(&file(station), &journal);
        std::fs::write(
            ca.join("signed").join(format!("{}.audit.pub", station.name)),
            format!("{}\n", station.key.verifier().to_text()),
        )
        .unwrap();
    }
    let size: u64 = std::fs::read_dir(&received).unwrap().flatten().map(|e| e.metadata().unwrap().len()).sum();
    figures.say(format!(
        "fleet_event: {stations} stations, {days} day(s), {entries} journal entries ({records} wordjudge entries: audit records and signs of life; {} challenges), {} MiB of journal files, made in {:.1} s",
        all.iter().map(|s| s.challenge - 1).sum::<u64>(),
        size >> 20,
        made.elapsed().as_secs_f64()
    ));
    let args = |extra: &[&str]| {
        let mut c = Command::new(&bin);
        c.args(["fleet", "status", "--dir"]).arg(&received).arg("--ca-dir").arg(&ca).args(extra).env("TZ", "UTC");
        c
    };

    // The first read.
    let first = measured(&mut args(&["--now", "2026-11-22T18:00:00Z"]));
    let text = &first.text;
    assert!(text.contains(&format!("{stations} station(s)")) && !text.contains("NOT ITS RECORDS"), "{text}");
    figures.say(format!(
        "fleet_event: first read: {:.0} ms, peak {} MiB (largest process), {} MiB (program and journalctl together, sampled)",
        first.wall.as_secs_f64() * 1000.0,
        first.peak >> 10,
        first.tree_peak >> 10
    ));

    // --watch: rounds of what arrived since.
    let mut watch = args(&["--watch", "1"]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let pid = watch.id();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = watch.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(rest) = line.strip_prefix("refreshed: ") {
                let new: usize = rest.split(' ').next().unwrap().parse().unwrap();
                let ms: u64 = rest.rsplit(' ').nth(1).unwrap().parse().unwrap();
                let _ = tx.send((new, ms));
            }
        }
    });
    let round = || rx.recv_timeout(Duration::from_secs(120)).expect("a --watch round");
    let (first_new, first_ms) = round();
    // journalctl hands over only wordjudge's entries (its match), every one.
    assert_eq!(first_new, records, "the first round reads every record");
    figures.say(format!("fleet_event: --watch first round: {first_new} wordjudge entries in {first_ms} ms"));
    let mut refreshes = Vec::new();
    for extra in 0..3 {
        // One more hour of the event for every station (08:00 of the day after).
        let mut arrived = 0;
        for station in &mut all {
            let hour: Vec<Entry> = station.hour(hours + extra, per_hour, &mut rng);
            arrived += hour.iter().filter(|e| is_record(e)).count();
            receive(&file(station), &hour);
        }
        // The round under way may have started before the files grew: read
        // until the new entries are all counted.
        let (mut new, mut ms) = round();
        let mut rounds = vec![(new, ms)];
        while rounds.iter().map(|r| r.0).sum::<usize>() < arrived {
            (new, ms) = round();
            rounds.push((new, ms));
        }
        assert_eq!(
            rounds.iter().map(|r| r.0).sum::<usize>(),
            arrived,
            "a refresh reads exactly what arrived: {rounds:?}"
        );
        let (new, ms) = rounds.iter().copied().max_by_key(|r| r.0).unwrap();
        figures
            .say(format!("fleet_event: --watch refresh after one more hour: {new} new wordjudge entries in {ms} ms"));
        refreshes.push(ms);
    }
    let hwm = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .unwrap_or(0);
    let _ = watch.kill();
    let _ = watch.wait();
    refreshes.sort();
    figures.say(format!(
        "fleet_event: --watch refreshes: median {} ms, max {} ms; the --watch process's peak {} MiB",
        refreshes[refreshes.len() / 2],
        refreshes[refreshes.len() - 1],
        hwm >> 10
    ));
    if full {
        figures.keep(per_hour);
    }
}
