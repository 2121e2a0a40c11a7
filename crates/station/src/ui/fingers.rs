//! Which taps count: one finger's. Slint's touch handling turns a second
//! finger into a release of the first (and, once it lifts, a press again),
//! so a finger resting on Q while another touches the screen types Q twice;
//! and a touch libinput cancels (a palm) ends as a release too. On the
//! console the kiosk sees the raw libinput touch events before Slint does
//! (the backend's event hook) and keeps this record of them: from the moment
//! a second finger lands or a touch is cancelled until the next touch that
//! begins with no finger down, every tap is spoiled and the window hands
//! none of them on ([`super::on_key_event`]). A desktop window (a mouse, or
//! a touchscreen through the window system) never feeds it, so nothing
//! there is spoiled.

use std::cell::RefCell;

/// The touches down now, by libinput slot, and whether this run of touches
/// had more than one finger (or a cancelled touch).
#[derive(Debug, Default)]
pub struct Fingers {
    down: Vec<i32>,
    spoiled: bool,
}

impl Fingers {
    /// A finger landed in `slot`.
    pub fn down(&mut self, slot: i32) {
        if self.down.is_empty() {
            // A new run of touches: what the last one spoiled is over.
            self.spoiled = false;
        }
        if !self.down.contains(&slot) {
            self.down.push(slot);
        }
        if self.down.len() > 1 {
            self.spoiled = true;
        }
    }

    /// The finger in `slot` lifted.
    pub fn up(&mut self, slot: i32) {
        self.down.retain(|&s| s != slot);
    }

    /// libinput cancelled the touch in `slot` (a palm, a device gone).
    pub fn cancel(&mut self, slot: i32) {
        self.spoiled = true;
        self.up(slot);
    }

    /// Whether a tap finished now must type nothing. It stays so after the
    /// last finger lifts: Slint turns that lift into the tap after the
    /// event hook has run.
    pub fn spoiled(&self) -> bool {
        self.spoiled
    }
}

thread_local! {
    // The event hook and the window's callbacks both run on the UI thread.
    static FINGERS: RefCell<Fingers> = RefCell::new(Fingers::default());
}

/// Feeds the UI thread's record (the libinput event hook calls it).
pub fn with_fingers<T>(f: impl FnOnce(&mut Fingers) -> T) -> T {
    FINGERS.with(|fingers| f(&mut fingers.borrow_mut()))
}

/// Whether a tap finished now on the UI thread must type nothing.
pub fn tap_spoiled() -> bool {
    with_fingers(|fingers| fingers.spoiled())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_finger_taps_count_and_a_second_finger_spoils_the_run_until_a_fresh_touch() {
        let mut f = Fingers::default();
        f.down(0);
        assert!(!f.spoiled(), "one finger");
        f.up(0);
        assert!(!f.spoiled(), "its tap counts");
        // A finger on Q, another lands, lifts, then the first lifts: every
        // tap Slint makes of that is spoiled, the last one included.
        f.down(0);
        f.down(1);
        assert!(f.spoiled());
        f.up(1);
        assert!(f.spoiled(), "the first finger's press again");
        f.up(0);
        assert!(f.spoiled(), "the first finger's release");
        // The next touch that begins with no finger down is a tap again.
        f.down(3);
        assert!(!f.spoiled());
        f.up(3);
        assert!(!f.spoiled());
    }

    #[test]
    fn a_cancelled_touch_spoils_its_run_and_a_repeated_down_is_one_finger() {
        let mut f = Fingers::default();
        f.down(0);
        f.cancel(0);
        assert!(f.spoiled(), "a palm types nothing");
        f.down(0);
        f.down(0);
        assert!(!f.spoiled(), "the same slot twice is one finger");
        f.up(0);
        assert!(!f.spoiled());
    }
}
