//! The fleet stick: what `wordjudge fleet setup` writes on a USB stick for
//! the stations of one event, and what a station reads from it to join.
//!
//! One folder, [`FOLDER`] (`wordjudge/fleet`): inside the stick's
//! `wordjudge/` folder because that folder is the only part of a stick a
//! station may write ([`crate::usb::EXPORT_FOLDER`]; the stick helper mounts
//! nothing else read-write), and a station writes its request there:
//!
//! | file | written by | what it is |
//! |---|---|---|
//! | `fleet.toml` | the laptop | [`FleetFile`]: the event, where to upload, the CA's fingerprint, the stations' network |
//! | `ca.pem` | the laptop | the event's CA certificate: a station trusts the laptop by it, and only by it |
//! | `laptop.pem` | the laptop | the laptop's certificate (public): a joining station records its fingerprint |
//! | `requests/NAME.csr` | a station joining | its certificate request; its private key never leaves it |
//! | `certificates/NAME.pem` | `wordjudge fleet sign` on the laptop | the station's certificate, signed by the event's CA |
//!
//! Why requests and not keys: a stick passes through many hands at a
//! tournament, and a private key on it would let anyone who copied it send
//! records in a station's name. A station makes its own key, so joining
//! takes the stick to each station twice (request, then certificate), and
//! a copied stick holds nothing secret. The CA's own key stays on the laptop.
//!
//! This module reads and checks what is on the stick: its folders only as
//! real folders held by their descriptors, never through a link ([`held_folder`]), its files at most
//! [`MAX_STICK_FILE`] bytes, and the station key code a request's key is known
//! by ([`key_code`]); making keys and signing is [`super::ca`]'s.

use crate::outside_files::{EntryKind, HeldFolder};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// The folder on the stick, from its top.
pub const FOLDER: &str = "wordjudge/fleet";
/// The same folder inside the stick's `wordjudge/` folder: where a station
/// finds it on a stick attached for writing ([`crate::usb::STICK_PATH`]).
pub const FOLDER_IN_EXPORT: &str = "fleet";
/// The settings file in it.
pub const FLEET_FILE: &str = "fleet.toml";
/// The event's CA certificate in it.
pub const CA_FILE: &str = "ca.pem";
/// The event CA's signature of `fleet.toml`'s bytes (SHA-256, DER, as
/// `openssl dgst -sign` writes it): `fleet setup` makes it, and a station
/// uses no field of `fleet.toml` before it checks it with `ca.pem`.
pub const FLEET_SIGNATURE: &str = "fleet.toml.sig";
/// The laptop's certificate in it.
pub const LAPTOP_FILE: &str = "laptop.pem";
/// Where stations put their requests.
pub const REQUESTS: &str = "requests";
/// Where the laptop puts the certificates it signed.
pub const CERTIFICATES: &str = "certificates";
/// `systemd-journal-remote`'s HTTPS port, which `systemd-journal-upload` uses by default.
pub const DEFAULT_PORT: u16 = 19532;

/// `fleet.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FleetFile {
    /// The event's name, shown on the stations' fleet screen.
    pub event: String,
    /// Where the stations upload: `https://HOST:PORT`, HOST as the laptop's
    /// certificate names it.
    pub upload_url: String,
    /// SHA-256 of the CA certificate's DER bytes, hex: a station joins only
    /// if `ca.pem` is the certificate this names, so a swapped file is seen.
    pub ca_sha256: String,
    /// The stations' wired address: absent for DHCP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Their gateway, with `address` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<String>,
}

/// What is wrong with a `fleet.toml` or a name on the stick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StickError {
    Toml(String),
    BadEvent(String),
    BadUrl(String),
    BadFingerprint(String),
    BadAddress(String),
    GatewayWithoutAddress,
    BadStationName(String),
}

