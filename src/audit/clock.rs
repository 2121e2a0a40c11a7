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

#[cfg(test)]
mod tests {
    use super::*;

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
