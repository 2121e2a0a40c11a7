//! Reading the fleet stick: its folder held by its descriptor from the
//! first look ([`HeldFolder`]: a folder swapped for a link afterwards
//! redirects no read or write), each of its files copied once, off the
//! stick, into a private folder ([`StickCopies`]), and every check made on
//! those copies, so a file swapped on the stick after its check is never
//! the one installed; `fleet.toml` read only after the event CA's signature
//! over it holds.

use super::*;
use crate::outside_files::HeldFolder;

/// The fleet folder `relative` under the stick's top `stick`, held: each
/// part below the top opened without following a link.
pub(super) fn open_stick_folder(stick: &Path, relative: &str) -> Result<HeldFolder, JoinError> {
    stick::held_folder(stick, relative, false).map_err(|e| match e {
        stick::StickFolderError::Link(path) => JoinError::StickFolder(path),
        stick::StickFolderError::Missing(path) | stick::StickFolderError::NotAFolder(path) => {
            JoinError::NotAFleetStick(path)
        }
        stick::StickFolderError::Io(path, e) => JoinError::Io(path, e),
    })
}

/// The folder `name` of the held fleet folder, `None` when it is not there;
/// made when `create`. A link or a file in its place is refused.
pub(super) fn stick_child(folder: &HeldFolder, name: &str, create: bool) -> Result<Option<HeldFolder>, JoinError> {
    match stick::held_child(folder, name, create) {
        Ok(child) => Ok(Some(child)),
        Err(stick::StickFolderError::Missing(_)) => Ok(None),
        Err(stick::StickFolderError::Io(path, e)) => Err(JoinError::Io(path, e)),
        Err(stick::StickFolderError::Link(path) | stick::StickFolderError::NotAFolder(path)) => {
            Err(JoinError::StickFolder(path))
        }
    }
}

/// Reads the file `name` of a held stick folder: regular, not a link, not
/// waited on, at most [`MAX_STICK_FILE`] bytes.
pub(super) fn stick_bytes(folder: &HeldFolder, name: &str) -> Result<Vec<u8>, JoinError> {
    folder.read_small(name, MAX_STICK_FILE).map_err(JoinError::StickFile)
}

/// The stick's files a visit works from, copied once off the stick into a
/// private folder: every check and every install uses these bytes, so a
/// file swapped on the stick after its check is never the one installed.
pub(super) struct StickCopies {
    pub(super) dir: tempfile::TempDir,
}

impl StickCopies {
    pub(super) fn new() -> Result<StickCopies, JoinError> {
        let dir = tempfile::Builder::new()
            .prefix("wordjudge-fleet-stick-")
            .tempdir()
            .map_err(|e| JoinError::Io(std::env::temp_dir(), e))?;
        Ok(StickCopies { dir })
    }

    /// Copies the file `name` of the held stick folder off the stick as
    /// `copy_name`; the copy's path and bytes.
    pub(super) fn take(
        &self,
        folder: &HeldFolder,
        name: &str,
        copy_name: &str,
    ) -> Result<(PathBuf, Vec<u8>), JoinError> {
        let bytes = stick_bytes(folder, name)?;
        // The station's own private folder, made above: openssl reads files.
        let copy = self.dir.path().join(copy_name);
        write_atomically(&copy, &bytes).map_err(|e| JoinError::Io(copy.clone(), e))?;
        Ok((copy, bytes))
    }
}

/// The certificates a PEM file holds.
fn certificates_in(pem: &[u8]) -> usize {
    pem.windows(b"-----BEGIN CERTIFICATE-----".len()).filter(|w| *w == b"-----BEGIN CERTIFICATE-----").count()
}

/// The stick's `fleet.toml`, checked, and its `ca.pem` checked against it:
/// both read once, off the stick, into `copies` (`ca.pem` there is what is
/// checked and later installed).
pub(super) fn read_stick(folder: &HeldFolder, copies: &StickCopies) -> Result<FleetFile, JoinError> {
    let path = folder.path().join(stick::FLEET_FILE);
    // Copied once, then checked: the CA's one certificate, and its
    // signature over the copied bytes of fleet.toml, before any field of it
    // is read.
    let (fleet_copy, bytes) = copies.take(folder, stick::FLEET_FILE, stick::FLEET_FILE)?;
    let (ca, ca_bytes) = copies.take(folder, stick::CA_FILE, stick::CA_FILE)?;
    let certificates = certificates_in(&ca_bytes);
    if certificates != 1 {
        return Err(JoinError::CaNotAlone { certificates });
    }
    let signature = match copies.take(folder, stick::FLEET_SIGNATURE, stick::FLEET_SIGNATURE) {
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
    let found =
        EventCa::fingerprint(&ca).map_err(|e| JoinError::Certificate { file: ca.clone(), problem: e.to_string() })?;
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
    let pem = openssl(
        "read the CA's public key",
        &["x509", "-in", path_str(ca).map_err(JoinError::Openssl)?, "-noout", "-pubkey"],
    )
    .map_err(|e| unsigned(e.to_string()))?;
    let key = copies.dir.path().join("ca.pub.pem");
    write_atomically(&key, pem.as_bytes()).map_err(|e| JoinError::Io(key.clone(), e))?;
    let args = [
        "dgst",
        "-sha256",
        "-verify",
        path_str(&key).map_err(JoinError::Openssl)?,
        "-signature",
        path_str(signature).map_err(JoinError::Openssl)?,
        path_str(fleet).map_err(JoinError::Openssl)?,
    ];
    match openssl("check fleet.toml's signature", &args) {
        Ok(out) if out.trim() == "Verified OK" => Ok(()),
        Ok(out) => Err(unsigned(crate::word::printable(out.trim(), 80))),
        Err(_) => Err(unsigned("the signature does not hold".into())),
    }
}

/// The fingerprint of the laptop's certificate on the stick, after checking
/// the event's CA signed it for a server; `None` if the stick has none (a
/// stick made before it carried one). A laptop certificate that does not
/// check is a stick not to trust.
pub(super) fn laptop_fingerprint(
    folder: &HeldFolder,
    copies: &StickCopies,
    ca: &str,
) -> Result<Option<String>, JoinError> {
    let on_stick = folder.path().join(stick::LAPTOP_FILE);
    if !folder.has(stick::LAPTOP_FILE) {
        return Ok(None);
    }
    let (laptop, _) = copies.take(folder, stick::LAPTOP_FILE, stick::LAPTOP_FILE)?;
    let refuse = |problem: String| JoinError::Certificate { file: on_stick.clone(), problem };
    let laptop_s = path_str(&laptop).map_err(JoinError::Openssl)?;
    openssl(
        "check the laptop's certificate",
        &["verify", "-CAfile", ca, "-purpose", "sslserver", "-x509_strict", laptop_s],
    )
    .map_err(|e| refuse(format!("not the event's laptop ({e})")))?;
    EventCa::fingerprint(&laptop).map(Some).map_err(|e| refuse(e.to_string()))
}
