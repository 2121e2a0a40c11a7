//! Touch on the 7" panel (800×480), through the window as a finger reaches
//! it: pointer events dispatched at a target's centre, then a frame drawn by
//! the software renderer. Two figures: a key's press to the frame that shows
//! it pressed (the feedback a finger waits for), and a tap on JUDGE to the
//! verdict frame (judging, the audit append with fdatasync, and drawing).
//! Judges with CSW15 when `../shared/lexicons` is present, else the demo list.
//! The targets are found by Slint's element info, which a release build
//! keeps only with `WORDJUDGE_SLINT_ELEMENTS=1` (`benches/run` sets it).

use criterion::{criterion_group, criterion_main, Criterion};
use i_slint_backend_testing::{AccessibleRole, ElementHandle};
use slint::platform::{PointerEventButton, WindowEvent};
use slint::{ComponentHandle, LogicalPosition};
use std::cell::Cell;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};
use wordjudge_station::app::screenshots::ScratchStation;
use wordjudge_station::app::{attach, tick};
use wordjudge_station::ui::headless::{press_key, type_text, HeadlessScreen};
use wordjudge_station::ui::AppWindow;

/// The centre of the touch target labelled `label`.
fn target(window: &AppWindow, label: &str) -> LogicalPosition {
    let e = ElementHandle::find_by_accessible_label(window, label)
        .find(|e| e.accessible_role() == Some(AccessibleRole::Button))
        .unwrap_or_else(|| panic!("no target {label:?}"));
    let (at, size) = (e.absolute_position(), e.size());
    LogicalPosition::new(at.x + size.width / 2., at.y + size.height / 2.)
}

fn press(window: &AppWindow, at: LogicalPosition) {
    let w = window.window();
    w.dispatch_event(WindowEvent::PointerMoved { position: at });
    w.dispatch_event(WindowEvent::PointerPressed { position: at, button: PointerEventButton::Left });
}

fn release(window: &AppWindow, at: LogicalPosition) {
    let w = window.window();
    w.dispatch_event(WindowEvent::PointerReleased { position: at, button: PointerEventButton::Left });
    w.dispatch_event(WindowEvent::PointerExited);
}

fn benches(c: &mut Criterion) {
    let screen = HeadlessScreen::install(800, 480).unwrap();
    let window = AppWindow::new().unwrap();
    window.show().unwrap();
    screen.resize();
    let csw = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/lexicons/CSW15.txt");
    let active = if csw.exists() { "CSW15" } else { "DEMO" };
    let scratch = ScratchStation::new(active).unwrap();
    if active == "CSW15" {
        let lexicons = scratch.dir.path().join("lexicons");
        wordjudge_core::lexicon::build::install_official(&csw, &lexicons, None, false).unwrap();
    }
    eprintln!("judging with {active}; audit log on {}", scratch.dir.path().display());
    let clock = Rc::new(Cell::new(Duration::from_secs(10)));
    let controller = attach(&window, scratch.controller(clock.clone()).unwrap().with_touch(true));
    screen.render();
    // The entry, settled, with the keyboard drawn.
    let open_entry = |count: &str| {
        press_key(window.window(), count);
        clock.set(clock.get() + Duration::from_secs(1));
        tick(&window, &controller);
        screen.render();
    };
    open_entry("1");
    let a = target(&window, "A");
    c.bench_function("tap on a key to its pressed frame, 800x480", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let start = Instant::now();
                press(&window, a);
                assert!(screen.render(), "the pressed key was drawn");
                total += start.elapsed();
                release(&window, a);
                screen.render();
                press_key(window.window(), &wordjudge_station::ui::headless::key_text(slint::platform::Key::Backspace));
                screen.render();
            }
            total
        })
    });
    // Back to Ready: ESC twice clears the entry.
    let escape = wordjudge_station::ui::headless::key_text(slint::platform::Key::Escape);
    press_key(window.window(), &escape);
    press_key(window.window(), &escape);
    screen.render();
    c.bench_function(&format!("JUDGE tap to verdict frame, 800x480, 8 words ({active})"), |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                open_entry("8");
                type_text(window.window(), "qua zax jiao oxazepam zyzzyvas cat dog abandonment");
                screen.render();
                let judge = target(&window, "JUDGE");
                let start = Instant::now();
                press(&window, judge);
                release(&window, judge);
                assert!(screen.render(), "a frame was drawn");
                total += start.elapsed();
                assert_eq!(window.get_view().screen, wordjudge_station::ui::Screen::Verdict);
                clock.set(clock.get() + Duration::from_secs(11));
                tick(&window, &controller);
                screen.render();
            }
            total
        })
    });
}

criterion_group!(name = kiosk_touch_benches; config = Criterion::default().sample_size(30); targets = benches);
criterion_main!(kiosk_touch_benches);
