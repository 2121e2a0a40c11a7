//! The one reading of a backend option that is `system`, `off` or
//! `KIND:DIR` (`--usb system|folders:DIR|off`, `--updates system|sim:DIR|off`).
//!
//! Why here, below both: the USB sticks and the station's updates are
//! neighbours of one layer and may not import each other, yet their options
//! are the same grammar. Each keeps its own `Backend` enum (what the
//! directory means differs), and both read the text through [`parse`], so a
//! typo is refused with the same words and the valid values listed.

use std::fmt;
use std::path::PathBuf;

/// What the option's text says, before a backend gives it a meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    /// `system`: the appliance's own way.
    System,
    /// `KIND:DIR`: the simulated twin, working in this directory.
    Dir(PathBuf),
    /// `off`: none.
    Off,
}

/// Why the option's text was refused; its message lists the valid values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecError {
    /// Not one of the values (`udisks`, `sim`, `folders:`: a kind without its
    /// directory is refused too, rather than read as the current directory).
    Unknown { given: String, kind: &'static str },
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::Unknown { given, kind } => {
                write!(f, "{given:?} is not a valid value: use system, {kind}:DIR (a directory) or off")
            }
        }
    }
}

impl std::error::Error for SpecError {}

/// Reads `text` as `system`, `off` or `KIND:DIR`, where `kind` is this
/// option's word for its directory (`folders`, `sim`).
pub fn parse(text: &str, kind: &'static str) -> Result<Spec, SpecError> {
    match text {
        "system" => Ok(Spec::System),
        "off" => Ok(Spec::Off),
        _ => match text.strip_prefix(kind).and_then(|rest| rest.strip_prefix(':')) {
            Some(dir) if !dir.is_empty() => Ok(Spec::Dir(PathBuf::from(dir))),
            _ => Err(SpecError::Unknown { given: text.to_string(), kind }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_forms_are_read() {
        assert_eq!(parse("system", "sim"), Ok(Spec::System));
        assert_eq!(parse("off", "sim"), Ok(Spec::Off));
        assert_eq!(parse("sim:/tmp/u", "sim"), Ok(Spec::Dir("/tmp/u".into())));
        assert_eq!(parse("folders:rel/dir", "folders"), Ok(Spec::Dir("rel/dir".into())));
    }

    #[test]
    fn bad_values_are_refused_naming_the_valid_ones() {
        for (bad, kind) in [("udisks", "folders"), ("sim:", "sim"), ("sim", "sim"), ("folders:/x", "sim"), ("simx:/d", "sim"), ("", "folders"), ("System", "sim")] {
            let error = parse(bad, kind).unwrap_err();
            assert_eq!(error, SpecError::Unknown { given: bad.to_string(), kind });
            let text = error.to_string();
            for valid in ["system", &format!("{kind}:DIR"), "off"] {
                assert!(text.contains(valid), "{text} names {valid}");
            }
            assert!(text.contains(&format!("{bad:?}")), "{text} quotes what was given");
        }
    }
}
