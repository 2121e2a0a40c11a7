//! The station's panel as plain data: what pressed judge ([`Trigger`]) and
//! which verdict lamps are lit ([`Lamps`]).
//!
//! Why a module of its own: the audit log records the trigger, the GPIO
//! backends drive the lamps and the kiosk flow decides both. Kept here, at the
//! bottom of the crate, every one of them imports it downward and none of them
//! has to import another.

/// What pressed judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// The TAB key.
    Keyboard,
    /// The physical judge button.
    Button,
    /// The JUDGE target on a touchscreen.
    Touch,
}

impl Trigger {
    /// The word the audit log and journald use (`keyboard`, `button`,
    /// `touch`).
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Keyboard => "keyboard",
            Trigger::Button => "button",
            Trigger::Touch => "touch",
        }
    }
}

/// Which lamps are lit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Lamps {
    pub green: bool,
    pub red: bool,
    pub service: bool,
}

impl Lamps {
    /// All lamps off.
    pub const OFF: Lamps = Lamps { green: false, red: false, service: false };
}
