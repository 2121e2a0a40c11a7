//! `wordjudge fleet sign`: the stations' requests on the fleet stick, each
//! checked against the binding to its station's audit key, and signed only
//! once the director has confirmed that key's station key code. What it finds
//! on the stick that this CA did not issue is named as planted.

use super::*;
use wordjudge_core::audit::NoteVerifier;
use wordjudge_core::outside_files::HeldFolder;

/// Most entries of `requests/` one `fleet sign` looks at: an event's
/// stations many times over; a stick holding more is told so.
const MAX_REQUESTS: usize = 1000;

/// `fleet sign`: every request on the stick, checked and, when it is due,
/// signed. Every stick file is read without following a link, regular
/// files only, at most [`stick::MAX_STICK_FILE`] bytes, and copied into a
/// private folder of the laptop; openssl reads and writes only there, and
/// only a finished certificate is put on the stick. The stick's folders are
/// held by their descriptors from the first look ([`HeldFolder`]): every
/// read, write and delete on the stick is relative to them, so a folder
/// swapped for a link while this runs redirects nothing. A
/// request for a name that already has a certificate of another key is
/// refused unless `--replace NAME`; a certificate on the stick that this CA
/// did not issue for the name is named as planted and replaced or removed.
/// Nothing new is signed without the director's confirmation of the
/// request's key code (`--accept NAME=CODE`, or a yes at the terminal).
/// Returns the report and how many were refused (or planted) or wait.
pub(crate) fn sign(args: &SignArgs) -> Result<(String, Tally), FleetSetupError> {
    let ca = EventCa::open(&args.ca_dir).map_err(FleetSetupError::Ca)?;
    if !args.stick.is_dir() {
        return Err(FleetSetupError::NoStick(args.stick.clone()));
    }
    let folder = match stick::held_folder(&args.stick, stick::FOLDER, false) {
        Ok(folder) => folder,
        Err(StickFolderError::Missing(_)) => return Err(FleetSetupError::NoStick(args.stick.join(stick::FOLDER))),
        Err(e) => return Err(FleetSetupError::StickFolder(e)),
    };
    // The laptop's own private folder (mode 0700): openssl's only files.
    let private =
        tempfile::Builder::new().prefix("wordjudge-fleet-sign-").tempdir().map_err(FleetSetupError::Private)?;
    check_stick_ca(&ca, &folder, private.path())?;
    let requests = match stick::held_child(&folder, stick::REQUESTS, false) {
        Ok(r) => r,
        Err(StickFolderError::Missing(r)) => {
            return Ok((
                format!("no requests in {}: has a station joined with this stick yet?\n", r.display()),
                Tally::default(),
            ))
        }
        Err(e) => return Err(FleetSetupError::StickFolder(e)),
    };
    let certificates = stick::held_child(&folder, stick::CERTIFICATES, true).map_err(FleetSetupError::StickFolder)?;
    let listing =
        requests.list(MAX_REQUESTS).map_err(|e| FleetSetupError::StickIo(requests.path().to_path_buf(), e))?;
    let (mut report, mut tally) = (String::new(), Tally::default());
    let ask = std::io::IsTerminal::is_terminal(&std::io::stdin());
    let place = Place {
        ca: &ca,
        requests: &requests,
        certificates: &certificates,
        private: private.path(),
        replace: &args.replace,
        accept: &args.accept,
        ask,
    };
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
        let (lines, more) = place.sign_one(name)?;
        report.push_str(&lines);
        tally.add(more);
    }
    // A request the director named with --accept is looked for by its name,
    // wherever it stands in a folder of more entries than the scan looks at
    // (junk files cannot hide it).
    let listed: Vec<&str> = listing.entries.iter().filter_map(|e| e.name.strip_suffix(".csr")).collect();
    for (name, _) in args.accept.iter().filter(|(n, _)| !listed.contains(&n.as_str())) {
        if stick::check_station_name(name).is_ok() && requests.has(&format!("{name}.csr")) {
            let (lines, more) = place.sign_one(name)?;
            report.push_str(&lines);
            tally.add(more);
        }
    }
    let mut asked = listed.clone();
    asked.extend(args.accept.iter().map(|(n, _)| n.as_str()));
    remove_planted(&ca, &certificates, &asked, &mut report, &mut tally)?;
    if listing.left_out > 0 {
        tally.refused += 1;
        report.push_str(&format!(
            "refused  {} more entries in {}: only the first {MAX_REQUESTS} are looked at (a request named with \
             --accept is found wherever it is; clear the folder of what is not a station's request)\n",
            listing.left_out,
            requests.path().display()
        ));
    }
    if report.is_empty() {
        report = format!("no requests in {}: has a station joined with this stick yet?\n", requests.path().display());
    }
    Ok((report, tally))
}

