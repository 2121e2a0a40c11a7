//! The real kiosk (`wordjudge kiosk`, Slint's linuxkms backend) on a machine
//! with no DRM device, as on a Pi booted without a display or on QEMU's Pi 4
//! board model: it stays up out of service, calmly (no exit for systemd to
//! turn into a crash loop), writes one `display_problem` record, and ends
//! cleanly on SIGTERM.
//!
//! On a machine with a DRM device the kiosk would take the screen, so the
//! test is ignored there; the test command runs it where /dev/dri is absent.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
#[ignore = "needs a machine with no DRM device (the kiosk would take the screen); .ci/test runs it where /dev/dri is absent"]
fn needs_no_display_the_kiosk_with_no_screen_stays_out_of_service_calmly() {
    let dir = tempfile::tempdir().unwrap();
    let config = super::support::demo_station_config(dir.path(), "No screen");
    let mut kiosk = Command::new(crate::built::wordjudge())
        .args(["--config", config.to_str().unwrap(), "kiosk", "--gpio", "off"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("WORDJUDGE_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("wordjudge kiosk");
    let stdout = kiosk.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let first = rx.recv_timeout(Duration::from_secs(60));
    let alive_later = first.is_ok() && {
        std::thread::sleep(Duration::from_secs(3));
        kiosk.try_wait().unwrap().is_none()
    };
    let _ = Command::new("kill").args(["-TERM", &kiosk.id().to_string()]).status();
    let mut ended = None;
    for _ in 0..100 {
        if let Some(status) = kiosk.try_wait().unwrap() {
            ended = Some(status);
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    if ended.is_none() {
        let _ = kiosk.kill();
        let _ = kiosk.wait();
    }
    let first = first.expect("the kiosk printed nothing in 60 s");
    assert!(first.starts_with("WORDJUDGE OUT OF SERVICE station=No screen: no screen:"), "{first}");
    assert!(alive_later, "the kiosk must stay up with no screen, not exit into a restart loop");
    assert!(ended.is_some_and(|s| s.success()), "SIGTERM ends it cleanly: {ended:?}");

    let show = Command::new(crate::built::wordjudge())
        .args(["--config", config.to_str().unwrap(), "audit", "show"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&show.stdout);
    assert_eq!(text.matches("display_problem").count(), 1, "one display_problem record: {text}");
    assert_eq!(text.lines().count(), 2, "the key, then the one record, each on one line: {text}");
    let verify = Command::new(crate::built::wordjudge())
        .args(["--config", config.to_str().unwrap(), "audit", "verify"])
        .output()
        .unwrap();
    assert!(verify.status.success(), "{}", String::from_utf8_lossy(&verify.stdout));
}
