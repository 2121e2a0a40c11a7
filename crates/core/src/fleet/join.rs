//! A station joining the event's fleet, and leaving it: what the station
//! does with the fleet stick ([`super::stick`]) and what it keeps in its own
//! fleet folder (on the appliance `/var/lib/wordjudge/fleet`, on the data
//! partition, so an update or a restart keeps it).
//!
//! Joining takes two visits of the stick, because the station's private key
//! is made on the station and never leaves it:
//! 1. the first visit makes the key (P-256, by `openssl`, mode 0600) and a
//!    certificate request naming the station, and leaves the request on the
//!    stick (`requests/NAME.csr`); the laptop signs it (`wordjudge fleet sign`);
//! 2. the second visit finds `certificates/NAME.pem`, checks it (signed by
//!    the event's CA for client use, in date, naming this station, and for
//!    this station's key), and only then installs it: the CA certificate, the
//!    station's certificate and [`UPLOAD_ENV`], the file whose presence lets
//!    `wordjudge-fleet-upload.service` (`systemd-journal-upload`) run.
//!
//! Every visit first checks the stick itself: its `fleet.toml` in form, and
//! its `ca.pem` the certificate `fleet.toml` names by fingerprint. Anything
//! wrong is an error that names it, and nothing in the fleet folder changes.
//! A station that has joined one event refuses another's stick until the
//! director has it leave the first.
//!
//! What this module does not do: record (the caller records `fleet_joined`
//! and `fleet_left` with what [`Joined`] says), start or stop the uploader,
//! or touch the network.

use super::ca::{openssl, path_str, CaError, EventCa};
use super::stick::{self, FleetFile, StickError};
use crate::audit::checkpoint::StationKey;
use crate::outside_files::write_atomically;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// The station's fleet folder on the appliance.
pub const DEFAULT_FLEET_DIR: &str = "/var/lib/wordjudge/fleet";
/// The station's private key, made here and never copied anywhere.
pub const KEY_FILE: &str = "station.key";
/// Its certificate request, kept until the certificate comes.
pub const REQUEST_FILE: &str = "station.csr";
/// The request's binding to the station's audit key
/// ([`stick::RequestBinding`]), left on the stick beside it.
pub const BINDING_FILE: &str = "station.bind";
/// What the request was made for: [`Pending`].
pub const PENDING_FILE: &str = "pending.toml";
/// The station's certificate, signed by the event's CA.
pub const CERTIFICATE_FILE: &str = "station.pem";
/// The event's CA certificate: the only one the uploader trusts the laptop by.
pub const CA_FILE: &str = "ca.pem";
/// What the station joined: [`Joined`].
pub const JOINED_FILE: &str = "joined.toml";
/// The uploader's settings (`WORDJUDGE_FLEET_URL=`), read by
/// `wordjudge-fleet-upload.service`, which runs only while it exists.
pub const UPLOAD_ENV: &str = "upload.env";
/// The wired network as the stick sets it (systemd-networkd's format),
/// put in place by `wordjudge-fleet-network.service`, which runs only while
/// it exists: a station in no fleet has no network at all.
pub const NETWORK_FILE: &str = "wired.network";

/// A request made and left on a stick, not yet answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pending {
    /// The station's name in the fleet.
    pub station: String,
    /// The event whose CA the request is for.
    pub event: String,
    /// That CA's fingerprint: a stick of another CA makes a new request.
    pub ca_sha256: String,
}

/// What a station joined, as kept in [`JOINED_FILE`] and recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Joined {
    /// The station's name in the fleet (its certificate's CN).
    pub station: String,
    /// The event's name.
    pub event: String,
    /// Where the station sends its journal.
    pub upload_url: String,
    /// SHA-256 of the event's CA certificate (DER, hex): the only
    /// certificate the laptop is trusted by.
    pub ca_sha256: String,
    /// SHA-256 of the station's own certificate.
    pub certificate_sha256: String,
    /// SHA-256 of the laptop's certificate as the stick carried it (signed
    /// by the event's CA for a server), if the stick had one. The station
    /// trusts the laptop by the CA, so a laptop certificate made again
    /// later serves too; this records which one was current.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub laptop_sha256: Option<String>,
    /// When the station's certificate expires, as openssl prints it.
    pub not_after: String,
    /// The stations' wired address from the stick (absent: DHCP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Their gateway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<String>,
}

