//! Property-based tests of the director's path (issue 30): random streams
//! of keys at the PIN prompt, the menu and its settings, with sticks plugged
//! in and pulled, update bundles offered and refused, a damaged card held
//! for the director, and time passing, against the fake station.
//!
//! Invariants, checked after every event:
//! * ENTER acts on the item that was under the cursor when it was pressed
//!   (each station action the ENTER caused is the one that item stands for);
//! * a tick never moves the cursor onto another action: after the menu is
//!   rebuilt the cursor is on the same item, or on "Leave" with a line
//!   saying what went away;
//! * every change of the station is a record (lexicon, profile, PIN, name,
//!   restored settings);
//! * no screen shows a path, a file name or an internal name;
//! * nothing panics.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::time::Duration;
use wordjudge::config::Timeouts;
use wordjudge::kiosk::fake::{FakeLexicon, FakeRecord, FakeStation};
use wordjudge::kiosk::flow::{Event, Key, Kiosk, MenuItem, Screen};
use wordjudge::kiosk::station::{Station, SystemAction, UpdateRequest, UsbRequest};
use wordjudge::kiosk::view::{view, StationInfo};
use wordjudge::profile;

#[derive(Debug, Clone)]
enum Action {
    Tap(Key),
    /// The chord and the right PIN.
    Director,
    PlugSticks(&'static str),
    PlugUpdate(&'static str),
    /// The next check of a bundle refuses it.
    RefuseUpdates,
    Unplug,
    Idle(u64),
    /// The director sets the clock from the menu (a typo's year, or back).
    SetClock(&'static str),
}

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![
        10 => Just(Key::Down),
        6 => Just(Key::Up),
        2 => Just(Key::Tab),
        8 => Just(Key::Enter),
        2 => Just(Key::Escape),
        2 => Just(Key::Backspace),
        6 => prop::sample::select(vec!['2', '4', '6', '8', '0', '1', '9']).prop_map(Key::Char),
        2 => prop::sample::select(vec!['a', 'Z', '-', ':', ' ', '\u{202e}', 'é']).prop_map(Key::Char),
        1 => Just(Key::DirectorChord),
    ]
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        30 => key().prop_map(Action::Tap),
        3 => Just(Action::Director),
        2 => prop::sample::select(vec!["sdb1", "sdc1"]).prop_map(Action::PlugSticks),
        2 => prop::sample::select(vec!["0.0.1", "0.1.0", "0.2.0"]).prop_map(Action::PlugUpdate),
        1 => Just(Action::RefuseUpdates),
        2 => Just(Action::Unplug),
        3 => prop_oneof![0u64..1500, 1500u64..70_000].prop_map(Action::Idle),
        1 => prop::sample::select(vec!["2099-11-26 10:00", "2026-11-26 10:00", "2026-13-40 99:99"]).prop_map(Action::SetClock),
    ]
}

/// Text no screen may show: paths, file names, internal names.
const FORBIDDEN: &[&str] =
    &[".fst", ".toml", ".raucb", ".partial", "/var/", "/dev/", "/run/", "/media/", "wordjudge-sim", "wordjudge-amd64", "wordjudge-arm64", "--gpio", "pin-guard"];

/// Every string literal in a value's `Debug` text: the view's words.
fn strings_of(debug: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = debug.chars();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut s = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => s.extend(chars.next()),
                '"' => break,
                c => s.push(c),
            }
        }
        out.push(s);
    }
    out
}

struct Harness {
    kiosk: Kiosk,
    station: FakeStation,
    now: Duration,
    enters: usize,
    clocks_set: usize,
}

