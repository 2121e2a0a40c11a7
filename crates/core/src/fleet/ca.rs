//! The event's certificate authority, on the director's laptop: one CA per
//! event, the laptop's own certificate for `systemd-journal-remote`, and the
//! stations' certificates signed from their requests.
//!
//! All of it is done by the `openssl` program (the steps `man
//! systemd-journal-remote` gives), never by code of ours: keys are P-256,
//! made by openssl and written by it with mode 0600. The folder holds:
//!
//! | file | what |
//! |---|---|
//! | `ca.key`, `ca.pem` | the CA: its key never leaves this folder |
//! | `laptop.key`, `laptop.pem` | the laptop's key and certificate (serverAuth, named for the upload address's host) |
//! | `ca.srl` | openssl's serial counter |
//! | `signed/NAME.pem` | the last certificate signed for each station: what `fleet sign` tells a certificate this CA issued from a planted one by, and a key already paired with a name from a new one |
//! | `signed/NAME.audit.pub` | the station's audit key (a note verifier key), paired with its certificate at `fleet sign`: what `fleet status` proves the station's records with |
//! | `signed/NAME.replaced-SECONDS.audit.pub` | a key the station had before `fleet sign --replace` paired another: its records from before stay provable, shown apart |

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What follows a station's name in `signed/` for its paired audit key.
pub const PAIRED_KEY_SUFFIX: &str = ".audit.pub";
/// Between a station's name and when its key was replaced, in the name of a
/// replaced paired key: `signed/NAME.replaced-SECONDS.audit.pub`.
pub const REPLACED_MARK: &str = ".replaced-";

/// Days a certificate is valid: an event's season, not a decade.
pub const VALID_DAYS: u32 = 400;

/// Why the CA could not do what was asked.
#[derive(Debug)]
pub enum CaError {
    OpensslMissing,
    Openssl {
        step: &'static str,
        stderr: String,
    },
    Io(PathBuf, std::io::Error),
    NotACa(PathBuf),
    Request {
        file: PathBuf,
        problem: String,
    },
    /// A paired audit key that is not a verifier key.
    PairedKey {
        file: PathBuf,
        source: crate::audit::VerifierKeyError,
    },
    /// A file could not be read (missing, a link, not a regular file, too large).
    Read(crate::outside_files::BoundedReadError),
}