/// What a visit of the fleet stick did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JoinStep {
    /// The request is on the stick (`requests/NAME.csr`): sign it on the
    /// laptop and bring the stick back. `replaced` says why a certificate on
    /// the stick for this name was not taken: it is for another key (the
    /// station made a new one, after a reflash or a change of event).
    /// `code`: the request's pairing code ([`pending_code`]), which the
    /// station shows and `fleet sign` asks the director to confirm (`None`
    /// when it cannot be computed: the request is on the stick all the same).
    /// `event` and `ca`: the event and its CA's fingerprint as the stick
    /// named them (grouped, [`stick::grouped`]), for the director to compare
    /// with what `fleet setup` printed.
    Requested { request: PathBuf, replaced: bool, code: Option<String>, event: String, ca: String },
    /// Joined: the certificate is installed and the uploader may run.
    Joined(Joined),
    /// Already a member of this event's fleet: nothing changed.
    AlreadyJoined(Joined),
}

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
                "this stick has no fleet folder ({}): make a fleet stick on the laptop with `wordjudge fleet setup`",
                dir.display()
            ),
            JoinError::FleetFile(path, e) => write!(f, "the fleet stick's {}: {e}", path.display()),
            JoinError::StationName(e) => write!(f, "{e}"),
            JoinError::CaSwapped { named, found } => write!(
                f,
                "the stick's ca.pem is not the event's CA: fleet.toml names {}, the file is {}; \
                 make the stick again with `wordjudge fleet setup`",
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
                 (`wordjudge fleet setup --laptop 192.168.10.2`)",
                crate::word::quote(host)
            ),
            JoinError::Io(path, e) => write!(f, "{}: {e}", path.display()),
            JoinError::StickFile(e) => write!(f, "the fleet stick's {e}"),
            JoinError::StickFolder(path) => {
                write!(f, "the fleet stick's {} is not a real folder (a link): nothing is read from it or written to it", path.display())
            }
            JoinError::FleetUnsigned { problem } => write!(
                f,
                "the stick's fleet.toml is not signed by its event's CA ({problem}): make the stick again with \
                 `wordjudge fleet setup`"
            ),
            JoinError::CaNotAlone { certificates } => write!(
                f,
                "the stick's ca.pem holds {certificates} certificates, not the event's one: make the stick again with \
                 `wordjudge fleet setup`"
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

/// A small file of the station's own fleet folder, `None` if it is not
/// there.
fn own_text(path: &Path) -> Result<Option<String>, JoinError> {
    match crate::outside_files::read_small_text_nofollow(path, MAX_STICK_FILE) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(JoinError::Read(e)),
    }
}

fn own_bytes(path: &Path) -> Result<Vec<u8>, JoinError> {
    crate::outside_files::read_small_file_nofollow(path, MAX_STICK_FILE).map_err(JoinError::Read)
}

/// A fingerprint's first 16 hex digits, as the menu shows it.
fn short(fingerprint: &str) -> &str {
    fingerprint.get(..16).unwrap_or(fingerprint)
}

/// Most bytes a fleet stick's file may have: [`stick::MAX_STICK_FILE`].
pub use super::stick::MAX_STICK_FILE;

/// Reads a file of the fleet stick: regular, not a link, not waited on,
/// at most [`MAX_STICK_FILE`] bytes.
fn stick_bytes(path: &Path) -> Result<Vec<u8>, JoinError> {
    crate::outside_files::read_small_file_nofollow(path, MAX_STICK_FILE).map_err(JoinError::StickFile)
}

/// The stick's files a visit works from, copied once off the stick into a
/// private folder: every check and every install uses these bytes, so a
/// file swapped on the stick after its check is never the one installed.
struct StickCopies {
    dir: tempfile::TempDir,
}

