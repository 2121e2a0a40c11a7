//! `wordjudge fleet setup` and `fleet sign`, on the director's laptop: the
//! laptop's work on the fleet stick. `setup` makes the event's CA and the
//! laptop's certificate ([`wordjudge_core::fleet::ca`]) and writes the stick
//! ([`wordjudge_core::fleet::stick`]); `sign` signs the stations' requests it
//! finds there, each bound to its station's audit key and signed only once
//! the director confirms that key's pairing code. No link on the stick is
//! followed, and openssl works in a private folder of the laptop.

use std::path::{Path, PathBuf};
use wordjudge_core::fleet::ca::{CaError, EventCa};
use wordjudge_core::fleet::stick::{self, FleetFile, StickError, StickFolderError};
use wordjudge_core::outside_files::{self, BoundedReadError};

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
    let (name, code) = text.split_once('=').ok_or("give NAME=CODE, as table-3=3f9a-0c21-77de-b410")?;
    let code = normal_code(code).ok_or_else(|| format!("the code {} is not 16 hex digits", wordjudge_core::word::quote(code)))?;
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
    OtherEvent { stick: String, ours: String },
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
        match stick::real_folder(&args.stick, relative, false) {
            Ok(_) | Err(StickFolderError::Missing(_)) => {}
            Err(e) => return Err(FleetSetupError::StickFolder(e)),
        }
    }
    let (ca, created) = EventCa::open_or_create(&args.ca_dir, &args.event, &host).map_err(FleetSetupError::Ca)?;
    let fingerprint = EventCa::fingerprint(&ca.ca_pem()).map_err(FleetSetupError::Ca)?;
    let file = FleetFile { ca_sha256: fingerprint.clone(), ..file };
    for relative in &stick_folders {
        stick::real_folder(&args.stick, relative, true).map_err(FleetSetupError::StickFolder)?;
    }
    let folder = args.stick.join(stick::FOLDER);
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
    outside_files::write_atomically(&unsigned, &fleet_text).map_err(|e| FleetSetupError::StickIo(unsigned.clone(), e))?;
    ca.sign_file(&unsigned, &signature).map_err(FleetSetupError::Ca)?;
    let signature = laptop_file(&signature)?;
    for (name, bytes) in [
        (stick::CA_FILE, ca_pem),
        (stick::LAPTOP_FILE, laptop_pem),
        (stick::FLEET_FILE, fleet_text),
        (stick::FLEET_SIGNATURE, signature),
    ] {
        // A fresh temporary file renamed into place: a link in the name's
        // place is replaced, never written through.
        let path = folder.join(name);
        outside_files::write_atomically(&path, &bytes).map_err(|e| FleetSetupError::StickIo(path.clone(), e))?;
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
    text.push_str(&format!("stick:       {} (no private key is on it)\n", folder.display()));
    text.push_str("next: at each station, director menu, \"Join the event's fleet\": it leaves its certificate request on this stick;\n");
    text.push_str(&format!("      then wordjudge fleet sign --stick {}, and wordjudge fleet serve\n", args.stick.display()));
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

/// Most entries of `requests/` one `fleet sign` looks at: an event's
/// stations many times over; a stick holding more is told so.
const MAX_REQUESTS: usize = 1000;

/// `fleet sign`: every request on the stick, checked and, when it is due,
/// signed. Every stick file is read without following a link, regular
/// files only, at most [`stick::MAX_STICK_FILE`] bytes, and copied into a
/// private folder of the laptop; openssl reads and writes only there, and
/// only a finished certificate is put on the stick (`write_atomically`). A
/// request for a name that already has a certificate of another key is
/// refused unless `--replace NAME`; a certificate on the stick that this CA
/// did not issue for the name is named as planted and replaced or removed.
/// Nothing new is signed without the director's confirmation of the
/// request's key code (`--accept NAME=CODE`, or a yes at the terminal).
/// Returns the report and how many were refused (or planted) or wait.
pub(super) fn sign(args: &SignArgs) -> Result<(String, Tally), FleetSetupError> {
    let ca = EventCa::open(&args.ca_dir).map_err(FleetSetupError::Ca)?;
    if !args.stick.is_dir() {
        return Err(FleetSetupError::NoStick(args.stick.clone()));
    }
    let folder = match stick::real_folder(&args.stick, stick::FOLDER, false) {
        Ok(folder) => folder,
        Err(StickFolderError::Missing(_)) => return Err(FleetSetupError::NoStick(args.stick.join(stick::FOLDER))),
        Err(e) => return Err(FleetSetupError::StickFolder(e)),
    };
    // The laptop's own private folder (mode 0700): openssl's only files.
    let private = tempfile::Builder::new()
        .prefix("wordjudge-fleet-sign-")
        .tempdir()
        .map_err(FleetSetupError::Private)?;
    let stick_ca = private.path().join("stick-ca.pem");
    match outside_files::read_small_file_nofollow(&folder.join(stick::CA_FILE), stick::MAX_STICK_FILE) {
        Ok(bytes) => outside_files::write_atomically(&stick_ca, &bytes).map_err(|e| FleetSetupError::StickIo(stick_ca.clone(), e))?,
        Err(e) if e.is_not_found() => return Err(FleetSetupError::NoStick(folder)),
        Err(e) => return Err(FleetSetupError::StickFile(e)),
    }
    let ours = EventCa::fingerprint(&ca.ca_pem()).map_err(FleetSetupError::Ca)?;
    let theirs = EventCa::fingerprint(&stick_ca).map_err(FleetSetupError::Ca)?;
    if ours != theirs {
        return Err(FleetSetupError::OtherEvent { stick: theirs, ours });
    }
    let requests = match stick::real_folder(&args.stick, &requests_folder(), false) {
        Ok(r) => r,
        Err(StickFolderError::Missing(r)) => {
            return Ok((format!("no requests in {}: has a station joined with this stick yet?\n", r.display()), Tally::default()))
        }
        Err(e) => return Err(FleetSetupError::StickFolder(e)),
    };
    let certificates = stick::real_folder(&args.stick, &certificates_folder(), true).map_err(FleetSetupError::StickFolder)?;
    let listing = outside_files::list_folder(&requests, MAX_REQUESTS).map_err(|e| FleetSetupError::StickIo(requests.clone(), e))?;
    let (mut report, mut tally) = (String::new(), Tally::default());
    let ask = std::io::IsTerminal::is_terminal(&std::io::stdin());
    let place = Place { ca: &ca, certificates: &certificates, private: private.path(), replace: &args.replace, accept: &args.accept, ask };
    for entry in &listing.entries {
        let Some(name) = entry.name.strip_suffix(".csr") else { continue };
        if stick::check_station_name(name).is_err() {
            tally.refused += 1;
            // The name as it came from the stick, escaped: it may hold an
            // escape sequence meant for the director's terminal.
            report.push_str(&format!(
                "refused  {}: {}\n",
                wordjudge_core::word::printable(&entry.name, 80),
                StickError::BadStationName(name.to_string())
            ));
            continue;
        }
        let (lines, more) = place.sign_one(&entry.path, name)?;
        report.push_str(&lines);
        tally.refused += more.refused;
        tally.waiting += more.waiting;
    }
    // Certificates on the stick with no request this time: each must be
    // the one this CA issued for its name, or it is named as planted and
    // removed (a station would refuse it; the director should know).
    let asked: Vec<&str> = listing.entries.iter().filter_map(|e| e.name.strip_suffix(".csr")).collect();
    let answers = outside_files::list_folder(&certificates, MAX_REQUESTS).map_err(|e| FleetSetupError::StickIo(certificates.clone(), e))?;
    for entry in &answers.entries {
        let Some(name) = entry.name.strip_suffix(".pem") else { continue };
        if asked.contains(&name) {
            continue;
        }
        let shown = wordjudge_core::word::printable(&entry.name, 80);
        let issued = if stick::station_name_is_valid(name) { ca.issued(name).map_err(FleetSetupError::Ca)? } else { None };
        let why = match outside_files::read_small_file_nofollow(&entry.path, stick::MAX_STICK_FILE) {
            Ok(bytes) if issued.as_ref().is_some_and(|(_, ours)| *ours == bytes) => continue,
            Ok(_) => "it is not a certificate this CA issued for that name".to_string(),
            Err(e) => e.to_string(),
        };
        tally.refused += 1;
        let _ = std::fs::remove_file(&entry.path);
        report.push_str(&format!("planted  {shown}: {why}; removed from the stick\n"));
    }
    if listing.left_out > 0 {
        tally.refused += 1;
        report.push_str(&format!(
            "refused  {} more entries in {}: only the first {MAX_REQUESTS} are looked at\n",
            listing.left_out,
            requests.display()
        ));
    }
    if report.is_empty() {
        report = format!("no requests in {}: has a station joined with this stick yet?\n", requests.display());
    }
    Ok((report, tally))
}

/// Requests `fleet sign` did not sign: refused, or waiting for the
/// director to confirm their key's code.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Tally {
    pub(super) refused: usize,
    pub(super) waiting: usize,
}

