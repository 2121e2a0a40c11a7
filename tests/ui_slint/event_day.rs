//! An event day on the live station, told as a story: one step, one
//! function, in the order a director lives them. Each step drives the real
//! window (keys through Slint's own dispatch), checks what the player and
//! the director read, that every screen it passes fits the 7" panel and
//! every other size, and what the audit log and `audit verify` say.
//!
//! A power cut is the station dropped without its shut-down record (the
//! process gone), with the counter left as a cut between a number's
//! reservation and its record leaves it.
//!
//! Two days: one on lists the test writes (every step, CI everywhere), and
//! one on the tournament's own lists when `../shared/lexicons` is there
//! (installed from a stick, two profiles in turn), skipped by name
//! (`real_data_`) where it is not.

use super::Ui;
use crate::{journal_export, journal_fields};
use slint::platform::Key;
use slint::ComponentHandle;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;
use wordjudge_core::config::Config;
use wordjudge_core::fleet::join;
use wordjudge_station::app::attach;
use wordjudge_station::app::screenshots::{ScratchStation, SCREENSHOT_PIN};
use wordjudge_station::kiosk::view::ScreenKind;
use wordjudge_station::ui::headless::{key_text, press_chord};
use wordjudge_station::ui::AppWindow;

/// The day's station: its scratch card (config, lexicons, audit folder),
/// and the kiosk on it while it is powered.
struct Day {
    scratch: Option<ScratchStation>,
    config: PathBuf,
    audit: PathBuf,
    ui: Option<Ui>,
    clock: Rc<Cell<Duration>>,
    platform: bool,
    /// The station's journal: what its recorder hands to journald, all day.
    journal: StationJournal,
    _journal_on: tracing::subscriber::DefaultGuard,
}

/// What the station's recorder hands to journald (tracing-journald's
/// fields), as the event's laptop would receive it: each entry with the
/// time it was sent.
#[derive(Clone, Default)]
struct StationJournal(std::sync::Arc<std::sync::Mutex<Vec<(u64, String, journal_fields::Fields)>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for StationJournal {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let mut fields = journal_fields::Fields::new();
        event.record(&mut journal_fields::Visitor(&mut fields));
        let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_micros() as u64;
        self.0.lock().unwrap().push((at, event.metadata().level().to_string(), fields));
    }
}

impl StationJournal {
    /// Waits (the recorder sends from a thread of its own) until an entry
    /// of `event` is in.
    fn wait_for(&self, event: &str) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !self
            .0
            .lock()
            .unwrap()
            .iter()
            .any(|(_, _, f)| f.get("WORDJUDGE_EVENT").map(String::as_str) == Some(event))
        {
            assert!(std::time::Instant::now() < deadline, "no {event} entry reached the journal");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The station's own journal file, as its uploader reads it: the
    /// entries so far, written into `folder` by systemd-journal-remote.
    fn written_to(&self, name: &str, folder: &Path) -> PathBuf {
        let remote = Path::new("/usr/lib/systemd/systemd-journal-remote");
        assert!(remote.exists(), "{} is missing (.ci/install-deps installs it)", remote.display());
        let entries: Vec<journal_export::Fields> = self
            .0
            .lock()
            .unwrap()
            .iter()
            .map(|(at, level, fields)| {
                let priority = match level.as_str() {
                    "ERROR" => "3",
                    "WARN" => "4",
                    _ => "6",
                };
                let mut entry: journal_export::Fields = vec![
                    ("__REALTIME_TIMESTAMP".into(), at.to_string()),
                    ("__MONOTONIC_TIMESTAMP".into(), (at % 86_400_000_000).to_string()),
                    ("_BOOT_ID".into(), "5e1f0c0ffee0c0ffee0c0ffee0c0ffee".into()),
                    ("_HOSTNAME".into(), format!("wj-{name}")),
                    ("PRIORITY".into(), priority.into()),
                    ("SYSLOG_IDENTIFIER".into(), "wordjudge".into()),
                ];
                entry.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
                entry
            })
            .collect();
        std::fs::create_dir_all(folder).unwrap();
        let file = folder.join("system.journal");
        let mut child = std::process::Command::new(remote)
            .arg(format!("--output={}", file.display()))
            .arg("-")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&journal_export::export(&entries)).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "systemd-journal-remote: {}", String::from_utf8_lossy(&out.stderr));
        file
    }
}

impl Day {
    fn ui(&self) -> &Ui {
        self.ui.as_ref().expect("the station is on")
    }

    /// Powers the station on over its card as it is.
    fn power_on(&mut self) {
        assert!(self.ui.is_none(), "already on");
        if !self.platform {
            // Once a thread: the testing backend stays for later boots.
            i_slint_backend_testing::init_no_event_loop();
            self.platform = true;
        }
        let window = AppWindow::new().unwrap();
        window.show().unwrap();
        let scratch = self.scratch.take().expect("the card");
        let controller = attach(&window, scratch.controller(self.clock.clone()).unwrap());
        self.ui = Some(Ui { window, clock: self.clock.clone(), controller, _scratch: scratch });
    }