impl StickCopies {
    fn new() -> Result<StickCopies, JoinError> {
        let dir = tempfile::Builder::new().prefix("wordjudge-fleet-stick-").tempdir().map_err(|e| JoinError::Io(std::env::temp_dir(), e))?;
        Ok(StickCopies { dir })
    }

    /// Copies `path` off the stick under `name`; the copy's path and bytes.
    fn take(&self, path: &Path, name: &str) -> Result<(PathBuf, Vec<u8>), JoinError> {
        let bytes = stick_bytes(path)?;
        // The station's own private folder, made above: openssl reads files.
        let copy = self.dir.path().join(name);
        write_atomically(&copy, &bytes).map_err(|e| JoinError::Io(copy.clone(), e))?;
        Ok((copy, bytes))
    }
}

/// The certificates a PEM file holds.
fn certificates_in(pem: &[u8]) -> usize {
    pem.windows(b"-----BEGIN CERTIFICATE-----".len()).filter(|w| *w == b"-----BEGIN CERTIFICATE-----").count()
}

/// One visit of the fleet stick. `stick_folder` is the stick's fleet folder
/// ([`stick::FOLDER`] on the mounted stick), `fleet_dir` the station's own
/// fleet folder, `station` its name in the fleet (one DNS label).
///
/// `audit_key` is the station's audit signing key: the request is bound to
/// it ([`stick::RequestBinding`]), so the laptop pairs this station's
/// certificate with the key its records are signed with.
pub fn visit(stick_folder: &Path, fleet_dir: &Path, station: &str, audit_key: &StationKey) -> Result<JoinStep, JoinError> {
    stick::check_station_name(station).map_err(JoinError::StationName)?;
    let copies = StickCopies::new()?;
    let fleet = read_stick(stick_folder, &copies)?;
    if let Some(joined) = joined(fleet_dir)? {
        return if joined.ca_sha256 == fleet.ca_sha256 {
            Ok(JoinStep::AlreadyJoined(joined))
        } else {
            Err(JoinError::OtherEvent { joined: joined.event, stick: fleet.event })
        };
    }
    make_dir(fleet_dir)?;
    let pending = Pending { station: station.to_string(), event: fleet.event.clone(), ca_sha256: fleet.ca_sha256.clone() };
    let (key, request) = (fleet_dir.join(KEY_FILE), fleet_dir.join(REQUEST_FILE));
    let certificates = stick_folder.join(stick::CERTIFICATES);
    let answered = certificates.join(format!("{station}.pem"));
    // Anything in the certificate's place is read as a certificate, and
    // refused unless it is a regular file of a real folder: a link, a FIFO
    // or a huge file there is not silently taken for no answer.
    if std::fs::symlink_metadata(&certificates).is_ok() && !crate::outside_files::is_real_dir(&certificates) {
        return Err(JoinError::StickFolder(certificates));
    }
    let answered_here = std::fs::symlink_metadata(&answered).is_ok();
    if read_pending(fleet_dir)?.as_ref() == Some(&pending) && key.is_file() && request.is_file() {
        if answered_here {
            if let Some(joined) = take_certificate(stick_folder, &answered, &copies, fleet_dir, &fleet, station)? {
                return Ok(JoinStep::Joined(joined));
            }
            return leave_request(stick_folder, &request, station, true, &fleet, audit_key);
        }
        return leave_request(stick_folder, &request, station, false, &fleet, audit_key);
    }
    // A new key and request: the first visit, or a request for another CA
    // or name. The pending file is written last, so a request half made
    // (a power cut) is made again.
    let subject = format!("/CN={station}");
    openssl(
        "make the station's key and certificate request",
        &[
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", &subject,
            "-keyout", path_str(&key).map_err(JoinError::Openssl)?, "-out", path_str(&request).map_err(JoinError::Openssl)?,
        ],
    )
    .map_err(JoinError::Openssl)?;
    set_private(&key)?;
    // A binding of an earlier request would name its key, not this one's.
    let _ = std::fs::remove_file(fleet_dir.join(BINDING_FILE));
    let text = toml::to_string(&pending).expect("plain strings serialize");
    let pending_path = fleet_dir.join(PENDING_FILE);
    write_atomically(&pending_path, text.as_bytes()).map_err(|e| JoinError::Io(pending_path, e))?;
    leave_request(stick_folder, &request, station, answered_here, &fleet, audit_key)
}

