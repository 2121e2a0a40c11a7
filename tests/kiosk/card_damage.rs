//! Every file a station keeps on its card, in every damaged form (issue 41):
//! the challenge counter, the last good config, the audit key (both
//! halves), the PIN guard, the fleet's `joined.toml` and `pending.toml`, and
//! the update folder's `install-started` and `boot-check` marks,
//! each deleted, emptied, padded, a FIFO, a directory, a link to
//! `/dev/zero`, a link elsewhere, and swapped with another station's.
//!
//! For each case a used station (a PIN, a challenge judged) is restarted
//! over the damage, on a thread with a deadline, and must: start within
//! it (never wait on a FIFO or read `/dev/zero`); show READY (none of these
//! files decides who judges or with what), except over a challenge counter
//! that cannot be kept at all, where it judges nothing (no number without
//! a durable reservation); judge with the same lexicon
//! and a number above every number shown before; open the
//! director menu to the existing PIN only (never a first PIN) and show its
//! status page (which reads the fleet's files). The table is the rows of
//! docs/security.md's card table.

use crate::live::{config_for, start_station_updating};
use crate::support::{enter_pin, select_menu, Rig, PIN};
use std::path::{Path, PathBuf};
use std::time::Duration;
use wordjudge_station::kiosk::flow::Screen;
use wordjudge_station::kiosk::view::ScreenKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Damage {
    Deleted,
    Emptied,
    Padded,
    Fifo,
    Directory,
    LinkToZero,
    LinkElsewhere,
    Swapped,
}

const DAMAGES: [Damage; 8] = [
    Damage::Deleted,
    Damage::Emptied,
    Damage::Padded,
    Damage::Fifo,
    Damage::Directory,
    Damage::LinkToZero,
    Damage::LinkElsewhere,
    Damage::Swapped,
];

/// The card's files: a name and where it is, given the config's path and
/// the audit folder, and the damages that must stop judging (no number can
/// be kept durably, so no verdict may be shown).
struct CardFile {
    name: &'static str,
    place: fn(&Path, &Path) -> PathBuf,
    stops_judging: &'static [Damage],
}

const FILES: &[CardFile] = &[
    // Numbering continues above the log's highest number whatever the
    // counter holds (deleted, emptied, padded, another station's). One that
    // cannot be kept at all (a FIFO, a folder, a link to a device) stops
    // judging: a number is shown only once it is durably reserved.
    CardFile {
        name: "challenge-counter",
        place: |_, audit| audit.join("challenge-counter"),
        stops_judging: &[Damage::Fifo, Damage::Directory, Damage::LinkToZero],
    },
    // The config is whole, so its last good copy is not needed to judge
    // (it is written again from the config).
    CardFile {
        name: "config.toml.last-good",
        place: |config, _| wordjudge_core::config::last_good_path(config),
        stops_judging: &[],
    },
    // The audit key: without a usable key no checkpoint is signed (a
    // warning and a `key_problem` record); judging goes on.
    CardFile { name: "key/ed25519.key", place: |_, audit| audit.join("key/ed25519.key"), stops_judging: &[] },
    CardFile { name: "key/ed25519.pub", place: |_, audit| audit.join("key/ed25519.pub"), stops_judging: &[] },
    // The guard beside a whole config: written again from it.
    CardFile {
        name: "config.toml.pin-guard",
        place: |config, _| wordjudge_core::guard::path_for(config),
        stops_judging: &[],
    },
    // The fleet's state as the menu reads it.
    CardFile {
        name: "fleet/joined.toml",
        place: |config, _| config.parent().unwrap().join("fleet/joined.toml"),
        stops_judging: &[],
    },
    CardFile {
        name: "fleet/pending.toml",
        place: |config, _| config.parent().unwrap().join("fleet/pending.toml"),
        stops_judging: &[],
    },
    // The update folder's marks: an install under way, the boot check's
    // verdict (read at start and recorded once).
    CardFile {
        name: "updates/install-started",
        place: |config, _| updates_dir(config).join("install-started"),
        stops_judging: &[],
    },
    CardFile {
        name: "updates/boot-check",
        place: |config, _| updates_dir(config).join("boot-check"),
        stops_judging: &[],
    },
];