/// The stick's CA certificate, copied into `private`, must be this
/// laptop's: a stick of another event (or another CA folder) is not signed
/// for.
fn check_stick_ca(ca: &EventCa, folder: &HeldFolder, private: &Path) -> Result<(), FleetSetupError> {
    let stick_ca = private.join("stick-ca.pem");
    match folder.read_small(stick::CA_FILE, stick::MAX_STICK_FILE) {
        Ok(bytes) => outside_files::write_atomically(&stick_ca, &bytes)
            .map_err(|e| FleetSetupError::StickIo(stick_ca.clone(), e))?,
        Err(e) if e.is_not_found() => return Err(FleetSetupError::NoStick(folder.path().to_path_buf())),
        Err(e) => return Err(FleetSetupError::StickFile(e)),
    }
    let ours = EventCa::fingerprint(&ca.ca_pem()).map_err(FleetSetupError::Ca)?;
    let theirs = EventCa::fingerprint(&stick_ca).map_err(FleetSetupError::Ca)?;
    if ours != theirs {
        return Err(FleetSetupError::OtherEvent { stick: theirs, ours });
    }
    Ok(())
}

/// Certificates on the stick with no request this time (`asked`): each must
/// be the one this CA issued for its name, or it is named as planted and
/// removed (a station would refuse it; the director should know).
fn remove_planted(
    ca: &EventCa,
    certificates: &HeldFolder,
    asked: &[&str],
    report: &mut String,
    tally: &mut Tally,
) -> Result<(), FleetSetupError> {
    let answers =
        certificates.list(MAX_REQUESTS).map_err(|e| FleetSetupError::StickIo(certificates.path().to_path_buf(), e))?;
    for entry in &answers.entries {
        let Some(name) = entry.name.strip_suffix(".pem") else { continue };
        if asked.contains(&name) {
            continue;
        }
        let shown = wordjudge_core::word::printable(&entry.name, 80);
        let issued =
            if stick::station_name_is_valid(name) { ca.issued(name).map_err(FleetSetupError::Ca)? } else { None };
        let why = match certificates.read_small(&entry.name, stick::MAX_STICK_FILE) {
            Ok(bytes) if issued.as_ref().is_some_and(|(_, ours)| *ours == bytes) => continue,
            Ok(_) => "it is not a certificate this CA issued for that name".to_string(),
            Err(e) => e.to_string(),
        };
        tally.refused += 1;
        // Relative to the held folder: never a file of the same name
        // elsewhere (the CA's own ca.pem), whatever the stick's names point at now.
        let _ = certificates.remove_file(&entry.name);
        report.push_str(&format!("planted  {shown}: {why}; removed from the stick\n"));
    }
    Ok(())
}

/// Requests `fleet sign` did not sign: refused, or waiting for the
/// director to confirm their key's code.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Tally {
    pub(crate) refused: usize,
    pub(crate) waiting: usize,
}

impl Tally {
    fn add(&mut self, more: Tally) {
        self.refused += more.refused;
        self.waiting += more.waiting;
    }
}

/// What `fleet sign` signs with and where, and what the director said.
struct Place<'a> {
    ca: &'a EventCa,
    requests: &'a HeldFolder,
    certificates: &'a HeldFolder,
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

/// A request that holds: its copy in the private folder, its public key,
/// and the audit key its binding names.
struct Request {
    copy: PathBuf,
    key: Vec<u8>,
    audit_key: NoteVerifier,
}

/// The certificate slot of a name on the stick: where, whether something
/// is there, and why that is planted (not what this CA issued for the name).
struct OnStick {
    /// Its name in the certificates folder, and where that was, for messages.
    file: String,
    path: PathBuf,
    there: bool,
    planted: Option<String>,
}

