//! `wordjudge fleet setup`, `sign` and `serve` on the laptop: the event's CA
//! made with openssl, the fleet stick with nothing secret on it, stations'
//! requests signed or refused, and `systemd-journal-remote` receiving an
//! upload signed by the event's CA and refusing one that is not.

pub(crate) use crate::fleet_laptop::{free_port, upload, Serving};
use crate::journal_files::{write_journal, JOURNAL_REMOTE};
use crate::race::{race, Race};
use crate::support::{two_stations, Station};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use wordjudge_core::fleet::stick::FleetFile;

pub(crate) fn wordjudge(args: &[&str]) -> Output {
    Command::new(crate::built::wordjudge()).args(args).output().expect("wordjudge runs")
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub(crate) fn openssl(args: &[&str]) -> String {
    let out = Command::new("openssl").args(args).output().expect("openssl runs");
    assert!(out.status.success(), "openssl {args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

pub(crate) struct Event {
    _dir: tempfile::TempDir,
    pub(crate) ca: PathBuf,
    pub(crate) stick: PathBuf,
}

impl Event {
    pub(crate) fn folder(&self) -> PathBuf {
        self.stick.join("wordjudge/fleet")
    }
    pub(crate) fn path(&self, p: &Path) -> String {
        p.to_str().unwrap().to_string()
    }
}

pub(crate) fn setup(laptop: &str, extra: &[&str]) -> (Event, Output) {
    let dir = tempfile::tempdir().unwrap();
    let (ca, stick) = (dir.path().join("ca"), dir.path().join("stick"));
    std::fs::create_dir(&stick).unwrap();
    let mut args = vec!["fleet", "setup", "--event", "Nationals 2026", "--laptop", laptop];
    let (ca_s, stick_s) = (ca.to_str().unwrap().to_string(), stick.to_str().unwrap().to_string());
    args.extend(["--ca-dir", &ca_s, "--stick", &stick_s]);
    args.extend(extra);
    let out = wordjudge(&args);
    (Event { _dir: dir, ca, stick }, out)
}

/// A station's key and request, made as a station makes them, and the
/// request's binding to a fresh audit key beside it (`FILE_NAME.bind`).
pub(crate) fn station_request(dir: &Path, file_name: &str, cn: &str) -> PathBuf {
    let key = dir.join(format!("{file_name}.key"));
    let csr = dir.join(format!("{file_name}.csr"));
    openssl(&[
        "req",
        "-new",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-subj",
        &format!("/CN={cn}"),
        "-keyout",
        key.to_str().unwrap(),
        "-out",
        csr.to_str().unwrap(),
    ]);
    bind(&csr, cn, &crate::support::new_key(cn));
    csr
}

/// The request `csr` bound to the audit key `key`, as a station binds it.
fn bind(csr: &Path, cn: &str, key: &wordjudge_core::audit::checkpoint::StationKey) {
    let pem = openssl(&["req", "-in", csr.to_str().unwrap(), "-noout", "-pubkey"]);
    let der = wordjudge_core::fleet::stick::public_key_der(&pem).unwrap();
    let binding = wordjudge_core::fleet::stick::RequestBinding::make(key, cn, &der, "2026-11-22T13:00:00Z".into());
    std::fs::write(csr.with_extension("bind"), binding).unwrap();
}

/// `station`'s request in `dir` (`NAME.csr`, `NAME.key`), bound to the
/// audit key its records are signed with: what the laptop pairs.
pub(crate) fn station_request_for(dir: &Path, station: &Station) -> PathBuf {
    let name = station.fleet_name();
    let csr = station_request(dir, &name, &name);
    bind(&csr, &name, station.key());
    csr
}

/// A request and its binding copied to `requests/NAME.*` (an attacker's
/// put in a station's place).
pub(crate) fn put_request(csr: &Path, requests: &Path, name: &str) {
    std::fs::copy(csr, requests.join(format!("{name}.csr"))).unwrap();
    std::fs::copy(csr.with_extension("bind"), requests.join(format!("{name}.bind"))).unwrap();
}

pub(crate) fn every_file(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            every_file(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn setup_writes_a_stick_with_nothing_secret_and_keeps_its_ca() {
    let (event, out) = setup("192.168.10.2", &["--address", "192.168.10.21/24", "--gateway", "192.168.10.1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("made now") && report.contains("upload to:   https://192.168.10.2:19532"), "{report}");

    let fleet = FleetFile::parse(&std::fs::read_to_string(event.folder().join("fleet.toml")).unwrap()).unwrap();
    assert_eq!(fleet.event, "Nationals 2026");
    assert_eq!(fleet.upload_url, "https://192.168.10.2:19532");
    assert_eq!((fleet.address.as_deref(), fleet.gateway.as_deref()), (Some("192.168.10.21/24"), Some("192.168.10.1")));
    // The fingerprint on the stick is the CA's, which is the stick's ca.pem.
    let fp = |p: &Path| {
        openssl(&["x509", "-in", p.to_str().unwrap(), "-noout", "-fingerprint", "-sha256"])
            .split_once('=')
            .unwrap()
            .1
            .trim()
            .replace(':', "")
            .to_ascii_lowercase()
    };
    assert_eq!(fleet.ca_sha256, fp(&event.ca.join("ca.pem")));
    assert_eq!(std::fs::read(event.ca.join("ca.pem")).unwrap(), std::fs::read(event.folder().join("ca.pem")).unwrap());
    assert!(event.folder().join("requests").is_dir() && event.folder().join("certificates").is_dir());
    let mut files = Vec::new();
    every_file(&event.stick, &mut files);
    for f in &files {
        assert!(!std::fs::read_to_string(f).unwrap_or_default().contains("PRIVATE KEY"), "{} holds a key", f.display());
    }
    // The laptop's keys: readable by their owner only, in a folder only its owner enters.
    for key in ["ca.key", "laptop.key"] {
        let mode = std::fs::metadata(event.ca.join(key)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "{key} mode {mode:o}");
    }
    assert_eq!(std::fs::metadata(&event.ca).unwrap().permissions().mode() & 0o777, 0o700);
    let san = openssl(&[
        "x509",
        "-in",
        event.ca.join("laptop.pem").to_str().unwrap(),
        "-noout",
        "-ext",
        "subjectAltName,extendedKeyUsage",
    ]);
    assert!(san.contains("IP Address:192.168.10.2") && san.contains("TLS Web Server Authentication"), "{san}");
    let verified = openssl(&[
        "verify",
        "-CAfile",
        event.ca.join("ca.pem").to_str().unwrap(),
        event.ca.join("laptop.pem").to_str().unwrap(),
    ]);
    assert!(verified.contains(": OK"), "{verified}");

    // Again, with the laptop on another address: the same CA, a new laptop certificate.
    let ca_before = std::fs::read(event.ca.join("ca.pem")).unwrap();
    let (ca_s, stick_s) = (event.path(&event.ca), event.path(&event.stick));
    let again = wordjudge(&[
        "fleet",
        "setup",
        "--event",
        "Nationals 2026",
        "--laptop",
        "laptop.local:20000",
        "--ca-dir",
        &ca_s,
        "--stick",
        &stick_s,
    ]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(text(&again.stdout).contains("kept: made before"), "{}", text(&again.stdout));
    assert_eq!(std::fs::read(event.ca.join("ca.pem")).unwrap(), ca_before);
    let san =
        openssl(&["x509", "-in", event.ca.join("laptop.pem").to_str().unwrap(), "-noout", "-ext", "subjectAltName"]);
    assert!(san.contains("DNS:laptop.local"), "{san}");
    let fleet = FleetFile::parse(&std::fs::read_to_string(event.folder().join("fleet.toml")).unwrap()).unwrap();
    assert_eq!((fleet.upload_url.as_str(), fleet.address), ("https://laptop.local:20000", None));
}

#[test]
fn setup_refuses_what_is_out_of_form_and_makes_nothing() {
    for (laptop, extra, reason) in [
        ("https://laptop", &[][..], "must be https://HOST:PORT"),
        ("laptop:0", &[][..], "must be https://HOST:PORT"),
        ("lap top", &[][..], "must be https://HOST:PORT"),
        ("laptop", &["--address", "10.0.0.5"][..], "with its prefix length"),
        ("laptop", &["--address", "10.0.0.5/8", "--gateway", "gw"][..], "with its prefix length"),
    ] {
        let (event, out) = setup(laptop, extra);
        assert_eq!(out.status.code(), Some(2), "{laptop} {extra:?}: {}", text(&out.stdout));
        assert!(text(&out.stderr).contains(reason), "{laptop} {extra:?}: {}", text(&out.stderr));
        assert!(!event.ca.exists() && !event.folder().exists(), "{laptop} {extra:?} made something");
    }
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca");
    let out = wordjudge(&[
        "fleet",
        "setup",
        "--event",
        "E",
        "--laptop",
        "laptop",
        "--ca-dir",
        ca.to_str().unwrap(),
        "--stick",
        "/nonexistent/stick",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/stick is not a folder"), "{}", text(&out.stderr));
    assert!(!ca.exists());
}

#[test]
fn sign_signs_a_stations_request_and_refuses_what_is_not_one() {
    let (event, out) = setup("192.168.10.2", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = event.folder().join("requests");
    station_request(&requests, "wj-01", "wj-01");
    station_request(&requests, "wj-02", "someone-else");
    std::fs::write(requests.join("wj-03.csr"), "not a request").unwrap();
    station_request(&requests, "bad name", "bad name");
    let ca_s = event.path(&event.ca);
    let out = sign_event(&event, &[]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{report}");
    assert!(text(&out.stderr).contains("3 request(s) refused"), "{}", text(&out.stderr));
    assert!(report.contains("signed   wj-01:"), "{report}");
    assert!(report.contains("refused  wj-02:") && report.contains("not CN=wj-02"), "{report}");
    assert!(report.contains("refused  wj-03:") && report.contains("good signature"), "{report}");
    assert!(report.contains("bad name.csr") && report.contains("letters, digits and hyphens"), "{report}");
    let certificates = event.folder().join("certificates");
    let mut made: Vec<String> = std::fs::read_dir(&certificates)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    made.sort();
    assert_eq!(made, ["wj-01.pem"], "only the good request is signed, no partial file left");
    let cert = certificates.join("wj-01.pem");
    let verified =
        openssl(&["verify", "-CAfile", event.folder().join("ca.pem").to_str().unwrap(), cert.to_str().unwrap()]);
    assert!(verified.contains(": OK"), "{verified}");
    let ext = openssl(&[
        "x509",
        "-in",
        cert.to_str().unwrap(),
        "-noout",
        "-subject",
        "-ext",
        "extendedKeyUsage,basicConstraints",
        "-nameopt",
        "RFC2253",
    ]);
    assert!(
        ext.lines().any(|l| l.starts_with("subject=serialNumber=") && l.ends_with(",CN=wj-01"))
            && ext.contains("TLS Web Client Authentication")
            && ext.contains("CA:FALSE"),
        "{ext}"
    );

    // Again: nothing new to sign.
    for f in ["wj-02.csr", "wj-03.csr", "bad name.csr"] {
        std::fs::remove_file(requests.join(f)).unwrap();
    }
    let out = sign_event(&event, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("kept     wj-01: signed before"), "{}", text(&out.stdout));

    // A stick of another event is refused whole.
    let (other, out) = setup("192.168.10.3", &[]);
    assert!(out.status.success());
    station_request(&other.folder().join("requests"), "wj-09", "wj-09");
    let mut args = vec![
        "fleet".to_string(),
        "sign".into(),
        "--ca-dir".into(),
        ca_s.clone(),
        "--stick".into(),
        other.path(&other.stick),
    ];
    args.extend(accept_args(&other.folder()));
    let out = wordjudge(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("belongs to another event"), "{}", text(&out.stderr));
    assert!(!other.folder().join("certificates/wj-09.pem").exists());
}

/// How many entries the journal files in `dir` hold (journalctl reads them).
pub(crate) fn entries_received(dir: &Path) -> usize {
    let out = Command::new("journalctl")
        .args(["--no-pager", "-o", "json", &format!("--directory={}", dir.display())])
        .output()
        .expect("journalctl runs");
    text(&out.stdout).lines().filter(|l| l.starts_with('{')).count()
}

/// An event whose laptop is on a free loopback port, with station `wj-01`
/// signed, its audit key paired: the port, the event, the stick's
/// `requests/` (where the station's TLS key is), and the station (two
/// verdicts in its journal, signed with that audit key).
fn event_with_a_signed_station() -> (u16, Event, PathBuf, Station) {
    let port = free_port();
    let (event, out) = setup(&format!("127.0.0.1:{port}"), &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = event.folder().join("requests");
    let mut station = Station::new("wj-01", "wj-01");
    let csw = crate::support::lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified official");
    station.judge(&csw, &["QI"], true).judge(&csw, &["ZA"], true);
    station_request_for(&requests, &station);
    assert!(sign_event(&event, &[]).status.success());
    (port, event, requests, station)
}

#[test]
#[ignore = "needs systemd-journal-remote"]
fn needs_journal_remote_serve_receives_the_events_stations_only() {
    let (port, event, requests, one) = event_with_a_signed_station();

    let work = tempfile::tempdir().unwrap();
    let received = work.path().join("received");
    // Its private folder (the receiver's socket) goes here, to see it go.
    let private_parent = work.path().join("tmp");
    std::fs::create_dir(&private_parent).unwrap();
    let mut serve = Serving::listening(&event.ca, port, &received, &private_parent);
    // One station's journal, as its uploader would read it.
    let local = work.path().join("local");
    std::fs::create_dir(&local).unwrap();
    let journal = write_journal(&local, &one);
    let url = format!("https://127.0.0.1:{port}");
    let key = requests.join("wj-01.key");
    let cert = event.folder().join("certificates/wj-01.pem");
    let trust = event.folder().join("ca.pem");

    // Another CA's station certificate, trusting the right laptop: refused, nothing received.
    let (stranger, out) = setup("127.0.0.1", &[]);
    assert!(out.status.success());
    let stranger_requests = stranger.folder().join("requests");
    station_request(&stranger_requests, "wj-01", "wj-01");
    assert!(sign_event(&stranger, &[]).status.success());
    let refused = upload(
        &url,
        &stranger_requests.join("wj-01.key"),
        &stranger.folder().join("certificates/wj-01.pem"),
        &trust,
        &journal,
    );
    assert!(!refused.status.success(), "an upload signed by another CA was taken: {}", text(&refused.stderr));
    assert_eq!(entries_received(&received), 0);
    // A station that trusts another CA does not send to this laptop.
    let wrong_trust = upload(&url, &key, &cert, &stranger.folder().join("ca.pem"), &journal);
    assert!(!wrong_trust.status.success(), "{}", text(&wrong_trust.stderr));
    assert_eq!(entries_received(&received), 0);

    // The event's station: received, and `fleet status` reads it.
    let sent = upload(&url, &key, &cert, &trust, &journal);
    assert!(sent.status.success(), "{}", text(&sent.stderr));
    // Ctrl+C or systemd's SIGTERM: both programs end, the private folder goes.
    assert_eq!(std::fs::read_dir(&private_parent).unwrap().count(), 1, "the private folder while serving");
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(serve.0.id() as libc::pid_t, libc::SIGTERM) }, 0);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let stopped = loop {
        if let Some(status) = serve.0.try_wait().unwrap() {
            break status;
        }
        assert!(std::time::Instant::now() < deadline, "fleet serve did not end on SIGTERM");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(stopped.success(), "SIGTERM is a clean stop: {stopped}");
    let left: Vec<_> = std::fs::read_dir(&private_parent).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    drop(serve);
    assert_eq!(entries_received(&received), one.entries.len(), "every entry of the station's journal, once");
    assert!(received.join("from-wj-01.journal").is_file(), "kept as the certificate's station's");
    let status = crate::journal_files::fleet_status(&[
        "--dir",
        received.to_str().unwrap(),
        "--ca-dir",
        event.ca.to_str().unwrap(),
    ]);
    assert!(status.status.success(), "{}", text(&status.stderr));
    let table = text(&status.stdout);
    let line = table.lines().find(|l| l.starts_with("wj-01 ")).unwrap_or_else(|| panic!("{table}"));
    assert!(line.contains("#2 at") && line.contains("ok over 2 records") && !line.contains("NOT ITS"), "{line}");
    assert!(Path::new(JOURNAL_REMOTE).exists());
}

#[test]
#[ignore = "needs systemd-journal-remote"]
fn needs_journal_remote_status_watch_writes_the_page_again_until_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let (mut one, _) = two_stations();
    write_journal(dir.path(), &one);
    let ca = crate::journal_files::paired_ca(dir.path(), &[&one]);
    let html = dir.path().join("fleet.html");
    let table = dir.path().join("table.txt");
    let mut watch = Serving(
        Command::new(crate::built::wordjudge())
            .args([
                "fleet",
                "status",
                "--watch",
                "1",
                "--dir",
                dir.path().to_str().unwrap(),
                "--html",
                html.to_str().unwrap(),
            ])
            .args(["--ca-dir", ca.to_str().unwrap()])
            .stdout(std::fs::File::create(&table).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let wait_for = |what: &str, done: &dyn Fn() -> bool| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        while !done() {
            assert!(
                std::time::Instant::now() < deadline,
                "not {what}: {}",
                std::fs::read_to_string(&table).unwrap_or_default()
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };
    wait_for("a page at first", &|| html.exists());
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("table-1"), "{page}");
    assert!(
        page.contains("<meta http-equiv=\"refresh\" content=\"1\">"),
        "the browser loads it again as often: {page}"
    );
    let first = one.entries.len();
    wait_for("the first round said", &|| {
        std::fs::read_to_string(&table)
            .unwrap_or_default()
            .contains(&format!("refreshed: {first} new journal entries read in"))
    });
    // One more verdict arrives, in a file of its own: the next round reads
    // that entry alone (after each file group's cursor), and shows it.
    one.entries.clear();
    one.host = "wj-01-later".into();
    one.wait_minutes(5).judge(
        &crate::support::lexicon("CSW21", "0123456789abcdef0123456789abcdef", "Verified official"),
        &["QI"],
        true,
    );
    write_journal(dir.path(), &one);
    wait_for("the new verdict read alone", &|| {
        let said = std::fs::read_to_string(&table).unwrap_or_default();
        let last_round = said.rsplit("fleet status at").next().unwrap_or_default().to_string();
        last_round.contains("refreshed: 1 new journal entries read in") && last_round.contains("#7 at")
    });
    std::fs::remove_file(&html).unwrap();
    wait_for("the page written again", &|| html.exists());
    assert!(watch.0.try_wait().unwrap().is_none(), "--watch goes on until stopped");
    let out = wordjudge(&["fleet", "status", "--watch", "0", "--dir", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "--watch 0 is refused");
}

/// `wordjudge fleet …` that must end by itself within `limit`: killed and
/// failed otherwise (a FIFO on the stick once hung `fleet sign` for ever).
pub(crate) fn wordjudge_within(args: &[&str], limit: std::time::Duration) -> Output {
    let mut child = Command::new(crate::built::wordjudge())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("wordjudge runs");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("wordjudge {args:?} still ran after {limit:?}: {}", text(&out.stdout));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn sign_args(event: &Event) -> Vec<String> {
    ["fleet", "sign", "--ca-dir", &event.path(&event.ca), "--stick", &event.path(&event.stick)]
        .map(String::from)
        .to_vec()
}

/// A request's station key code, as the station shows it and `fleet sign` lists
/// it: its audit key's, from the binding beside it.
pub(crate) fn key_code_of(request: &Path) -> Option<String> {
    let binding = std::fs::read_to_string(request.with_extension("bind")).ok()?;
    let key = wordjudge_core::fleet::stick::RequestBinding::key_of(&binding).ok()?;
    Some(wordjudge_core::fleet::stick::station_key_code(&key))
}

/// `--accept NAME=CODE` for every request on the stick that is a request:
/// the director confirming each with the code its station shows.
pub(crate) fn accept_args(folder: &Path) -> Vec<String> {
    let mut args = Vec::new();
    for entry in std::fs::read_dir(folder.join("requests")).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(station) = name.strip_suffix(".csr") else { continue };
        let small_file = std::fs::symlink_metadata(entry.path()).is_ok_and(|m| m.is_file() && m.len() < 65536);
        if !small_file || !wordjudge_core::fleet::stick::station_name_is_valid(station) {
            continue;
        }
        if let Some(code) = key_code_of(&entry.path()) {
            args.extend(["--accept".to_string(), format!("{station}={code}")]);
        }
    }
    args
}

/// `fleet sign`, the director accepting every request on the stick.
pub(crate) fn sign_event(event: &Event, extra: &[&str]) -> Output {
    let mut args = sign_args(event);
    args.extend(accept_args(&event.folder()));
    args.extend(extra.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    wordjudge_within(&args, std::time::Duration::from_secs(20))
}

/// Every file under `dir` with its bytes (links as their targets' names).
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    every_file(dir, &mut files);
    files.sort();
    files.into_iter().map(|f| (f.clone(), std::fs::read(&f).unwrap_or_default())).collect()
}

/// Attack 2 of issue 40: links on the stick pointing at the laptop's own
/// files. `certificates/.NAME.pem.new` (the partial name `fleet sign` once
/// wrote through) linked to the CA's key, and a station's certificate
/// linked to a file outside the stick: `fleet sign` writes through
/// neither; openssl writes in a private folder of the laptop and only the
/// finished certificate is renamed onto the stick, replacing a link.
#[test]
fn sign_writes_through_no_link_on_the_stick_and_the_ca_key_stays_whole() {
    let (event, out) = setup("192.168.10.2", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = event.folder().join("requests");
    let certificates = event.folder().join("certificates");
    station_request(&requests, "table-5", "table-5");
    station_request(&requests, "table-6", "table-6");
    let ca_key = event.ca.join("ca.key");
    let key_before = std::fs::read(&ca_key).unwrap();
    std::os::unix::fs::symlink(&ca_key, certificates.join(".table-5.pem.new")).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root_only = outside.path().join("root-only");
    std::fs::write(&root_only, "a file of the laptop's").unwrap();
    std::os::unix::fs::symlink(&root_only, certificates.join("table-6.pem")).unwrap();
    let out = sign_event(&event, &[]);
    let report = text(&out.stdout);
    assert_eq!(std::fs::read(&ca_key).unwrap(), key_before, "the CA's key is whole: {report}");
    assert_eq!(std::fs::read_to_string(&root_only).unwrap(), "a file of the laptop's", "{report}");
    assert!(report.contains("signed   table-5:") && report.contains("signed   table-6:"), "{report}");
    assert!(report.contains("planted  table-6:") && report.contains("symbolic link"), "the link is named: {report}");
    assert_eq!(out.status.code(), Some(2), "a planted file is a refusal: {report}");
    for name in ["table-5.pem", "table-6.pem"] {
        let cert = certificates.join(name);
        assert!(std::fs::symlink_metadata(&cert).unwrap().file_type().is_file(), "{name} is a file of its own");
        let verified =
            openssl(&["verify", "-CAfile", event.ca.join("ca.pem").to_str().unwrap(), cert.to_str().unwrap()]);
        assert!(verified.contains(": OK"), "{verified}");
    }
    // The link at the old partial name is left as it was, never opened.
    assert!(std::fs::symlink_metadata(certificates.join(".table-5.pem.new")).unwrap().file_type().is_symlink());
    // A second run: both kept, and the CA key still whole.
    let again = sign_event(&event, &[]);
    assert!(again.status.success(), "{}{}", text(&again.stdout), text(&again.stderr));
    assert!(text(&again.stdout).contains("kept     table-6: signed before"), "{}", text(&again.stdout));
    assert_eq!(std::fs::read(&ca_key).unwrap(), key_before);
}

/// A `wordjudge/`, `wordjudge/fleet`, `certificates/` or `requests/` on the
/// stick that is a link to a folder elsewhere: `fleet setup` and `fleet
/// sign` refuse it with the reason and write nothing anywhere.
#[test]
fn setup_and_sign_refuse_a_linked_stick_folder_and_write_nothing_through_it() {
    for linked in ["wordjudge", "wordjudge/fleet", "wordjudge/fleet/certificates", "wordjudge/fleet/requests"] {
        let (event, out) = setup("192.168.10.2", &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        station_request(&event.folder().join("requests"), "wj-01", "wj-01");
        let elsewhere = tempfile::tempdir().unwrap();
        let target = elsewhere.path().join("moved");
        let place = event.stick.join(linked);
        std::fs::rename(&place, &target).unwrap();
        std::os::unix::fs::symlink(&target, &place).unwrap();
        let before = contents(elsewhere.path());
        let out = sign_event(&event, &[]);
        assert_eq!(out.status.code(), Some(2), "sign, {linked} linked: {}", text(&out.stdout));
        assert!(text(&out.stderr).contains("symbolic link"), "sign, {linked} linked: {}", text(&out.stderr));
        assert_eq!(contents(elsewhere.path()), before, "sign wrote through the linked {linked}");
        let (ca_s, stick_s) = (event.path(&event.ca), event.path(&event.stick));
        let out = wordjudge(&[
            "fleet",
            "setup",
            "--event",
            "Nationals 2026",
            "--laptop",
            "192.168.10.2",
            "--ca-dir",
            &ca_s,
            "--stick",
            &stick_s,
        ]);
        assert_eq!(out.status.code(), Some(2), "setup, {linked} linked: {}", text(&out.stdout));
        assert!(text(&out.stderr).contains("symbolic link"), "setup, {linked} linked: {}", text(&out.stderr));
        assert_eq!(contents(elsewhere.path()), before, "setup wrote through the linked {linked}");
    }
}

/// A FIFO, a link to /dev/zero and a 100 MB file as a request: each refused
/// at once with its reason, the other requests still signed.
#[test]
fn sign_refuses_a_fifo_a_device_link_and_a_huge_request_at_once() {
    let (event, out) = setup("192.168.10.2", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = event.folder().join("requests");
    station_request(&requests, "wj-01", "wj-01");
    let fifo = requests.join("wj-02.csr");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    std::os::unix::fs::symlink("/dev/zero", requests.join("wj-03.csr")).unwrap();
    let huge = std::fs::File::create(requests.join("wj-04.csr")).unwrap();
    huge.set_len(100 * 1024 * 1024).unwrap();
    let out = sign_event(&event, &[]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{report}");
    assert!(text(&out.stderr).contains("3 request(s) refused"), "{}", text(&out.stderr));
    assert!(report.contains("signed   wj-01:"), "{report}");
    let line = |name: &str| {
        report.lines().find(|l| l.starts_with(&format!("refused  {name}:"))).unwrap_or_default().to_string()
    };
    assert!(line("wj-02").contains("FIFO"), "{report}");
    assert!(line("wj-03").contains("symbolic link"), "{report}");
    assert!(line("wj-04").contains("bytes such a file may have"), "{report}");
    assert!(!event.folder().join("certificates/wj-02.pem").exists());
}

/// Item 2 of issue 40, in part: a request with another key for a name that
/// already has a certificate is refused unless the director says
/// `--replace NAME`; a certificate on the stick that this CA did not issue
/// is named as planted, never "kept: signed before"; a file name with an
/// escape sequence reaches the terminal escaped.
#[test]
fn a_replacement_request_needs_replace_and_a_planted_certificate_is_named() {
    let (event, out) = setup("192.168.10.2", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = event.folder().join("requests");
    let certificates = event.folder().join("certificates");
    station_request(&requests, "table-2", "table-2");
    assert!(sign_event(&event, &[]).status.success());
    let signed = std::fs::read(certificates.join("table-2.pem")).unwrap();
    let public_key = |cert: &Path| openssl(&["x509", "-in", cert.to_str().unwrap(), "-noout", "-pubkey"]);
    let station_key = public_key(&certificates.join("table-2.pem"));

    // An attacker's newer request for table-2, with a key of their own.
    let attacker = tempfile::tempdir().unwrap();
    let theirs = station_request(attacker.path(), "table-2", "table-2");
    put_request(&theirs, &requests, "table-2");
    let out = sign_event(&event, &[]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{report}");
    assert!(report.contains("refused  table-2: table-2 already has a certificate of another key"), "{report}");
    assert!(report.contains("--replace table-2"), "{report}");
    assert_eq!(std::fs::read(certificates.join("table-2.pem")).unwrap(), signed, "table-2's certificate unchanged");
    // The director says so: the new key is signed.
    let out = sign_event(&event, &["--replace", "table-2"]);
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert_ne!(public_key(&certificates.join("table-2.pem")), station_key);
    // The audit key paired before is kept, marked as replaced: the
    // station's records from before stay provable (`fleet status` shows them
    // apart), and the new key is the one paired now.
    let keys = wordjudge_core::fleet::ca::EventCa::paired_keys_in(&event.ca).unwrap();
    let table_2: Vec<_> = keys.iter().filter(|k| k.station == "table-2").collect();
    assert_eq!(table_2.len(), 2, "{keys:?}");
    assert_eq!(table_2.iter().filter(|k| k.replaced_at.is_some()).count(), 1, "{keys:?}");

    // A certificate of another CA planted for a station's request.
    let (other, out) = setup("192.168.10.3", &[]);
    assert!(out.status.success());
    station_request(&other.folder().join("requests"), "table-3", "table-3");
    station_request(&other.folder().join("requests"), "table-4", "table-4");
    assert!(sign_event(&other, &[]).status.success());
    station_request(&requests, "table-3", "table-3");
    std::fs::copy(other.folder().join("certificates/table-3.pem"), certificates.join("table-3.pem")).unwrap();
    // …and one with no request at all, under a name with an escape sequence.
    std::fs::copy(other.folder().join("certificates/table-4.pem"), certificates.join("table-4.pem")).unwrap();
    std::fs::copy(other.folder().join("certificates/table-4.pem"), certificates.join("x\u{1b}[2Jy.pem")).unwrap();
    let out = sign_event(&event, &[]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{report}");
    assert!(!report.contains("kept     table-3"), "{report}");
    assert!(report.contains("planted  table-3:") && report.contains("signed   table-3:"), "{report}");
    assert!(report.contains("planted  table-4.pem:"), "{report}");
    assert!(report.contains("planted  x\\u{1b}[2Jy.pem:") && !report.contains('\u{1b}'), "{report}");
    let verified = openssl(&[
        "verify",
        "-CAfile",
        event.ca.join("ca.pem").to_str().unwrap(),
        certificates.join("table-3.pem").to_str().unwrap(),
    ]);
    assert!(verified.contains(": OK"), "the planted certificate is replaced by the CA's: {verified}");
    assert!(!certificates.join("table-4.pem").exists(), "a planted certificate with no request is removed");
}

/// Item 2 of issue 40: pairing, not trust on first sight. `fleet sign`
/// lists each request with its key's code and signs only what the director
/// confirms: without `--accept NAME=CODE` (and no terminal to ask at) the
/// request waits; a code that is not the request's key's is refused.
#[test]
fn sign_signs_only_a_request_whose_code_the_director_confirms() {
    let (event, out) = setup("192.168.10.2", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = event.folder().join("requests");
    let csr = station_request(&requests, "table-3", "table-3");
    let code = key_code_of(&csr).unwrap();
    assert_eq!(code.len(), 19, "{code}");
    let certificate = event.folder().join("certificates/table-3.pem");
    let mut plain = sign_args(&event);
    let out = wordjudge(&plain.iter().map(String::as_str).collect::<Vec<_>>());
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{report}");
    assert!(report.contains(&format!("waiting  table-3: key {code}")), "{report}");
    // Only a person who compared the code signs: no ready-to-paste line.
    assert!(!report.contains(&format!("--accept table-3={code}")), "{report}");
    assert!(report.contains("station key code on table-3's Event fleet page"), "{report}");
    assert!(text(&out.stderr).contains("1 request(s) wait for the director's confirmation"), "{}", text(&out.stderr));
    assert!(!certificate.exists(), "nothing signed without the director's word");
    // The code of another key (an attacker's request in its place): refused.
    let attacker = tempfile::tempdir().unwrap();
    let other = station_request(attacker.path(), "table-3", "table-3");
    let wrong = key_code_of(&other).unwrap();
    plain.extend(["--accept".into(), format!("table-3={wrong}")]);
    let out = wordjudge(&plain.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("refused  table-3: --accept gives the code"), "{}", text(&out.stdout));
    assert!(!certificate.exists());
    // The right code, typed in capitals without hyphens: signed.
    let mut args = sign_args(&event);
    args.extend(["--accept".into(), format!("table-3={}", code.replace('-', "").to_uppercase())]);
    let out = wordjudge(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        text(&out.stdout).contains("signed   table-3:") && text(&out.stdout).contains(&code),
        "{}",
        text(&out.stdout)
    );
    assert!(certificate.exists());
    // A code out of form is a usage error.
    let mut bad = sign_args(&event);
    bad.extend(["--accept".into(), "table-3=12345".into()]);
    let out = wordjudge(&bad.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not 16 hex digits"), "{}", text(&out.stderr));
}

/// Issue 40: `socat` listened on every address of the laptop. `fleet serve`
/// listens on the laptop's address `fleet setup` was given (its
/// certificate's), or on `--listen`'s: another address of the same
/// machine (here 127.0.0.2, loopback too) gets no answer.
#[test]
#[ignore = "needs systemd-journal-remote"]
fn needs_journal_remote_serve_listens_on_the_laptops_address_only() {
    let port = free_port();
    let (event, out) = setup(&format!("127.0.0.1:{port}"), &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let work = tempfile::tempdir().unwrap();
    let tmp = work.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    {
        let _serve = Serving::listening(&event.ca, port, &work.path().join("received"), &tmp);
        assert!(std::net::TcpStream::connect(("127.0.0.2", port)).is_err(), "serve answers on another address");
    }
    let port = free_port();
    let _serve = Serving::listening_on(
        &event.ca,
        port,
        &work.path().join("received-2"),
        &tmp,
        "127.0.0.2",
        &["--listen", "127.0.0.2"],
    );
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "--listen 127.0.0.2 answers on 127.0.0.1");
    // A laptop certificate for a host name: serve asks for the address.
    let (named, out) = setup("laptop.local", &[]);
    assert!(out.status.success());
    let out = wordjudge_within(
        &[
            "fleet",
            "serve",
            "--port",
            &free_port().to_string(),
            "--ca-dir",
            &named.path(&named.ca),
            "--output",
            work.path().join("r3").to_str().unwrap(),
        ],
        std::time::Duration::from_secs(20),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("give the laptop's address on the stations' network with --listen"),
        "{}",
        text(&out.stderr)
    );
}

/// The receiver's children of `fleet serve` (pid `serve`): `(pid, comm)`.
fn children_of(serve: u32) -> Vec<(i32, String)> {
    let list = std::fs::read_to_string(format!("/proc/{serve}/task/{serve}/children")).unwrap_or_default();
    list.split_whitespace()
        .filter_map(|p| p.parse::<i32>().ok())
        .map(|pid| (pid, std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default().trim().to_string()))
        .collect()
}

/// The receiver killed (as an endless upload once crashed it): `fleet serve`
/// starts it again at once and an honest station's upload after it is
/// received; before, `serve` ended with it and the laptop stopped receiving.
#[test]
#[ignore = "needs systemd-journal-remote"]
fn needs_journal_remote_a_receiver_that_dies_is_started_again_and_receives() {
    let (port, event, requests, one) = event_with_a_signed_station();
    let work = tempfile::tempdir().unwrap();
    let received = work.path().join("received");
    let tmp = work.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut serve = Serving::listening(&event.ca, port, &received, &tmp);
    let receiver = |serve: &Serving| {
        children_of(serve.0.id()).into_iter().find(|(_, comm)| comm.starts_with("systemd-journal")).map(|(pid, _)| pid)
    };
    let first = receiver(&serve).expect("a receiver runs");
    // SAFETY: kill(2) on a grandchild of this test, by the pid just read.
    assert_eq!(unsafe { libc::kill(first, libc::SIGKILL) }, 0);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    let second = loop {
        assert!(serve.0.try_wait().unwrap().is_none(), "fleet serve ended with its receiver");
        if let Some(pid) = receiver(&serve).filter(|pid| *pid != first) {
            break pid;
        }
        assert!(std::time::Instant::now() < deadline, "no new receiver");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_ne!(second, first);
    let local = work.path().join("local");
    std::fs::create_dir(&local).unwrap();
    let journal = write_journal(&local, &one);
    let sent = upload(
        &format!("https://127.0.0.1:{port}"),
        &requests.join("wj-01.key"),
        &event.folder().join("certificates/wj-01.pem"),
        &event.folder().join("ca.pem"),
        &journal,
    );
    assert!(sent.status.success(), "{}", text(&sent.stderr));
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(serve.0.id() as libc::pid_t, libc::SIGTERM) }, 0);
    let _ = serve.0.wait();
    assert_eq!(entries_received(&received), one.entries.len(), "the honest station's entries, after the restart");
}

/// Issue 40, item 1: a station's certificate is paired with its audit key
/// through the binding it leaves beside its request. A request without
/// one, one whose request was swapped under it, and one that names a key
/// it was not signed by are refused, and nothing is signed for them.
#[test]
fn a_request_without_its_binding_or_with_another_requests_is_refused() {
    let (event, out) = setup("192.168.10.2", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = event.folder().join("requests");
    let bare = station_request(&requests, "table-5", "table-5");
    std::fs::remove_file(bare.with_extension("bind")).unwrap();
    station_request(&requests, "table-6", "table-6");
    let attacker = tempfile::tempdir().unwrap();
    let theirs = station_request(attacker.path(), "table-6", "table-6");
    std::fs::copy(&theirs, requests.join("table-6.csr")).unwrap();
    let forged = station_request(&requests, "table-7", "table-7").with_extension("bind");
    let other_key = crate::support::new_key("table-7").verifier().to_text();
    let binding = std::fs::read_to_string(&forged).unwrap();
    let rest = binding.split_once('\n').unwrap().1;
    std::fs::write(&forged, format!("{other_key}\n{rest}")).unwrap();
    let good = station_request(&requests, "table-8", "table-8");
    let out = sign_event(&event, &[]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{report}");
    assert!(report.contains("refused  table-5: no table-5.bind beside it"), "{report}");
    assert!(report.contains("refused  table-6:") && report.contains("its binding is for another request"), "{report}");
    assert!(
        report.contains("refused  table-7:") && report.contains("not signed by the audit key it names"),
        "{report}"
    );
    let code = key_code_of(&good).unwrap();
    assert!(report.contains(&"signed   table-8:".to_string()) && report.contains(&code), "{report}");
    for name in ["table-5", "table-6", "table-7"] {
        assert!(!event.folder().join(format!("certificates/{name}.pem")).exists(), "{name}");
    }
    // table-8's audit key is kept beside its certificate: what `fleet status` proves its records with.
    let paired = std::fs::read_to_string(event.ca.join("signed/table-8.audit.pub")).unwrap();
    let binding = std::fs::read_to_string(good.with_extension("bind")).unwrap();
    assert_eq!(paired.trim(), binding.lines().next().unwrap());
}

/// Attack 4 of issue 56: `certificates/` or `wordjudge/fleet` swapped for a
/// link to the CA folder while root runs `fleet sign`, timed and
/// inotify-triggered: the CA folder's files are never removed or
/// overwritten, whatever the timing (the stick's folders are held by their
/// descriptors from the first look).
#[test]
fn a_stick_folder_swapped_for_a_link_while_sign_runs_never_touches_the_ca() {
    for (swapped, how) in [
        ("certificates", Race::Timed),
        ("certificates", Race::Inotify),
        ("fleet", Race::Timed),
        ("fleet", Race::Inotify),
    ] {
        let (event, out) = setup("192.168.10.2", &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let before = contents(&event.ca);
        let folder = match swapped {
            "fleet" => event.folder(),
            _ => event.folder().join("certificates"),
        };
        let mut swaps = 0;
        for round in 0..5 {
            // Something for sign to delete and write each round: a planted
            // ca.pem (the CA folder's own file name) and a new request.
            std::fs::write(event.folder().join("certificates/ca.pem"), "planted").unwrap();
            station_request(&event.folder().join("requests"), &format!("table-{round}"), &format!("table-{round}"));
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let racer = race(folder.clone(), event.ca.clone(), how, stop.clone());
            let out = sign_event(&event, &[]);
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            swaps += racer.join().unwrap();
            let report = format!("{}{}", text(&out.stdout), text(&out.stderr));
            // Every file the CA folder had is there, unchanged (signing adds
            // its own records beside them).
            for (path, bytes) in before.iter().filter(|(p, _)| p.extension().is_none_or(|e| e != "srl")) {
                // (ca.srl, openssl's serial counter, moves with each signature.)
                assert_eq!(
                    std::fs::read(path).ok().as_ref(),
                    Some(bytes),
                    "{swapped} {how:?} round {round}: {} changed: {report}",
                    path.display()
                );
            }
            assert!(event.ca.join("ca.pem").is_file() && event.ca.join("laptop.pem").is_file(), "{report}");
            assert!(
                !event.ca.join(format!("table-{round}.pem")).exists(),
                "a certificate written into the CA folder: {report}"
            );
        }
        println!("{swapped} {how:?}: {swaps} swaps over 5 runs of fleet sign; the CA folder untouched");
        assert!(swaps > 0, "{swapped} {how:?}: the racer never swapped: the test did not race");
    }
}

/// The same race against `fleet setup`: its files land in the stick's own
/// folder or nowhere, never in the folder a link points at.
#[test]
fn a_stick_folder_swapped_for_a_link_while_setup_runs_writes_nothing_elsewhere() {
    for how in [Race::Timed, Race::Inotify] {
        let victim = tempfile::tempdir().unwrap();
        std::fs::write(victim.path().join("keep"), "the victim's").unwrap();
        let (event, out) = setup("192.168.10.2", &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let mut swaps = 0;
        for _ in 0..10 {
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let racer = race(event.folder(), victim.path().to_path_buf(), how, stop.clone());
            let args = ["fleet", "setup", "--event", "Nationals 2026", "--laptop", "192.168.10.2"];
            let (ca, stick) = (event.path(&event.ca), event.path(&event.stick));
            let mut all: Vec<&str> = args.to_vec();
            all.extend(["--ca-dir", &ca, "--stick", &stick]);
            let _ = wordjudge(&all);
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            swaps += racer.join().unwrap();
            let names: Vec<String> = std::fs::read_dir(victim.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(names, ["keep"], "{how:?}: setup wrote into the folder a link pointed at");
        }
        println!("{how:?}: {swaps} swaps over 10 runs of fleet setup; nothing written elsewhere");
        assert!(swaps > 0, "{how:?}: the racer never swapped");
    }
}

/// A weak row of issue 56: 100,000 junk files in `requests/` hid the real
/// request from the scan. The scan says how many it left out, and a request
/// the director names with `--accept` is found wherever it is.
#[test]
fn a_request_named_with_accept_is_found_among_more_entries_than_the_scan_reads() {
    let (event, out) = setup("192.168.10.2", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = event.folder().join("requests");
    for i in 0..1500 {
        std::fs::write(requests.join(format!("junk-{i:05}.txt")), "").unwrap();
    }
    let csr = station_request(&requests, "table-9", "table-9");
    let code = key_code_of(&csr).unwrap();
    let mut args = sign_args(&event);
    args.extend(["--accept".into(), format!("table-9={code}")]);
    let out = wordjudge(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let report = text(&out.stdout);
    assert!(report.contains("signed   table-9:"), "{report}");
    assert!(report.contains("more entries in") && report.contains("only the first 1000 are looked at"), "{report}");
    assert!(event.folder().join("certificates/table-9.pem").is_file());
}
