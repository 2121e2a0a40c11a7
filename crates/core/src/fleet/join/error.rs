//! Why a visit of the fleet stick changed nothing ([`JoinError`]): each
//! variant names what was wrong, on the stick or in the station's folder,
//! and keeps its cause.

use super::short;
use crate::fleet::ca::CaError;
use crate::fleet::stick::StickError;
use std::fmt;
use std::path::PathBuf;

/// Why a visit changed nothing.
#[derive(Debug)]
pub enum JoinError {
    /// The stick has no fleet folder.
    NotAFleetStick(PathBuf),
    /// `fleet.toml` is missing or out of form.
    FleetFile(PathBuf, StickError),
    /// The station name cannot be a certificate's name.
    StationName(StickError),
    /// `ca.pem` on the stick is not the certificate `fleet.toml` names.
    CaSwapped { named: String, found: String },
    /// The station is in another event's fleet.
    OtherEvent { joined: String, stick: String },
    /// The certificate on the stick for this station is not one to install.
    Certificate { file: PathBuf, problem: String },
    /// The laptop is named by a host name: a station resolves no names.
    LaptopByName(String),
    /// A file could not be read or written.
    Io(PathBuf, std::io::Error),
    /// A file on the stick is not one to read: missing, a link, a FIFO, a
    /// device, a folder, too large (the stick's files are read only through
    /// [`crate::outside_files`], never followed, never waited on).
    StickFile(crate::outside_files::BoundedReadError),
    /// A folder on the stick is not a real folder (a link): nothing is read
    /// from it or written into it.
    StickFolder(PathBuf),
    /// The stick's `ca.pem` holds more than the one certificate `fleet.toml`
    /// names (a second CA appended would be trusted by openssl too).
    CaNotAlone { certificates: usize },
    /// `fleet.toml` has no signature of the event's CA beside it, or one
    /// that does not hold: someone edited it, or the stick is not one
    /// `fleet setup` made.
    FleetUnsigned { problem: String },
    /// openssl could not make the key or request, or read a certificate.
    Openssl(CaError),
    /// A file of the station's own fleet folder could not be read (read
    /// the one bounded way, [`crate::outside_files`], like any other).
    Read(crate::outside_files::BoundedReadError),
    /// The fleet folder holds a file this module did not write in that form.
    Damaged(PathBuf, String),
    /// The station's audit key cannot be read: the laptop could prove none
    /// of its records, so it does not join.
    NoAuditKey(String),
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JoinError::NotAFleetStick(dir) => write!(
                f,
                "this stick has no fleet folder ({}): make a fleet stick on the event's laptop (its fleet setup)",
                dir.display()
            ),
            JoinError::FleetFile(path, e) => write!(f, "the fleet stick's {}: {e}", path.display()),
            JoinError::StationName(e) => write!(f, "{e}"),
            JoinError::CaSwapped { named, found } => write!(
                f,
                "the stick's ca.pem is not the event's CA: fleet.toml names {}, the file is {}; \
                 make the stick again on the event's laptop",
                short(named),
                short(found)
            ),
            JoinError::OtherEvent { joined, stick } => write!(
                f,
                "this station is in the fleet of {}; leave it first to join {}",
                crate::word::quote(joined),
                crate::word::quote(stick)
            ),
            JoinError::Certificate { file, problem } => {
                write!(f, "the certificate {} is refused: {problem}", file.display())
            }
            JoinError::LaptopByName(host) => write!(
                f,
                "the laptop is named {}, and a station resolves no names: make the stick with the laptop's IP address \
                 (its fleet setup given an address such as 192.168.10.2)",
                crate::word::quote(host)
            ),
            JoinError::Io(path, e) => write!(f, "{}: {e}", path.display()),
            JoinError::StickFile(e) => write!(f, "the fleet stick's {e}"),
            JoinError::StickFolder(path) => {
                write!(
                    f,
                    "the fleet stick's {} is not a real folder (a link): nothing is read from it or written to it",
                    path.display()
                )
            }
            JoinError::FleetUnsigned { problem } => write!(
                f,
                "the stick's fleet.toml is not signed by its event's CA ({problem}): make the stick again on the \
                 event's laptop"
            ),
            JoinError::CaNotAlone { certificates } => write!(
                f,
                "the stick's ca.pem holds {certificates} certificates, not the event's one: make the stick again on the \
                 event's laptop"
            ),
            JoinError::Openssl(e) => write!(f, "{e}"),
            JoinError::Read(e) => write!(f, "{e}"),
            JoinError::Damaged(path, problem) => write!(f, "{} is damaged: {problem}", path.display()),
            JoinError::NoAuditKey(why) => write!(
                f,
                "the station's audit key cannot be read ({why}): the laptop could prove none of its records; \
                 the station makes its key when its audit log starts"
            ),
        }
    }
}

impl std::error::Error for JoinError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JoinError::Io(_, e) => Some(e),
            JoinError::StickFile(e) | JoinError::Read(e) => Some(e),
            JoinError::Openssl(e) => Some(e),
            _ => None,
        }
    }
}
