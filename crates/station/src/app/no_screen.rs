//! The kiosk with no screen to draw on: out of service, calmly.
//!
//! A Pi booted without a display (HDMI unplugged, a panel cable loose, a
//! board model whose display the kernel cannot drive) has no DRM device, or
//! one with nothing connected, and Slint's linuxkms backend cannot open a
//! window. Exiting would make systemd restart the kiosk once a second for
//! ever: a crash loop that fills the journal and, on a card, wears it. So
//! the kiosk stays up instead: it records one `display_problem` audit
//! record (and the boot check's verdict after an update, as the live
//! station would: it is the director's record), lights the service lamp,
//! tells systemd it is ready (with the reason as its status) and keeps
//! feeding the watchdog. It watches the
//! display devices, and when they change (a driver probed, a monitor
//! plugged in) it ends cleanly, so systemd starts it again with the screen.
//!
//! Nothing here judges: with no screen there is no verdict to show.

use crate::desks::updates::boot_check::{BootCheckRecorder, Looked};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use wordjudge_core::audit::AuditEvent;
use wordjudge_core::config::Loaded;
use wordjudge_core::gpio::{self, Backend};
use wordjudge_core::panel::Lamps;
use wordjudge_core::recorder::AuditLog;

/// How often the display devices are looked at again.
const LOOK_AGAIN: Duration = Duration::from_secs(2);

/// What the display hardware looks like now: the DRM device nodes under
/// `dev_dri` and each connector's status under `sys_drm`. Two readings
/// differ when a display driver probes or a monitor is plugged in or out.
pub fn screen_fingerprint(dev_dri: &Path, sys_drm: &Path) -> String {
    let mut parts: Vec<String> = std::fs::read_dir(dev_dri)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for entry in std::fs::read_dir(sys_drm).into_iter().flatten().flatten() {
        let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
        if !status.is_empty() {
            parts.push(format!("{}={}", entry.file_name().to_string_lossy(), status.trim()));
        }
    }
    parts.sort();
    parts.join(" ")
}

fn screen_now() -> String {
    screen_fingerprint(Path::new("/dev/dri"), Path::new("/sys/class/drm"))
}

/// Stays out of service until the display devices change or systemd stops
/// the kiosk; `problem` says why no window could be opened; `update_state`,
/// the update folder where the boot check leaves its verdict. Returns when
/// the kiosk should end (and, under systemd, be started again).
pub fn stay_out_of_service(
    loaded: &Loaded,
    gpio_backend: Backend,
    update_state: Option<&Path>,
    problem: &str,
    stop: &AtomicBool,
    tick: Duration,
) {
    let config = &loaded.config;
    let before = screen_now();
    // Slint lists every device it tried, one per line: one line for the record and console.
    let problem = problem.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
    let problem = problem.as_str();
    tracing::error!("no screen: {problem}; the station is out of service until a screen appears");
    let (mut hardware, gpio_problem) = gpio::open(&config.gpio, gpio_backend);
    if let Some(p) = gpio_problem {
        tracing::warn!("GPIO: {p}");
    }
    hardware.set_lamps(Lamps { service: true, ..Lamps::default() });
    // One record per start: with no crash loop, one per boot or per change.
    let mut audit = match loaded.usable() {
        true => match AuditLog::open(&config.audit_dir, &config.station_name) {
            Ok(mut log) => {
                log.record_event(AuditEvent::DisplayProblem { problem: problem.to_string() });
                Some(log)
            }
            Err(busy) => {
                tracing::error!("cannot record the missing screen: {busy}");
                None
            }
        },
        false => None,
    };
    let status = format!("out of service: no screen ({problem})");
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Ready, sd_notify::NotifyState::Status(&status)]);
    println!(
        "WORDJUDGE OUT OF SERVICE station={}: no screen: {problem}",
        wordjudge_core::word::printable(&config.station_name, 80)
    );

    // The boot check may write its verdict before or after this start; a
    // verdict file that cannot be marked recorded is not looked at again.
    let mut boot_check = BootCheckRecorder::default();
    let mut verdicts = update_state;
    let mut record_verdict = || {
        if let (Some(log), Some(dir)) = (audit.as_mut(), verdicts) {
            if let Looked::RecordedStopLooking(_) = boot_check.look(dir, log) {
                verdicts = None;
            }
        }
    };
    record_verdict();

    let watchdog = sd_notify::watchdog_enabled();
    let mut last_ping = Instant::now();
    let mut last_look = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(tick);
        if let Some(interval) = watchdog {
            if last_ping.elapsed() >= interval / 2 {
                let _ = sd_notify::notify(&[sd_notify::NotifyState::Watchdog]);
                last_ping = Instant::now();
            }
        }
        if last_look.elapsed() >= LOOK_AGAIN {
            last_look = Instant::now();
            record_verdict();
            if screen_now() != before {
                tracing::info!("the display devices changed: starting again to open the screen");
                break;
            }
        }
    }
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Stopping]);
    hardware.set_lamps(Lamps::default());
    drop(audit);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_drm_device_or_a_plugged_monitor_changes_the_fingerprint() {
        let root = tempfile::tempdir().unwrap();
        let dev = root.path().join("dev-dri");
        let sys = root.path().join("sys-drm");
        // No /dev/dri at all: the Pi 4 board model, a Pi with no display driver.
        let nothing = screen_fingerprint(&dev, &sys);
        assert_eq!(nothing, screen_fingerprint(&dev, &sys), "the same hardware reads the same");
        std::fs::create_dir_all(&dev).unwrap();
        std::fs::write(dev.join("card0"), "").unwrap();
        let card = screen_fingerprint(&dev, &sys);
        assert_ne!(nothing, card, "a DRM device appearing is a change");
        std::fs::create_dir_all(sys.join("card0-HDMI-A-1")).unwrap();
        std::fs::write(sys.join("card0-HDMI-A-1/status"), "disconnected\n").unwrap();
        let unplugged = screen_fingerprint(&dev, &sys);
        std::fs::write(sys.join("card0-HDMI-A-1/status"), "connected\n").unwrap();
        let plugged = screen_fingerprint(&dev, &sys);
        assert_ne!(unplugged, plugged, "a monitor plugged in is a change");
        assert!(plugged.contains("card0-HDMI-A-1=connected"), "{plugged}");
    }
}