/// The station's audit signing key, read from its audit folder (it is
/// made there when the audit log first starts): what a request is bound to.
pub fn station_audit_key(audit_dir: &Path) -> Result<StationKey, JoinError> {
    let key_dir = audit_dir.join(crate::audit::checkpoint::KEY_DIR);
    match StationKey::load_or_create(&key_dir, "", false) {
        Ok(Some((key, _))) => Ok(key),
        Ok(None) => Err(JoinError::NoAuditKey(format!("there is none in {}", key_dir.display()))),
        Err(e) => Err(JoinError::NoAuditKey(e.to_string())),
    }
}

/// Leaves the fleet: the certificate, the CA, [`UPLOAD_ENV`] and the key
/// go, so the uploader cannot start again. What the station had joined, or
/// `None` if it was in no fleet.
pub fn leave(fleet_dir: &Path) -> Result<Option<Joined>, JoinError> {
    let was = joined(fleet_dir)?;
    // The switch first: without upload.env the uploader does not start.
    for name in [UPLOAD_ENV, NETWORK_FILE, JOINED_FILE, CERTIFICATE_FILE, CA_FILE, KEY_FILE, REQUEST_FILE, BINDING_FILE, PENDING_FILE] {
        let path = fleet_dir.join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(JoinError::Io(path, e)),
        }
    }
    Ok(was)
}

/// What the station joined, if it has.
pub fn joined(fleet_dir: &Path) -> Result<Option<Joined>, JoinError> {
    let path = fleet_dir.join(JOINED_FILE);
    match own_text(&path)? {
        Some(text) => toml::from_str(&text).map(Some).map_err(|e| JoinError::Damaged(path, e.message().to_string())),
        None => Ok(None),
    }
}

/// The request waiting for its certificate, if there is one.
pub fn read_pending(fleet_dir: &Path) -> Result<Option<Pending>, JoinError> {
    let path = fleet_dir.join(PENDING_FILE);
    Ok(own_text(&path)?.and_then(|text| toml::from_str(&text).ok()))
}

/// The pairing code of the request waiting in the station's fleet folder:
/// [`stick::pairing_code`] of the audit key its binding names, the code
/// `fleet sign` lists the request with on the laptop. The station shows it
/// after the first visit, so the director signs only the request this
/// station made. `None` when no request (or no binding yet) waits.
pub fn pending_code(fleet_dir: &Path) -> Result<Option<String>, JoinError> {
    let binding = fleet_dir.join(BINDING_FILE);
    let Some(text) = own_text(&binding)? else { return Ok(None) };
    match stick::RequestBinding::key_of(&text) {
        Ok(key) => Ok(Some(stick::pairing_code(&key))),
        Err(e) => Err(JoinError::Damaged(binding, e.to_string())),
    }
}

/// The request's binding in the fleet folder, made (and kept) the first
/// time it is needed: a request made by an earlier version has none yet.
fn binding(fleet_dir: &Path, request: &Path, station: &str, audit_key: &StationKey) -> Result<Vec<u8>, JoinError> {
    let path = fleet_dir.join(BINDING_FILE);
    if let Some(text) = own_text(&path)? {
        return Ok(text.into_bytes());
    }
    own_bytes(request)?;
    let pem = openssl("read the request's public key", &["req", "-in", path_str(request).map_err(JoinError::Openssl)?, "-noout", "-pubkey"])
        .map_err(JoinError::Openssl)?;
    let der = stick::public_key_der(&pem).ok_or_else(|| JoinError::Damaged(request.to_path_buf(), "it holds no public key".into()))?;
    let time = jiff::Timestamp::now().to_string();
    let text = stick::RequestBinding::make(audit_key, station, &der, time);
    write_atomically(&path, text.as_bytes()).map_err(|e| JoinError::Io(path.clone(), e))?;
    Ok(text.into_bytes())
}