/// The records of station actions an ENTER may cause, and whether `item`
/// stands for `record`.
fn stands_for(item: &MenuItem, record: &FakeRecord) -> Option<bool> {
    Some(match record {
        FakeRecord::Usb(UsbRequest::Export { device }) => matches!(item, MenuItem::ExportToUsb(s) if &s.device == device),
        FakeRecord::Usb(UsbRequest::OpenForImport { device }) => {
            matches!(item, MenuItem::ImportFromUsb(s) if &s.device == device)
        }
        FakeRecord::Usb(UsbRequest::JoinFleet { device }) => matches!(item, MenuItem::JoinFleet(s) if &s.device == device),
        FakeRecord::FleetLeft { .. } => matches!(item, MenuItem::LeaveFleet(_)),
        FakeRecord::Switched { to } | FakeRecord::SwitchRefused { to } => {
            matches!(item, MenuItem::UseLexicon(c) if &c.id == to) || matches!(item, MenuItem::UseProfile(_))
        }
        FakeRecord::ProfileSwitched { .. } => matches!(item, MenuItem::UseProfile(_)),
        FakeRecord::Update(UpdateRequest::Check { .. }) => matches!(item, MenuItem::InstallUpdate(_)),
        FakeRecord::System(SystemAction::Reboot) => *item == MenuItem::Reboot,
        FakeRecord::System(SystemAction::PowerOff) => *item == MenuItem::PowerOff,
        FakeRecord::System(SystemAction::Quit) => *item == MenuItem::Quit,
        FakeRecord::SettingsRestored => *item == MenuItem::RestoreSettings,
        FakeRecord::RotationSet { .. } => matches!(item, MenuItem::ScreenRotation(_)),
        _ => return None,
    })
}

impl Harness {
    fn new(held: bool, appliance: bool) -> Harness {
        let mut station = FakeStation::new(
            vec![
                FakeLexicon::usable("DEMO", "qi za"),
                FakeLexicon::usable("CSW15", "qi za jo"),
                FakeLexicon::unusable("NWL2023", "Corrupt"),
            ],
            "2468",
        )
        .with_active("CSW15");
        station.profiles = profile::BUILT_IN.iter().collect();
        station.held = held;
        station.appliance = appliance;
        let kiosk = Kiosk::new(&station, &Timeouts::default());
        Harness { kiosk, station, now: Duration::from_secs(1000), enters: 0, clocks_set: 0 }
    }

    fn run(&mut self, action: &Action) -> Result<(), TestCaseError> {
        match *action {
            Action::Tap(k) => {
                self.event(Event::Key(k))?;
                self.wait(30)?;
                self.event(Event::Release(k))
            }
            Action::Director => {
                for k in [Key::DirectorChord, Key::Char('2'), Key::Char('4'), Key::Char('6'), Key::Char('8'), Key::Enter] {
                    self.run(&Action::Tap(k))?;
                }
                Ok(())
            }
            Action::PlugSticks(device) => {
                self.station.plug(device, &[("CSW15.txt", "CSW15")]);
                Ok(())
            }
            Action::PlugUpdate(version) => {
                self.station.plug_update("sdd1", "wordjudge-update.raucb", version, "0.1.0");
                Ok(())
            }
            Action::RefuseUpdates => {
                self.station.update_check =
                    Err(wordjudge::kiosk::station::UpdateError::Refused("it is not signed by this station's update key".into()));
                Ok(())
            }
            Action::Unplug => {
                self.station.sticks.clear();
                self.station.update_offer = None;
                Ok(())
            }
            Action::Idle(ms) => self.wait(ms),
            Action::SetClock(when) => {
                let Screen::Director(menu) = self.kiosk.screen() else { return Ok(()) };
                let Some(at) = menu.items.iter().position(|i| *i == MenuItem::SetClock) else { return Ok(()) };
                let moves = at as i64 - menu.selected as i64;
                let key = if moves < 0 { Key::Up } else { Key::Down };
                for _ in 0..moves.unsigned_abs() {
                    self.run(&Action::Tap(key))?;
                }
                self.run(&Action::Tap(Key::Enter))?;
                for c in when.chars() {
                    self.run(&Action::Tap(Key::Char(c)))?;
                }
                let before = self.station.records.len();
                self.run(&Action::Tap(Key::Enter))?;
                // A clock set is a record (on the appliance; elsewhere it is refused on screen).
                let set = self.station.records[before..].iter().any(|r| matches!(r, FakeRecord::ClockSet { .. }));
                let back_in_menu = matches!(self.kiosk.screen(), Screen::Director(_));
                prop_assert!(!back_in_menu || set || !self.station.appliance, "a clock set without a record");
                prop_assert!(!set || (self.station.appliance && !when.contains("99:99")), "a refused clock recorded as set");
                self.clocks_set += usize::from(set);
                Ok(())
            }
        }
    }

