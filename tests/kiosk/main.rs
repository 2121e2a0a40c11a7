//! The kiosk: its flow on the fake station, the live station, USB sticks, random key streams, and the real windowed kiosk under Xvfb.
//!
//! One binary per subject links wordjudge (and Slint) once instead of once per file.

mod support;
mod flow;
mod flow_props;
mod live;
mod usb;
mod windowed;
