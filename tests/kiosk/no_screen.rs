//! The real kiosk (`wordjudge kiosk`, Slint's linuxkms backend) on a machine
//! with no DRM device, as on a Pi booted without a display or on QEMU's Pi 4
//! board model: it stays up out of service, calmly (no exit for systemd to
//! turn into a crash loop), writes one `display_problem` record, records
//! the boot check's verdicts after an update (waiting before it started, and
//! written while it waits: the director's record needs no screen), and ends
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
    // The boot check's verdict on the update that restarted the station (update/boot-check).
    let updates = dir.path().join("update");
    std::fs::create_dir_all(&updates).unwrap();
    let verdict = |version: &str| {
        format!("slot=A\nversion={version}\noutcome=rolled-back\ndetail=its one try ended before it was marked good\n")
    };
    std::fs::write(updates.join("boot-check"), verdict("0.2.0")).unwrap();
    let mut kiosk = Command::new(crate::built::wordjudge())
        .args(["--config", config.to_str().unwrap(), "kiosk", "--gpio", "off"])
        .arg("--updates")
        .arg(format!("sim:{}", updates.display()))
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
    // A second verdict while it waits (a boot check that ends after the kiosk started).
    let written_later = first.is_ok() && {
        std::thread::sleep(Duration::from_secs(1));
        std::fs::write(updates.join("boot-check"), verdict("0.3.0")).is_ok()
    };
    let alive_later = written_later && {
        std::thread::sleep(Duration::from_secs(5));
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
    let outcomes: Vec<&str> = text.lines().filter(|l| l.contains("update_outcome")).collect();
    assert_eq!(outcomes.len(), 2, "each verdict recorded once: {text}");
    assert!(outcomes[0].contains("0.2.0") && outcomes[1].contains("0.3.0"), "{outcomes:?}");
    assert!(outcomes.iter().all(|l| l.contains("rolled-back")), "{outcomes:?}");
    assert!(!updates.join("boot-check").exists(), "the verdict file is marked recorded");
    assert_eq!(text.lines().count(), 4, "the key, then the three records, each on one line: {text}");
    let verify = Command::new(crate::built::wordjudge())
        .args(["--config", config.to_str().unwrap(), "audit", "verify"])
        .output()
        .unwrap();
    assert!(verify.status.success(), "{}", String::from_utf8_lossy(&verify.stdout));
}
