//! The kiosk's key-to-verdict latency: from the TAB key event entering the
//! Slint window to the verdict frame fully rendered by the software renderer
//! at 1920×1080 (judging, the audit append with fdatasync, and drawing).
//! Judges with CSW15 when `../shared/lexicons` is present, else the demo list.

use criterion::{criterion_group, criterion_main, Criterion};
use slint::platform::Key;
use slint::ComponentHandle;
use std::cell::Cell;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};
use wordjudge_station::app::screenshots::ScratchStation;
use wordjudge_station::app::{attach, tick};
use wordjudge_station::ui::headless::{key_text, press_key, type_text, HeadlessScreen};
use wordjudge_station::ui::AppWindow;

fn benches(c: &mut Criterion) {
    let screen = HeadlessScreen::install(1920, 1080).unwrap();
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
    let controller = attach(&window, scratch.controller(clock.clone()).unwrap());
    screen.render();
    let w = window.window();
    c.bench_function(&format!("TAB to verdict frame, 1920x1080, 8 words ({active})"), |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                press_key(w, "8");
                type_text(w, "qua zax jiao oxazepam zyzzyvas cat dog abandonment");
                screen.render();
                let start = Instant::now();
                press_key(w, &key_text(Key::Tab));
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

criterion_group!(name = kiosk_benches; config = Criterion::default().sample_size(30); targets = benches);
criterion_main!(kiosk_benches);
