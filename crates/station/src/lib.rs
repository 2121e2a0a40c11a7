//! wordjudge-station: the kiosk players and directors see, on top of
//! `wordjudge-core` and Slint. Layers, each importing only from the ones
//! below it (`tests/layers.rs` reads the `use crate::` lines; the core is
//! below them all, and Cargo keeps it from importing any of them):
//!
//! 1. [`kiosk`]: the player-facing flow as a plain state machine, its typed
//!    port to the world, and the one mapping from state to words;
//! 2. [`ui`]: the Slint window, which only shows a view and hands keys back;
//! 3. [`app`]: the wiring — the real station, the controller, the main loop.

pub mod app;
pub mod desks;
pub mod kiosk;
pub mod ui;
