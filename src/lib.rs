//! wordjudge: the challenge self-lookup station of a word-game tournament.
//!
//! Layers, each importing only from the ones below it (a test in
//! `tests/layers.rs` checks the `use crate::` lines):
//!
//! 1. the core — [`word`], [`fingerprint`], [`digest`], [`lexicon`],
//!    [`judge`] — and the station's records and devices — [`audit`], [`gpio`], [`usb`],
//!    [`panel`], [`profile`], [`config`], [`pin`], [`atomic_file`], [`shutdown`]: nothing
//!    of screens, flows or command lines;
//! 2. [`kiosk`]: the player-facing flow as a plain state machine, its typed
//!    port to the world, and the one mapping from state to words;
//! 3. [`ui`]: the Slint window, which only shows a view and hands keys back;
//! 4. [`app`]: the wiring — the real station, the controller, the main loop;
//! 5. the `wordjudge` command (`src/cli`, in the binary).

pub mod app;
pub mod atomic_file;
pub mod audit;
pub mod bounded;
pub mod config;
pub mod digest;
pub mod fingerprint;
pub mod gpio;
pub mod judge;
pub mod kiosk;
pub mod lexicon;
pub mod panel;
pub mod pin;
pub mod profile;
pub mod shutdown;
pub mod ui;
pub mod usb;
pub mod word;
