//! The scenes the screenshots are taken in, in the order `render_all`
//! plays them: each sets up a station (a scratch live station or a fake),
//! presses the keys a player or director would, and takes its pictures.

use super::{capture, fake_controller, measure_verdict, widest_verdict_fits, ScratchStation, SCREENSHOT_PIN};
use crate::app::{attach, Controller};
use crate::desks::fake::{FakeLexicon, FakeStation};
use crate::ui::headless::{key_text, press_chord, press_key, type_text, HeadlessScreen};
use crate::ui::AppWindow;
use slint::platform::Key;
use slint::ComponentHandle;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

/// What every scene draws with: the headless screen, the one window, the
/// folder the pictures go to, and the kiosk's clock, moved by hand.
pub(super) struct Camera<'a> {
    pub(super) screen: &'a HeadlessScreen,
    pub(super) window: &'a AppWindow,
    pub(super) out: &'a Path,
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) clock: Rc<Cell<Duration>>,
    pub(super) written: Vec<PathBuf>,
}

impl Camera<'_> {
    /// Draws the window and writes it as `NAME.png`.
    fn shot(&mut self, name: &str) -> Result<(), String> {
        capture(self.screen, self.out, name, &mut self.written)
    }

    fn advance(&self, ms: u64) {
        self.clock.set(self.clock.get() + Duration::from_millis(ms));
    }
}

/// A player's challenges on the demo lexicon (count, words, both verdicts,
/// the slip, the idle countdown) and the director's PIN and menu; returns
/// the legibility measure of the verdict screen.
pub(super) fn player_scenes(cam: &mut Camera, scratch: &ScratchStation) -> Result<String, String> {
    let screen = cam.screen;
    let clock = cam.clock.clone();
    let window = cam.window;
    let w = cam.window.window();
    let controller = attach(window, scratch.controller(clock.clone())?);
    cam.shot("01-ready")?;
    press_key(w, "3");
    cam.shot("02-entry-count-confirmed")?;
    cam.advance(2000);
    type_text(w, "zebra dog");
    press_key(w, &key_text(Key::Tab));
    cam.shot("03-entry-tab-too-early")?;
    type_text(w, " cat");
    cam.shot("04-entry-ready-to-judge")?;
    press_key(w, &key_text(Key::Tab));
    cam.shot("05-verdict-acceptable")?;
    let (mut legibility, lines) = measure_verdict(screen, cam.width, cam.height)?;
    legibility.push_str(&widest_verdict_fits(window, &controller, screen, cam.width, cam.height, lines)?);
    crate::ui::show(window, &controller.borrow().view());
    cam.advance(1000);
    press_key(w, " ");
    press_key(w, "2");
    cam.advance(2000);
    type_text(w, "cat xyzzyq");
    press_key(w, &key_text(Key::Tab));
    cam.shot("06-verdict-unacceptable")?;
    cam.advance(11_000);
    crate::app::tick(window, &controller);
    cam.shot("17-ready-last-slip")?;
    press_key(w, "2");
    cam.advance(2000);
    type_text(w, "zebra cat z");
    cam.shot("18-entry-extra-word-refused")?;
    cam.advance(52_000);
    crate::app::tick(window, &controller);
    cam.shot("19-entry-countdown")?;
    cam.advance(9_000);
    crate::app::tick(window, &controller);
    cam.shot("20-ready-cleared-after-idle")?;
    press_chord(w, &[Key::Control, Key::Alt, Key::Shift], "D");
    type_text(w, "13");
    cam.shot("07-director-pin")?;
    type_text(w, "57");
    press_key(w, &key_text(Key::Return));
    cam.shot("08-director-pin-refused")?;
    type_text(w, SCREENSHOT_PIN);
    press_key(w, &key_text(Key::Return));
    cam.shot("09-director-menu")?;
    press_key(w, &key_text(Key::Escape));
    Ok(legibility)
}

/// A station whose configured lexicon is not installed.
pub(super) fn out_of_service_scene(cam: &mut Camera, missing: &ScratchStation) -> Result<(), String> {
    let clock = cam.clock.clone();
    let window = cam.window;
    let _controller = attach(window, missing.controller(clock.clone())?);
    cam.shot("10-out-of-service")?;
    Ok(())
}