    /// The director's restart: the station records its shut-down, then
    /// starts again over the same card.
    fn restart(&mut self) {
        self.ui().controller.borrow_mut().shut_down();
        self.power_cut();
        self.power_on();
    }

    /// Polls the station until the stick's work is done; its status line.
    fn wait_for_stick(&self) -> String {
        self.poll_until("the stick's work to finish", 600, |day| {
            let status = day.ui().controller.borrow().view().usb.status;
            status.contains("You may remove the stick").then_some(status)
        })
    }

    /// Polls the station (its stick work runs on a thread of its own),
    /// moving the clock 20 ms a round, until `done` gives a value; at most
    /// `rounds` rounds, then fails naming `what`.
    fn poll_until<T>(&self, what: &str, rounds: usize, done: impl Fn(&Day) -> Option<T>) -> T {
        for _ in 0..rounds {
            if let Some(value) = done(self) {
                return value;
            }
            self.ui().controller.borrow_mut().poll();
            self.ui().advance(20);
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("waited for {what} in vain: {:?}", self.ui().texts());
    }

    /// Pulls the plug: no shut-down record, the card kept as it is.
    fn power_cut(&mut self) {
        let Ui { window, controller, _scratch, .. } = self.ui.take().expect("the station is on");
        // A shown window is kept by the platform (and its key callback with
        // the station): hidden first, so the station really goes.
        window.hide().unwrap();
        drop(window);
        assert_eq!(Rc::strong_count(&controller), 1, "nothing else holds the station");
        drop(controller);
        self.scratch = Some(_scratch);
    }

    fn screen(&self) -> ScreenKind {
        self.ui().controller.borrow().view().screen
    }

    fn adjudications(&self) -> Vec<serde_json::Value> {
        records(&self.audit).into_iter().filter(|r| r["event"] == "adjudication").collect()
    }

    /// Types a challenge (the count, the words), TAB; what the screen says.
    fn challenge(&self, words: &[&str]) -> ScreenKind {
        let ui = self.ui();
        ui.key(&words.len().to_string());
        ui.typed(&words.join(" ").to_lowercase());
        ui.key(&key_text(Key::Tab));
        self.screen()
    }

    /// The verdict's number and code, then ENTER once the slip is copied.
    fn copy_slip(&self) -> (u64, String) {
        let ui = self.ui();
        let slip = ui.controller.borrow().view().verdict.slip;
        let (number, code) = parse_slip(&slip);
        ui.advance(600);
        ui.key(&key_text(Key::Return));
        (number, code)
    }

    fn open_menu(&self) {
        let ui = self.ui();
        press_chord(ui.window.window(), &[Key::Control, Key::Alt, Key::Shift], "D");
        ui.typed(SCREENSHOT_PIN);
        ui.key(&key_text(Key::Return));
        assert_eq!(self.screen(), ScreenKind::Director);
    }

    /// Moves to the entry starting with `prefix` on the menu's current or
    /// first page (or one page down) and presses ENTER.
    fn menu_enter(&self, prefix: &str) {
        let ui = self.ui();
        for _ in 0..3 {
            let items = ui.controller.borrow().view().menu.items;
            if let Some(target) = items.iter().position(|i| i.starts_with(prefix)) {
                for _ in 0..40 {
                    if ui.controller.borrow().view().menu.selected as usize == target {
                        break;
                    }
                    ui.key(&key_text(Key::DownArrow));
                }
                ui.key(&key_text(Key::Return));
                return;
            }
            // Not on this page: the first page's "Lexicon" page has the lists.
            let page = items.iter().position(|i| i.starts_with("Lexicon")).expect("a lexicon page");
            for _ in 0..40 {
                if ui.controller.borrow().view().menu.selected as usize == page {
                    break;
                }
                ui.key(&key_text(Key::DownArrow));
            }
            ui.key(&key_text(Key::Return));
        }
        panic!("no menu entry starts with {prefix:?}: {:?}", ui.controller.borrow().view().menu.items);
    }

    fn confirm(&self) {
        let ui = self.ui();
        assert_eq!(self.screen(), ScreenKind::Confirm);
        ui.fits_everywhere("the confirmation", true);
        ui.advance(700);
        ui.key(&key_text(Key::Return));
    }

    fn leave_menu(&self) {
        for _ in 0..4 {
            if !matches!(self.screen(), ScreenKind::Director | ScreenKind::Confirm) {
                return;
            }
            self.ui().key(&key_text(Key::Escape));
        }
    }
}

fn parse_slip(slip: &str) -> (u64, String) {
    // "#0003 · code K7Q3MXAB"
    let number = slip.trim_start_matches('#').split(' ').next().and_then(|n| n.parse().ok()).expect("a number");
    let code = slip.rsplit(' ').next().expect("a code").to_string();
    (number, code)
}

fn records(audit: &Path) -> Vec<serde_json::Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(audit)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|f| std::fs::read_to_string(f).unwrap().lines().map(String::from).collect::<Vec<_>>())
        .map(|l| serde_json::from_str(&l).unwrap())
        .collect()
}

