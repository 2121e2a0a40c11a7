//! Turning raw button edges into presses.
//!
//! A mechanical button does not switch cleanly: its contacts bounce for a few
//! milliseconds on the way down and again on the way up, and an arcade button
//! on a long lead picks up spikes. The station must judge once per press, and
//! must never judge on the release, so the [`Debouncer`] counts a press only
//! on an edge to "pressed":
//!
//! - when the button was released before it (a held button is one press), and
//! - when the line had been quiet, with no edge of either kind, for the whole
//!   debounce window before it.
//!
//! The second rule is stricter than "no press within the window": measuring
//! from the last edge of any kind also swallows the bounce of a *release*
//! (released, pressed, released within a few ms), which would otherwise count
//! as a second press long after the first. The price is that a real press
//! less than the window after a release is lost, and no person presses that
//! fast.
//!
//! The debouncer is pure: it is fed levels with timestamps (any monotonic
//! clock: the kernel's event timestamps on the Pi, made-up times in tests), so
//! the simulated and the real backend behave the same and the tests can prove it.

use std::time::Duration;

/// Counts debounced presses from raw level edges; see the module docs.
#[derive(Debug, Clone)]
pub struct Debouncer {
    window: Duration,
    pressed: bool,
    last_edge: Option<Duration>,
}

impl Debouncer {
    /// A debouncer for a button that starts released.
    pub fn new(window: Duration) -> Self {
        Debouncer::with_level(window, false)
    }

    /// A debouncer for a button whose level is known: a button held (or
    /// stuck, or wired with the wrong polarity) at start must be released
    /// before it can count.
    pub fn with_level(window: Duration, pressed: bool) -> Self {
        Debouncer { window, pressed, last_edge: None }
    }

    /// The debounce window.
    pub fn window(&self) -> Duration {
        self.window
    }

    /// The last raw level fed in (true = pressed).
    pub fn is_pressed(&self) -> bool {
        self.pressed
    }

    /// Feeds one raw edge: the button's new level (true = pressed) at time
    /// `at`. Returns whether this edge counts as a press. Edges that repeat
    /// the current level (a lost event) still restart the quiet window, and
    /// an edge timestamped before the previous one counts as within it.
    pub fn edge(&mut self, pressed: bool, at: Duration) -> bool {
        let quiet = match self.last_edge {
            None => true,
            Some(previous) => at.checked_sub(previous).is_some_and(|gap| gap >= self.window),
        };
        let counts = pressed && !self.pressed && quiet;
        self.pressed = pressed;
        self.last_edge = Some(self.last_edge.map_or(at, |previous| previous.max(at)));
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: Duration = Duration::from_millis(30);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Feeds (level, ms) edges and returns how many presses they count.
    fn presses(debouncer: &mut Debouncer, edges: &[(bool, u64)]) -> usize {
        edges.iter().filter(|&&(level, at)| debouncer.edge(level, ms(at))).count()
    }

    #[test]
    fn a_clean_press_counts_once_on_the_way_down() {
        let mut d = Debouncer::new(WINDOW);
        assert!(d.edge(true, ms(1000)));
        assert!(d.is_pressed());
        assert!(!d.edge(false, ms(1150)), "a release never counts");
    }

    #[test]
    fn chatter_within_the_window_counts_once() {
        let mut d = Debouncer::new(WINDOW);
        let chatter = [(true, 100), (false, 102), (true, 104), (false, 109), (true, 111), (false, 250)];
        assert_eq!(presses(&mut d, &chatter), 1);
    }

    #[test]
    fn chatter_longer_than_the_window_still_counts_once() {
        // Bounces every 10 ms for 100 ms: each gap is inside the window.
        let mut d = Debouncer::new(WINDOW);
        let edges: Vec<(bool, u64)> = (0..10).map(|i| (i % 2 == 0, 500 + i * 10)).chain([(true, 600)]).collect();
        assert_eq!(presses(&mut d, &edges), 1);
    }

    #[test]
    fn a_held_button_counts_once() {
        let mut d = Debouncer::new(WINDOW);
        assert_eq!(presses(&mut d, &[(true, 0)]), 1);
        // A lost release event: a second "pressed" while pressed is no press.
        assert_eq!(presses(&mut d, &[(true, 5000), (true, 9000)]), 0);
        assert_eq!(presses(&mut d, &[(false, 12_000)]), 0);
    }

    #[test]
    fn presses_further_apart_than_the_window_count_twice() {
        let mut d = Debouncer::new(WINDOW);
        assert_eq!(presses(&mut d, &[(true, 0), (false, 80), (true, 200), (false, 290)]), 2);
    }

    #[test]
    fn release_bounce_is_not_a_second_press() {
        let mut d = Debouncer::new(WINDOW);
        // Pressed at 0, held 2 s, released with bounce at 2000..2006.
        let edges = [(true, 0), (false, 2000), (true, 2003), (false, 2006)];
        assert_eq!(presses(&mut d, &edges), 1);
    }

    #[test]
    fn a_press_right_after_a_release_is_swallowed() {
        let mut d = Debouncer::new(WINDOW);
        assert_eq!(presses(&mut d, &[(true, 0), (false, 100), (true, 120)]), 1);
        // ... and the next real press, after a quiet window, counts.
        assert_eq!(presses(&mut d, &[(false, 200), (true, 300)]), 1);
    }

    #[test]
    fn exactly_one_window_apart_counts() {
        let mut d = Debouncer::new(WINDOW);
        assert_eq!(presses(&mut d, &[(true, 0), (false, 30), (true, 60)]), 2);
    }

    #[test]
    fn a_button_held_at_start_must_be_released_first() {
        let mut d = Debouncer::with_level(WINDOW, true);
        assert!(!d.edge(true, ms(10)));
        assert!(!d.edge(false, ms(500)));
        assert!(d.edge(true, ms(900)));
    }

    #[test]
    fn time_going_backwards_counts_as_within_the_window() {
        let mut d = Debouncer::new(WINDOW);
        assert!(d.edge(true, ms(1000)));
        assert!(!d.edge(false, ms(1100)));
        assert!(!d.edge(true, ms(900)), "an earlier timestamp is never a quiet gap");
        assert!(!d.edge(false, ms(1110)));
        assert!(d.edge(true, ms(1200)), "the quiet window runs from the latest edge seen");
    }

    #[test]
    fn zero_window_counts_every_press() {
        let mut d = Debouncer::new(Duration::ZERO);
        assert_eq!(presses(&mut d, &[(true, 0), (false, 1), (true, 2), (false, 3), (true, 3)]), 3);
    }
}