/// The stick's `fleet.toml`, checked, and its `ca.pem` checked against it:
/// both read once, off the stick, into `copies` (`ca.pem` there is what is
/// checked and later installed).
fn read_stick(stick_folder: &Path, copies: &StickCopies) -> Result<FleetFile, JoinError> {
    if !crate::outside_files::is_real_dir(stick_folder) {
        return Err(match std::fs::symlink_metadata(stick_folder) {
            Ok(m) if m.file_type().is_symlink() => JoinError::StickFolder(stick_folder.to_path_buf()),
            _ => JoinError::NotAFleetStick(stick_folder.to_path_buf()),
        });
    }
    let path = stick_folder.join(stick::FLEET_FILE);
    // Copied once, then checked: the CA's one certificate, and its
    // signature over the copied bytes of fleet.toml, before any field of it
    // is read.
    let (fleet_copy, bytes) = copies.take(&path, stick::FLEET_FILE)?;
    let (ca, ca_bytes) = copies.take(&stick_folder.join(stick::CA_FILE), stick::CA_FILE)?;
    let certificates = certificates_in(&ca_bytes);
    if certificates != 1 {
        return Err(JoinError::CaNotAlone { certificates });
    }
    let signature = match copies.take(&stick_folder.join(stick::FLEET_SIGNATURE), stick::FLEET_SIGNATURE) {
        Ok((signature, _)) => signature,
        Err(JoinError::StickFile(e)) if e.is_not_found() => {
            return Err(JoinError::FleetUnsigned { problem: "no fleet.toml.sig beside it".into() })
        }
        Err(e) => return Err(e),
    };
    check_fleet_signature(&fleet_copy, &signature, &ca, copies)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| JoinError::FleetFile(path.clone(), StickError::Toml("it is not text".into())))?;
    let fleet = FleetFile::parse(&text).map_err(|e| JoinError::FleetFile(path.clone(), e))?;
    let (host, _) = stick::upload_host_port(&fleet.upload_url).map_err(|e| JoinError::FleetFile(path, e))?;
    if host.parse::<std::net::Ipv4Addr>().is_err() {
        return Err(JoinError::LaptopByName(host));
    }
    let found = EventCa::fingerprint(&ca).map_err(|e| JoinError::Certificate { file: ca.clone(), problem: e.to_string() })?;
    if found != fleet.ca_sha256 {
        return Err(JoinError::CaSwapped { named: fleet.ca_sha256, found });
    }
    Ok(fleet)
}

/// Checks `signature` (copied off the stick) is the CA's in `ca` over the
/// copied `fleet.toml`: its public key taken out of the certificate, then
/// `openssl dgst -verify`.
fn check_fleet_signature(fleet: &Path, signature: &Path, ca: &Path, copies: &StickCopies) -> Result<(), JoinError> {
    let unsigned = |problem: String| JoinError::FleetUnsigned { problem };
    let pem = openssl("read the CA's public key", &["x509", "-in", path_str(ca).map_err(JoinError::Openssl)?, "-noout", "-pubkey"])
        .map_err(|e| unsigned(e.to_string()))?;
    let key = copies.dir.path().join("ca.pub.pem");
    write_atomically(&key, pem.as_bytes()).map_err(|e| JoinError::Io(key.clone(), e))?;
    let args = [
        "dgst", "-sha256", "-verify", path_str(&key).map_err(JoinError::Openssl)?, "-signature",
        path_str(signature).map_err(JoinError::Openssl)?, path_str(fleet).map_err(JoinError::Openssl)?,
    ];
    match openssl("check fleet.toml's signature", &args) {
        Ok(out) if out.trim() == "Verified OK" => Ok(()),
        Ok(out) => Err(unsigned(crate::word::printable(out.trim(), 80))),
        Err(_) => Err(unsigned("the signature does not hold".into())),
    }
}