/// The card as the operator flashed it: the built-in DEMO list in force
/// (nobody chose it), the event's list installed beside it, a PIN.
fn flashed_card() -> Day {
    let scratch = ScratchStation::new("DEMO").unwrap();
    let mut config = Config::load(&scratch.config_path).config;
    config.practice_with_demo = false;
    let lexicons = config.lexicon_dir.clone();
    let words = "CAT\nDOG\nQI\nZA\nZEBRA\nQUIXOTIC\n";
    std::fs::write(lexicons.join("EVENT.txt"), words).unwrap();
    wordjudge_core::lexicon::build::build_lexicon(&lexicons.join("EVENT.txt"), &lexicons.join("EVENT.fst"), false)
        .unwrap();
    std::fs::write(
        lexicons.join("EVENT.toml"),
        "id = \"EVENT\"\nname = \"The event's list\"\nedition = \"test\"\n[[layer]]\nfst = \"EVENT.fst\"\n",
    )
    .unwrap();
    config.save(&scratch.config_path).unwrap();
    let (config_path, audit) = (scratch.config_path.clone(), config.audit_dir.clone());
    // journald for the whole day, as the appliance has it: a subscriber for
    // this thread, which the station's records go through.
    use tracing_subscriber::prelude::*;
    let journal = StationJournal::default();
    let audit_only =
        tracing_subscriber::filter::filter_fn(|meta| meta.target() == wordjudge_core::recorder::journal::TARGET);
    let journal_on =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(journal.clone().with_filter(audit_only)));
    Day {
        scratch: Some(scratch),
        config: config_path,
        audit,
        ui: None,
        clock: Rc::new(Cell::new(Duration::from_secs(50))),
        platform: false,
        journal,
        _journal_on: journal_on,
    }
}

/// Step 1: First power-on: the station is not set up and judges nothing.
fn first_power_on(day: &mut Day) {
    day.power_on();
    let ui = day.ui();
    assert!(ui.shows("This station is not set up for the event yet."), "{:?}", ui.texts());
    assert!(ui.shows("Please call the tournament director."), "{:?}", ui.texts());
    ui.fits_everywhere("not set up", true);
    assert_eq!(day.challenge(&["QI"]), ScreenKind::OutOfService, "a hurried player cannot judge");
    assert!(day.adjudications().is_empty(), "no verdict recorded");
}

/// Step 2: The director chooses the event's list with the PIN.
fn director_sets_up(day: &mut Day) {
    day.open_menu();
    let ui = day.ui();
    let lines = ui.controller.borrow().view().menu.lines.join("\n");
    assert!(lines.contains("Not set up for the event"), "{lines}");
    ui.fits_everywhere("the director menu, not set up", false);
    day.menu_enter("Use EVENT");
    day.confirm();
    day.leave_menu();
    assert_eq!(day.screen(), ScreenKind::Ready);
    day.ui().fits_everywhere("ready", true);
    assert!(!Config::load(&day.config).config.practice_with_demo);
}

/// Step 2b: The director names the station for the hall and shows its times in
/// the event's zone; both are recorded, and the status page reads the time
/// in that zone while the log keeps UTC.
fn director_names_the_station_and_its_time_zone(day: &mut Day) {
    day.open_menu();
    day.menu_enter("Station settings");
    day.menu_enter("Rename the station");
    let ui = day.ui();
    assert_eq!(ui.controller.borrow().view().edit.value, "Table 12", "it starts from the name in force");
    ui.typed("Hall B 7");
    ui.key(&key_text(Key::Return));
    day.confirm();
    day.menu_enter("Time zone:");
    let ui = day.ui();
    ui.typed("Asia/Kolkata");
    ui.fits_everywhere("the time zone prompt", true);
    ui.key(&key_text(Key::Return));
    day.confirm();
    assert!(day.ui().controller.borrow().view().menu.message.starts_with("The time zone is set"));
    day.ui().key(&key_text(Key::Escape));
    day.menu_enter("Station status");
    let lines = day.ui().controller.borrow().view().menu.lines.join("\n");
    assert!(lines.contains("IST") && lines.contains("the audit log keeps UTC"), "{lines}");
    day.leave_menu();
    let changed: Vec<String> = records(&day.audit)
        .iter()
        .filter(|r| r["event"] == "setting_changed")
        .map(|r| format!("{}={}", r["setting"].as_str().unwrap_or(""), r["value"].as_str().unwrap_or("")))
        .collect();
    assert!(changed.contains(&"station_name=Hall B 7".to_string()), "{changed:?}");
    assert!(changed.contains(&"time_zone=Asia/Kolkata".to_string()), "{changed:?}");
    assert!(day.ui().shows("Hall B 7"), "the new name on the player's screen: {:?}", day.ui().texts());
}

