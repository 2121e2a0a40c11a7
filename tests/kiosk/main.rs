//! The kiosk: its flow on the fake station (players in `flow`, the director in `director`), the live station (`live`, its sticks in `live_usb`, its updates in `live_update`), event profiles by rule and edition (`profiles`), USB sticks on the fake, random key streams, and the real windowed kiosk under Xvfb.
//!
//! One binary per subject links wordjudge (and Slint) once instead of once per file.

#[path = "../common/built.rs"]
mod built;
mod support;
mod director;
mod fleet;
mod flow;
mod flow_props;
mod hands;
mod menu_props;
mod live;
mod not_judging;
mod damage;
mod card_damage;
mod live_usb;
mod live_update;
mod profiles;
mod live_trust;
mod no_screen;
mod update;
mod usb;
mod windowed;