impl Place<'_> {
    /// One request, `name` checked: the report's lines, and how many
    /// refusals they hold. An `Err` only when the stick cannot be written.
    fn sign_one(&self, name: &str) -> Result<(String, Tally), FleetSetupError> {
        let checked = match self.check_request(name)? {
            Ok(checked) => checked,
            Err(why) => return Ok((format!("refused  {name}: {why}\n"), Tally { refused: 1, waiting: 0 })),
        };
        let code = stick::station_key_code(&checked.audit_key);
        let paired = self.ca.paired_key(name).map_err(FleetSetupError::Ca)?;
        let issued = self.ca.issued(name).map_err(FleetSetupError::Ca)?;
        let issued_key = match &issued {
            Some((path, _)) => {
                let pem = EventCa::certificate_public_key(path).map_err(FleetSetupError::Ca)?;
                stick::public_key_der(&pem)
            }
            None => None,
        };
        let on_stick = self.on_stick(name, issued.as_ref().map(|(_, ours)| ours.as_slice()));
        let (mut report, mut tally) = (String::new(), Tally::default());
        if let Some(why) = &on_stick.planted {
            tally.refused += 1;
            report.push_str(&format!(
                "planted  {name}: {}: {why}; refused, not left for the station\n",
                on_stick.path.display()
            ));
        }
        match (&issued, issued_key) {
            (Some((_, ours)), Some(k)) if k == checked.key && paired.as_ref() == Some(&checked.audit_key) => {
                if on_stick.there && on_stick.planted.is_none() {
                    report.push_str(&format!("kept     {name}: signed before (key {code})\n"));
                } else {
                    self.put(&on_stick, ours)?;
                    report.push_str(&format!(
                        "restored {name}: the certificate signed before for this key (key {code})\n"
                    ));
                }
            }
            (Some(_), k) if !self.replace.iter().any(|r| r == name) => {
                tally.refused += 1;
                let old = match (&paired, k) {
                    (Some(paired), _) => stick::station_key_code(paired),
                    (None, Some(_)) => "no audit key paired".to_string(),
                    (None, None) => "unreadable".to_string(),
                };
                report.push_str(&format!(
                    "refused  {name}: {name} already has a certificate of another key ({old}); this request's key is {code}. \
                     If that station made a new key (reflashed, or left the fleet), sign it with --replace {name}\n"
                ));
                if on_stick.planted.is_some() {
                    // Never left for a station to find; removing a link removes the link only.
                    let _ = self.certificates.remove_file(&on_stick.file);
                }
            }
            (previous, _) => {
                let (lines, more) = self.sign_new_key(name, &code, &checked, &on_stick, previous.is_some())?;
                report.push_str(&lines);
                tally.add(more);
            }
        }
        Ok((report, tally))
    }

    /// The request copied into the private folder and checked, with the
    /// binding beside it that ties it to the station's audit key (the key
    /// paired with the certificate, whose code the director confirms).
    /// `Ok(Err(why))` for a request refused; `Err` when the private folder
    /// cannot be written.
    fn check_request(&self, name: &str) -> Result<Result<Request, String>, FleetSetupError> {
        let request = self.requests.path().join(format!("{name}.csr"));
        let bytes = match self.requests.read_small(&format!("{name}.csr"), stick::MAX_STICK_FILE) {
            Ok(bytes) => bytes,
            Err(e) => return Ok(Err(e.to_string())),
        };
        let copy = self.private.join(format!("{name}.csr"));
        outside_files::write_atomically(&copy, &bytes).map_err(|e| FleetSetupError::StickIo(copy.clone(), e))?;
        let key = match EventCa::check_request(&copy, name) {
            Ok(pem) => pem,
            Err(CaError::Request { problem, .. }) => return Ok(Err(format!("{}: {problem}", request.display()))),
            Err(e) => return Ok(Err(e.to_string())),
        };
        let Some(key) = stick::public_key_der(&key) else { return Ok(Err("its public key cannot be read".into())) };
        let binding = format!("{name}{}", stick::BINDING_SUFFIX);
        let binding_path = self.requests.path().join(&binding);
        let text = self.requests.read_small(&binding, stick::MAX_STICK_FILE).and_then(|bytes| {
            String::from_utf8(bytes)
                .map_err(|_| BoundedReadError::NotRegular { path: binding_path.clone(), kind: "file that is not text" })
        });
        let audit_key = match text {
            Ok(text) => match stick::RequestBinding::check(&text, name, &key) {
                Ok(verifier) => verifier,
                Err(e) => return Ok(Err(format!("{}: {e}", binding_path.display()))),
            },
            Err(e) if e.is_not_found() => {
                return Ok(Err(format!(
                    "no {name}{} beside it: the request is not bound to a station's audit key (made by an older \
                     wordjudge, or not by a station); the station makes both at its next visit",
                    stick::BINDING_SUFFIX
                )))
            }
            Err(e) => return Ok(Err(e.to_string())),
        };
        Ok(Ok(Request { copy, key, audit_key }))
    }

    /// `name`'s certificate slot on the stick, and whether what is there is
    /// `issued`, the certificate this CA issued for the name.
    fn on_stick(&self, name: &str, issued: Option<&[u8]>) -> OnStick {
        let file = format!("{name}.pem");
        let path = self.certificates.path().join(&file);
        let there = self.certificates.has(&file);
        let planted = if !there {
            None
        } else {
            match self.certificates.read_small(&file, stick::MAX_STICK_FILE) {
                Ok(bytes) if issued.is_some_and(|ours| ours == bytes) => None,
                Ok(_) => Some(format!("it is not the certificate this CA issued for {name}")),
                Err(e) => Some(e.to_string()),
            }
        };
        OnStick { file, path, there, planted }
    }

    /// A new key for the name: signed only once the director has matched
    /// its code with the one the station shows; `replaces` when the name had
    /// a certificate of another key (`--replace`).
    fn sign_new_key(
        &self,
        name: &str,
        code: &str,
        request: &Request,
        on_stick: &OnStick,
        replaces: bool,
    ) -> Result<(String, Tally), FleetSetupError> {
        let (mut report, mut tally) = (String::new(), Tally::default());
        let unsigned = match self.confirmed(name, code) {
            Confirmed::Yes => None,
            Confirmed::OtherCode(given) => {
                tally.refused += 1;
                Some(format!(
                    "refused  {name}: --accept gives the code {given}, and this request's key is {code}: \
                     not the request of the station that showed {given}\n"
                ))
            }
            // No pasteable `--accept` line: a script could sign without
            // anyone comparing the code with the station's screen. The
            // director types the code read off the station (or answers the
            // question at a terminal).
            Confirmed::Waiting => {
                tally.waiting += 1;
                Some(format!(
                    "waiting  {name}: key {code}; compare it with the station key code on {name}'s Event fleet page, then \
                     run fleet sign at a terminal (it asks), or give --accept {name}= and the code the station shows\n"
                ))
            }
        };
        let out = self.private.join(format!("{name}.pem"));
        let failed = match unsigned {
            Some(line) => Some(line),
            None => self.ca.sign_station(&request.copy, name, &request.audit_key, &out).err().map(|e| {
                tally.refused += 1;
                format!("refused  {name}: {e}\n")
            }),
        };
        if let Some(line) = failed {
            report.push_str(&line);
            if on_stick.planted.is_some() {
                let _ = self.certificates.remove_file(&on_stick.file);
            }
            return Ok((report, tally));
        }
        let bytes = laptop_file(&out)?;
        self.put(on_stick, &bytes)?;
        let fp = EventCa::fingerprint(&out).map_err(FleetSetupError::Ca)?;
        report.push_str(&format!(
            "signed   {name}: {} (sha256 {fp}, key {code}){}\n",
            on_stick.path.display(),
            if replaces { "; it replaces the certificate of the name's other key (--replace)" } else { "" }
        ));
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

impl Place<'_> {
    /// Puts a finished certificate in its slot on the stick, atomically,
    /// in the held certificates folder.
    fn put(&self, on_stick: &OnStick, bytes: &[u8]) -> Result<(), FleetSetupError> {
        self.certificates
            .write_atomically(&on_stick.file, bytes, 0o644)
            .map_err(|e| FleetSetupError::StickIo(on_stick.path.clone(), e))
    }
}
