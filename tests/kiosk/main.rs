//! The kiosk: its flow on the fake station (players in `flow`, the director in `director`), the live station (`live`, its sticks in `live_usb`, its updates in `live_update`), event profiles by rule and edition (`profiles`), USB sticks on the fake, random key streams, and the real windowed kiosk under Xvfb.
//!
//! One binary per subject links wordjudge (and Slint) once instead of once per file.

#[path = "../common/built.rs"]
mod built;
mod card_damage;
mod damage;
mod director;
mod fleet;
mod flow;
mod flow_props;
mod hands;
mod live;
mod live_trust;
mod live_update;
mod live_usb;
mod menu_props;
mod no_screen;
mod not_judging;
mod profiles;
mod support;
mod touch;
mod update;
mod usb;
mod windowed;
