//! The times an audit record carries, and where they come from.
//!
//! A Raspberry Pi has no real-time clock: until NTP answers, its wall clock
//! may be days off (or back at the last shutdown's time). So every record
//! carries, besides UTC wall time, the boot id and CLOCK_BOOTTIME (which only
//! moves forward within a boot, suspend included): records of one boot can
//! always be ordered and their spacing measured, whatever the wall clock did.
//! `clock_synced` says whether the kernel considers the wall clock
//! synchronized — `adjtimex(2)` read-only: not `TIME_ERROR` and `STA_UNSYNC`
//! clear. The kernel keeps that state for whichever daemon disciplines it
//! (systemd-timesyncd, chrony, ntpd), so no daemon-specific file is needed.

use jiff::Timestamp;

/// Where the audit log gets its times. [`SystemClock`] on a station; tests
/// substitute their own to step through days and ten-minute windows.
pub trait Clock: Send + Sync {
    /// Wall-clock time.
    fn now(&self) -> Timestamp;
    /// Nanoseconds since boot (CLOCK_BOOTTIME).
    fn boottime_ns(&self) -> u64;
    /// Whether the wall clock is known to be synchronized.
    fn synchronized(&self) -> bool;
    /// This boot's id (`/proc/sys/kernel/random/boot_id`).
    fn boot_id(&self) -> String;
}

/// The machine's own clocks.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }

    fn boottime_ns(&self) -> u64 {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime only writes the timespec we own.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
        if rc != 0 {
            return 0;
        }
        (ts.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec as u64)
    }

    fn synchronized(&self) -> bool {
        // SAFETY: an all-zero timex is valid; modes = 0 only reads the state.
        let mut tx: libc::timex = unsafe { std::mem::zeroed() };
        let state = unsafe { libc::adjtimex(&mut tx) };
        state >= 0 && state != libc::TIME_ERROR && tx.status & libc::STA_UNSYNC == 0
    }

    fn boot_id(&self) -> String {
        std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .map(|s| s.trim().to_string())
            .ok()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "unknown".to_string())
    }
}

/// A clock that moves only when told: for tests and rehearsals (days,
/// ten-minute windows and reboots without waiting for them).
#[derive(Debug)]
pub struct ManualClock {
    state: std::sync::Mutex<(Timestamp, u64, bool, String)>,
}

impl ManualClock {
    /// Starts at `time`, 1 s after boot `boot_id`, synchronized.
    pub fn new(time: Timestamp, boot_id: &str) -> ManualClock {
        ManualClock { state: std::sync::Mutex::new((time, 1_000_000_000, true, boot_id.to_string())) }
    }

    fn with<T>(&self, f: impl FnOnce(&mut (Timestamp, u64, bool, String)) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Moves wall clock and boot time forward together.
    pub fn advance(&self, by: std::time::Duration) {
        self.with(|s| {
            s.0 =
                s.0.checked_add(jiff::SignedDuration::try_from(by).unwrap_or(jiff::SignedDuration::MAX)).unwrap_or(s.0);
            s.1 = s.1.saturating_add(by.as_nanos() as u64);
        })
    }

    /// Steps only the wall clock (NTP correcting it, a wrong clock set).
    pub fn set_wall(&self, time: Timestamp) {
        self.with(|s| s.0 = time)
    }

    pub fn set_synchronized(&self, synced: bool) {
        self.with(|s| s.2 = synced)
    }

    /// A new boot: another boot id, boot time back near zero.
    pub fn reboot(&self, boot_id: &str) {
        self.with(|s| {
            s.1 = 1_000_000_000;
            s.3 = boot_id.to_string();
        })
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        self.with(|s| s.0)
    }
    fn boottime_ns(&self) -> u64 {
        self.with(|s| s.1)
    }
    fn synchronized(&self) -> bool {
        self.with(|s| s.2)
    }
    fn boot_id(&self) -> String {
        self.with(|s| s.3.clone())
    }
}

/// The times of one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub time: Timestamp,
    pub mono_ns: u64,
    pub synced: bool,
}

impl Stamp {
    pub fn take(clock: &dyn Clock) -> Stamp {
        Stamp { time: clock.now(), mono_ns: clock.boottime_ns(), synced: clock.synchronized() }
    }

    /// RFC 3339 UTC with milliseconds, e.g. `2025-05-01T12:03:27.123Z`.
    pub fn rfc3339(&self) -> String {
        format!("{:.3}", self.time)
    }
}

/// How far the wall clock may move apart from the boot clock between two
/// records of one boot before it counts as a jump. NTP slews a running
/// clock by at most 500 ppm (a minute takes 33 hours of slewing without a
/// record in between); only a clock that was set (by hand, or NTP stepping
/// one that started wrong) or broke moves by a minute at once.
pub const JUMP_THRESHOLD: std::time::Duration = std::time::Duration::from_secs(60);