impl fmt::Display for StickError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StickError::Toml(e) => write!(f, "{FLEET_FILE} is not valid: {e}"),
            StickError::BadEvent(e) => write!(
                f,
                "the event's name {} must be 1 to 64 printable characters, not only spaces, without a control or \
                 text-direction character (such as U+202E, which would reorder it on the stations' screens)",
                crate::word::quote(e)
            ),
            StickError::BadUrl(u) => write!(
                f,
                "the upload address {} must be https://HOST:PORT (HOST a name or an IPv4 address, nothing after the port)",
                crate::word::quote(u)
            ),
            StickError::BadFingerprint(fp) => {
                write!(f, "the CA fingerprint {} must be 64 hex digits (SHA-256)", crate::word::quote(fp))
            }
            StickError::BadAddress(a) => write!(
                f,
                "the stations' address {} must be an IPv4 address with its prefix length, as 192.168.10.21/24",
                crate::word::quote(a)
            ),
            StickError::GatewayWithoutAddress => write!(f, "a gateway is given without an address: DHCP gives both"),
            StickError::BadStationName(n) => write!(
                f,
                "the station name {} must be 1 to 63 letters, digits and hyphens, not starting or ending with a hyphen",
                crate::word::quote(n)
            ),
        }
    }
}

impl std::error::Error for StickError {}

impl FleetFile {
    /// Reads and checks `fleet.toml`'s text.
    pub fn parse(text: &str) -> Result<FleetFile, StickError> {
        let file: FleetFile = toml::from_str(text).map_err(|e| StickError::Toml(e.message().to_string()))?;
        file.check()?;
        Ok(file)
    }

    /// The text `fleet setup` writes.
    pub fn to_text(&self) -> String {
        let body = toml::to_string(self).expect("plain strings serialize");
        format!(
            "# wordjudge fleet stick: written by `wordjudge fleet setup` on the director's laptop.\n\
             # A station joins with it from the director menu (docs/players-and-directors.md, \"The event's fleet\").\n{body}"
        )
    }

    /// Every field in its form.
    pub fn check(&self) -> Result<(), StickError> {
        if self.event.trim().is_empty()
            || self.event.chars().count() > 64
            || !self.event.chars().all(event_name_char_allowed)
        {
            return Err(StickError::BadEvent(self.event.clone()));
        }
        upload_host_port(&self.upload_url)?;
        if self.ca_sha256.len() != 64
            || !self.ca_sha256.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(StickError::BadFingerprint(self.ca_sha256.clone()));
        }
        match (&self.address, &self.gateway) {
            (None, Some(_)) => return Err(StickError::GatewayWithoutAddress),
            (Some(a), g) => {
                ipv4_with_prefix(a).ok_or_else(|| StickError::BadAddress(a.clone()))?;
                if let Some(g) = g {
                    g.parse::<std::net::Ipv4Addr>().map_err(|_| StickError::BadAddress(g.clone()))?;
                }
            }
            (None, None) => {}
        }
        Ok(())
    }
}

/// Most bytes a fleet stick's file may have (a certificate or a request is
/// about 1 KB, `fleet.toml` a few hundred bytes): a larger one is refused
/// before a byte of it is read, on the laptop and on the station alike.
pub const MAX_STICK_FILE: u64 = 64 * 1024;

/// Why a folder on the stick is not one to read from or write into.
#[derive(Debug)]
pub enum StickFolderError {
    /// A symbolic link in the folder's place (or in one of its parents'
    /// under the stick): it could send every write anywhere, as the
    /// laptop's user (root, often) or the station's.
    Link(PathBuf),
    /// A file, FIFO or device where the folder should be.
    NotAFolder(PathBuf),
    /// The folder is not there (and was not to be made).
    Missing(PathBuf),
    /// It could not be looked at or made.
    Io(PathBuf, std::io::Error),
}

impl fmt::Display for StickFolderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |p: &Path| crate::word::printable(&p.to_string_lossy(), 200);
        match self {
            StickFolderError::Link(p) => write!(
                f,
                "the stick's {} is a symbolic link, not a real folder: nothing is read from it or written through it",
                shown(p)
            ),
            StickFolderError::NotAFolder(p) => write!(f, "the stick's {} is not a folder", shown(p)),
            StickFolderError::Missing(p) => write!(f, "the stick has no {}", shown(p)),
            StickFolderError::Io(p, e) => write!(f, "the stick's {}: {e}", shown(p)),
        }
    }
}

impl std::error::Error for StickFolderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StickFolderError::Io(_, e) => Some(e),
            _ => None,
        }
    }
}

