//! The one `Backend` both of the kiosk's pluggable ports are chosen by:
//! the USB sticks (`--usb system|folders:DIR|off`) and the station's
//! updates (`--updates system|sim:DIR|off`).
//!
//! Why here, below both: the two ports are neighbours of one layer and may
//! not import each other, yet the choice is the same for both: the
//! appliance's own way, the simulated twin working in a directory, or none.
//! Each port names its directory's kind (`folders`, `sim`), reads its
//! option through [`Backend::parse`] (so a typo is refused with the same
//! words and the valid values listed) and opens the backend itself.

use std::fmt;
use std::path::PathBuf;

/// Which implementation of a port the kiosk uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// `system`: the appliance's own way (udev and the helper units; RAUC).
    System,
    /// `KIND:DIR`: the simulated twin, working in this directory.
    Simulated(PathBuf),
    /// `off`: none.
    Off,
}

/// Why the option's text was refused; its message lists the valid values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendError {
    /// Not one of the values (`udisks`, `sim`, `folders:`: a kind without its
    /// directory is refused too, rather than read as the current directory).
    Unknown { given: String, kind: &'static str },
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendError::Unknown { given, kind } => {
                write!(f, "{given:?} is not a valid value: use system, {kind}:DIR (a directory) or off")
            }
        }
    }
}

impl std::error::Error for BackendError {}

impl Backend {
    /// Reads `text` as `system`, `off` or `KIND:DIR`, where `kind` is the
    /// port's word for its directory (`folders`, `sim`).
    pub fn parse(text: &str, kind: &'static str) -> Result<Backend, BackendError> {
        match text {
            "system" => Ok(Backend::System),
            "off" => Ok(Backend::Off),
            _ => match text.strip_prefix(kind).and_then(|rest| rest.strip_prefix(':')) {
                Some(dir) if !dir.is_empty() => Ok(Backend::Simulated(PathBuf::from(dir))),
                _ => Err(BackendError::Unknown { given: text.to_string(), kind }),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_forms_are_read() {
        assert_eq!(Backend::parse("system", "sim"), Ok(Backend::System));
        assert_eq!(Backend::parse("off", "sim"), Ok(Backend::Off));
        assert_eq!(Backend::parse("sim:/tmp/u", "sim"), Ok(Backend::Simulated("/tmp/u".into())));
        assert_eq!(Backend::parse("folders:rel/dir", "folders"), Ok(Backend::Simulated("rel/dir".into())));
    }

    #[test]
    fn bad_values_are_refused_naming_the_valid_ones() {
        for (bad, kind) in [
            ("udisks", "folders"),
            ("sim:", "sim"),
            ("sim", "sim"),
            ("folders:/x", "sim"),
            ("simx:/d", "sim"),
            ("", "folders"),
            ("System", "sim"),
        ] {
            let error = Backend::parse(bad, kind).unwrap_err();
            assert_eq!(error, BackendError::Unknown { given: bad.to_string(), kind });
            let text = error.to_string();
            for valid in ["system", &format!("{kind}:DIR"), "off"] {
                assert!(text.contains(valid), "{text} names {valid}");
            }
            assert!(text.contains(&format!("{bad:?}")), "{text} quotes what was given");
        }
    }
}