/// How far the wall clock may go backwards between two records before it
/// counts as a jump whatever the boot clock says: records whose times run
/// backwards mislead whoever reads them in order.
const BACKWARDS_THRESHOLD: std::time::Duration = std::time::Duration::from_secs(1);

/// The times of one record as compared for clock jumps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moment<'a> {
    pub boot_id: &'a str,
    pub time: Timestamp,
    /// CLOCK_BOOTTIME, nanoseconds.
    pub mono_ns: u64,
}

/// A jump of the wall clock between two records of one boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Jump {
    /// What the wall clock would have read had it run with the boot clock.
    pub from: Timestamp,
    /// What it read.
    pub to: Timestamp,
    /// `to - from`, whole seconds (negative: set back).
    pub seconds: i64,
}

/// The jump of the wall clock between `before` and `after`, if it moved by
/// more than [`JUMP_THRESHOLD`] more or less than the boot clock, or went
/// backwards. One rule for the writer (which records it as `clock_jumped`)
/// and for `audit verify` (which lists every jump, recorded or not).
///
/// Only records of one boot are compared (the boot clock starts again at
/// each boot), and only when the boot clock moved forward between them
/// (records written late after a failing disk keep their earlier times).
pub fn jump_between(before: &Moment<'_>, after: &Moment<'_>) -> Option<Jump> {
    if before.boot_id != after.boot_id || before.boot_id.is_empty() || after.mono_ns < before.mono_ns {
        return None;
    }
    let elapsed = jiff::SignedDuration::from_nanos(i64::try_from(after.mono_ns - before.mono_ns).ok()?);
    let from = before.time.checked_add(elapsed).ok()?;
    let drift = after.time.duration_since(from);
    let backwards = after.time.duration_since(before.time);
    let threshold = jiff::SignedDuration::try_from(JUMP_THRESHOLD).ok()?;
    let back_threshold = jiff::SignedDuration::try_from(BACKWARDS_THRESHOLD).ok()?;
    if drift.abs() <= threshold && backwards >= -back_threshold {
        return None;
    }
    Some(Jump { from, to: after.time, seconds: drift.as_secs() })
}

/// A jump's size in words: `forward by 7200 s (about 2 hours)`, `back by 30 s`.
pub fn jump_text(seconds: i64) -> String {
    let way = if seconds < 0 { "back" } else { "forward" };
    let abs = seconds.unsigned_abs();
    let about = match abs {
        a if a >= 2 * 86_400 => format!(" (about {} days)", a / 86_400),
        a if a >= 2 * 3_600 => format!(" (about {} hours)", a / 3_600),
        a if a >= 120 => format!(" (about {} minutes)", a / 60),
        _ => String::new(),
    };
    format!("{way} by {abs} s{about}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jump_is_the_wall_clock_leaving_the_boot_clock_by_a_minute_or_going_back() {
        let t = |s: i64| Timestamp::from_second(1_800_000_000 + s).unwrap();
        let at = |boot: &'static str, s: i64, mono_s: u64| Moment {
            boot_id: boot,
            time: t(s),
            mono_ns: mono_s * 1_000_000_000,
        };
        // Ten minutes on both clocks, or a 59 s step: no jump.
        assert_eq!(jump_between(&at("a", 0, 10), &at("a", 600, 610)), None);
        assert_eq!(jump_between(&at("a", 0, 10), &at("a", 659, 610)), None);
        // Set forward by two hours between two records ten minutes apart.
        let jump = jump_between(&at("a", 0, 10), &at("a", 600 + 7200, 610)).unwrap();
        assert_eq!((jump.from, jump.to, jump.seconds), (t(600), t(7800), 7200));
        // Set back by a day.
        assert_eq!(jump_between(&at("a", 0, 10), &at("a", -86_400, 10)).unwrap().seconds, -86_400);
        // Back by 5 s within 10 s: small, but the times run backwards.
        assert_eq!(jump_between(&at("a", 0, 10), &at("a", -5, 20)).unwrap().seconds, -15);
        // Another boot, or a record written late: not compared.
        assert_eq!(jump_between(&at("a", 0, 10), &at("b", 9_999_999, 5)), None);
        assert_eq!(jump_between(&at("a", 0, 10), &at("a", 9_999_999, 5)), None);
        assert_eq!(jump_text(7200), "forward by 7200 s (about 2 hours)");
        assert_eq!(jump_text(-30), "back by 30 s");
    }

    #[test]
    fn system_clock_reads_real_values() {
        let clock = SystemClock;
        let a = clock.boottime_ns();
        let b = clock.boottime_ns();
        assert!(a > 0 && b >= a);
        let id = clock.boot_id();
        assert_eq!(id.len(), 36, "boot id {id:?}");
        // Whatever the answer, asking must not fail or panic.
        let _ = clock.synchronized();
        let stamp = Stamp { time: Timestamp::from_second(1_700_000_000).unwrap(), mono_ns: 1, synced: true };
        assert_eq!(stamp.rfc3339(), "2023-11-14T22:13:20.000Z");
    }
}
