//! The real windowed kiosk (`wordjudge kiosk --windowed`, Slint's winit
//! backend) under Xvfb, driven by xdotool as a keyboard would drive it: a
//! TAB held for 1.5 s (X's auto-repeat included) leaves its verdict on
//! screen, and a miscounted play never judges a glued word. The screen is
//! read back with `xwd`; the words judged are read from the audit log.
//!
//! Needs Xvfb, xdotool and xwd (`.ci/install-deps` installs them); the test
//! command runs these tests when they are there and names them when not.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const GREEN: (u8, u8, u8) = (0x1E, 0x7B, 0x34);
const RED: (u8, u8, u8) = (0xB0, 0x1C, 0x1C);
const NAVY: (u8, u8, u8) = (0x10, 0x18, 0x27);
/// The out-of-service screen's grey (`Palette.service`).
const SERVICE: (u8, u8, u8) = (0x3A, 0x3F, 0x47);

/// A process killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Desktop {
    display: String,
    _xvfb: Running,
    kiosk: Running,
    audit: PathBuf,
    _dir: tempfile::TempDir,
}

fn start() -> Desktop {
    start_with(|_| {})
}

/// Starts the kiosk after `prepare` has had the (empty) audit folder.
fn start_with(prepare: impl FnOnce(&Path)) -> Desktop {
    start_on("1280x720x24", prepare, NAVY)
}

