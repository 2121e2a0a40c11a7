//! wordjudge: the challenge self-lookup station of a word-game tournament.
//!
//! The core — [`word`], [`fingerprint`], [`lexicon`], [`judge`] — knows
//! nothing of screens, buttons or logs. [`kiosk`] is the player-facing flow as
//! a plain state machine; [`ui`] shows it with Slint; [`audit`] keeps the
//! record a director can trust; [`gpio`] is the judge button and lamps.

pub mod atomic_file;
pub mod audit;
pub mod config;
pub mod digest;
pub mod fingerprint;
pub mod gpio;
pub mod judge;
pub mod kiosk;
pub mod lexicon;
pub mod panel;
pub mod pin;
pub mod shutdown;
pub mod ui;
pub mod word;
