//! The kiosk's logic, with no display and no files: the player-facing flow
//! ([`flow`]), the typed port it asks the world through ([`station`]), the
//! one mapping from its state to words on screen ([`view`]), and a station of
//! plain data for tests ([`fake`]).
//!
//! It imports only the layers below it (judge, config, panel, word); the
//! Slint window (`ui`) and the wiring (`app`) sit above it.

pub mod flow;
pub mod view;
