//! `wordjudge fleet join` and `leave`, as a station runs them with the
//! fleet stick: the first visit leaves a request (the key stays on the
//! station), the laptop signs it, the second visit installs the certificate
//! after checking it; what the station installs is what
//! `systemd-journal-upload` sends with, to `fleet serve`. A stick that is
//! wrong in any way changes nothing.

use crate::journal_files::write_journal;
use crate::setup::{
    entries_received, every_file, free_port, openssl, setup, station_request, text, upload, wordjudge, Event, Serving,
};
use crate::support::two_stations;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The station's config beside its fleet folder (as on the appliance), its
/// audit folder made: `fleet join` and `leave` record in that log, and are
/// refused where there is none.
pub(crate) fn station_config(fleet_dir: &Path) -> PathBuf {
    let home = fleet_dir.parent().unwrap();
    let config = home.join("config.toml");
    if !config.exists() {
        let audit = home.join("audit");
        std::fs::create_dir_all(&audit).unwrap();
        std::fs::write(&config, format!("station_name = \"Table 1\"\naudit_dir = {:?}\n", audit.to_str().unwrap()))
            .unwrap();
    }
    config
}

fn join(event: &Event, fleet_dir: &Path, station: &str) -> Output {
    let config = station_config(fleet_dir);
    wordjudge(&[
        "--config",
        config.to_str().unwrap(),
        "fleet",
        "join",
        "--stick",
        &event.path(&event.stick),
        "--station",
        station,
        "--fleet-dir",
        fleet_dir.to_str().unwrap(),
    ])
}

pub(crate) fn leave(fleet_dir: &Path) -> Output {
    let config = station_config(fleet_dir);
    wordjudge(&["--config", config.to_str().unwrap(), "fleet", "leave", "--fleet-dir", fleet_dir.to_str().unwrap()])
}

/// `fleet sign`, the director confirming every request's code.
fn sign(event: &Event) -> Output {
    crate::setup::sign_event(event, &[])
}

fn sign_replacing(event: &Event, name: &str) -> Output {
    crate::setup::sign_event(event, &["--replace", name])
}

/// Every file in the station's fleet folder, with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    if dir.exists() {
        every_file(dir, &mut files);
    }
    files.sort();
    files.into_iter().map(|f| (f.clone(), std::fs::read(&f).unwrap())).collect()
}

