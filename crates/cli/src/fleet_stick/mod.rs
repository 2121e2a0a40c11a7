//! `wordjudge fleet setup` and `fleet sign`, on the director's laptop: the
//! laptop's work on the fleet stick. `setup` makes the event's CA and the
//! laptop's certificate ([`wordjudge_core::fleet::ca`]) and writes the stick
//! ([`wordjudge_core::fleet::stick`]); `sign` signs the stations' requests it
//! finds there, each bound to its station's audit key and signed only once
//! the director confirms that key's station key code. No link on the stick is
//! followed, and openssl works in a private folder of the laptop.

use std::path::{Path, PathBuf};
use wordjudge_core::fleet::ca::{CaError, EventCa};
use wordjudge_core::fleet::stick::{self, FleetFile, StickError, StickFolderError};
use wordjudge_core::outside_files::{self, BoundedReadError};

mod sign;
pub(super) use sign::{sign, Tally};

#[derive(clap::Args, Debug)]
pub struct SetupArgs {
    /// The event's name, shown on the stations
    #[arg(long, value_name = "NAME")]
    event: String,
    /// The laptop's address as the stations reach it: HOST or HOST:PORT (port 19532 if none)
    #[arg(long, value_name = "HOST[:PORT]")]
    laptop: String,
    /// The mounted fleet stick: the folder wordjudge/fleet is written on it
    #[arg(long, value_name = "DIR")]
    stick: PathBuf,
    /// The stations' wired address with its prefix length (192.168.10.21/24) [default: DHCP]
    #[arg(long, value_name = "ADDRESS/PREFIX")]
    address: Option<String>,
    /// Their gateway, with --address
    #[arg(long, value_name = "ADDRESS", requires = "address")]
    gateway: Option<String>,
    /// Where the event's CA is kept (made there if it is not)
    #[arg(long, value_name = "DIR", default_value = wordjudge_core::fleet::DEFAULT_CA_DIR)]
    ca_dir: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct SignArgs {
    /// The mounted fleet stick
    #[arg(long, value_name = "DIR")]
    stick: PathBuf,
    /// Where the event's CA is kept
    #[arg(long, value_name = "DIR", default_value = wordjudge_core::fleet::DEFAULT_CA_DIR)]
    ca_dir: PathBuf,
    /// Sign NAME's request although NAME already has a certificate of another key (the station made a new key: reflashed, or left the fleet); repeatable
    #[arg(long, value_name = "NAME")]
    replace: Vec<String>,
    /// Sign NAME's request if its key's code is CODE, the code the station shows (for a script; at a terminal, each request is asked about); repeatable
    #[arg(long, value_name = "NAME=CODE", value_parser = parse_accept)]
    accept: Vec<(String, String)>,
}

/// `--accept NAME=CODE`: the code's 16 hex digits, with or without the
/// hyphens, in either case.
fn parse_accept(text: &str) -> Result<(String, String), String> {
    let (name, code) = text.split_once('=').ok_or("give NAME=CODE, as table-3=3F9A-0C21-77DE-B410")?;
    let code = normal_code(code)
        .ok_or_else(|| format!("the code {} is not 16 hex digits", wordjudge_core::word::quote(code)))?;
    stick::check_station_name(name).map_err(|e| e.to_string())?;
    Ok((name.to_string(), code))
}

/// A key code as 16 lowercase hex digits, hyphens and spaces dropped.
fn normal_code(code: &str) -> Option<String> {
    let hex: String = code.chars().filter(|c| *c != '-' && *c != ' ').collect::<String>().to_ascii_lowercase();
    (hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit())).then_some(hex)
}

/// Why `fleet setup`, `sign` or `serve` did nothing.
#[derive(Debug)]
pub enum FleetSetupError {
    Stick(StickError),
    Ca(CaError),
    NoStick(PathBuf),
    /// A folder of the stick that is a link or not a folder.
    StickFolder(StickFolderError),
    /// A file of the stick (or of the CA folder) not read: a link, a FIFO,
    /// a device, too large.
    StickFile(BoundedReadError),
    StickIo(PathBuf, std::io::Error),
    OtherEvent {
        stick: String,
        ours: String,
    },
    /// A private folder of the laptop could not be made.
    Private(std::io::Error),
}

impl std::fmt::Display for FleetSetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FleetSetupError::Stick(e) => e.fmt(f),
            FleetSetupError::Ca(e) => e.fmt(f),
            FleetSetupError::NoStick(path) => {
                write!(f, "{} is not a folder: give the mounted stick's folder (--stick)", path.display())
            }
            FleetSetupError::StickIo(path, e) => write!(f, "{}: {e}", path.display()),
            FleetSetupError::StickFolder(e) => write!(f, "{e}; nothing was written"),
            FleetSetupError::StickFile(e) => write!(f, "{e}; nothing was written"),
            FleetSetupError::OtherEvent { stick, ours } => write!(
                f,
                "this stick's CA ({stick}) is not this laptop's ({ours}): it belongs to another event, or to another CA folder (--ca-dir)"
            ),
            FleetSetupError::Private(e) => write!(f, "could not make a private folder: {e}"),
        }
    }
}

impl std::error::Error for FleetSetupError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FleetSetupError::Stick(e) => Some(e),
            FleetSetupError::Ca(e) => Some(e),
            FleetSetupError::StickFolder(e) => Some(e),
            FleetSetupError::StickFile(e) => Some(e),
            FleetSetupError::StickIo(_, e) | FleetSetupError::Private(e) => Some(e),
            _ => None,
        }
    }
}

