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

use super::ca::{openssl, path_str, EventCa};
use super::stick::{self, FleetFile, StickError};
use crate::audit::checkpoint::StationKey;
use crate::outside_files::write_atomically;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

mod error;
mod files;
mod stick_read;

use crate::outside_files::HeldFolder;
pub use error::JoinError;
pub use files::{fleet_name, upload_env, wired_network};
use stick_read::{laptop_fingerprint, open_stick_folder, read_stick, stick_bytes, stick_child, StickCopies};

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
    /// `code`: the request's station key code ([`pending_code`]), which the
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

/// One visit of the fleet stick. `stick` is the stick's top (as mounted),
/// `relative` its fleet folder below it ([`stick::FOLDER`]), opened once
/// and held: every read and write of the visit goes through that handle,
/// so a folder of the stick swapped for a link meanwhile redirects nothing.
/// `fleet_dir` is the station's own fleet folder, `station` its name in the
/// fleet (one DNS label).
///
/// `audit_key` is the station's audit signing key: the request is bound to
/// it ([`stick::RequestBinding`]), so the laptop pairs this station's
/// certificate with the key its records are signed with.
pub fn visit(
    stick: &Path,
    relative: &str,
    fleet_dir: &Path,
    station: &str,
    audit_key: &StationKey,
) -> Result<JoinStep, JoinError> {
    stick::check_station_name(station).map_err(JoinError::StationName)?;
    let copies = StickCopies::new()?;
    let folder = open_stick_folder(stick, relative)?;
    let fleet = read_stick(&folder, &copies)?;
    if let Some(joined) = joined(fleet_dir)? {
        return if joined.ca_sha256 == fleet.ca_sha256 {
            Ok(JoinStep::AlreadyJoined(joined))
        } else {
            Err(JoinError::OtherEvent { joined: joined.event, stick: fleet.event })
        };
    }
    make_dir(fleet_dir)?;
    let pending =
        Pending { station: station.to_string(), event: fleet.event.clone(), ca_sha256: fleet.ca_sha256.clone() };
    let (key, request) = (fleet_dir.join(KEY_FILE), fleet_dir.join(REQUEST_FILE));
    // Anything in the certificate's place is read as a certificate, and
    // refused unless it is a regular file of a real folder: a link, a FIFO
    // or a huge file there is not silently taken for no answer.
    let certificates = stick_child(&folder, stick::CERTIFICATES, false)?;
    let answered = format!("{station}.pem");
    let answered_here = certificates.as_ref().is_some_and(|c| c.has(&answered));
    if read_pending(fleet_dir)?.as_ref() == Some(&pending) && key.is_file() && request.is_file() {
        if let (true, Some(certificates)) = (answered_here, &certificates) {
            if let Some(joined) =
                take_certificate(&folder, certificates, &answered, &copies, fleet_dir, &fleet, station)?
            {
                return Ok(JoinStep::Joined(joined));
            }
            return leave_request(&folder, &request, station, true, &fleet, audit_key);
        }
        return leave_request(&folder, &request, station, false, &fleet, audit_key);
    }
    // A new key and request: the first visit, or a request for another CA
    // or name. The pending file is written last, so a request half made
    // (a power cut) is made again.
    let subject = format!("/CN={station}");
    openssl(
        "make the station's key and certificate request",
        &[
            "req",
            "-new",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-subj",
            &subject,
            "-keyout",
            path_str(&key).map_err(JoinError::Openssl)?,
            "-out",
            path_str(&request).map_err(JoinError::Openssl)?,
        ],
    )
    .map_err(JoinError::Openssl)?;
    set_private(&key)?;
    // A binding of an earlier request would name its key, not this one's.
    let _ = std::fs::remove_file(fleet_dir.join(BINDING_FILE));
    let text = toml::to_string(&pending).expect("plain strings serialize");
    let pending_path = fleet_dir.join(PENDING_FILE);
    write_atomically(&pending_path, text.as_bytes()).map_err(|e| JoinError::Io(pending_path, e))?;
    leave_request(&folder, &request, station, answered_here, &fleet, audit_key)
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
    for name in [
        UPLOAD_ENV,
        NETWORK_FILE,
        JOINED_FILE,
        CERTIFICATE_FILE,
        CA_FILE,
        KEY_FILE,
        REQUEST_FILE,
        BINDING_FILE,
        PENDING_FILE,
    ] {
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

/// The station key code of the request waiting in the station's fleet folder:
/// [`stick::station_key_code`] of the audit key its binding names, the code
/// `fleet sign` lists the request with on the laptop. The station shows it
/// after the first visit, so the director signs only the request this
/// station made. `None` when no request (or no binding yet) waits.
pub fn pending_code(fleet_dir: &Path) -> Result<Option<String>, JoinError> {
    let binding = fleet_dir.join(BINDING_FILE);
    let Some(text) = own_text(&binding)? else { return Ok(None) };
    match stick::RequestBinding::key_of(&text) {
        Ok(key) => Ok(Some(stick::station_key_code(&key))),
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
    let pem = openssl(
        "read the request's public key",
        &["req", "-in", path_str(request).map_err(JoinError::Openssl)?, "-noout", "-pubkey"],
    )
    .map_err(JoinError::Openssl)?;
    let der = stick::public_key_der(&pem)
        .ok_or_else(|| JoinError::Damaged(request.to_path_buf(), "it holds no public key".into()))?;
    let time = jiff::Timestamp::now().to_string();
    let text = stick::RequestBinding::make(audit_key, station, &der, time);
    write_atomically(&path, text.as_bytes()).map_err(|e| JoinError::Io(path.clone(), e))?;
    Ok(text.into_bytes())
}

/// Copies the request onto the stick unless the same bytes are there (a
/// request rewritten at every visit would look new to `fleet sign` and be
/// signed again).
fn leave_request(
    folder: &HeldFolder,
    request: &Path,
    station: &str,
    replaced: bool,
    fleet: &FleetFile,
    audit_key: &StationKey,
) -> Result<JoinStep, JoinError> {
    let bytes = own_bytes(request)?;
    let fleet_dir = request.parent().unwrap_or(Path::new("."));
    let bound = binding(fleet_dir, request, station, audit_key)?;
    // The request goes into the stick's own folder, held from here on, never
    // through a link (a linked `requests/` would put it anywhere, the
    // station's own audit folder included, while the screen says it is on
    // the stick).
    let requests = stick_child(folder, stick::REQUESTS, true)?
        .ok_or_else(|| JoinError::StickFolder(folder.path().join(stick::REQUESTS)))?;
    let write = |name: &str, bytes: &[u8]| {
        if stick_bytes(&requests, name).ok().as_deref() != Some(bytes) {
            requests.write_atomically(name, bytes, 0o644).map_err(|e| JoinError::Io(requests.path().join(name), e))?;
        }
        Ok::<_, JoinError>(requests.path().join(name))
    };
    // The binding first: a request without one is refused on the laptop.
    write(&format!("{station}{}", stick::BINDING_SUFFIX), &bound)?;
    let on_stick = write(&format!("{station}.csr"), &bytes)?;
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
    folder: &HeldFolder,
    certificates: &HeldFolder,
    answered: &str,
    copies: &StickCopies,
    fleet_dir: &Path,
    fleet: &FleetFile,
    station: &str,
) -> Result<Option<Joined>, JoinError> {
    let on_stick = certificates.path().join(answered);
    let refuse = |problem: String| JoinError::Certificate { file: on_stick.clone(), problem };
    // The copies taken off the stick: what is checked is what is installed.
    let (answered, _) = copies.take(certificates, answered, "station.pem")?;
    let answered = answered.as_path();
    let stick_ca = copies.dir.path().join(stick::CA_FILE);
    let as_str = |p: &Path| path_str(p).map(str::to_string).map_err(JoinError::Openssl);
    let (cert_s, ca_s) = (as_str(answered)?, as_str(&stick_ca)?);
    // Signed by the event's CA, for a TLS client, in date (openssl verify
    // checks all three, and the chain is the CA itself: no intermediates).
    openssl(
        "check the station's certificate",
        &["verify", "-CAfile", &ca_s, "-purpose", "sslclient", "-x509_strict", &cert_s],
    )
    .map_err(|e| refuse(format!("not signed by this event's CA for a station, or out of date ({e})")))?;
    let subject = openssl(
        "read the station's certificate",
        &["x509", "-in", &cert_s, "-noout", "-subject", "-enddate", "-nameopt", "RFC2253"],
    )
    .map_err(|e| refuse(e.to_string()))?;
    let field = |name: &str| subject.lines().find_map(|l| l.strip_prefix(name)).map(|v| v.trim().to_string());
    // The station's name, and the issue `fleet sign` gave this signature.
    let names_us = field("subject=")
        .as_deref()
        .and_then(crate::fleet::sender::station_of_subject)
        .is_some_and(|read| read.station == station);
    if !names_us {
        return Err(refuse(format!(
            "it is for {}, not CN={station}",
            crate::word::quote(&field("subject=").unwrap_or_default())
        )));
    }
    let not_after = field("notAfter=").unwrap_or_default();
    let key = fleet_dir.join(KEY_FILE);
    let ours = openssl("read the station's public key", &["pkey", "-in", &as_str(&key)?, "-pubout"])
        .map_err(JoinError::Openssl)?;
    let theirs = openssl("read the certificate's public key", &["x509", "-in", &cert_s, "-noout", "-pubkey"])
        .map_err(|e| refuse(e.to_string()))?;
    if ours.trim() != theirs.trim() {
        return Ok(None);
    }
    let certificate_sha256 = EventCa::fingerprint(answered).map_err(|e| refuse(e.to_string()))?;
    let laptop_sha256 = laptop_fingerprint(folder, copies, &ca_s)?;
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

fn make_dir(dir: &Path) -> Result<(), JoinError> {
    std::fs::create_dir_all(dir).map_err(|e| JoinError::Io(dir.to_path_buf(), e))
}

fn set_private(path: &Path) -> Result<(), JoinError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| JoinError::Io(path.to_path_buf(), e))
}