/// What `fleet sign` signs with and where, and what the director said.
struct Place<'a> {
    ca: &'a EventCa,
    certificates: &'a Path,
    private: &'a Path,
    replace: &'a [String],
    accept: &'a [(String, String)],
    /// Whether to ask at the terminal about a request not accepted by `--accept`.
    ask: bool,
}

/// Whether the director confirmed a request's key.
enum Confirmed {
    Yes,
    /// `--accept` gave another code for the name.
    OtherCode(String),
    Waiting,
}

impl Place<'_> {
    /// One request, `name` checked: the report's lines, and how many
    /// refusals they hold. An `Err` only when the stick cannot be written.
    fn sign_one(&self, request: &Path, name: &str) -> Result<(String, Tally), FleetSetupError> {
        let refuse = |why: String| Ok((format!("refused  {name}: {why}\n"), Tally { refused: 1, waiting: 0 }));
        let bytes = match outside_files::read_small_file_nofollow(request, stick::MAX_STICK_FILE) {
            Ok(bytes) => bytes,
            Err(e) => return refuse(e.to_string()),
        };
        let copy = self.private.join(format!("{name}.csr"));
        outside_files::write_atomically(&copy, &bytes).map_err(|e| FleetSetupError::StickIo(copy.clone(), e))?;
        let key = match EventCa::check_request(&copy, name) {
            Ok(pem) => pem,
            Err(CaError::Request { problem, .. }) => return refuse(format!("{}: {problem}", request.display())),
            Err(e) => return refuse(e.to_string()),
        };
        let Some(key) = stick::public_key_der(&key) else { return refuse("its public key cannot be read".into()) };
        // The binding beside it ties the request to the station's audit
        // key: the key paired with the certificate, whose code the
        // director confirms.
        let binding_path = request.with_file_name(format!("{name}{}", stick::BINDING_SUFFIX));
        let audit_key = match outside_files::read_small_text_nofollow(&binding_path, stick::MAX_STICK_FILE) {
            Ok(text) => match stick::RequestBinding::check(&text, name, &key) {
                Ok(verifier) => verifier,
                Err(e) => return refuse(format!("{}: {e}", binding_path.display())),
            },
            Err(e) if e.is_not_found() => {
                return refuse(format!(
                    "no {name}{} beside it: the request is not bound to a station's audit key (made by an older \
                     wordjudge, or not by a station); the station makes both at its next visit",
                    stick::BINDING_SUFFIX
                ))
            }
            Err(e) => return refuse(e.to_string()),
        };
        let code = stick::pairing_code(&audit_key);
        let paired = self.ca.paired_key(name).map_err(FleetSetupError::Ca)?;
        let issued = self.ca.issued(name).map_err(FleetSetupError::Ca)?;
        let issued_key = match &issued {
            Some((path, _)) => {
                let pem = EventCa::certificate_public_key(path).map_err(FleetSetupError::Ca)?;
                stick::public_key_der(&pem)
            }
            None => None,
        };
        let on_stick = self.certificates.join(format!("{name}.pem"));
        let there = std::fs::symlink_metadata(&on_stick).is_ok();
        let planted = if !there {
            None
        } else {
            match outside_files::read_small_file_nofollow(&on_stick, stick::MAX_STICK_FILE) {
                Ok(bytes) if issued.as_ref().is_some_and(|(_, ours)| *ours == bytes) => None,
                Ok(_) => Some(format!("it is not the certificate this CA issued for {name}")),
                Err(e) => Some(e.to_string()),
            }
        };
        let (mut report, mut tally) = (String::new(), Tally::default());
        if let Some(why) = &planted {
            tally.refused += 1;
            report.push_str(&format!("planted  {name}: {}: {why}; refused, not left for the station\n", on_stick.display()));
        }
        let put = |bytes: &[u8]| outside_files::write_atomically(&on_stick, bytes).map_err(|e| FleetSetupError::StickIo(on_stick.clone(), e));
        match (&issued, issued_key) {
            (Some((_, ours)), Some(k)) if k == key && paired.as_ref() == Some(&audit_key) => {
                if there && planted.is_none() {
                    report.push_str(&format!("kept     {name}: signed before (key {code})\n"));
                } else {
                    put(ours)?;
                    report.push_str(&format!("restored {name}: the certificate signed before for this key (key {code})\n"));
                }
            }
            (Some(_), k) if !self.replace.iter().any(|r| r == name) => {
                tally.refused += 1;
                let old = match (&paired, k) {
                    (Some(paired), _) => stick::pairing_code(paired),
                    (None, Some(_)) => "no audit key paired".to_string(),
                    (None, None) => "unreadable".to_string(),
                };
                report.push_str(&format!(
                    "refused  {name}: {name} already has a certificate of another key ({old}); this request's key is {code}. \
                     If that station made a new key (reflashed, or left the fleet), sign it with --replace {name}\n"
                ));
                if planted.is_some() {
                    // Never left for a station to find; removing a link removes the link only.
                    let _ = std::fs::remove_file(&on_stick);
                }
            }
            (previous, _) => {
                // A new key for the name: signed only once the director
                // has matched its code with the one the station shows.
                let unsigned = match self.confirmed(name, &code) {
                    Confirmed::Yes => None,
                    Confirmed::OtherCode(given) => {
                        tally.refused += 1;
                        Some(format!(
                            "refused  {name}: --accept gives the code {given}, and this request's key is {code}: \
                             not the request of the station that showed {given}\n"
                        ))
                    }
                    Confirmed::Waiting => {
                        tally.waiting += 1;
                        Some(format!(
                            "waiting  {name}: key {code}; if the station {name} shows this code, sign it with \
                             --accept {name}={code}\n"
                        ))
                    }
                };
                let out = self.private.join(format!("{name}.pem"));
                let failed = match unsigned {
                    Some(line) => Some(line),
                    None => self.ca.sign_station(&copy, name, &audit_key, &out).err().map(|e| {
                        tally.refused += 1;
                        format!("refused  {name}: {e}\n")
                    }),
                };
                if let Some(line) = failed {
                    report.push_str(&line);
                    if planted.is_some() {
                        let _ = std::fs::remove_file(&on_stick);
                    }
                    return Ok((report, tally));
                }
                let bytes = laptop_file(&out)?;
                put(&bytes)?;
                let fp = EventCa::fingerprint(&out).map_err(FleetSetupError::Ca)?;
                report.push_str(&format!(
                    "signed   {name}: {} (sha256 {fp}, key {code}){}\n",
                    on_stick.display(),
                    if previous.is_some() { "; it replaces the certificate of the name's other key (--replace)" } else { "" }
                ));
            }
        }
        Ok((report, tally))
    }

    /// The director's word on `name`'s key `code`: `--accept`, else a
    /// question at the terminal, else waiting.
    fn confirmed(&self, name: &str, code: &str) -> Confirmed {
        let want = normal_code(code).unwrap_or_default();
        if let Some((_, given)) = self.accept.iter().find(|(n, _)| n == name) {
            return if *given == want { Confirmed::Yes } else { Confirmed::OtherCode(given.clone()) };
        }
        if !self.ask {
            return Confirmed::Waiting;
        }
        eprint!("wordjudge: a request for {name}, key {code}. Is this the code on {name}'s screen? Sign it? [y/N] ");
        let mut answer = String::new();
        let _ = std::io::BufRead::read_line(&mut std::io::stdin().lock(), &mut answer);
        if matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes") {
            Confirmed::Yes
        } else {
            Confirmed::Waiting
        }
    }
}