/// `fleet setup`: the CA (kept if there), the laptop's certificate for the
/// address, and the stick's folder, written file by file through temporary
/// names.
pub(super) fn setup(args: &SetupArgs) -> Result<String, FleetSetupError> {
    let (host, port) = match args.laptop.rsplit_once(':') {
        Some((host, port)) => (host.to_string(), port.parse::<u16>().unwrap_or(0)),
        None => (args.laptop.clone(), stick::DEFAULT_PORT),
    };
    let file = FleetFile {
        event: args.event.clone(),
        upload_url: format!("https://{host}:{port}"),
        ca_sha256: "0".repeat(64),
        address: args.address.clone(),
        gateway: args.gateway.clone(),
    };
    file.check().map_err(FleetSetupError::Stick)?;
    if !args.stick.is_dir() {
        return Err(FleetSetupError::NoStick(args.stick.clone()));
    }
    // A link anywhere in the stick's fleet folders is refused before
    // anything is made: the files below are written only into real
    // folders of the stick's own `wordjudge/` folder.
    let stick_folders = [stick::FOLDER.to_string(), requests_folder(), certificates_folder()];
    for relative in &stick_folders {
        match stick::held_folder(&args.stick, relative, false) {
            Ok(_) | Err(StickFolderError::Missing(_)) => {}
            Err(e) => return Err(FleetSetupError::StickFolder(e)),
        }
    }
    let (ca, created) = EventCa::open_or_create(&args.ca_dir, &args.event, &host).map_err(FleetSetupError::Ca)?;
    let fingerprint = EventCa::fingerprint(&ca.ca_pem()).map_err(FleetSetupError::Ca)?;
    let file = FleetFile { ca_sha256: fingerprint.clone(), ..file };
    // Held by its descriptor from here on: a folder swapped for a link
    // now redirects no write.
    let folder = stick::held_folder(&args.stick, stick::FOLDER, true).map_err(FleetSetupError::StickFolder)?;
    for sub in [stick::REQUESTS, stick::CERTIFICATES] {
        stick::held_child(&folder, sub, true).map_err(FleetSetupError::StickFolder)?;
    }
    let ca_pem = laptop_file(&ca.ca_pem())?;
    let laptop_pem = laptop_file(&ca.laptop_pem())?;
    // fleet.toml signed by the CA (a station uses no field of it before it
    // checks the signature): signed as a private copy, then both moved on.
    let fleet_text = file.to_text().into_bytes();
    let private = tempfile::Builder::new()
        .prefix("wordjudge-fleet-setup-")
        .tempdir()
        .map_err(|e| FleetSetupError::StickIo(std::env::temp_dir(), e))?;
    let (unsigned, signature) = (private.path().join(stick::FLEET_FILE), private.path().join(stick::FLEET_SIGNATURE));
    outside_files::write_atomically(&unsigned, &fleet_text)
        .map_err(|e| FleetSetupError::StickIo(unsigned.clone(), e))?;
    ca.sign_file(&unsigned, &signature).map_err(FleetSetupError::Ca)?;
    let signature = laptop_file(&signature)?;
    for (name, bytes) in [
        (stick::CA_FILE, ca_pem),
        (stick::LAPTOP_FILE, laptop_pem),
        (stick::FLEET_FILE, fleet_text),
        (stick::FLEET_SIGNATURE, signature),
    ] {
        // A fresh temporary file renamed into place, in the held folder: a
        // link in the name's place is replaced, never written through.
        folder
            .write_atomically(name, &bytes, 0o644)
            .map_err(|e| FleetSetupError::StickIo(folder.path().join(name), e))?;
    }
    let network = match (&file.address, &file.gateway) {
        (Some(a), Some(g)) => format!("{a}, gateway {g}"),
        (Some(a), None) => a.clone(),
        _ => "DHCP".to_string(),
    };
    let mut text = String::new();
    text.push_str(&format!("event:       {}\n", file.event));
    text.push_str(&format!(
        "CA:          {} ({})\n",
        ca.ca_pem().display(),
        if created { "made now" } else { "kept: made before" }
    ));
    text.push_str(&format!("fingerprint: {fingerprint}\n"));
    text.push_str(&format!("             (stations show it as {})\n", stick::grouped(&fingerprint)));
    text.push_str(&format!("upload to:   {}\n", file.upload_url));
    text.push_str(&format!("network:     {network}\n"));
    text.push_str(&format!("stick:       {} (no private key is on it)\n", folder.path().display()));
    text.push_str("next: at each station, director menu, \"Join the event's fleet\": it leaves its certificate request on this stick;\n");
    text.push_str(&format!(
        "      then wordjudge fleet sign --stick {}, and wordjudge fleet serve\n",
        args.stick.display()
    ));
    Ok(text)
}

fn requests_folder() -> String {
    format!("{}/{}", stick::FOLDER, stick::REQUESTS)
}

fn certificates_folder() -> String {
    format!("{}/{}", stick::FOLDER, stick::CERTIFICATES)
}

/// A certificate of the laptop's CA folder, read the one bounded way.
fn laptop_file(path: &Path) -> Result<Vec<u8>, FleetSetupError> {
    outside_files::read_small_file_nofollow(path, stick::MAX_STICK_FILE).map_err(FleetSetupError::StickFile)
}