    /// Lets `ms` pass, ticking every 250 ms (and at the end).
    fn wait(&mut self, ms: u64) -> Result<(), TestCaseError> {
        for now in crate::support::ticks(self.now, ms) {
            self.now = now;
            self.event(Event::Tick)?;
        }
        Ok(())
    }

    fn event(&mut self, event: Event) -> Result<(), TestCaseError> {
        let before = self.kiosk.screen().clone();
        let records_before = self.station.records.len();
        let (lexicon, name, pin, held) =
            (self.station.lexicon().id, self.station.station_name.clone(), self.station.pin.clone(), self.station.held);
        self.kiosk.handle(event, self.now, &mut self.station);
        let new_records = &self.station.records[records_before..];

        // ENTER acts on the item under the cursor when it was pressed.
        if let (Event::Key(Key::Enter), Screen::Director(menu)) = (event, &before) {
            self.enters += 1;
            let item = &menu.items[menu.selected];
            for record in new_records {
                if let Some(ok) = stands_for(item, record) {
                    prop_assert!(ok, "ENTER on {:?} did {:?}", item, record);
                }
            }
        } else {
            for record in new_records {
                let acted = stands_for(&MenuItem::Leave, record).is_some();
                let from_edit = matches!(before, Screen::Edit(_) | Screen::Usb(_) | Screen::Update(_));
                prop_assert!(!acted || from_edit, "{:?} without ENTER on its item ({:?}, {:?})", record, event, before);
            }
        }
        // A tick never moves the cursor onto another action.
        if let (Event::Tick, Screen::Director(old), Screen::Director(new)) = (event, &before, self.kiosk.screen()) {
            let (was, is) = (&old.items[old.selected], &new.items[new.selected]);
            if was != is {
                prop_assert_eq!(is, &MenuItem::Leave, "the cursor moved from {:?} onto another action", was);
                prop_assert!(new.message.is_some(), "a line says what went away");
            }
        }
        // Every change is a record.
        let has = |f: fn(&FakeRecord) -> bool| new_records.iter().any(f);
        if self.station.lexicon().id != lexicon {
            prop_assert!(has(|r| matches!(r, FakeRecord::Switched { .. } | FakeRecord::ProfileSwitched { .. })), "a lexicon change unrecorded");
        }
        if self.station.station_name != name {
            prop_assert!(has(|r| matches!(r, FakeRecord::StationRenamed { .. })), "a rename unrecorded");
        }
        if self.station.pin != pin {
            prop_assert!(has(|r| matches!(r, FakeRecord::PinChanged | FakeRecord::PinSet)), "a PIN change unrecorded");
        }
        if self.station.held != held {
            prop_assert!(has(|r| matches!(r, FakeRecord::SettingsRestored)), "a restore unrecorded");
        }
        // No path, file name or internal name on any screen.
        let shown = view(&self.kiosk, &StationInfo::of(&self.station, &self.kiosk, false), self.now);
        for text in strings_of(&format!("{shown:?}")) {
            for bad in FORBIDDEN {
                prop_assert!(!text.contains(bad), "{:?} on screen ({:?}): {:?}", bad, shown.screen, text);
            }
        }
        Ok(())
    }
}

#[test]
fn random_director_streams_keep_enter_honest_and_every_change_recorded() {
    let cases = std::env::var("WORDJUDGE_MENU_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000);
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config);
    let strategy = (any::<bool>(), any::<bool>(), prop::collection::vec(action(), 1..80));
    let enters = std::cell::Cell::new(0usize);
    let clocks = std::cell::Cell::new(0usize);
    runner
        .run(&strategy, |(held, appliance, actions)| {
            let mut harness = Harness::new(held, appliance);
            for action in &actions {
                harness.run(action)?;
            }
            enters.set(enters.get() + harness.enters);
            clocks.set(clocks.get() + harness.clocks_set);
            Ok(())
        })
        .unwrap();
    println!("{cases} random director streams, {} ENTERs in the menu checked, {} clocks set", enters.get(), clocks.get());
    assert!(enters.get() > cases as usize, "the streams reach the menu and press ENTER there");
    assert!(clocks.get() > 0, "the streams set the clock");
}
