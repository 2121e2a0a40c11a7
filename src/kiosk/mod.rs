//! The kiosk: the player-facing flow ([`flow`]), what it needs from the world
//! ([`station`]), and the real station behind it ([`live`]).

pub mod flow;
pub mod live;
pub mod station;
pub mod view;