/// Step 3: Plays: a phony among three words, a miscount, a good play.
fn plays(day: &mut Day) -> Vec<(u64, String)> {
    let mut slips = Vec::new();
    assert_eq!(day.challenge(&["QI", "XYZZY", "ZA"]), ScreenKind::Verdict);
    let ui = day.ui();
    assert!(ui.shows("✗ UNACCEPTABLE"), "{:?}", ui.texts());
    assert!(
        ui.texts().iter().all(|t| !t.contains("XYZZY ✗") && !t.contains("not in")),
        "never which word: {:?}",
        ui.texts()
    );
    ui.fits_everywhere("verdict, a phony among three", true);
    slips.push(day.copy_slip());
    // A miscount: two declared, a third typed: refused, then judged as two.
    let ui = day.ui();
    ui.key("2");
    ui.typed("cat dog zebra");
    ui.key(&key_text(Key::Tab));
    assert_eq!(day.screen(), ScreenKind::Entry, "asked, not judged");
    ui.fits_everywhere("entry, a miscount asked about", true);
    // TAB again: the two declared words are judged, exactly as typed.
    ui.key(&key_text(Key::Tab));
    assert_eq!(day.screen(), ScreenKind::Verdict);
    assert!(ui.shows("CAT  DOG"), "{:?}", ui.texts());
    slips.push(day.copy_slip());
    assert_eq!(day.challenge(&["QUIXOTIC"]), ScreenKind::Verdict);
    assert!(day.ui().shows("✓ ACCEPTABLE"), "{:?}", day.ui().texts());
    slips.push(day.copy_slip());
    slips
}

/// Step 3b: Between rounds a player tries the director's chord and guesses
/// PINs until the station locks; the lockout ends by itself, the station
/// judges meanwhile, and the director's next visit hears of it, once.
fn a_player_guesses_the_pin_until_locked(day: &mut Day) {
    let ui = day.ui();
    press_chord(ui.window.window(), &[Key::Control, Key::Alt, Key::Shift], "D");
    for _ in 0..3 {
        ui.typed("0000");
        ui.key(&key_text(Key::Return));
    }
    let pin = ui.controller.borrow().view().pin;
    assert!(pin.message.starts_with("Locked after too many wrong PINs."), "{pin:?}");
    ui.fits_everywhere("the PIN prompt, locked", true);
    ui.key(&key_text(Key::Escape));
    assert_eq!(day.screen(), ScreenKind::Ready, "the players' screen is back");
    day.ui().advance(31_000);
    day.open_menu();
    let lines = day.ui().controller.borrow().view().menu.lines.join("\n");
    assert!(lines.contains("Before this visit: 3 wrong PIN(s) and 1 lockout since"), "{lines}");
    day.leave_menu();
    let records = records(&day.audit);
    assert_eq!(records.iter().filter(|r| r["event"] == "pin_refused").count(), 3, "each guess is recorded");
    assert_eq!(records.iter().filter(|r| r["event"] == "locked_out").count(), 1);
}

/// Step 4: A power cut between a number's reservation and its record.
fn power_cut_mid_record(day: &mut Day, last: u64) {
    day.power_cut();
    let mut counter = wordjudge_core::audit::numbering::Counter::open(&day.audit).unwrap();
    counter.store(wordjudge_core::audit::numbering::CounterState { reserved: last + 1, unrecorded: None }).unwrap();
    drop(counter);
    day.power_on();
    let ui = day.ui();
    assert_eq!(day.screen(), ScreenKind::Ready);
    assert!(ui.shows_part(&format!("#{last:04} · code ")), "the last slip is still there: {:?}", ui.texts());
    ui.fits_everywhere("ready after a power cut, the last slip", true);
}

/// Step 5: Plays after the cut: the number that was being recorded is never
/// shown, and the director's page says so.
fn plays_after_the_cut(day: &mut Day, last: u64) -> (u64, String) {
    assert_eq!(day.challenge(&["ZEBRA"]), ScreenKind::Verdict);
    let slip = day.copy_slip();
    assert_eq!(slip.0, last + 2, "one number lost to the cut, never shown");
    day.open_menu();
    day.menu_enter("Station status");
    let lines = day.ui().controller.borrow().view().menu.lines.join("\n");
    assert!(
        lines.contains(&format!("#{} (the station stopped, a power cut or a crash, after ", last + 1)),
        "with the time of the last record before the cut: {lines}"
    );
    assert!(lines.contains("Station time") || lines.contains("UTC"), "{lines}");
    day.ui().fits_everywhere("the status page after a power cut", false);
    day.leave_menu();
    slip
}