/// Copies the request onto the stick unless the same bytes are there (a
/// request rewritten at every visit would look new to `fleet sign` and be
/// signed again).
fn leave_request(
    stick_folder: &Path,
    request: &Path,
    station: &str,
    replaced: bool,
    fleet: &FleetFile,
    audit_key: &StationKey,
) -> Result<JoinStep, JoinError> {
    let bytes = own_bytes(request)?;
    let fleet_dir = request.parent().unwrap_or(Path::new("."));
    let bound = binding(fleet_dir, request, station, audit_key)?;
    let requests = stick_folder.join(stick::REQUESTS);
    make_dir(&requests)?;
    // The request goes into the stick's own folder, never through a link
    // (a linked `requests/` would put it anywhere, the station's own audit
    // folder included, while the screen says it is on the stick).
    if !crate::outside_files::is_real_dir(&requests) {
        return Err(JoinError::StickFolder(requests));
    }
    // The binding first: a request without one is refused on the laptop.
    let binding_on_stick = requests.join(format!("{station}{}", stick::BINDING_SUFFIX));
    if stick_bytes(&binding_on_stick).ok().as_deref() != Some(&bound[..]) {
        write_atomically(&binding_on_stick, &bound).map_err(|e| JoinError::Io(binding_on_stick.clone(), e))?;
    }
    let on_stick = requests.join(format!("{station}.csr"));
    if stick_bytes(&on_stick).ok().as_deref() != Some(&bytes[..]) {
        write_atomically(&on_stick, &bytes).map_err(|e| JoinError::Io(on_stick.clone(), e))?;
    }
    let code = pending_code(fleet_dir).ok().flatten();
    Ok(JoinStep::Requested {
        request: on_stick,
        replaced,
        code,
        event: fleet.event.clone(),
        ca: stick::grouped(&fleet.ca_sha256),
    })
}