#[test]
fn a_station_joins_in_two_visits_and_its_key_never_leaves_it() {
    let (event, out) = setup("192.168.10.2", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let station = tempfile::tempdir().unwrap();
    let fleet_dir = station.path().join("fleet");

    // First visit: a key on the station, a request on the stick.
    let first = join(&event, &fleet_dir, "wj-01");
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(text(&first.stdout).contains("request left on the stick"), "{}", text(&first.stdout));
    let key = fleet_dir.join("station.key");
    assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o077, 0, "the key is its owner's alone");
    let request = event.folder().join("requests/wj-01.csr");
    let subject = openssl(&["req", "-in", request.to_str().unwrap(), "-noout", "-verify", "-subject"]);
    assert!(subject.contains("CN=wj-01") || subject.contains("CN = wj-01"), "{subject}");
    let mut on_stick = Vec::new();
    every_file(&event.stick, &mut on_stick);
    for f in &on_stick {
        assert!(!std::fs::read_to_string(f).unwrap_or_default().contains("PRIVATE KEY"), "{} holds a key", f.display());
    }
    assert!(!fleet_dir.join("upload.env").exists(), "no uploader before the certificate");
    // The station key code the station shows is the one the laptop lists the request with.
    let code = crate::setup::key_code_of(&request).unwrap();
    assert!(text(&first.stdout).contains(&format!("station key code: {code}")), "{}", text(&first.stdout));

    // Back before the laptop signed: the same request, not written again.
    let modified = std::fs::metadata(&request).unwrap().modified().unwrap();
    let before = snapshot(&fleet_dir);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let again = join(&event, &fleet_dir, "wj-01");
    assert!(again.status.success() && text(&again.stdout).contains("request left"), "{}", text(&again.stderr));
    assert_eq!(std::fs::metadata(&request).unwrap().modified().unwrap(), modified);
    assert_eq!(snapshot(&fleet_dir), before, "the station's key and request unchanged");

    // The laptop signs; the second visit installs.
    assert!(sign(&event).status.success());
    let second = join(&event, &fleet_dir, "wj-01");
    assert!(second.status.success(), "{}", text(&second.stderr));
    let report = text(&second.stdout);
    assert!(
        report.contains("joined the fleet of Nationals 2026 as wj-01: sending to https://192.168.10.2:19532"),
        "{report}"
    );
    let env = std::fs::read_to_string(fleet_dir.join("upload.env")).unwrap();
    assert!(env.lines().any(|l| l == "WORDJUDGE_FLEET_URL=https://192.168.10.2:19532"), "{env}");
    assert_eq!(std::fs::read(fleet_dir.join("ca.pem")).unwrap(), std::fs::read(event.ca.join("ca.pem")).unwrap());
    assert_eq!(
        std::fs::read(fleet_dir.join("station.pem")).unwrap(),
        std::fs::read(event.folder().join("certificates/wj-01.pem")).unwrap()
    );
    let joined = std::fs::read_to_string(fleet_dir.join("joined.toml")).unwrap();
    let fleet_toml = std::fs::read_to_string(event.folder().join("fleet.toml")).unwrap();
    let ca_line = fleet_toml.lines().find(|l| l.starts_with("ca_sha256")).unwrap();
    assert!(joined.contains(ca_line), "{joined}");
    // The laptop's certificate the stick carried: checked against the CA, its fingerprint kept.
    let laptop_fp =
        openssl(&["x509", "-in", event.ca.join("laptop.pem").to_str().unwrap(), "-noout", "-fingerprint", "-sha256"]);
    let laptop_fp = laptop_fp.split_once('=').unwrap().1.trim().replace(':', "").to_ascii_lowercase();
    assert!(joined.contains(&format!("laptop_sha256 = \"{laptop_fp}\"")), "{joined}");
    assert!(report.contains(&format!("laptop sha256 {laptop_fp}")), "{report}");
    assert!(!fleet_dir.join("station.csr").exists() && !fleet_dir.join("pending.toml").exists());
    // Recorded in the station's audit log, as the menu records it.
    let log = audit_text(&fleet_dir);
    assert_eq!(log.matches("\"fleet_joined\"").count(), 1, "{log}");
    assert!(log.contains(ca_line.split('"').nth(1).unwrap()), "the CA's fingerprint recorded: {log}");

    // A third visit changes nothing.
    let before = snapshot(&fleet_dir);
    let third = join(&event, &fleet_dir, "wj-01");
    assert!(third.status.success() && text(&third.stdout).contains("already in the fleet"), "{}", text(&third.stdout));
    assert_eq!(snapshot(&fleet_dir), before);

    // Leaving takes the uploader's settings, the certificates and the key.
    let left = leave(&fleet_dir);
    assert!(left.status.success(), "{}", text(&left.stderr));
    assert!(text(&left.stdout).contains("left the fleet of Nationals 2026"), "{}", text(&left.stdout));
    assert_eq!(snapshot(&fleet_dir), vec![], "nothing of the fleet is left");
    assert_eq!(audit_text(&fleet_dir).matches("\"fleet_left\"").count(), 1, "{}", audit_text(&fleet_dir));
}

/// Every record of the station's audit log (beside its fleet folder).
fn audit_text(fleet_dir: &Path) -> String {
    let mut files = Vec::new();
    every_file(&fleet_dir.parent().unwrap().join("audit"), &mut files);
    files.sort();
    files.iter().map(|f| String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned()).collect()
}

