//! The simulated button and lamps, for tests and desktops (`--gpio sim`).
//!
//! [`SimHardware`] is what the kiosk owns; [`SimHandle`] is a cloneable handle
//! on the same state that a test (or the desktop UI) keeps to push raw button
//! edges in and read the lamps out. Edges go through the same [`Debouncer`]
//! as the Pi's, so a test that chatters the simulated button proves what the
//! real one does.

use super::{Debouncer, Hardware, Lamps};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

#[derive(Debug)]
struct SimState {
    debouncer: Debouncer,
    /// Debounced presses not yet taken by the kiosk.
    pending: u32,
    lamps: Lamps,
    /// Every change of the lamps, oldest first.
    history: Vec<Lamps>,
    /// Zero of the `*_now` methods' clock.
    origin: Instant,
    /// Whether the SimHardware was dropped (the kiosk exited).
    closed: bool,
}

type Shared = Arc<Mutex<SimState>>;

/// Locks the shared state; a test that panicked while holding the lock must
/// not make every later call panic too, and the state stays consistent.
fn lock(shared: &Shared) -> MutexGuard<'_, SimState> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The simulated hardware the kiosk owns; see the module docs. Dropping it
/// turns the lamps off, as the Pi's hardware does on a clean exit.
#[derive(Debug)]
pub struct SimHardware {
    shared: Shared,
    debounce: Duration,
}

/// A handle on a [`SimHardware`]: inject button edges, read the lamps.
#[derive(Debug, Clone)]
pub struct SimHandle {
    shared: Shared,
}

impl SimHardware {
    /// A simulated button (released) and lamps (off), with this debounce window.
    pub fn new(debounce: Duration) -> (SimHardware, SimHandle) {
        let shared = Arc::new(Mutex::new(SimState {
            debouncer: Debouncer::new(debounce),
            pending: 0,
            lamps: Lamps::OFF,
            history: Vec::new(),
            origin: Instant::now(),
            closed: false,
        }));
        (SimHardware { shared: Arc::clone(&shared), debounce }, SimHandle { shared })
    }

    /// Another handle on this hardware.
    pub fn handle(&self) -> SimHandle {
        SimHandle { shared: Arc::clone(&self.shared) }
    }
}

impl Hardware for SimHardware {
    fn take_presses(&mut self) -> u32 {
        std::mem::take(&mut lock(&self.shared).pending)
    }

    fn set_lamps(&mut self, lamps: Lamps) {
        lock(&self.shared).set_lamps(lamps);
    }

    fn describe(&self) -> String {
        format!("simulated button and lamps (debounce {} ms)", self.debounce.as_millis())
    }

    fn sim_handle(&self) -> Option<SimHandle> {
        Some(self.handle())
    }
}

impl Drop for SimHardware {
    fn drop(&mut self) {
        let mut state = lock(&self.shared);
        state.set_lamps(Lamps::OFF);
        state.closed = true;
    }
}

impl SimState {
    fn set_lamps(&mut self, lamps: Lamps) {
        if lamps != self.lamps {
            self.lamps = lamps;
            self.history.push(lamps);
        }
    }
}

impl SimHandle {
    /// A raw edge: the button's new level (true = pressed) at time `at` of
    /// the test's clock. Returns whether the debouncer counted a press (it
    /// is then waiting in [`Hardware::take_presses`]).
    pub fn edge(&self, pressed: bool, at: Duration) -> bool {
        let mut state = lock(&self.shared);
        let counted = state.debouncer.edge(pressed, at);
        if counted {
            state.pending = state.pending.saturating_add(1);
        }
        counted
    }

    /// The button goes down at `at`; returns whether that counted as a press.
    pub fn press_at(&self, at: Duration) -> bool {
        self.edge(true, at)
    }

    /// The button comes up at `at`.
    pub fn release_at(&self, at: Duration) {
        self.edge(false, at);
    }

    /// Time on the clock the `*_now` methods use: since the hardware was made.
    pub fn now(&self) -> Duration {
        lock(&self.shared).origin.elapsed()
    }

    /// The button goes down now (for a desktop UI's on-screen button).
    pub fn press_now(&self) -> bool {
        let at = self.now();
        self.edge(true, at)
    }

    /// The button comes up now.
    pub fn release_now(&self) {
        let at = self.now();
        self.edge(false, at);
    }

    /// Presses counted and not yet taken by the hardware's owner.
    pub fn pending_presses(&self) -> u32 {
        lock(&self.shared).pending
    }

    /// Whether the simulated button is down.
    pub fn is_pressed(&self) -> bool {
        lock(&self.shared).debouncer.is_pressed()
    }

    /// The lamps as lit now.
    pub fn lamps(&self) -> Lamps {
        lock(&self.shared).lamps
    }

    /// Every change of the lamps since the hardware was made, oldest first
    /// (setting the lamps to what they already are is not a change).
    pub fn lamp_history(&self) -> Vec<Lamps> {
        lock(&self.shared).history.clone()
    }

    /// Whether the [`SimHardware`] has been dropped (the kiosk exited).
    pub fn is_closed(&self) -> bool {
        lock(&self.shared).closed
    }
}