/// Step 6: A dispute: the slips against the log, one with a miscopied number.
fn dispute(day: &Day, slips: &[(u64, String)]) {
    use wordjudge_core::audit::{Slip, SlipCode};
    let slip = |(n, code): &(u64, String)| Slip { challenge: *n, code: SlipCode::parse(code).unwrap() };
    let options =
        wordjudge_core::inspect::VerifyOptions { slips: slips.iter().map(slip).collect(), ..Default::default() };
    let report = wordjudge_core::inspect::verify_with(&day.audit, &options).unwrap();
    assert!(report.ok(), "{report}");
    let text = report.to_string();
    assert!(text.contains("was reserved and never shown: the station stopped without shutting down"), "{text}");
    // The second slip's code written under the first slip's number.
    let swapped = (slips[0].0, slips[1].1.clone());
    let options = wordjudge_core::inspect::VerifyOptions { slips: vec![slip(&swapped)], ..Default::default() };
    let text = wordjudge_core::inspect::verify_with(&day.audit, &options).unwrap().to_string();
    assert!(text.contains(&format!("is exactly #{}'s code: check the number on the slip", slips[1].0)), "{text}");
}

/// Step 6b: After the dispute the director exports the log to a stick and
/// checks it on another computer with the players' slips, the station key
/// code noted at set-up and the export's signed checkpoint; a clean restart
/// keeps the last slip on Ready and is one shut-down record.
fn export_verified_off_station_then_restart(day: &mut Day, slips: &[(u64, String)]) {
    use wordjudge_core::audit::{Slip, SlipCode};
    let stick = day.config.parent().unwrap().join("sticks/EVENTSTICK");
    std::fs::create_dir_all(&stick).unwrap();
    day.open_menu();
    let key_code =
        day.ui().controller.borrow().station().facts().into_iter().find(|(l, _)| l == "Station key code").unwrap().1;
    day.menu_enter("USB stick");
    day.menu_enter("Export the audit log to EVENTSTICK");
    assert_eq!(day.wait_for_stick(), "You may remove the stick.");
    let ui = day.ui();
    ui.fits_everywhere("the export done", true);
    day.leave_menu();
    let export = std::fs::read_dir(stick.join("wordjudge")).unwrap().next().unwrap().unwrap().path();
    let key = std::fs::read_to_string(export.join("station-key.pub")).unwrap();
    let checkpoint = std::fs::read_to_string(export.join("checkpoint.txt")).unwrap();
    let options = wordjudge_core::inspect::VerifyOptions {
        slips: slips.iter().map(|(n, code)| Slip { challenge: *n, code: SlipCode::parse(code).unwrap() }).collect(),
        checkpoint: Some((checkpoint, wordjudge_core::audit::checkpoint::NoteVerifier::parse(&key).unwrap())),
        key_fingerprint: Some(key_code.clone()),
        ..Default::default()
    };
    let report = wordjudge_core::inspect::verify_with(&export.join("audit"), &options).unwrap();
    assert!(report.ok(), "{report}");
    let text = report.to_string();
    assert!(text.contains(&format!("matches the one noted at set-up ({key_code})")), "{text}");
    assert!(text.contains("signature good"), "{text}");
    let last = slips.last().unwrap();
    day.restart();
    let ui = day.ui();
    assert_eq!(day.screen(), ScreenKind::Ready);
    assert!(
        ui.shows_part(&format!("#{:04} · code {}", last.0, last.1)),
        "the last slip after a restart: {:?}",
        ui.texts()
    );
    let shutdowns = records(&day.audit).iter().filter(|r| r["event"] == "shutdown").count();
    assert_eq!(shutdowns, 1, "the restart is one shut-down record");
}