/// The director menu with 20 lexicons, scrolled to the 15th: the list
/// scrolls and the cursor stays in view (a station of plain data; the
/// statuses are what the real catalogue shows).
pub(super) fn many_lexicons_scenes(cam: &mut Camera) -> Result<(), String> {
    let clock = cam.clock.clone();
    let window = cam.window;
    let w = cam.window.window();
    let mut lexicons = vec![FakeLexicon::usable("DEMO", "cat")];
    for (i, id) in [
        "CSW07",
        "CSW12",
        "CSW15",
        "CSW19",
        "CSW21",
        "CSW24",
        "NSWL2018",
        "NSWL2020",
        "NSWL2023",
        "NWL2018",
        "NWL2020",
        "NWL2023",
        "OSPD4+MW11",
        "OTCWL2014",
        "SSWL2016",
        "TWL2016",
        "TWL06",
        "CLUB-2024",
        "SCHOOL-LOCAL",
    ]
    .iter()
    .enumerate()
    {
        lexicons.push(match i % 4 {
            3 => FakeLexicon::unusable(id, "Missing"),
            _ => FakeLexicon { status: "Verified official".into(), ..FakeLexicon::usable(id, "cat") },
        });
    }
    let mut fake = FakeStation::new(lexicons, SCREENSHOT_PIN).with_active("CSW21");
    fake.station_name = "Table 12".into();
    fake.appliance = true;
    // What a live station's status page says of itself.
    fake.facts = vec![
        ("Profile".into(), "none (no challenge rule shown under verdicts)".into()),
        ("Last challenge".into(), "#0041 · code T3AS849W".into()),
        ("Station key code".into(), "4F2A-91C0-7D3E-B6A8".into()),
        ("Judge button and lamps".into(), "judge button GPIO 17, green lamp GPIO 22, red lamp GPIO 23".into()),
        ("Fleet".into(), "Nationals 2026: sending to the event's laptop (192.168.10.2), last sent 14:02:11".into()),
        ("Screen".into(), "DSI-1, not turned".into()),
    ];
    let _controller = attach(window, fake_controller(fake, &clock));
    open_director_menu(w);
    // The first page's second entry: Lexicon and event rule.
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::Return));
    for _ in 0..14 {
        press_key(w, &key_text(Key::DownArrow));
    }
    cam.shot("11-director-menu-20-lexicons")?;
    // ENTER on a lexicon names the switch in full and waits for a second ENTER.
    press_key(w, &key_text(Key::Return));
    cam.shot("26-director-confirm-switch")?;
    press_key(w, &key_text(Key::Escape));
    cam.shot("27-director-nothing-changed")?;
    press_key(w, &key_text(Key::Escape));
    // The first page's first entry: the station's status in one screen.
    press_key(w, &key_text(Key::Return));
    cam.shot("28-director-status")?;
    press_key(w, &key_text(Key::Escape));
    press_key(w, &key_text(Key::Escape));
    Ok(())
}

/// A station whose settings lost lines: the menu opens on the repair, which
/// names what was lost and asks to confirm.
pub(super) fn settings_repair_scenes(cam: &mut Camera) -> Result<(), String> {
    let clock = cam.clock.clone();
    let window = cam.window;
    let w = cam.window.window();
    let mut fake = FakeStation::new(
        vec![FakeLexicon { status: "Verified official".into(), ..FakeLexicon::usable("CSW21", "cat") }],
        SCREENSHOT_PIN,
    )
    .with_active("CSW21");
    fake.station_name = "Table 12".into();
    fake.appliance = true;
    fake.held = true;
    fake.warnings.push(crate::desks::Warning::Config(wordjudge_core::config::ConfigProblem::LostSettings {
        path: "config.toml".into(),
        lost: vec!["director_pin_hash", "audit_dir"],
    }));
    let _controller = attach(window, fake_controller(fake, &clock));
    cam.shot("29-out-of-service-settings")?;
    open_director_menu(w);
    cam.shot("30-director-repair")?;
    press_key(w, &key_text(Key::Return));
    cam.shot("31-director-confirm-restore")?;
    press_key(w, &key_text(Key::Escape));
    press_key(w, &key_text(Key::Escape));

    // Both settings files gone, the PIN kept: the menu offers to set the
    // station up again, from a name.
    let mut fake = FakeStation::new(
        vec![FakeLexicon { status: "Verified official".into(), ..FakeLexicon::usable("CSW21", "cat") }],
        SCREENSHOT_PIN,
    );
    fake.appliance = true;
    fake.gone = true;
    fake.warnings.push(crate::desks::Warning::Config(wordjudge_core::config::ConfigProblem::Missing {
        path: "config.toml".into(),
    }));
    let _controller = attach(window, fake_controller(fake, &clock));
    cam.shot("33-out-of-service-settings-gone")?;
    open_director_menu(w);
    cam.shot("34-director-set-up-again")?;
    press_key(w, &key_text(Key::Return));
    for c in "Table 12".chars() {
        press_key(w, &c.to_string());
    }
    cam.shot("35-director-set-up-again-name")?;
    press_key(w, &key_text(Key::Return));
    cam.shot("36-director-confirm-set-up-again")?;
    press_key(w, &key_text(Key::Escape));
    press_key(w, &key_text(Key::Escape));
    Ok(())
}

