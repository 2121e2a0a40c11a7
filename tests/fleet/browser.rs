//! The HTML view in a real browser: headless Chromium (Debian's `chromium`)
//! renders the page `fleet status --html` wrote from journal files, with
//! every network request refused, and the screenshot shows a red tile for
//! each station in trouble and a green one for the healthy station. Named
//! `needs_chromium_*`: `.ci/test` runs it where `chromium` is installed.
//! With `FLEET_SCREENSHOT=FILE` the screenshot is also copied to FILE
//! (docs/screenshots/fleet-status.png is made so).

use crate::journal_files::{fleet_status, write_journal};
use crate::support::two_stations;
use std::process::Command;

/// Colours of the page's CSS: a red tile's background, a green tile's
/// border.
const PINK: [u8; 3] = [0xff, 0xeb, 0xee];
const GREEN: [u8; 3] = [0x2e, 0x7d, 0x32];

#[test]
#[ignore = "needs chromium and systemd-journal-remote"]
fn needs_chromium_the_page_renders_with_red_and_green_tiles() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = two_stations();
    let recorded = crate::recorded::recorded_station();
    let journals = dir.path().join("received");
    std::fs::create_dir(&journals).unwrap();
    write_journal(&journals, &one);
    write_journal(&journals, &two);
    write_journal(&journals, &recorded);
    let ca = crate::journal_files::paired_ca(dir.path(), &[&one, &two, &recorded]);
    let page = dir.path().join("fleet.html");
    let out = fleet_status(&[
        "--dir",
        journals.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
        "--ca-dir",
        ca.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let shot = dir.path().join("fleet.png");
    let profile = dir.path().join("chromium-profile");
    let run = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,660"])
        .arg("--host-resolver-rules=MAP * ~NOTFOUND")
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .env("HOME", dir.path())
        .output()
        .expect("chromium runs");
    assert!(run.status.success() && shot.is_file(), "chromium: {}", String::from_utf8_lossy(&run.stderr));

    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.width, info.height), (1280, 660));
    let channels = info.color_type.samples();
    let count = |colour: [u8; 3]| {
        pixels[..info.buffer_size()]
            .chunks(channels)
            .filter(|p| p[..3].iter().zip(colour).all(|(a, b)| a.abs_diff(b) <= 8))
            .count()
    };
    let (pink, green) = (count(PINK), count(GREEN));
    println!("red tiles' background: {pink} pixels; green: {green} pixels");
    // A tile is about 380×400 px inside a 3 px border (about 4,700 pixels).
    assert!(pink > 2 * 100_000, "two red tiles: {pink} pixels of their background");
    assert!(green > 4_000, "a green tile's border (and the bars): {green} green pixels");
    if let Some(out) = std::env::var_os("FLEET_SCREENSHOT") {
        std::fs::copy(&shot, out).unwrap();
    }
}
