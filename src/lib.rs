//! wordjudge: the challenge self-lookup station of a word-game tournament.
//!
//! Layers, each importing only from the ones below it (a test in
//! `tests/layers.rs` checks the `use crate::` lines):
//!
//! 1. the core and the station's records and devices, nothing of screens,
//!    flows or command lines, in rows that again import only downward and
//!    never sideways:
//!    the one reading of the `--usb` and `--updates` values ([`backend_spec`]);
//!    foundations ([`word`], [`fingerprint`], [`digest`], [`panel`],
//!    [`profile`], [`pin`], [`outside_files`], [`shutdown`]);
//!    [`lexicon`], [`gpio`], [`usb`], [`update`], [`guard`]; [`judge`], [`config`]; the audit
//!    log's format ([`audit`]); its one writer ([`recorder`]) and its
//!    readers ([`inspect`]); the fleet's status from the records' journal
//!    copies ([`fleet`]);
//! 2. [`kiosk`]: the player-facing flow as a plain state machine, its typed
//!    port to the world, and the one mapping from state to words;
//! 3. [`ui`]: the Slint window, which only shows a view and hands keys back;
//! 4. [`app`]: the wiring — the real station, the controller, the main loop;
//! 5. the `wordjudge` command (`src/cli`, in the binary).

pub mod app;
pub mod audit;
pub mod backend_spec;
pub mod inspect;
pub mod config;
pub mod digest;
pub mod fingerprint;
pub mod fleet;
pub mod gpio;
pub mod guard;
pub mod judge;
pub mod keyboard;
pub mod kiosk;
pub mod lexicon;
pub mod outside_files;
pub mod panel;
pub mod pin;
pub mod recorder;
pub mod profile;
pub mod shutdown;
pub mod ui;
pub mod update;
pub mod usb;
pub mod word;