/// Checks the certificate the laptop signed and installs it. `None` if it
/// is a good certificate for another key of this station (a new request
/// goes on the stick); an error if it is not one to install at all.
fn take_certificate(
    stick_folder: &Path,
    on_stick: &Path,
    copies: &StickCopies,
    fleet_dir: &Path,
    fleet: &FleetFile,
    station: &str,
) -> Result<Option<Joined>, JoinError> {
    let refuse = |problem: String| JoinError::Certificate { file: on_stick.to_path_buf(), problem };
    // The copies taken off the stick: what is checked is what is installed.
    let (answered, _) = copies.take(on_stick, "station.pem")?;
    let answered = answered.as_path();
    let stick_ca = copies.dir.path().join(stick::CA_FILE);
    let as_str = |p: &Path| path_str(p).map(str::to_string).map_err(JoinError::Openssl);
    let (cert_s, ca_s) = (as_str(answered)?, as_str(&stick_ca)?);
    // Signed by the event's CA, for a TLS client, in date (openssl verify
    // checks all three, and the chain is the CA itself: no intermediates).
    openssl("check the station's certificate", &["verify", "-CAfile", &ca_s, "-purpose", "sslclient", "-x509_strict", &cert_s])
        .map_err(|e| refuse(format!("not signed by this event's CA for a station, or out of date ({e})")))?;
    let subject = openssl(
        "read the station's certificate",
        &["x509", "-in", &cert_s, "-noout", "-subject", "-enddate", "-nameopt", "RFC2253"],
    )
    .map_err(|e| refuse(e.to_string()))?;
    let field = |name: &str| subject.lines().find_map(|l| l.strip_prefix(name)).map(|v| v.trim().to_string());
    if field("subject=").as_deref() != Some(&format!("CN={station}")) {
        return Err(refuse(format!("it is for {}, not CN={station}", crate::word::quote(&field("subject=").unwrap_or_default()))));
    }
    let not_after = field("notAfter=").unwrap_or_default();
    let key = fleet_dir.join(KEY_FILE);
    let ours = openssl("read the station's public key", &["pkey", "-in", &as_str(&key)?, "-pubout"]).map_err(JoinError::Openssl)?;
    let theirs = openssl("read the certificate's public key", &["x509", "-in", &cert_s, "-noout", "-pubkey"]).map_err(|e| refuse(e.to_string()))?;
    if ours.trim() != theirs.trim() {
        return Ok(None);
    }
    let certificate_sha256 = EventCa::fingerprint(answered).map_err(|e| refuse(e.to_string()))?;
    let laptop_sha256 = laptop_fingerprint(stick_folder, copies, &ca_s)?;
    let joined = Joined {
        station: station.to_string(),
        event: fleet.event.clone(),
        upload_url: fleet.upload_url.clone(),
        ca_sha256: fleet.ca_sha256.clone(),
        certificate_sha256,
        laptop_sha256,
        not_after,
        address: fleet.address.clone(),
        gateway: fleet.gateway.clone(),
    };
    // The certificates first, the record of joining next, the uploader's
    // switch last: a power cut between leaves a station that has not joined.
    for (from, name) in [(answered, CERTIFICATE_FILE), (stick_ca.as_path(), CA_FILE)] {
        let bytes = own_bytes(from)?;
        let to = fleet_dir.join(name);
        write_atomically(&to, &bytes).map_err(|e| JoinError::Io(to, e))?;
    }
    let text = toml::to_string(&joined).expect("plain strings serialize");
    let path = fleet_dir.join(JOINED_FILE);
    write_atomically(&path, text.as_bytes()).map_err(|e| JoinError::Io(path, e))?;
    let path = fleet_dir.join(NETWORK_FILE);
    write_atomically(&path, wired_network(&joined).as_bytes()).map_err(|e| JoinError::Io(path, e))?;
    let env = upload_env(&joined);
    let path = fleet_dir.join(UPLOAD_ENV);
    write_atomically(&path, env.as_bytes()).map_err(|e| JoinError::Io(path, e))?;
    for name in [PENDING_FILE, REQUEST_FILE] {
        let _ = std::fs::remove_file(fleet_dir.join(name));
    }
    Ok(Some(joined))
}

/// A station's name in the fleet from its own name (`Table 3` →
/// `table-3`): one DNS label, as certificates and the laptop's files need.
pub fn fleet_name(station_name: &str) -> String {
    let mut name = String::new();
    for c in station_name.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.ends_with('-') && !name.is_empty() {
            name.push('-');
        }
    }
    let name: String = name.trim_end_matches('-').chars().take(63).collect();
    let name = name.trim_end_matches('-').to_string();
    if name.is_empty() {
        "station".into()
    } else {
        name
    }
}

/// [`UPLOAD_ENV`]'s text: the one setting the uploader's unit takes from it.
/// The URL was checked by [`FleetFile::check`] (https, a host name or an
/// IPv4 address, a port), so it holds no character a unit's environment
/// file would read otherwise.
pub fn upload_env(joined: &Joined) -> String {
    format!("# Written when this station joined the fleet of {}.\nWORDJUDGE_FLEET_URL={}\n", joined.event.replace('\n', " "), joined.upload_url)
}

/// The fingerprint of the laptop's certificate on the stick, after checking
/// the event's CA signed it for a server; `None` if the stick has none (a
/// stick made before it carried one). A laptop certificate that does not
/// check is a stick not to trust.
fn laptop_fingerprint(stick_folder: &Path, copies: &StickCopies, ca: &str) -> Result<Option<String>, JoinError> {
    let on_stick = stick_folder.join(stick::LAPTOP_FILE);
    if std::fs::symlink_metadata(&on_stick).is_err() {
        return Ok(None);
    }
    let (laptop, _) = copies.take(&on_stick, stick::LAPTOP_FILE)?;
    let refuse = |problem: String| JoinError::Certificate { file: on_stick.clone(), problem };
    let laptop_s = path_str(&laptop).map_err(JoinError::Openssl)?;
    openssl("check the laptop's certificate", &["verify", "-CAfile", ca, "-purpose", "sslserver", "-x509_strict", laptop_s])
        .map_err(|e| refuse(format!("not the event's laptop ({e})")))?;
    EventCa::fingerprint(&laptop).map(Some).map_err(|e| refuse(e.to_string()))
}