/// Item 8 of issue 40: `fleet join` and `leave` on the command line where
/// there is no station (no audit folder to record in) are refused, and
/// change nothing; a visit refused is recorded as the menu records it.
#[test]
fn join_and_leave_on_the_command_line_are_refused_where_no_station_records_them() {
    let (event, out) = setup("192.168.10.2", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let home = tempfile::tempdir().unwrap();
    let fleet_dir = home.path().join("fleet");
    let config = home.path().join("config.toml");
    std::fs::write(&config, format!("audit_dir = {:?}\n", home.path().join("no-audit").to_str().unwrap())).unwrap();
    let (config_s, fleet_s) = (config.to_str().unwrap(), fleet_dir.to_str().unwrap());
    for args in [
        vec![
            "--config",
            config_s,
            "fleet",
            "join",
            "--stick",
            &event.path(&event.stick),
            "--station",
            "wj-01",
            "--fleet-dir",
            fleet_s,
        ],
        vec!["--config", config_s, "fleet", "leave", "--fleet-dir", fleet_s],
    ] {
        let out = wordjudge(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stdout));
        let e = text(&out.stderr);
        assert!(e.contains("this is no station") && e.contains("nothing changed"), "{args:?}: {e}");
        assert!(!fleet_dir.exists(), "{args:?} made the fleet folder");
    }
    assert!(!home.path().join("no-audit").exists());
    // A station: a refused stick is recorded (`fleet_refused`), as from the menu.
    std::fs::remove_file(&config).unwrap();
    let empty = tempfile::tempdir().unwrap();
    let config = station_config(&fleet_dir);
    let out = wordjudge(&[
        "--config",
        config.to_str().unwrap(),
        "fleet",
        "join",
        "--stick",
        empty.path().to_str().unwrap(),
        "--station",
        "wj-01",
        "--fleet-dir",
        fleet_s,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(audit_text(&fleet_dir).matches("\"fleet_refused\"").count(), 1, "{}", audit_text(&fleet_dir));
}

#[test]
fn a_wrong_stick_or_certificate_changes_nothing() {
    let (event, out) = setup("192.168.10.2", &[]);
    assert!(out.status.success());
    let station = tempfile::tempdir().unwrap();
    let fleet_dir = station.path().join("fleet");
    let refused = |event: &Event, name: &str, reason: &str| {
        let before = snapshot(&fleet_dir);
        let out = join(event, &fleet_dir, name);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", text(&out.stdout));
        let e = text(&out.stderr);
        assert!(e.contains(reason) && e.contains("nothing changed"), "{name}: want {reason:?}: {e}");
        assert_eq!(snapshot(&fleet_dir), before, "{name}: {reason}");
    };
    refused(&event, "wj 01", "the station name");

    // The stick's ca.pem swapped for another CA's: the event's signature of
    // fleet.toml no longer holds.
    let (other, out) = setup("192.168.10.3", &[]);
    assert!(out.status.success());
    let ca_on_stick = event.folder().join("ca.pem");
    let original = std::fs::read(&ca_on_stick).unwrap();
    std::fs::copy(other.folder().join("ca.pem"), &ca_on_stick).unwrap();
    refused(&event, "wj-01", "not signed by its event's CA");
    // ...and fleet.toml signed again with that other CA, still naming the
    // event's: the CA on the stick is not the one fleet.toml names.
    let toml_path = event.folder().join("fleet.toml");
    let signature = event.folder().join("fleet.toml.sig");
    let original_signature = std::fs::read(&signature).unwrap();
    resign(&other.ca, &toml_path, &signature);
    refused(&event, "wj-01", "is not the event's CA");
    std::fs::write(&ca_on_stick, &original).unwrap();
    std::fs::write(&signature, &original_signature).unwrap();

    // fleet.toml edited on the stick (the upload address changed, say):
    // refused before any field is used; without its signature file, too.
    let toml_text = std::fs::read_to_string(&toml_path).unwrap();
    std::fs::write(&toml_path, toml_text.replace("192.168.10.2", "203.0.113.9")).unwrap();
    refused(&event, "wj-01", "not signed by its event's CA (the signature does not hold)");
    std::fs::write(&toml_path, &toml_text).unwrap();
    std::fs::remove_file(&signature).unwrap();
    refused(&event, "wj-01", "not signed by its event's CA (no fleet.toml.sig beside it)");
    std::fs::write(&signature, &original_signature).unwrap();

    // fleet.toml out of form, even when the event's CA signed it.
    std::fs::write(&toml_path, toml_text.replace("https://", "http://")).unwrap();
    resign(&event.ca, &toml_path, &signature);
    refused(&event, "wj-01", "must be https://HOST:PORT");
    std::fs::write(&toml_path, &toml_text).unwrap();
    std::fs::write(&signature, &original_signature).unwrap();

    // The laptop named by a host name: a station resolves none.
    let (named, out) = setup("laptop.local", &[]);
    assert!(out.status.success());
    refused(&named, "wj-01", "resolves no names");

    // No fleet folder at all.
    let empty = tempfile::tempdir().unwrap();
    let config = station_config(&fleet_dir);
    let out = wordjudge(&[
        "--config",
        config.to_str().unwrap(),
        "fleet",
        "join",
        "--stick",
        empty.path().to_str().unwrap(),
        "--station",
        "wj-01",
        "--fleet-dir",
        fleet_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("has no fleet folder"), "{}", text(&out.stderr));
    assert!(!fleet_dir.exists());

    // The request is made; then a certificate the event's CA did not sign
    // lies under the station's name: refused, the request still waits.
    assert!(join(&event, &fleet_dir, "wj-01").status.success());
    station_request(&other.folder().join("requests"), "wj-01", "wj-01");
    assert!(sign(&other).status.success());
    let answer = event.folder().join("certificates/wj-01.pem");
    std::fs::copy(other.folder().join("certificates/wj-01.pem"), &answer).unwrap();
    refused(&event, "wj-01", "not signed by this event's CA");
    std::fs::write(&answer, "not a certificate").unwrap();
    refused(&event, "wj-01", "is refused");
    assert!(!fleet_dir.join("upload.env").exists());

    // The station's own request, signed by the event's CA but already out of date.
    let ca_key = event.ca.join("ca.key");
    openssl(&[
        "x509",
        "-req",
        "-in",
        event.folder().join("requests/wj-01.csr").to_str().unwrap(),
        "-CA",
        event.ca.join("ca.pem").to_str().unwrap(),
        "-CAkey",
        ca_key.to_str().unwrap(),
        "-CAserial",
        event.ca.join("ca.srl").to_str().unwrap(),
        "-CAcreateserial",
        "-days",
        "-1",
        "-out",
        answer.to_str().unwrap(),
    ]);
    refused(&event, "wj-01", "out of date");

    // The laptop's certificate on the stick swapped for another CA's laptop's.
    let laptop_on_stick = event.folder().join("laptop.pem");
    let laptop_original = std::fs::read(&laptop_on_stick).unwrap();
    std::fs::remove_file(&answer).unwrap();
    assert!(sign(&event).status.success());
    std::fs::copy(other.folder().join("laptop.pem"), &laptop_on_stick).unwrap();
    refused(&event, "wj-01", "not the event's laptop");
    std::fs::write(&laptop_on_stick, &laptop_original).unwrap();

    // A certificate of the event's CA for another station's name.
    std::fs::remove_file(&answer).unwrap();
    station_request(&event.folder().join("requests"), "wj-02", "wj-02");
    assert!(sign(&event).status.success());
    std::fs::copy(event.folder().join("certificates/wj-02.pem"), &answer).unwrap();
    refused(&event, "wj-01", "not CN=wj-01");

    // A good certificate for this name but another key (the station was
    // reflashed): not taken, and the station's own request goes back.
    std::fs::remove_file(&answer).unwrap();
    let stale_dir = tempfile::tempdir().unwrap();
    let stale = station_request(stale_dir.path(), "wj-01", "wj-01");
    crate::setup::put_request(&stale, &event.folder().join("requests"), "wj-01");
    // The name has a certificate of the station's key: another key is
    // signed only when the director says so.
    let out = sign(&event);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("already has a certificate of another key"), "{}", text(&out.stdout));
    assert!(sign_replacing(&event, "wj-01").status.success());
    let out = join(&event, &fleet_dir, "wj-01");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("for another key of this station"), "{}", text(&out.stdout));
    assert!(!fleet_dir.join("upload.env").exists());
    assert!(sign_replacing(&event, "wj-01").status.success(), "the station's own request is signed now");
    let out = join(&event, &fleet_dir, "wj-01");
    assert!(text(&out.stdout).contains("joined the fleet"), "{}{}", text(&out.stdout), text(&out.stderr));

    // Joined: another event's stick is refused until the station leaves.
    refused(&other, "wj-01", "leave it first");
    assert!(leave(&fleet_dir).status.success());
    let out = join(&other, &fleet_dir, "wj-01");
    assert!(out.status.success() && text(&out.stdout).contains("request left"), "{}", text(&out.stderr));
}

#[test]
#[ignore = "needs systemd-journal-remote"]
fn needs_journal_remote_what_a_station_installs_is_what_the_uploader_sends_with() {
    let port = free_port();
    let (event, out) = setup(&format!("127.0.0.1:{port}"), &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let station = tempfile::tempdir().unwrap();
    let fleet_dir = station.path().join("fleet");
    assert!(join(&event, &fleet_dir, "wj-01").status.success());
    assert!(sign(&event).status.success());
    let joined = join(&event, &fleet_dir, "wj-01");
    assert!(text(&joined.stdout).contains("joined the fleet"), "{}", text(&joined.stderr));

    let work = tempfile::tempdir().unwrap();
    let received = work.path().join("received");
    let serve = Serving::listening(&event.ca, port, &received, work.path());
    let (one, _) = two_stations();
    let local = work.path().join("local");
    std::fs::create_dir(&local).unwrap();
    let journal = write_journal(&local, &one);
    // The uploader's URL as the unit reads it from upload.env.
    let env = std::fs::read_to_string(fleet_dir.join("upload.env")).unwrap();
    let url = env.lines().find_map(|l| l.strip_prefix("WORDJUDGE_FLEET_URL=")).unwrap();
    let sent = upload(
        url,
        &fleet_dir.join("station.key"),
        &fleet_dir.join("station.pem"),
        &fleet_dir.join("ca.pem"),
        &journal,
    );
    assert!(sent.status.success(), "{}", text(&sent.stderr));
    drop(serve);
    assert_eq!(entries_received(&received), one.entries.len());

    // After leaving, the station has nothing to send with.
    assert!(leave(&fleet_dir).status.success());
    for f in ["station.key", "station.pem", "ca.pem", "upload.env"] {
        assert!(!fleet_dir.join(f).exists(), "{f} is left");
    }
}

/// What an outsider with the stick controls, in every hostile form, at every
/// path the station reads or writes there: `fleet.toml` and its signature, `ca.pem`,
/// `laptop.pem`, `certificates/NAME.pem`, and the `requests/` and fleet
/// folders. A FIFO, a link to /dev/zero, a 100 MB file, a link out of the
/// stick: each refused at once (never waited on, never read past 64 KB,
/// never followed), with a reason, and the station's fleet folder unchanged.
/// A `ca.pem` with a second CA appended is refused too (openssl would trust
/// both). Nothing is ever written through a link.
#[test]
fn every_stick_path_in_every_hostile_form_is_refused_at_once_and_changes_nothing() {
    use std::time::{Duration, Instant};
    let (event, out) = setup("192.168.10.2", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let station = tempfile::tempdir().unwrap();
    let fleet_dir = station.path().join("fleet");
    // The first visit and the laptop's signature: the next visit would join.
    assert!(join(&event, &fleet_dir, "wj-01").status.success());
    assert!(sign(&event).status.success());
    let folder = event.folder();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("station-secret");
    std::fs::write(&secret, "a file outside the stick").unwrap();
    let mkfifo = |path: &Path| {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    };
    let refused_at_once = |what: &str, reason: &str| {
        let before = snapshot(&fleet_dir);
        let started = Instant::now();
        let out = join(&event, &fleet_dir, "wj-01");
        assert!(started.elapsed() < Duration::from_secs(10), "{what}: took {:?}", started.elapsed());
        assert_eq!(out.status.code(), Some(2), "{what}: {}{}", text(&out.stdout), text(&out.stderr));
        let e = text(&out.stderr);
        assert!(e.contains(reason) && e.contains("nothing changed"), "{what}: want {reason:?}: {e}");
        assert_eq!(snapshot(&fleet_dir), before, "{what}");
        assert!(!fleet_dir.join("upload.env").exists(), "{what}: never joined");
    };
    for name in ["fleet.toml", "fleet.toml.sig", "ca.pem", "laptop.pem", "certificates/wj-01.pem"] {
        let path = folder.join(name);
        let good = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        mkfifo(&path);
        refused_at_once(&format!("a FIFO as {name}"), "FIFO");
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        refused_at_once(&format!("{name} linked to /dev/zero"), "symbolic link");
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&secret, &path).unwrap();
        refused_at_once(&format!("{name} linked out of the stick"), "symbolic link");
        std::fs::remove_file(&path).unwrap();
        let huge = std::fs::File::create(&path).unwrap();
        huge.set_len(100 * 1024 * 1024).unwrap();
        refused_at_once(&format!("a 100 MB {name}"), "bytes such a file may have");
        std::fs::write(&path, &good).unwrap();
    }
    // A second CA appended to ca.pem: the first still matches fleet.toml.
    let (other, out) = setup("192.168.10.3", &[]);
    assert!(out.status.success());
    let ca = folder.join("ca.pem");
    let good = std::fs::read(&ca).unwrap();
    let mut doubled = good.clone();
    doubled.extend(std::fs::read(other.folder().join("ca.pem")).unwrap());
    std::fs::write(&ca, &doubled).unwrap();
    refused_at_once("a second CA appended to ca.pem", "holds 2 certificates");
    std::fs::write(&ca, &good).unwrap();
    // The certificates folder linked elsewhere: no answer is taken from it.
    let certificates = folder.join("certificates");
    let moved = outside.path().join("certificates");
    std::fs::rename(&certificates, &moved).unwrap();
    std::os::unix::fs::symlink(&moved, &certificates).unwrap();
    refused_at_once("the certificates folder a link", "not a real folder");
    std::fs::remove_file(&certificates).unwrap();
    std::fs::rename(&moved, &certificates).unwrap();
    // requests/ linked to a folder of the station's: nothing is written there.
    let requests = folder.join("requests");
    std::fs::remove_dir_all(&requests).unwrap();
    let station_folder = outside.path().join("audit");
    std::fs::create_dir(&station_folder).unwrap();
    std::os::unix::fs::symlink(&station_folder, &requests).unwrap();
    std::fs::remove_file(folder.join("certificates/wj-01.pem")).unwrap();
    let out = join(&event, &fleet_dir, "wj-01");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("not a real folder"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_dir(&station_folder).unwrap().count(), 0, "nothing written through the link");
    std::fs::remove_file(&requests).unwrap();
    // The whole fleet folder a link: not read.
    let real = outside.path().join("fleet-folder");
    std::fs::rename(&folder, &real).unwrap();
    std::os::unix::fs::symlink(&real, &folder).unwrap();
    refused_at_once("the fleet folder a link", "not a real folder");
}

/// Signs `file` with the CA in `ca_dir` as `fleet setup` does, into `out`.
fn resign(ca_dir: &std::path::Path, file: &std::path::Path, out: &std::path::Path) {
    let status = std::process::Command::new("openssl")
        .args(["dgst", "-sha256", "-sign"])
        .arg(ca_dir.join("ca.key"))
        .arg("-out")
        .arg(out)
        .arg(file)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Attack 4 of issue 56 on the station's side: the stick's `requests/` (or
/// the whole fleet folder) swapped for a link to another folder while a
/// station makes its first visit, timed and at each look (inotify): the
/// request and its binding land on the stick or nowhere, never in the
/// folder the link points at (the stick's folders are held by their
/// descriptors from the first look).
#[test]
fn a_stick_folder_swapped_for_a_link_while_a_station_joins_writes_nothing_elsewhere() {
    use crate::race::{race, Race};
    let (event, out) = setup("192.168.10.2", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let victim = tempfile::tempdir().unwrap();
    std::fs::write(victim.path().join("keep"), "the station's own").unwrap();
    let station_home = tempfile::tempdir().unwrap();
    let mut swaps = 0;
    for (round, (swapped, how)) in
        [("requests", Race::Timed), ("requests", Race::Inotify), ("fleet", Race::Timed), ("fleet", Race::Inotify)]
            .into_iter()
            .enumerate()
    {
        for visit in 0..3 {
            // A new station each time, so each visit makes and leaves a request.
            let fleet_dir = station_home.path().join(format!("s{round}-{visit}/fleet"));
            let folder = match swapped {
                "fleet" => event.folder(),
                _ => event.folder().join("requests"),
            };
            std::fs::create_dir_all(&folder).unwrap();
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let racer = race(folder, victim.path().to_path_buf(), how, stop.clone());
            let out = join(&event, &fleet_dir, &format!("wj-{round}{visit}"));
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            swaps += racer.join().unwrap();
            let names: Vec<String> = std::fs::read_dir(victim.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(
                names,
                ["keep"],
                "{swapped} {how:?}: the join wrote into the folder a link pointed at: {}",
                text(&out.stderr)
            );
        }
    }
    println!("{swaps} swaps over 12 first visits; nothing written elsewhere");
    assert!(swaps > 0, "the racer never swapped: the test did not race");
}
