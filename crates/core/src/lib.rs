//! wordjudge-core: everything the station knows that is not a screen, a
//! flow or a command line. The word lists and judging, the config, the
//! station's devices behind small traits (GPIO, USB sticks, updates,
//! keyboards), the audit log's format, its one writer and its readers, and
//! the event fleet's status. It links no GUI or input library, so the
//! `wordjudge` command line (`wordjudge-cli`) is built on it alone, and the
//! kiosk (`wordjudge-station`) on top of it.
//!
//! Layers inside this crate, each importing only from the ones below it and
//! never from a neighbour in its row (`tests/layers.rs` reads the
//! `use crate::` lines; Cargo keeps the station and the command line out):
//! the one [`backend`] choice of the `--usb` and `--updates` ports;
//! foundations ([`word`], [`fingerprint`], [`digest`], [`panel`],
//! [`profile`], [`pin`], [`outside_files`], [`shutdown`]);
//! [`lexicon`], [`gpio`], [`usb`], [`update`], [`guard`], [`keyboard`];
//! [`judge`], [`config`]; the audit log's format ([`audit`]); its one
//! writer ([`recorder`]) and its readers ([`inspect`]); the fleet's status
//! from the records' journal copies ([`fleet`]).

pub mod audit;
pub mod backend;
pub mod config;
pub mod digest;
pub mod fingerprint;
pub mod fleet;
pub mod gpio;
pub mod guard;
pub mod inspect;
pub mod judge;
pub mod keyboard;
pub mod lexicon;
pub mod outside_files;
pub mod panel;
pub mod pin;
pub mod profile;
pub mod recorder;
pub mod shutdown;
pub mod update;
pub mod usb;
pub mod word;