/// Each shipped profile's verdict screen (the NASPA double challenge
/// twice: with NWL2023 and with TWL2016): the consequence line under the
/// verdict, and the changeover profile's second opinion.
pub(super) fn profile_scenes(cam: &mut Camera) -> Result<(), String> {
    let clock = cam.clock.clone();
    let window = cam.window;
    let w = cam.window.window();
    let profiles = [
        ("naspa-nwl", "NASPA-NWL", "NWL2023"),
        ("naspa-twl", "NASPA-NWL", "TWL2016"),
        ("naspa-nwl-changeover", "NASPA-NWL-CHANGEOVER", "NWL2023"),
        ("naspa-csw-5", "NASPA-CSW-5", "CSW24"),
        ("naspa-csw-10", "NASPA-CSW-10", "CSW24"),
        ("wespa-csw", "WESPA-CSW", "CSW24"),
        ("school", "SCHOOL", "OSPD4+MW11"),
        ("demo", "DEMO", "DEMO"),
    ];
    for (name, id, edition) in profiles {
        let profile = wordjudge_core::profile::find(id).ok_or_else(|| format!("no profile {id}"))?;
        let mut lexicons = vec![FakeLexicon {
            status: "Verified official".into(),
            ..FakeLexicon::usable(edition, "cat dog qi za zebra ok xu abandonment")
        }];
        let second = profile.second_opinion(edition);
        if let Some(second) = second {
            lexicons.push(FakeLexicon {
                status: "Verified official".into(),
                ..FakeLexicon::usable(second, "cat dog qi za zebra")
            });
        }
        let mut fake = FakeStation::new(lexicons, SCREENSHOT_PIN);
        fake.station_name = "Table 12".into();
        fake.profile = Some(profile);
        let _controller = attach(window, fake_controller(fake, &clock));
        // Ready with the event's rule, the longest wording and the NASPA one.
        if matches!(name, "naspa-nwl" | "naspa-csw-10") {
            cam.shot(&format!("12-profile-{name}-ready"))?;
        }
        let words = if second.is_some() { "2zebra ok" } else { "2zebra cat" };
        type_text(w, words);
        press_key(w, &key_text(Key::Tab));
        cam.shot(&format!("12-profile-{name}"))?;
    }
    Ok(())
}

/// A director's USB stick: offered first in the menu, its word lists
/// shown with what each would be, then an export done.
pub(super) fn usb_scenes(cam: &mut Camera) -> Result<(), String> {
    let clock = cam.clock.clone();
    let window = cam.window;
    let w = cam.window.window();
    let mut fake = FakeStation::new(
        vec![FakeLexicon { status: "Verified official".into(), ..FakeLexicon::usable("CSW21", "cat") }],
        SCREENSHOT_PIN,
    );
    fake.station_name = "Table 12".into();
    fake.appliance = true;
    fake.plug(
        "sdb1",
        &[("CSW24.txt", "CSW24"), ("NWL2023.txt", "NWL2023"), ("TWL2016.txt", "NWL2018"), ("club-list.txt", "CSW21")],
    );
    fake.sticks[0].name = "DIRECTOR (sdb1, FAT32, 16008 MB)".into();
    let controller = attach(window, fake_controller(fake, &clock));
    open_director_menu(w);
    open_usb_page(w);
    cam.shot("13-usb-menu")?;
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::Return));
    cam.shot("14-usb-reading")?;
    crate::app::tick(window, &controller);
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::Return));
    cam.shot("15-usb-import-list")?;
    press_key(w, &key_text(Key::Escape));
    crate::app::tick(window, &controller);
    // The Done screen: any key returns to the stick page, on Back.
    press_key(w, &key_text(Key::Return));
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::Return));
    crate::app::tick(window, &controller);
    cam.shot("16-usb-export-done")?;
    press_key(w, &key_text(Key::Return));
    // Joining the fleet asks first.
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::Return));
    cam.shot("32-director-confirm-join-fleet")?;
    press_key(w, &key_text(Key::Escape));
    Ok(())
}