/// `stick`/`relative` as a real folder, held open by its descriptor: each
/// part of `relative` under the stick's top opened in turn without
/// following a link (and made when `create` and missing). The stick's top
/// itself is the caller's (the director named it). A link or a file
/// anywhere on the way is refused; and since everything after is done
/// relative to the descriptor ([`HeldFolder`]), a folder swapped for a link
/// after this check redirects no read, write or delete (a process renaming
/// entries on the stick while root signs gains nothing).
pub fn held_folder(stick: &Path, relative: &str, create: bool) -> Result<HeldFolder, StickFolderError> {
    let mut folder = HeldFolder::open(stick, "", false).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => StickFolderError::Missing(stick.to_path_buf()),
        _ => StickFolderError::Io(stick.to_path_buf(), e),
    })?;
    for part in relative.split('/').filter(|p| !p.is_empty()) {
        folder = held_child(&folder, part, create)?;
    }
    Ok(folder)
}

/// The folder `name` inside `folder`, as [`held_folder`] opens each part.
pub fn held_child(folder: &HeldFolder, name: &str, create: bool) -> Result<HeldFolder, StickFolderError> {
    let path = folder.path().join(name);
    folder.child(name, create).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => StickFolderError::Link(path),
        Some(libc::ENOTDIR)
            if folder
                .list(4096)
                .is_ok_and(|l| l.entries.iter().any(|x| x.name == name && x.kind == EntryKind::Link)) =>
        {
            StickFolderError::Link(path)
        }
        Some(libc::ENOTDIR) => StickFolderError::NotAFolder(path),
        Some(libc::ENOENT) => StickFolderError::Missing(path),
        _ => StickFolderError::Io(path, e),
    })
}

/// The public key of a certificate request or certificate in PEM
/// (`-----BEGIN PUBLIC KEY-----`, as `openssl … -pubkey` prints it) as its
/// DER bytes; `None` if the text holds no such block.
pub fn public_key_der(pem: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    let start = pem.find("-----BEGIN PUBLIC KEY-----")? + "-----BEGIN PUBLIC KEY-----".len();
    let end = start + pem[start..].find("-----END PUBLIC KEY-----")?;
    let body: String = pem[start..end].chars().filter(|c| !c.is_whitespace()).collect();
    base64::engine::general_purpose::STANDARD.decode(body).ok()
}

/// What follows a station's name in `requests/` for its request's binding
/// ([`RequestBinding`]), beside `NAME.csr`.
pub const BINDING_SUFFIX: &str = ".bind";

/// The checkpoint reason that marks a note as a request's binding, never a
/// log's checkpoint.
const BINDING_REASON: &str = "fleet_request";

/// What ties a station's certificate request to its audit key, so that the
/// laptop pairs the one with the other and the director confirms both with
/// one code: the audit key (a note verifier key, first line), then a signed
/// note in the checkpoint's form, by that key, whose head is the SHA-256 of
/// the request's public key (DER), count 0, station the name in the fleet,
/// reason `fleet_request`. A request swapped on the stick no longer matches
/// its binding, and a binding cannot be made without the station's audit key.
pub struct RequestBinding;

/// Why a binding does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindingError {
    /// No first line that is a verifier key.
    NoKey(crate::audit::VerifierKeyError),
    /// The note does not verify under that key.
    Signature(String),
    /// The note binds another request key, another name, or is not a binding.
    OtherRequest,
}

impl fmt::Display for BindingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindingError::NoKey(why) => write!(f, "its binding names no audit key ({why})"),
            BindingError::Signature(why) => write!(f, "its binding is not signed by the audit key it names ({why})"),
            BindingError::OtherRequest => write!(f, "its binding is for another request or another name"),
        }
    }
}

impl std::error::Error for BindingError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BindingError::NoKey(e) => Some(e),
            _ => None,
        }
    }
}

impl RequestBinding {
    /// The binding file's text for the request whose public key (DER) is
    /// `request_key`, signed with the station's audit `key`.
    pub fn make(key: &crate::audit::checkpoint::StationKey, station: &str, request_key: &[u8], time: String) -> String {
        let note = key.sign(&crate::audit::checkpoint::Checkpoint {
            count: 0,
            head: crate::digest::sha256_hex(request_key),
            time,
            station: station.to_string(),
            reason: BINDING_REASON.to_string(),
        });
        format!("{}\n{note}", key.verifier().to_text())
    }