impl fmt::Display for CaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaError::OpensslMissing => {
                write!(
                    f,
                    "openssl is not installed here; it makes the event's keys (Debian and Ubuntu: the openssl package)"
                )
            }
            CaError::Openssl { step, stderr } => write!(f, "openssl failed to {step}: {}", stderr.trim()),
            CaError::Io(path, e) => write!(f, "{}: {e}", path.display()),
            CaError::NotACa(dir) => write!(
                f,
                "{} holds no event CA (ca.pem and ca.key): make one with `wordjudge fleet setup`",
                dir.display()
            ),
            CaError::Request { file, problem } => write!(f, "{}: {problem}", file.display()),
            CaError::PairedKey { file, source } => write!(f, "{}: not a paired audit key: {source}", file.display()),
            CaError::Read(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CaError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CaError::Io(_, e) => Some(e),
            CaError::Read(e) => Some(e),
            CaError::PairedKey { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The CA folder.
pub struct EventCa {
    dir: PathBuf,
}

impl EventCa {
    /// The CA in `dir`, made there first if it has none: the CA and the
    /// laptop's certificate for `host`. An existing CA is kept (a second
    /// `setup` must not orphan the stations that joined); the laptop's
    /// certificate is made again if it names another host.
    pub fn open_or_create(dir: &Path, event: &str, host: &str) -> Result<(EventCa, bool), CaError> {
        std::fs::create_dir_all(dir).map_err(|e| CaError::Io(dir.to_path_buf(), e))?;
        set_mode(dir, 0o700)?;
        let ca = EventCa { dir: dir.to_path_buf() };
        let created = !ca.ca_pem().exists();
        if created {
            let subject = format!("/O=wordjudge fleet/CN={} CA", openssl_subject_text(event));
            openssl(
                "make the event's CA",
                &[
                    "req",
                    "-x509",
                    "-newkey",
                    "ec",
                    "-pkeyopt",
                    "ec_paramgen_curve:P-256",
                    "-nodes",
                    "-days",
                    &VALID_DAYS.to_string(),
                    "-subj",
                    &subject,
                    "-addext",
                    "basicConstraints=critical,CA:TRUE",
                    "-addext",
                    "keyUsage=critical,keyCertSign,cRLSign",
                    "-keyout",
                    path_str(&ca.ca_key())?,
                    "-out",
                    path_str(&ca.ca_pem())?,
                ],
            )?;
        } else if !ca.ca_key().exists() {
            return Err(CaError::NotACa(dir.to_path_buf()));
        }
        if created || ca.laptop_host()?.as_deref() != Some(host) {
            ca.make_laptop_certificate(host)?;
        }
        Ok((ca, created))
    }

    /// The CA already in `dir`.
    pub fn open(dir: &Path) -> Result<EventCa, CaError> {
        let ca = EventCa { dir: dir.to_path_buf() };
        if ca.ca_pem().exists() && ca.ca_key().exists() && ca.laptop_pem().exists() && ca.laptop_key().exists() {
            Ok(ca)
        } else {
            Err(CaError::NotACa(dir.to_path_buf()))
        }
    }

    pub fn ca_pem(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }
    fn ca_key(&self) -> PathBuf {
        self.dir.join("ca.key")
    }
    pub fn laptop_pem(&self) -> PathBuf {
        self.dir.join("laptop.pem")
    }
    pub fn laptop_key(&self) -> PathBuf {
        self.dir.join("laptop.key")
    }
    fn serial(&self) -> PathBuf {
        self.dir.join("ca.srl")
    }

    /// SHA-256 of a certificate's DER bytes, lowercase hex.
    pub fn fingerprint(certificate: &Path) -> Result<String, CaError> {
        let out = openssl(
            "read a certificate's fingerprint",
            &["x509", "-in", path_str(certificate)?, "-noout", "-fingerprint", "-sha256"],
        )?;
        let hex: String = out
            .split_once('=')
            .map(|(_, v)| v.trim().chars().filter(char::is_ascii_hexdigit).collect::<String>().to_ascii_lowercase())
            .unwrap_or_default();
        if hex.len() == 64 {
            Ok(hex)
        } else {
            Err(CaError::Openssl { step: "read a certificate's fingerprint", stderr: out })
        }
    }

    /// The host the laptop's certificate names (its subjectAltName): the
    /// address `fleet setup` was given for the laptop.
    pub fn laptop_host(&self) -> Result<Option<String>, CaError> {
        if !self.laptop_pem().exists() {
            return Ok(None);
        }
        let out = openssl(
            "read the laptop's certificate",
            &["x509", "-in", path_str(&self.laptop_pem())?, "-noout", "-ext", "subjectAltName"],
        )?;
        Ok(out.split([',', '\n']).find_map(|part| {
            let part = part.trim();
            part.strip_prefix("DNS:").or_else(|| part.strip_prefix("IP Address:")).map(str::to_string)
        }))
    }

    fn make_laptop_certificate(&self, host: &str) -> Result<(), CaError> {
        let request = self.dir.join("laptop.csr");
        openssl(
            "make the laptop's key",
            &[
                "req",
                "-new",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-subj",
                &format!("/O=wordjudge fleet/CN={}", openssl_subject_text(host)),
                "-keyout",
                path_str(&self.laptop_key())?,
                "-out",
                path_str(&request)?,
            ],
        )?;
        let san = if host.parse::<std::net::Ipv4Addr>().is_ok() { format!("IP:{host}") } else { format!("DNS:{host}") };
        let extensions = format!(
            "subjectAltName={san}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\nbasicConstraints=critical,CA:FALSE\n"
        );
        self.sign_request(&request, &extensions, None, &self.laptop_pem())?;
        let _ = std::fs::remove_file(&request);
        Ok(())
    }

    /// Checks a station's request (its signature, its subject one CN that
    /// is `name`) and returns its public key in PEM.
    pub fn check_request(request: &Path, name: &str) -> Result<String, CaError> {
        let bad = |problem: String| CaError::Request { file: request.to_path_buf(), problem };
        let out = openssl(
            "read a station's request",
            &["req", "-in", path_str(request)?, "-noout", "-verify", "-subject", "-pubkey", "-nameopt", "RFC2253"],
        )
        .map_err(|e| bad(format!("not a certificate request with a good signature ({e})")))?;
        let subject = out.lines().find_map(|l| l.strip_prefix("subject=")).unwrap_or("").trim().to_string();
        if subject != format!("CN={name}") {
            return Err(bad(format!("it names {}, not CN={name}", crate::word::quote(&subject))));
        }
        match out.find("-----BEGIN PUBLIC KEY-----") {
            Some(at) => Ok(out[at..].to_string()),
            None => Err(bad("openssl printed no public key for it".into())),
        }
    }

    /// A certificate's public key in PEM.
    pub fn certificate_public_key(certificate: &Path) -> Result<String, CaError> {
        openssl("read a certificate's public key", &["x509", "-in", path_str(certificate)?, "-noout", "-pubkey"])
    }

    /// The certificate this CA last issued for station `name` (its copy in
    /// `signed/`), if it issued one.
    pub fn issued(&self, name: &str) -> Result<Option<(PathBuf, Vec<u8>)>, CaError> {
        let path = self.dir.join("signed").join(format!("{name}.pem"));
        match crate::outside_files::read_small_file_nofollow(&path, super::stick::MAX_STICK_FILE) {
            Ok(bytes) => Ok(Some((path, bytes))),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(CaError::Read(e)),
        }
    }

    /// The issue of the certificate this CA last signed for station `name`
    /// (its subject's `serialNumber`; `Some(None)` for one signed before
    /// certificates had issues), or `None` when it signed none. What
    /// `fleet route` lets through: a certificate of another issue was
    /// replaced (`fleet sign --replace`).
    pub fn current_issue(&self, name: &str) -> Result<Option<Option<String>>, CaError> {
        let Some((path, _)) = self.issued(name)? else { return Ok(None) };
        let out = openssl(
            "read a station's certificate",
            &["x509", "-in", path_str(&path)?, "-noout", "-subject", "-nameopt", "RFC2253"],
        )?;
        let subject = out.lines().find_map(|l| l.strip_prefix("subject=")).unwrap_or("").trim();
        match super::sender::station_of_subject(subject) {
            Some(read) if read.station == name => Ok(Some(read.issue.map(str::to_string))),
            _ => Err(CaError::Request {
                file: path.clone(),
                problem: format!("it names {}, not CN={name}", crate::word::quote(subject)),
            }),
        }
    }

    /// The stations this CA signed a certificate for (`signed/NAME.pem`):
    /// those `fleet serve` receives from.
    pub fn signed_stations(&self) -> Result<Vec<String>, CaError> {
        let kept = self.dir.join("signed");
        let listing = match crate::outside_files::list_folder(&kept, 100_000) {
            Ok(listing) => listing,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(CaError::Io(kept, e)),
        };
        let mut names: Vec<String> = listing
            .entries
            .iter()
            .filter(|e| e.kind == crate::outside_files::EntryKind::File)
            .filter_map(|e| e.name.strip_suffix(".pem"))
            .filter(|name| super::stick::station_name_is_valid(name))
            .map(str::to_string)
            .collect();
        names.sort();
        Ok(names)
    }

    /// The audit keys paired with the stations at `fleet sign`, one per
    /// station name; a key file that cannot be read is an error that names
    /// it (a station silently without its key would show no record).
    pub fn paired_keys(&self) -> Result<Vec<super::PairedKey>, CaError> {
        Self::paired_keys_in(&self.dir)
    }

    /// [`Self::paired_keys`] of the CA folder `dir`, which needs only its
    /// `signed/` folder (a copy of it on another machine reads the same).
    pub fn paired_keys_in(dir: &Path) -> Result<Vec<super::PairedKey>, CaError> {
        let kept = dir.join("signed");
        let listing = match crate::outside_files::list_folder(&kept, 100_000) {
            Ok(listing) => listing,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(CaError::Io(kept, e)),
        };
        let mut keys = Vec::new();
        for entry in &listing.entries {
            let Some(stem) = entry.name.strip_suffix(PAIRED_KEY_SUFFIX) else { continue };
            // `NAME.audit.pub`, or a key replaced at `fleet sign --replace`:
            // `NAME.replaced-SECONDS.audit.pub`.
            let (station, replaced_at) = match stem.split_once(REPLACED_MARK) {
                Some((station, at)) => match at.parse::<i64>() {
                    Ok(at) => (station, Some(at)),
                    Err(_) => continue,
                },
                None => (stem, None),
            };
            if super::stick::check_station_name(station).is_err() {
                continue;
            }
            let path = kept.join(&entry.name);
            let text = crate::outside_files::read_small_text(&path, crate::outside_files::limits::SMALL_FILE)
                .map_err(CaError::Read)?;
            let verifier = crate::audit::NoteVerifier::parse(&text)
                .map_err(|source| CaError::PairedKey { file: path.clone(), source })?;
            keys.push(super::PairedKey { station: station.to_string(), verifier, replaced_at });
        }
        keys.sort_by(|a, b| (&a.station, a.replaced_at).cmp(&(&b.station, b.replaced_at)));
        Ok(keys)
    }

    /// The audit key paired with station `name`, if one was.
    pub fn paired_key(&self, name: &str) -> Result<Option<crate::audit::NoteVerifier>, CaError> {
        let path = self.dir.join("signed").join(format!("{name}{PAIRED_KEY_SUFFIX}"));
        match crate::outside_files::read_small_text(&path, crate::outside_files::limits::SMALL_FILE) {
            Ok(text) => crate::audit::NoteVerifier::parse(&text)
                .map(Some)
                .map_err(|source| CaError::PairedKey { file: path, source }),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(CaError::Read(e)),
        }
    }

    /// Signs a station's request: its signature checked, its subject one
    /// CN that is `name`, a client certificate written to `out` (a file of
    /// the laptop's private folder, never one on a stick) and a copy kept
    /// in `signed/` (what [`Self::issued`] reads).
    /// `audit_key` is the station's audit key the request was bound to
    /// ([`super::stick::RequestBinding`]), kept beside the copy: the key
    /// `fleet status` proves this station's records with.
    pub fn sign_station(
        &self,
        request: &Path,
        name: &str,
        audit_key: &crate::audit::NoteVerifier,
        out: &Path,
    ) -> Result<(), CaError> {
        Self::check_request(request, name)?;
        let extensions =
            "extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\nbasicConstraints=critical,CA:FALSE\n";
        // Each signature its own issue (milliseconds, so a `--replace`
        // within the same second is still another issue): the receiver
        // routes only the station's current one, which revokes the rest.
        let issue = jiff::Timestamp::now().as_millisecond();
        self.sign_request(request, extensions, Some(&format!("/CN={name}/serialNumber={issue}")), out)?;
        let kept = self.dir.join("signed");
        std::fs::create_dir_all(&kept).map_err(|e| CaError::Io(kept.clone(), e))?;
        let bytes =
            crate::outside_files::read_small_file_nofollow(out, super::stick::MAX_STICK_FILE).map_err(CaError::Read)?;
        // The key first: a certificate kept without its key would be a
        // station whose records nothing proves.
        let paired = kept.join(format!("{name}{PAIRED_KEY_SUFFIX}"));
        // A key paired before for the name (`--replace`) is kept, marked with
        // when it was replaced: the station's records from before are still
        // its records, and `fleet status` shows them apart.
        if let Ok(Some(before)) = self.paired_key(name) {
            if before != *audit_key {
                let at = jiff::Timestamp::now().as_second();
                let kept_as = kept.join(format!("{name}{REPLACED_MARK}{at}{PAIRED_KEY_SUFFIX}"));
                std::fs::rename(&paired, &kept_as).map_err(|e| CaError::Io(kept_as.clone(), e))?;
            }
        }
        crate::outside_files::write_atomically(&paired, format!("{}\n", audit_key.to_text()).as_bytes())
            .map_err(|e| CaError::Io(paired.clone(), e))?;
        let copy = kept.join(format!("{name}.pem"));
        crate::outside_files::write_atomically(&copy, &bytes).map_err(|e| CaError::Io(copy.clone(), e))?;
        Ok(())
    }

    /// Signs `request` with `extensions`; `subject` in `-subj` form
    /// replaces the request's (a station's: its name and issue).
    fn sign_request(&self, request: &Path, extensions: &str, subject: Option<&str>, out: &Path) -> Result<(), CaError> {
        let mut ext = tempfile::NamedTempFile::new_in(&self.dir).map_err(|e| CaError::Io(self.dir.clone(), e))?;
        std::io::Write::write_all(&mut ext, extensions.as_bytes())
            .map_err(|e| CaError::Io(ext.path().to_path_buf(), e))?;
        let days = VALID_DAYS.to_string();
        let (serial, ca_pem, ca_key) = (self.serial(), self.ca_pem(), self.ca_key());
        let mut args = vec![
            "x509",
            "-req",
            "-in",
            path_str(request)?,
            "-CA",
            path_str(&ca_pem)?,
            "-CAkey",
            path_str(&ca_key)?,
            "-days",
            &days,
            "-sha256",
            "-extfile",
            path_str(ext.path())?,
            "-out",
            path_str(out)?,
        ];
        if let Some(subject) = subject {
            args.extend(["-subj", subject]);
        }
        // openssl keeps the serial numbers in ca.srl, making it at the first signature.
        if !serial.exists() {
            args.push("-CAcreateserial");
        }
        args.extend(["-CAserial", path_str(&serial)?]);
        openssl("sign a certificate", &args).map(|_| ())
    }
}

/// Runs openssl; its standard output, or why not.
impl EventCa {
    /// Signs the file at `file` (a private copy on the laptop) with the
    /// CA's key: the DER signature of its SHA-256, written to `out` (also
    /// private; the caller moves finished files onto the stick).
    pub fn sign_file(&self, file: &Path, out: &Path) -> Result<(), CaError> {
        openssl(
            "sign fleet.toml",
            &["dgst", "-sha256", "-sign", path_str(&self.ca_key())?, "-out", path_str(out)?, path_str(file)?],
        )
        .map(|_| ())
    }
}

pub(crate) fn openssl(step: &'static str, args: &[&str]) -> Result<String, CaError> {
    let out = Command::new("openssl").args(args).output().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CaError::OpensslMissing,
        _ => CaError::Openssl { step, stderr: e.to_string() },
    })?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(CaError::Openssl { step, stderr: String::from_utf8_lossy(&out.stderr).into_owned() })
    }
}

/// Text safe inside openssl's `-subj /A=B/...`: no slash, backslash or
/// control character.
fn openssl_subject_text(text: &str) -> String {
    text.chars().filter(|c| !c.is_control() && *c != '/' && *c != '\\' && *c != '=' && *c != '+').collect()
}

/// A path as openssl's argument: refused if it is not UTF-8, rather than
/// handed on in a form that would name another file.
pub(crate) fn path_str(path: &Path) -> Result<&str, CaError> {
    path.to_str().ok_or_else(|| {
        CaError::Io(path.to_path_buf(), std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path is not UTF-8"))
    })
}

fn set_mode(path: &Path, mode: u32) -> Result<(), CaError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| CaError::Io(path.to_path_buf(), e))
}