fn updates_dir(config: &Path) -> PathBuf {
    config.parent().unwrap().join("updates")
}

/// The station at `path`, with its sticks beside it and simulated updates
/// whose folder is [`updates_dir`].
fn station(path: &Path) -> wordjudge_station::desks::live::LiveStation {
    let sticks =
        std::sync::Arc::new(wordjudge_core::usb::sim::FolderSticks::new(path.parent().unwrap().join("sticks")));
    let updates = wordjudge_core::update::sim::SimUpdates::new("0.1.0", updates_dir(path));
    start_station_updating(path, sticks, std::sync::Arc::new(updates))
}

/// A used station in `dir`: its config saved, a challenge judged, a
/// joined fleet's `joined.toml` and a `pending.toml`. Returns the config's
/// path, its audit folder and the challenge's number.
fn used_station(dir: &Path) -> (PathBuf, PathBuf, u64) {
    std::fs::create_dir_all(dir).unwrap();
    let mut config = config_for(dir, "OTHER");
    config.audit_dir = dir.join("audit");
    let path = dir.join("config.toml");
    config.save(&path).unwrap();
    std::fs::create_dir_all(updates_dir(&path)).unwrap();
    let mut rig = Rig::with(station(&path), &config.timeouts);
    let (ok, number) = rig.challenge(&["xyzzy"]);
    assert!(ok);
    drop(rig);
    let fleet = dir.join("fleet");
    std::fs::create_dir_all(&fleet).unwrap();
    std::fs::write(
        fleet.join("joined.toml"),
        "station = \"table-3\"\nevent = \"Nationals\"\nupload_url = \"https://192.168.10.2:19532\"\nca_sha256 = \"ab\"\ncertificate_sha256 = \"cd\"\nnot_after = \"Dec 31 2026\"\n",
    )
    .unwrap();
    std::fs::write(fleet.join("pending.toml"), "station = \"table-3\"\nevent = \"Nationals\"\n").unwrap();
    let updates = updates_dir(&path);
    std::fs::write(updates.join("install-started"), "version=0.2.0\n").unwrap();
    std::fs::write(updates.join("boot-check"), "slot=B\nversion=0.2.0\noutcome=marked-good\ndetail=READY\n").unwrap();
    (path, config.audit_dir, number)
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "{}", path.display());
}

/// Puts `damage` in the place of `place`; `other` is the same file of
/// another used station.
fn damage(place: &Path, other: &Path, damage: Damage, scratch: &Path) {
    let remove = || {
        match std::fs::symlink_metadata(place) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(place).unwrap(),
            Ok(_) => std::fs::remove_file(place).unwrap(),
            Err(_) => {}
        };
    };
    match damage {
        Damage::Deleted => remove(),
        Damage::Emptied => std::fs::write(place, b"").unwrap(),
        Damage::Padded => {
            let mut bytes = std::fs::read(place).unwrap_or_default();
            bytes.extend(std::iter::repeat_n(b'#', 2 * 1024 * 1024));
            std::fs::write(place, bytes).unwrap();
        }
        Damage::Fifo => {
            remove();
            mkfifo(place);
        }
        Damage::Directory => {
            remove();
            std::fs::create_dir(place).unwrap();
        }
        Damage::LinkToZero => {
            remove();
            std::os::unix::fs::symlink("/dev/zero", place).unwrap();
        }
        Damage::LinkElsewhere => {
            let elsewhere = scratch.join("elsewhere");
            std::fs::copy(other, &elsewhere).unwrap();
            remove();
            std::os::unix::fs::symlink(&elsewhere, place).unwrap();
        }
        Damage::Swapped => {
            remove();
            std::fs::copy(other, place).unwrap();
        }
    }
}