    /// The audit key a binding names, unchecked: what the station shows
    /// the code of while its request waits.
    pub fn key_of(text: &str) -> Result<crate::audit::NoteVerifier, BindingError> {
        crate::audit::NoteVerifier::parse(text.lines().next().unwrap_or("")).map_err(BindingError::NoKey)
    }

    /// Checks a binding against the request's public key (DER) and name:
    /// the audit key to pair, or why not.
    pub fn check(text: &str, station: &str, request_key: &[u8]) -> Result<crate::audit::NoteVerifier, BindingError> {
        let verifier = Self::key_of(text)?;
        let note = text.split_once('\n').map(|(_, rest)| rest).unwrap_or("");
        let checkpoint =
            crate::audit::checkpoint::open_note(note, &verifier).map_err(|e| BindingError::Signature(e.to_string()))?;
        let binds = checkpoint.count == 0
            && checkpoint.reason == BINDING_REASON
            && checkpoint.station == station
            && checkpoint.head == crate::digest::sha256_hex(request_key);
        if binds {
            Ok(verifier)
        } else {
            Err(BindingError::OtherRequest)
        }
    }
}

/// A request's station key code: the short fingerprint of the station's
/// audit key, the one form the director menu's "Station key code" line, the
/// export's README and `audit verify` use (`3F9A-0C21-77DE-B410`). The
/// station shows it after its first visit; `fleet sign` lists the request
/// with it and signs only what the director confirms. Since the binding ties
/// the request's TLS key to that audit key, one code confirms both.
pub fn station_key_code(audit_key: &crate::audit::NoteVerifier) -> String {
    audit_key.fingerprint().short()
}

/// A key's code: the first 16 hex digits of the SHA-256 of its
/// public key (DER), in groups of four (`3f9a-0c21-77de-b410`). The laptop
/// lists each request with it, so the director can match a request with
/// the station that made it.
pub fn key_code(public_key_der: &[u8]) -> String {
    grouped(&crate::digest::sha256_hex(public_key_der))
}

/// The first 16 hex digits of a SHA-256 in groups of four, as screens show
/// a fingerprint (`fleet setup` prints the event CA's this way too, so the
/// director can see a station was given the event's own stick).
pub fn grouped(sha256_hex: &str) -> String {
    let hex: String =
        sha256_hex.chars().filter(|c| c.is_ascii_hexdigit()).take(16).collect::<String>().to_ascii_lowercase();
    hex.as_bytes().chunks(4).map(|c| String::from_utf8_lossy(c).into_owned()).collect::<Vec<_>>().join("-")
}

/// Whether `c` may be in an event's name: what a station's name allows
/// ([`crate::config::station_name_char_allowed`]: no control character, no
/// character that changes the direction of text), since the event's name is
/// on the station's screen and in its audit records the same way.
pub fn event_name_char_allowed(c: char) -> bool {
    crate::config::station_name_char_allowed(c)
}

/// The host and port of an upload address `https://HOST:PORT`.
pub fn upload_host_port(url: &str) -> Result<(String, u16), StickError> {
    let bad = || StickError::BadUrl(url.to_string());
    let rest = url.strip_prefix("https://").ok_or_else(bad)?;
    let (host, port) = rest.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    if port == 0 || !host_is_valid(host) {
        return Err(bad());
    }
    Ok((host.to_string(), port))
}

/// A DNS name or an IPv4 address.
pub fn host_is_valid(host: &str) -> bool {
    if host.parse::<std::net::Ipv4Addr>().is_ok() {
        return true;
    }
    !host.is_empty() && host.len() <= 253 && host.split('.').all(station_name_is_valid)
}

/// A station's name in the fleet (its certificate's name, its journal
/// file's name on the laptop): one DNS label.
pub fn station_name_is_valid(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
}

/// Checks a station name, for the messages.
pub fn check_station_name(name: &str) -> Result<(), StickError> {
    if station_name_is_valid(name) {
        Ok(())
    } else {
        Err(StickError::BadStationName(name.to_string()))
    }
}

fn ipv4_with_prefix(text: &str) -> Option<(std::net::Ipv4Addr, u8)> {
    let (ip, prefix) = text.split_once('/')?;
    let prefix: u8 = prefix.parse().ok()?;
    (1..=32).contains(&prefix).then_some(())?;
    Some((ip.parse().ok()?, prefix))
}

#[cfg(test)]
mod tests;