/// [`NETWORK_FILE`]'s text: wired Ethernet only, the stick's address or
/// DHCP, and nothing else a network brings by default (no IPv6 link-local
/// address or router advertisements, no LLMNR or mDNS: nothing to answer).
/// The address and gateway were checked by [`FleetFile::check`].
pub fn wired_network(joined: &Joined) -> String {
    let mut text = format!(
        "# Written when this station joined the fleet of {}: wired Ethernet only.\n\
         [Match]\nType=ether\n\n[Network]\n",
        joined.event.replace('\n', " ")
    );
    match (&joined.address, &joined.gateway) {
        (Some(address), gateway) => {
            text.push_str(&format!("Address={address}\n"));
            if let Some(gateway) = gateway {
                text.push_str(&format!("Gateway={gateway}\n"));
            }
        }
        (None, _) => text.push_str("DHCP=ipv4\n"),
    }
    text.push_str("LinkLocalAddressing=no\nIPv6AcceptRA=no\nLLMNR=no\nMulticastDNS=no\n");
    text
}

fn make_dir(dir: &Path) -> Result<(), JoinError> {
    std::fs::create_dir_all(dir).map_err(|e| JoinError::Io(dir.to_path_buf(), e))
}

fn set_private(path: &Path) -> Result<(), JoinError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(|e| JoinError::Io(path.to_path_buf(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(address: Option<&str>, gateway: Option<&str>) -> Joined {
        Joined {
            station: "wj-01".into(),
            event: "Nationals 2026".into(),
            upload_url: "https://192.168.10.2:19532".into(),
            ca_sha256: "ab".repeat(32),
            certificate_sha256: "cd".repeat(32),
            laptop_sha256: None,
            not_after: "Dec 31 00:00:00 2027 GMT".into(),
            address: address.map(String::from),
            gateway: gateway.map(String::from),
        }
    }

    #[test]
    fn the_wired_network_is_the_sticks_address_or_dhcp_and_nothing_more() {
        let fixed = wired_network(&joined(Some("192.168.10.21/24"), Some("192.168.10.1")));
        let lines: Vec<&str> = fixed.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            lines,
            [
                "[Match]", "Type=ether", "", "[Network]", "Address=192.168.10.21/24", "Gateway=192.168.10.1",
                "LinkLocalAddressing=no", "IPv6AcceptRA=no", "LLMNR=no", "MulticastDNS=no"
            ]
        );
        let dhcp = wired_network(&joined(None, None));
        assert!(dhcp.contains("\nDHCP=ipv4\n") && !dhcp.contains("Address="), "{dhcp}");
        let odd = wired_network(&Joined { event: "two\nlines".into(), ..joined(None, None) });
        assert_eq!(odd.lines().filter(|l| l.starts_with('[')).count(), 2, "{odd}");
    }

    #[test]
    fn fleet_names_are_one_dns_label_made_from_the_stations_name() {
        for (name, want) in [
            ("Table 3", "table-3"),
            ("Boot test", "boot-test"),
            ("  Salle Ü — 12 ", "salle-12"),
            ("---", "station"),
            ("", "station"),
        ] {
            assert_eq!(fleet_name(name), want, "{name:?}");
            assert!(stick::station_name_is_valid(&fleet_name(name)));
        }
        let long = fleet_name(&"ab ".repeat(40));
        assert!(long.len() <= 63 && stick::station_name_is_valid(&long), "{long}");
    }

    #[test]
    fn upload_env_names_the_url_and_nothing_else() {
        let env = upload_env(&Joined { event: "a\nWORDJUDGE_FLEET_URL=https://evil:1".into(), ..joined(None, None) });
        let settings: Vec<&str> = env.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(settings, ["WORDJUDGE_FLEET_URL=https://192.168.10.2:19532"]);
    }
}