/// What a restarted station did: what players see, the number a new
/// challenge got (if judging), whether the PIN opened the menu and the
/// status page's lines.
#[derive(Debug)]
struct After {
    judges: bool,
    number: Option<u64>,
    acceptable: bool,
    menu_opened: bool,
    first_pin_asked: bool,
}

fn restart(path: PathBuf) -> After {
    let config = wordjudge_core::config::Config::load(&path).config;
    let mut rig = Rig::with(station(&path), &config.timeouts);
    let judges = crate::support::is_ready(rig.screen());
    assert!(judges || rig.screen() == &Screen::OutOfService, "{:?}", rig.screen());
    let (acceptable, number) = if judges {
        let (ok, n) = rig.challenge(&["xyzzy"]);
        rig.advance(20_000);
        (ok, Some(n))
    } else {
        (false, None)
    };
    rig.key(wordjudge_station::kiosk::flow::Key::DirectorChord);
    let first_pin_asked = !matches!(rig.screen(), Screen::Pin(_));
    if first_pin_asked {
        return After { judges, number, acceptable, menu_opened: false, first_pin_asked };
    }
    enter_pin(&mut rig, PIN);
    let menu_opened = rig.view().screen == ScreenKind::Director;
    if menu_opened {
        select_menu(&mut rig, "Station status");
        rig.key(wordjudge_station::kiosk::flow::Key::Enter);
        assert!(!rig.view().menu.lines.is_empty(), "the status page shows its facts");
    }
    After { judges, number, acceptable, menu_opened, first_pin_asked }
}

#[test]
fn every_card_file_in_every_damaged_form_leaves_the_station_safe() {
    let mut failures = Vec::new();
    for file in FILES {
        for kind in DAMAGES.iter() {
            let dir = tempfile::tempdir().unwrap();
            let (path, audit, shown) = used_station(&dir.path().join("this"));
            let (other_path, other_audit, _) = used_station(&dir.path().join("other"));
            let place = (file.place)(&path, &audit);
            let other = (file.place)(&other_path, &other_audit);
            damage(&place, &other, *kind, dir.path());
            // On a thread with a deadline: a station that waits on a FIFO
            // or reads /dev/zero never comes back.
            let (tx, rx) = std::sync::mpsc::channel();
            let run = path.clone();
            std::thread::spawn(move || {
                let after = std::panic::catch_unwind(|| restart(run));
                let _ = tx.send(after.map_err(|e| {
                    e.downcast_ref::<String>()
                        .cloned()
                        .or(e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default()
                }));
            });
            let case = format!("{} {:?}", file.name, kind);
            let after = match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(Ok(after)) => after,
                Ok(Err(panic)) => {
                    failures.push(format!("{case}: panicked: {panic}"));
                    continue;
                }
                Err(_) => {
                    failures.push(format!("{case}: the station did not come back within 30 s"));
                    continue;
                }
            };
            println!("{case}: {after:?}");
            // None of these files decides who judges or with what: the
            // station judges on, and says what it could not do; except a
            // counter that cannot be kept, which stops judging (and only
            // that): the director's menu still opens.
            if file.stops_judging.contains(kind) {
                if after.judges || after.number.is_some() {
                    failures.push(format!("{case}: judged with no number kept durably: {after:?}"));
                }
            } else if !after.judges {
                failures.push(format!("{case}: out of service over a file that decides nothing: {after:?}"));
            }
            if after.judges && !(after.acceptable && after.number.is_some_and(|n| n > shown)) {
                failures.push(format!(
                    "{case}: judged with another lexicon or a number shown before (#{shown}): {after:?}"
                ));
            }
            if after.first_pin_asked || !after.menu_opened {
                failures.push(format!(
                    "{case}: the director's PIN did not open the menu, or a first PIN was asked: {after:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        FILES.len() * DAMAGES.len(),
        failures.join("\n")
    );
}
