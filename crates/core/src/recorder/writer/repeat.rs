//! `repeat_of`: the same words judged again within [`REPEAT_WINDOW`], so a
//! director sees a play challenged twice (a second try after a verdict).

use super::AuditLog;
use crate::audit::clock::Stamp;
use crate::recorder::scan::Recent;
use crate::recorder::{MAX_RECENT, REPEAT_WINDOW};

impl AuditLog {
    /// The most recent challenge with the same words, in the same order,
    /// within [`REPEAT_WINDOW`]. Within one boot, CLOCK_BOOTTIME measures the
    /// window (immune to clock steps); across a reboot only synchronized wall
    /// clocks are trusted.
    pub(super) fn repeat_of(&mut self, words: &[String], now: &Stamp) -> Option<u64> {
        // Oldest first: drop from the front until one is inside the window,
        // and keep at most MAX_RECENT (no station judges that many in ten
        // minutes; a benchmark does), so each record costs the same.
        while self.recent.front().is_some_and(|r| !within_window(r, &self.boot_id, now))
            || self.recent.len() > MAX_RECENT
        {
            self.recent.pop_front();
        }
        self.recent.iter().rev().find(|r| r.words == words && within_window(r, &self.boot_id, now)).map(|r| r.challenge)
    }
}

/// Whether `r` was judged within [`REPEAT_WINDOW`] before `now`. Within one
/// boot CLOCK_BOOTTIME measures it (immune to clock steps); across a reboot
/// only two synchronized wall clocks are trusted.
pub(super) fn within_window(r: &Recent, boot_id: &str, now: &Stamp) -> bool {
    let window = REPEAT_WINDOW.as_nanos();
    if r.boot_id == boot_id {
        now.mono_ns >= r.stamp.mono_ns && u128::from(now.mono_ns - r.stamp.mono_ns) <= window
    } else if r.stamp.synced && now.synced {
        let d = now.time.duration_since(r.stamp.time);
        !d.is_negative() && d.as_nanos() as u128 <= window
    } else {
        false
    }
}