/// Starts the kiosk on an X screen of `screen` (`WIDTHxHEIGHTxDEPTH`) and
/// waits for its first screen to be mostly `first` (Ready's navy, or the
/// out-of-service grey).
fn start_on(screen: &str, prepare: impl FnOnce(&Path), first: (u8, u8, u8)) -> Desktop {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("audit")).unwrap();
    prepare(&dir.path().join("audit"));
    // One display per test (tests run in parallel in one process).
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let display = format!(":{}", 100 + (std::process::id() % 400) * 4 + n);
    let xvfb = Running(
        Command::new("Xvfb")
            .args([display.as_str(), "-screen", "0", screen, "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb"),
    );
    let started = Instant::now();
    while !Command::new("xdotool")
        .arg("getmouselocation")
        .env("DISPLAY", &display)
        .output()
        .is_ok_and(|o| o.status.success())
    {
        assert!(started.elapsed() < Duration::from_secs(20), "Xvfb did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let audit = dir.path().join("audit");
    let config = super::support::demo_station_config(dir.path(), "Xvfb");
    let mut kiosk = Command::new(crate::built::wordjudge())
        .args(["--config", config.to_str().unwrap(), "kiosk", "--windowed", "--gpio", "sim"])
        .env("DISPLAY", &display)
        .env("WORDJUDGE_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("wordjudge kiosk");
    let stdout = kiosk.stdout.take().unwrap();
    let kiosk = Running(kiosk);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let ready = rx.recv_timeout(Duration::from_secs(60)).expect("the kiosk printed nothing");
    assert!(ready.starts_with("WORDJUDGE READY"), "{ready}");
    let desktop = Desktop { display, _xvfb: xvfb, kiosk, audit, _dir: dir };
    // Focus the kiosk's window, as a player's first key would find it.
    let started = Instant::now();
    loop {
        let found = desktop.xdotool(&["search", "--sync", "--name", "wordjudge", "windowfocus", "--sync"]);
        if found || started.elapsed() > Duration::from_secs(20) {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(desktop.wait_for(first, Duration::from_secs(20)), "{first:?} on screen, not {:?}", desktop.dominant());
    desktop
}

impl Desktop {
    fn xdotool(&self, args: &[&str]) -> bool {
        Command::new("xdotool").args(args).env("DISPLAY", &self.display).status().map(|s| s.success()).unwrap_or(false)
    }

    fn keys(&self, keys: &[&str]) {
        for key in keys {
            assert!(self.xdotool(&["key", "--delay", "40", key]), "xdotool key {key}");
        }
    }

    fn type_text(&self, text: &str) {
        for c in text.chars() {
            let name = if c == ' ' { "space".to_string() } else { c.to_string() };
            self.keys(&[&name]);
        }
    }

    /// The colour covering most of the screen (xwd of the root window).
    fn dominant(&self) -> (u8, u8, u8) {
        let out = Command::new("xwd").args(["-root", "-silent"]).env("DISPLAY", &self.display).output().expect("xwd");
        dominant_colour(&out.stdout)
    }

    fn wait_for(&self, colour: (u8, u8, u8), timeout: Duration) -> bool {
        let started = Instant::now();
        while started.elapsed() < timeout {
            if self.dominant() == colour {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    /// The words of every adjudication in the audit log, in order.
    fn judged(&self) -> Vec<Vec<String>> {
        let mut words = Vec::new();
        for entry in std::fs::read_dir(&self.audit).unwrap().flatten() {
            if entry.path().extension().is_some_and(|e| e == "jsonl") {
                let mut text = String::new();
                std::fs::File::open(entry.path()).unwrap().read_to_string(&mut text).unwrap();
                for line in text.lines() {
                    let record: serde_json::Value = serde_json::from_str(line).unwrap();
                    if record["event"] == "adjudication" {
                        let w = record["words"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string());
                        words.push(w.collect());
                    }
                }
            }
        }
        words
    }
}

/// The most common colour of an XWD image (ZPixmap, 32 bits a pixel), on a
/// grid of samples.
fn dominant_colour(xwd: &[u8]) -> (u8, u8, u8) {
    let field = |i: usize| u32::from_be_bytes(xwd[i * 4..i * 4 + 4].try_into().unwrap()) as usize;
    let (header, width, height, byte_order, bits, line, colours) =
        (field(0), field(4), field(5), field(7), field(11), field(12), field(19));
    assert_eq!(bits, 32, "Xvfb at depth 24 gives 32 bits a pixel");
    let data = &xwd[header + colours * 12..];
    let mut counts = std::collections::HashMap::new();
    for y in (0..height).step_by(8) {
        for x in (0..width).step_by(8) {
            let p = &data[y * line + x * 4..y * line + x * 4 + 4];
            let rgb = if byte_order == 0 { (p[2], p[1], p[0]) } else { (p[1], p[2], p[3]) };
            *counts.entry(rgb).or_insert(0usize) += 1;
        }
    }
    counts.into_iter().max_by_key(|(_, n)| *n).map(|(c, _)| c).unwrap_or_default()
}

fn have_tools() -> bool {
    ["Xvfb", "xdotool", "xwd"].iter().all(|tool| {
        std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
    })
}

#[test]
#[ignore = "needs Xvfb, xdotool and xwd"]
fn needs_xvfb_a_held_tab_leaves_the_verdict_and_an_over_count_is_never_glued() {
    assert!(have_tools(), "Xvfb, xdotool and xwd are needed");
    let desktop = start();
    // TAB held 1.5 s: X auto-repeats it after its delay.
    desktop.keys(&["2"]);
    desktop.type_text("cat dog");
    assert!(desktop.xdotool(&["keydown", "Tab"]));
    std::thread::sleep(Duration::from_millis(1500));
    assert!(desktop.xdotool(&["keyup", "Tab"]));
    std::thread::sleep(Duration::from_millis(700));
    let colour = desktop.dominant();
    assert!(colour == GREEN || colour == RED, "the verdict is still on screen 2.2 s after TAB went down: {colour:?}");
    assert_eq!(desktop.judged(), [["CAT", "DOG"]], "judged once");
    desktop.keys(&["Return"]);
    assert!(desktop.wait_for(NAVY, Duration::from_secs(5)), "ENTER ends it");

    // Two words declared, three typed: the third is refused, never glued on,
    // and the first TAB after it judges nothing (a miscount asks first).
    desktop.keys(&["2"]);
    desktop.type_text("cat dog zebra");
    desktop.keys(&["Tab"]);
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(desktop.judged().len(), 1, "the first TAB after a refused word judges nothing");
    desktop.keys(&["Tab"]);
    assert!(desktop.wait_for(GREEN, Duration::from_secs(5)) || desktop.dominant() == RED, "a verdict");
    let judged = desktop.judged();
    assert_eq!(judged.last().unwrap(), &["CAT", "DOG"], "the words judged are the words typed: {judged:?}");
    assert!(!judged.iter().flatten().any(|w| w.contains("DOGZEBRA")), "{judged:?}");
}

#[test]
#[ignore = "needs Xvfb, xdotool and xwd"]
fn needs_xvfb_a_fifo_in_the_audit_folder_neither_hangs_the_start_nor_sigterm() {
    assert!(have_tools(), "Xvfb, xdotool and xwd are needed");
    let mut desktop = start_on(
        "1280x720x24",
        |audit| {
            let c =
                std::ffi::CString::new(audit.join("challenge-counter").into_os_string().into_encoded_bytes()).unwrap();
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        },
        SERVICE,
    );
    // READY came and the out-of-service screen shows (start_on waited for
    // both): a counter that cannot be kept judges nothing, whatever is typed.
    desktop.keys(&["1"]);
    desktop.type_text("cat");
    desktop.keys(&["Tab"]);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(desktop.dominant(), SERVICE, "no verdict without its record");
    assert!(desktop.judged().is_empty(), "nothing judged: {:?}", desktop.judged());
    // SIGTERM ends it within 2 s.
    let pid = desktop.kiosk.0.id() as i32;
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let sent = Instant::now();
    while desktop.kiosk.0.try_wait().unwrap().is_none() {
        assert!(sent.elapsed() < Duration::from_secs(2), "SIGTERM not answered within 2 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
#[ignore = "needs Xvfb, xdotool and xwd"]
fn needs_xvfb_the_windowed_kiosk_opens_no_larger_than_an_800x480_screen() {
    assert!(have_tools(), "Xvfb, xdotool and xwd are needed");
    // READY and the Ready screen covering most of the screen (start_on waits for both).
    let desktop = start_on("800x480x24", |_| {}, NAVY);
    let out = Command::new("xdotool")
        .args(["search", "--name", "wordjudge", "getwindowgeometry", "--shell"])
        .env("DISPLAY", &desktop.display)
        .output()
        .expect("xdotool");
    let text = String::from_utf8_lossy(&out.stdout);
    let values = |key: &str| -> Vec<i64> { text.lines().filter_map(|l| l.strip_prefix(key)?.parse().ok()).collect() };
    let (x, y, w, h) = (values("X="), values("Y="), values("WIDTH="), values("HEIGHT="));
    assert!(!w.is_empty() && w.len() == h.len() && x.len() == w.len() && y.len() == w.len(), "no kiosk window: {text}");
    for i in 0..w.len() {
        assert!(w[i] <= 800 && h[i] <= 480, "the window is {}x{} on an 800x480 screen: {text}", w[i], h[i]);
        assert!(
            x[i] >= 0 && y[i] >= 0 && x[i] + w[i] <= 800 && y[i] + h[i] <= 480,
            "the window is off the screen: {text}"
        );
    }
    assert_eq!((w[0], h[0]), (800, 480), "as large as the screen allows");
}