/// An update of the station from a stick: the preview with what happens
/// next, installing, a refusal and a wrong PIN in the alert band.
pub(super) fn update_scenes(cam: &mut Camera) -> Result<(), String> {
    let clock = cam.clock.clone();
    let window = cam.window;
    let w = cam.window.window();
    let updating = |current: &str, offered: &str| {
        let mut fake = FakeStation::new(
            vec![FakeLexicon { status: "Verified official".into(), ..FakeLexicon::usable("CSW21", "cat") }],
            SCREENSHOT_PIN,
        );
        fake.station_name = "Table 12".into();
        fake.appliance = true;
        fake.plug_update("sdb1", "wordjudge-update.raucb", offered, current);
        fake.sticks[0].name = "DIRECTOR (sdb1, FAT32, 16008 MB)".into();
        fake
    };
    // Opens the director menu and chooses "Install update" (after import and
    // export), then lets the check answer.
    let choose_update = |controller: &Rc<std::cell::RefCell<Controller>>| {
        open_director_menu(w);
        open_usb_page(w);
        // Back, then the stick's install, export and fleet: the update is fifth.
        for _ in 0..4 {
            press_key(w, &key_text(Key::DownArrow));
        }
        press_key(w, &key_text(Key::Return));
        crate::app::tick(window, controller);
    };
    let mut fake = updating("0.1.0", "0.1.1");
    fake.update_paused_at = Some(50);
    let controller = attach(window, fake_controller(fake, &clock));
    choose_update(&controller);
    cam.shot("22-update-preview")?;
    press_key(w, &key_text(Key::Return));
    crate::app::tick(window, &controller);
    cam.shot("23-update-installing")?;
    let mut fake = updating("0.1.0", "0.1.1");
    fake.update_check = Err(wordjudge_core::update::UpdateError::OtherStation {
        bundle: wordjudge_core::update::PI_COMPATIBLE.into(),
        station: wordjudge_core::update::PC_COMPATIBLE.into(),
    });
    let controller = attach(window, fake_controller(fake, &clock));
    choose_update(&controller);
    cam.shot("24-update-refused")?;
    let controller = attach(window, fake_controller(updating("0.2.0", "0.1.0"), &clock));
    choose_update(&controller);
    press_key(w, &key_text(Key::Return));
    type_text(w, "1357");
    press_key(w, &key_text(Key::Return));
    cam.shot("25-update-downgrade-wrong-pin")?;
    Ok(())
}

/// A long station name: shortened, while the lexicon and status stay whole.
pub(super) fn long_name_scene(cam: &mut Camera) -> Result<(), String> {
    let clock = cam.clock.clone();
    let window = cam.window;
    let mut fake = FakeStation::new(
        vec![FakeLexicon { status: "Demo (built in)".into(), ..FakeLexicon::usable("DEMO", "cat") }],
        SCREENSHOT_PIN,
    );
    fake.station_name = "Main hall, north wall — Table 112 (by the clock)".into();
    let _controller = attach(window, fake_controller(fake, &clock));
    cam.shot("21-long-station-name")?;
    Ok(())
}

/// A touchscreen station (the demo lexicon, the touch targets shown): a
/// challenge tapped, then the director's corner held, the PIN tapped on the
/// pad, the menu, a PIN change's pad, and a confirmation's two answers. The
/// taps go through the window's own `tap` and `hold` callbacks, as its
/// targets call them.
pub(super) fn touch_scenes(cam: &mut Camera, scratch: &ScratchStation) -> Result<(), String> {
    let clock = cam.clock.clone();
    let window = cam.window;
    let w = cam.window.window();
    let controller = attach(window, scratch.controller(clock.clone())?.with_touch(true));
    let tap = |name: &str| window.invoke_tap(name.into());
    let pass = |cam: &Camera, ms: u64| {
        cam.advance(ms);
        crate::app::tick(window, &controller);
    };
    cam.shot("37-touch-ready")?;
    tap("2");
    pass(cam, 2000);
    for name in ["C", "A", "T", "next-word", "D", "O", "G"] {
        tap(name);
    }
    cam.shot("38-touch-entry")?;
    tap("judge");
    cam.shot("39-touch-verdict")?;
    pass(cam, 11_000);
    window.invoke_hold(true);
    pass(cam, 3000);
    window.invoke_hold(false);
    for digit in SCREENSHOT_PIN.chars() {
        tap(&digit.to_string());
    }
    cam.shot("40-touch-director-pin")?;
    tap("ok");
    pass(cam, 500);
    cam.shot("41-touch-director-menu")?;
    // Station settings (the fourth row without a stick), then its PIN change.
    tap("row:3");
    pass(cam, 500);
    tap("row:4");
    cam.shot("42-touch-director-pin-change")?;
    tap("back");
    pass(cam, 500);
    // Renaming is typed (text needs the keyboard); its confirmation is tapped.
    tap("row:1");
    type_text(w, "Table 9");
    press_key(w, &key_text(Key::Return));
    cam.shot("43-touch-director-confirm")?;
    tap("keep");
    pass(cam, 500);
    tap("back");
    pass(cam, 500);
    tap("back");
    Ok(())
}

/// The director's chord and PIN: the menu's first page.
fn open_director_menu(w: &slint::Window) {
    press_chord(w, &[Key::Control, Key::Alt, Key::Shift], "D");
    type_text(w, SCREENSHOT_PIN);
    press_key(w, &key_text(Key::Return));
}

/// From the director menu's first page (cursor on its first entry, a stick
/// plugged in): opens the USB stick page, its third entry (after Station
/// status and Lexicon and event rule).
fn open_usb_page(w: &slint::Window) {
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::DownArrow));
    press_key(w, &key_text(Key::Return));
}