/// Step 6c: The event's fleet: the laptop makes the fleet stick; the first
/// visit leaves the station's request and shows its key code, the laptop
/// signs it once the director compared that code, the second visit joins;
/// leaving is confirmed and recorded. One code, under one name.
fn the_fleet_joined_then_left(day: &mut Day) -> (u64, String) {
    let card = day.config.parent().unwrap().to_path_buf();
    let (stick, ca) = (card.join("sticks/FLEET"), card.join("laptop-ca"));
    std::fs::create_dir_all(&stick).unwrap();
    let (stick_s, ca_s) = (stick.to_str().unwrap(), ca.to_str().unwrap());
    // The laptop on the loopback: `fleet serve` on a port of its own.
    let port = crate::fleet_laptop::free_port();
    crate::built::fleet(&[
        "setup",
        "--event",
        "Nationals 2026",
        "--laptop",
        &format!("127.0.0.1:{port}"),
        "--stick",
        stick_s,
        "--ca-dir",
        ca_s,
    ]);
    day.open_menu();
    let key_code =
        day.ui().controller.borrow().station().facts().into_iter().find(|(l, _)| l == "Station key code").unwrap().1;
    day.menu_enter("USB stick");
    day.menu_enter("Join the event's fleet with FLEET");
    day.confirm();
    let first = day.wait_for_stick();
    assert_eq!(first, format!("Station key code {key_code}. You may remove the stick: take it to the laptop."));
    day.ui().fits_everywhere("the fleet's first visit", true);
    day.ui().key(&key_text(Key::Return));
    let signed = crate::built::fleet(&[
        "sign",
        "--stick",
        stick_s,
        "--ca-dir",
        ca_s,
        "--accept",
        &format!("hall-b-7={key_code}"),
    ]);
    assert!(signed.contains("signed   hall-b-7"), "{signed}");
    day.menu_enter("Join the event's fleet with FLEET");
    day.confirm();
    assert_eq!(day.wait_for_stick(), "Joined the fleet of Nationals 2026. You may remove the stick.");
    day.ui().key(&key_text(Key::Return));
    day.leave_menu();
    // What the uploader's unit takes when it starts (`LoadCredential=`): its
    // own copies of the station's key and certificates, which it keeps
    // after leaving removes the files.
    let credentials = card.join("uploader-credentials");
    std::fs::create_dir_all(&credentials).unwrap();
    for file in [join::KEY_FILE, join::CERTIFICATE_FILE, join::CA_FILE] {
        std::fs::copy(card.join("fleet").join(file), credentials.join(file)).unwrap();
    }
    assert_eq!(day.challenge(&["CAT"]), ScreenKind::Verdict, "judging goes on in the fleet");
    let slip = day.copy_slip();
    day.open_menu();
    day.menu_enter("Event fleet");
    day.menu_enter("Leave the fleet of Nationals 2026");
    day.confirm();
    let message = day.ui().controller.borrow().view().menu.message;
    assert!(message.starts_with("Left the fleet of Nationals 2026"), "{message}");
    day.leave_menu();
    let events: Vec<String> =
        records(&day.audit).iter().map(|r| r["event"].as_str().unwrap_or("").to_string()).collect();
    assert!(events.contains(&"fleet_joined".to_string()) && events.contains(&"fleet_left".to_string()), "{events:?}");
    // On the laptop: `fleet serve` receives what the station's uploader
    // sends from its journal (its last entry the fleet_left record, which
    // a station that leaves sends before its uploader stops), and the
    // director reads it with `fleet status`.
    day.journal.wait_for("fleet_left");
    let journal = day.journal.written_to("hall-b-7", &card.join("station-journal"));
    let (received, serve_tmp) = (card.join("laptop-received"), card.join("laptop-tmp"));
    std::fs::create_dir_all(&serve_tmp).unwrap();
    let serving = crate::fleet_laptop::Serving::listening(&ca, port, &received, &serve_tmp);
    let sent = crate::fleet_laptop::upload(
        &format!("https://127.0.0.1:{port}"),
        &credentials.join(join::KEY_FILE),
        &credentials.join(join::CERTIFICATE_FILE),
        &credentials.join(join::CA_FILE),
        &journal,
    );
    assert!(sent.status.success(), "the uploader: {}", String::from_utf8_lossy(&sent.stderr));
    let kept = std::fs::read_dir(&received).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect::<Vec<_>>();
    assert_eq!(kept, ["from-hall-b-7.journal"], "kept as the station whose certificate sent it");
    let page = card.join("laptop-status.html");
    let status = crate::built::fleet(&[
        "status",
        "--dir",
        received.to_str().unwrap(),
        "--ca-dir",
        ca_s,
        "--html",
        page.to_str().unwrap(),
    ]);
    let line = status.lines().find(|l| l.starts_with("Hall B 7")).unwrap_or_else(|| panic!("{status}"));
    assert!(line.contains(&format!("#{} at", slip.0)), "the last challenge is the slip's: {line}");
    assert!(line.contains("left the fleet"), "a station that left says so: {line}");
    assert!(!line.contains("BROKEN") && !line.contains("NOT ITS RECORDS"), "its own chain, whole: {line}");
    assert!(line.contains("was reserved and never shown, so no slip carries it"), "the power cut's gap, named: {line}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Hall B 7") && !html.contains("prev hash"), "the page shows the station: {html}");
    drop(serving);
    slip
}

