//! The screen's settings: how far the picture is turned (`rotation`),
//! whether the player's screens show touch targets (`touch`), and which
//! connector shows the kiosk (`display_output`), each checked as it is read.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Whether the player's screens show touch targets (see [`Config::touch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Touch {
    /// When the appliance finds a touchscreen at start (never on a desktop).
    #[default]
    Auto,
    On,
    Off,
}

impl Touch {
    /// Whether the targets show, given whether a touchscreen was found.
    pub fn shown(self, touchscreen_found: bool) -> bool {
        match self {
            Touch::Auto => touchscreen_found,
            Touch::On => true,
            Touch::Off => false,
        }
    }
}

/// The values `rotation` may take, in degrees clockwise.
pub const ROTATIONS: [u16; 4] = [0, 90, 180, 270];

/// Why `rotation` cannot be `value`: the valid values.
pub(super) fn rotation_refused(value: impl fmt::Display) -> String {
    format!("rotation = {value} is not one of 0, 90, 180, 270 (degrees the picture is turned clockwise)")
}

/// Reads `rotation`: any value that is not one of [`ROTATIONS`] (another
/// number, a string, a fraction) is refused with the valid ones.
pub(super) fn rotation_degrees<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u16, D::Error> {
    let value = toml::Value::deserialize(d)?;
    match value.as_integer().and_then(|n| u16::try_from(n).ok()) {
        Some(degrees) if ROTATIONS.contains(&degrees) => Ok(degrees),
        _ => Err(serde::de::Error::custom(rotation_refused(value))),
    }
}

/// The kinds of display connector the kernel names (`drm_connector.c`), as
/// `display_output` spells them: the kind, a dash and its number.
pub const CONNECTOR_KINDS: &[&str] = &[
    "HDMI-A",
    "HDMI-B",
    "DSI",
    "DPI",
    "DP",
    "eDP",
    "DVI-I",
    "DVI-D",
    "DVI-A",
    "VGA",
    "LVDS",
    "Composite",
    "SVIDEO",
    "Component",
    "DIN",
    "TV",
    "Virtual",
    "SPI",
    "USB",
    "Unknown",
];

/// Whether `name` names a display connector as the kernel does
/// (`HDMI-A-1`, `DSI-1`): one of [`CONNECTOR_KINDS`], a dash and a number.
pub fn check_display_output(name: &str) -> Result<(), String> {
    let known = name.rsplit_once('-').is_some_and(|(kind, number)| {
        CONNECTOR_KINDS.contains(&kind)
            && !number.is_empty()
            && number.len() <= 3
            && number.bytes().all(|b| b.is_ascii_digit())
    });
    if known {
        return Ok(());
    }
    Err(format!(
        "display_output = {name:?} is not a display connector: write a kind ({}), a dash and its number, \
         as the kernel names it, e.g. HDMI-A-1, HDMI-A-2 or DSI-1; or leave it out for the first connected screen",
        CONNECTOR_KINDS.join(", ")
    ))
}
