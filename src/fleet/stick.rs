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
//! This module only reads and checks what is on the stick; making keys and
//! signing is [`super::ca`]'s.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The folder on the stick, from its top.
pub const FOLDER: &str = "wordjudge/fleet";
/// The same folder inside the stick's `wordjudge/` folder: where a station
/// finds it on a stick attached for writing ([`crate::usb::STICK_PATH`]).
pub const FOLDER_IN_EXPORT: &str = "fleet";
/// The settings file in it.
pub const FLEET_FILE: &str = "fleet.toml";
/// The event's CA certificate in it.
pub const CA_FILE: &str = "ca.pem";
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
                "the event's name {} must be 1 to 64 printable characters",
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
        if self.event.is_empty() || self.event.chars().count() > 64 || self.event.chars().any(char::is_control) {
            return Err(StickError::BadEvent(self.event.clone()));
        }
        upload_host_port(&self.upload_url)?;
        if self.ca_sha256.len() != 64 || !self.ca_sha256.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
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
mod tests {
    use super::*;

    fn sample() -> FleetFile {
        FleetFile {
            event: "Nationals 2026".into(),
            upload_url: "https://192.168.10.2:19532".into(),
            ca_sha256: "ab".repeat(32),
            address: None,
            gateway: None,
        }
    }

    #[test]
    fn what_setup_writes_reads_back() {
        let file = FleetFile { address: Some("192.168.10.21/24".into()), gateway: Some("192.168.10.1".into()), ..sample() };
        assert_eq!(FleetFile::parse(&file.to_text()), Ok(file));
        assert_eq!(FleetFile::parse(&sample().to_text()), Ok(sample()));
    }

    #[test]
    fn each_field_out_of_form_is_refused_with_its_reason() {
        let cases: Vec<(FleetFile, &str)> = vec![
            (FleetFile { event: String::new(), ..sample() }, "the event's name"),
            (FleetFile { upload_url: "http://192.168.10.2:19532".into(), ..sample() }, "must be https://HOST:PORT"),
            (FleetFile { upload_url: "https://laptop".into(), ..sample() }, "must be https://HOST:PORT"),
            (FleetFile { upload_url: "https://laptop:19532/x".into(), ..sample() }, "must be https://HOST:PORT"),
            (FleetFile { upload_url: "https://lap top:19532".into(), ..sample() }, "must be https://HOST:PORT"),
            (FleetFile { upload_url: "https://laptop:0".into(), ..sample() }, "must be https://HOST:PORT"),
            (FleetFile { ca_sha256: "AB".repeat(32), ..sample() }, "64 hex digits"),
            (FleetFile { ca_sha256: "ab".into(), ..sample() }, "64 hex digits"),
            (FleetFile { address: Some("192.168.10.21".into()), ..sample() }, "with its prefix length"),
            (FleetFile { address: Some("192.168.10.21/33".into()), ..sample() }, "with its prefix length"),
            (FleetFile { gateway: Some("192.168.10.1".into()), ..sample() }, "without an address"),
        ];
        for (file, reason) in cases {
            let e = FleetFile::parse(&file.to_text()).unwrap_err().to_string();
            assert!(e.contains(reason), "{file:?}: {e}");
        }
        let e = FleetFile::parse("event = \"x\"\nupload_url = \"https://a:1\"\nca_sha256 = \"\"\nport = 1\n").unwrap_err();
        assert!(matches!(e, StickError::Toml(_)), "{e}");
    }

    #[test]
    fn the_fleet_folder_is_inside_the_one_folder_a_station_may_write() {
        assert_eq!(FOLDER, format!("{}/{FOLDER_IN_EXPORT}", crate::usb::EXPORT_FOLDER));
    }

    #[test]
    fn station_names_are_one_dns_label() {
        for good in ["wj-01", "STATION3", "a"] {
            assert!(station_name_is_valid(good), "{good}");
        }
        for bad in ["", "-wj", "wj-", "wj 01", "wj.01", "wj/01", "../x", &"a".repeat(64)] {
            assert!(!station_name_is_valid(bad), "{bad}");
        }
    }
}