/// Step 7: The card damaged overnight: the counter a FIFO. No verdict, and the
/// station comes back by itself once it is removed.
fn counter_damaged_then_repaired(day: &mut Day, last: u64) {
    day.power_cut();
    let counter = day.audit.join("challenge-counter");
    std::fs::remove_file(&counter).unwrap();
    let c = std::ffi::CString::new(counter.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a plain libc call with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    day.power_on();
    let ui = day.ui();
    assert!(ui.shows("It cannot keep its record of challenges."), "{:?}", ui.texts());
    ui.fits_everywhere("out of service: the record", true);
    assert_eq!(day.challenge(&["CAT"]), ScreenKind::OutOfService);
    std::fs::remove_file(&counter).unwrap();
    day.ui().controller.borrow_mut().poll();
    day.ui().advance(100);
    assert_eq!(day.screen(), ScreenKind::Ready, "judging again by itself");
    assert_eq!(day.challenge(&["CAT"]), ScreenKind::Verdict);
    assert_eq!(day.copy_slip().0, last + 1, "above every number shown");
}

/// Step 8: Overnight the card loses both settings files. The station does not
/// judge; the director alone sets it up again from its own name (its log's),
/// chooses the list, and numbering goes on above every number shown.
fn settings_lost_then_set_up_again(day: &mut Day, last: u64) {
    day.power_cut();
    std::fs::remove_file(&day.config).unwrap();
    std::fs::remove_file(wordjudge_core::config::last_good_path(&day.config)).unwrap();
    day.power_on();
    let ui = day.ui();
    assert!(ui.shows("This station is not set up for the event yet."), "{:?}", ui.texts());
    assert!(ui.shows("Hall B 7"), "still the station's own name: {:?}", ui.texts());
    assert_eq!(day.challenge(&["QI"]), ScreenKind::OutOfService, "nothing judged without settings");
    day.open_menu();
    let items = day.ui().controller.borrow().view().menu.items;
    assert_eq!(items[0], "Set up this station again", "{items:?}");
    assert!(
        !items.iter().any(|i| i.starts_with("Rename") || i.starts_with("Use ")),
        "nothing that would refuse: {items:?}"
    );
    day.ui().fits_everywhere("the director menu, settings gone", false);
    day.menu_enter("Set up this station again");
    assert_eq!(day.ui().controller.borrow().view().edit.value, "Hall B 7", "the name its log knows");
    day.ui().key(&key_text(Key::Return));
    day.confirm();
    // The next step is the page the director lands on: the list.
    let menu = day.ui().controller.borrow().view().menu;
    assert!(menu.title.starts_with("Lexicon and event rule"), "{}", menu.title);
    assert!(menu.message.starts_with("The station is set up again. Now choose its word list"), "{}", menu.message);
    day.menu_enter("Use EVENT");
    day.confirm();
    day.leave_menu();
    assert_eq!(day.screen(), ScreenKind::Ready);
    assert_eq!(day.challenge(&["ZA"]), ScreenKind::Verdict);
    assert_eq!(day.copy_slip().0, last + 1, "numbering goes on");
    let saved = Config::load(&day.config).config;
    assert_eq!((saved.station_name.as_str(), saved.active_lexicon.as_str()), ("Hall B 7", "EVENT"));
    assert!(saved.director_pin_hash.is_some(), "the PIN the guard kept");
}

#[test]
fn an_event_day_from_first_power_on_to_a_dispute() {
    let mut day = flashed_card();
    first_power_on(&mut day);
    director_sets_up(&mut day);
    director_names_the_station_and_its_time_zone(&mut day);
    let mut slips = plays(&mut day);
    a_player_guesses_the_pin_until_locked(&mut day);
    let last = slips.last().unwrap().0;
    power_cut_mid_record(&mut day, last);
    slips.push(plays_after_the_cut(&mut day, last));
    dispute(&day, &slips);
    export_verified_off_station_then_restart(&mut day, &slips);
    slips.push(the_fleet_joined_then_left(&mut day));
    let last = slips.last().unwrap().0;
    counter_damaged_then_repaired(&mut day, last);
    settings_lost_then_set_up_again(&mut day, last + 1);
    let report = wordjudge_core::inspect::verify(&day.audit).unwrap();
    assert!(report.ok(), "{report}");
}

/// Presses ESC until the director menu's first page is back.
fn menu_home(day: &Day) {
    for _ in 0..6 {
        if day.ui().controller.borrow().view().menu.title.starts_with("Director menu") {
            return;
        }
        day.ui().key(&key_text(Key::Escape));
        day.ui().advance(50);
    }
    panic!("the menu's first page did not come back: {:?}", day.ui().texts());
}

/// On a stick's list page: installs the row starting with `row` (ENTER,
/// then ENTER again) and waits for the station's word that it is in.
fn install_from_stick(day: &Day, row: &str) -> String {
    day.menu_enter(row);
    let message = day.ui().controller.borrow().view().menu.message;
    assert_eq!(message, "Press ENTER again to install it.", "an install asks twice");
    day.ui().key(&key_text(Key::Return));
    day.poll_until(&format!("{row} to be installed"), 3000, |day| {
        let message = day.ui().controller.borrow().view().menu.message;
        message.starts_with("Installed: ").then_some(message)
    })
}

/// The day with the tournament's own lists (`../shared/lexicons`): CSW15 on
/// a stick under a file name of the director's ("Collins 2015.txt") and
/// NWL2018, both installed from the menu and recognised by their words; a
/// NASPA CSW profile, then a switch to the NASPA NWL one between rounds,
/// each verdict by the list and the rule in force, and the log whole.
#[test]
#[ignore = "needs ../shared/lexicons"]
fn real_data_an_event_day_with_the_tournament_lists() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/lexicons");
    assert!(shared.join("CSW15.txt").exists(), "real-data test: {} not found", shared.display());
    let mut day = flashed_card();
    let card = day.config.parent().unwrap().to_path_buf();
    let stick = card.join("sticks/LISTS");
    std::fs::create_dir_all(&stick).unwrap();
    std::fs::copy(shared.join("CSW15.txt"), stick.join("Collins 2015.txt")).unwrap();
    std::fs::copy(shared.join("NWL2018.txt"), stick.join("NWL2018.txt")).unwrap();
    first_power_on(&mut day);

    // The installs, from the stick, each list known by its words.
    day.open_menu();
    day.menu_enter("USB stick");
    day.menu_enter("Install lexicons from LISTS");
    // The stick's lists are read and checked first (each hashed in full).
    let rows = day.poll_until("the stick's lists", 3000, |day| {
        let rows = day.ui().controller.borrow().view().menu.items;
        (!rows.is_empty()).then_some(rows)
    });
    assert!(rows.iter().any(|r| r.starts_with("Collins 2015 → CSW15 — would be Verified official")), "{rows:?}");
    day.ui().fits_everywhere("a stick with the tournament lists", false);
    let csw = install_from_stick(&day, "Collins 2015 → CSW15");
    assert!(csw.starts_with("Installed: CSW15 is Verified official."), "{csw}");
    let nwl = install_from_stick(&day, "NWL2018 → NWL2018");
    assert!(nwl.starts_with("Installed: NWL2018 is Verified official."), "{nwl}");
    day.ui().key(&key_text(Key::Escape));
    day.wait_for_stick();
    day.ui().key(&key_text(Key::Return));

    // The event's profile: NASPA CSW, 5 points a word.
    menu_home(&day);
    day.menu_enter("Profile: NASPA CSW, 5 points per word");
    day.confirm();
    day.leave_menu();
    assert!(day.ui().shows_part("the player gets 5 points for each word challenged"), "{:?}", day.ui().texts());
    assert_eq!(day.challenge(&["QI", "ZO"]), ScreenKind::Verdict);
    assert!(day.ui().shows("✓ ACCEPTABLE"), "CSW15 has ZO: {:?}", day.ui().texts());
    assert!(day.ui().shows("The play stands: +10 to the player: 2 words × 5"), "{:?}", day.ui().texts());
    day.ui().fits_everywhere("a CSW verdict under its rule", true);
    let first = day.copy_slip();

    // Between rounds, the NWL profile: the confirmation names what it ends.
    day.open_menu();
    day.menu_enter("Profile: NASPA, double challenge");
    let confirm = day.ui().controller.borrow().view().confirm;
    assert!(
        format!("{} {}", confirm.question, confirm.detail).contains("NASPA CSW, 5 points per word"),
        "the profile it ends is named: {confirm:?}"
    );
    day.confirm();
    day.leave_menu();
    assert_eq!(day.challenge(&["QI", "ZO"]), ScreenKind::Verdict);
    assert!(day.ui().shows("✗ UNACCEPTABLE"), "NWL2018 has no ZO: {:?}", day.ui().texts());
    let second = day.copy_slip();
    assert_eq!(day.challenge(&["QI", "ZA"]), ScreenKind::Verdict);
    assert!(day.ui().shows("The play stands: the challenger loses the turn."), "{:?}", day.ui().texts());
    let third = day.copy_slip();
    assert_eq!((second.0, third.0), (first.0 + 1, first.0 + 2), "one number each, none lost");

    // The record: each verdict with the list and the profile in force.
    let judged: Vec<(String, String)> = adjudications_of(&day.audit)
        .iter()
        .map(|r| (r["lexicon"]["id"].as_str().unwrap().to_string(), r["profile"].as_str().unwrap_or("").to_string()))
        .collect();
    assert_eq!(
        judged,
        [
            ("CSW15".into(), "NASPA-CSW-5".into()),
            ("NWL2018".into(), "NASPA-NWL".into()),
            ("NWL2018".into(), "NASPA-NWL".into())
        ],
        "{judged:?}"
    );
    let report = wordjudge_core::inspect::verify(&day.audit).unwrap();
    assert!(report.ok(), "{report}");
}

/// The adjudication records in the audit folder `audit`, oldest first.
fn adjudications_of(audit: &Path) -> Vec<serde_json::Value> {
    records(audit).into_iter().filter(|r| r["event"] == "adjudication").collect()
}
