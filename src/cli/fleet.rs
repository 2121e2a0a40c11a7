//! `wordjudge fleet`, on the director's laptop:
//! - `setup`: the event's CA and the laptop's certificate
//!   ([`wordjudge::fleet::ca`]), and the fleet stick
//!   ([`wordjudge::fleet::stick`]);
//! - `sign`: the stations' certificates, from the requests they left on the stick;
//! - `serve`: `systemd-journal-remote` with those, in the foreground;
//! - `status`: the stations' state from the journal files it received
//!   (SplitMode=host), read with `journalctl -o json` (the journal's binary
//!   format is journalctl's to read) and summed up by [`wordjudge::fleet`].

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use wordjudge::fleet::ca::{CaError, EventCa};
use wordjudge::fleet::join::{self, JoinStep};
use wordjudge::fleet::stick::{self, FleetFile, StickError};
use wordjudge::fleet::{self, render, FleetError};
use wordjudge::recorder::journal::SYSLOG_IDENTIFIER;

/// Where `systemd-journal-remote` writes by default.
pub const DEFAULT_DIR: &str = "/var/log/journal/remote";

/// A journal entry line longer than this is refused.
const LINE_LIMIT: usize = 1024 * 1024;

/// Where `setup` keeps the event's CA, and `sign` and `serve` find it.
pub const DEFAULT_CA_DIR: &str = "/var/lib/wordjudge-fleet";

#[derive(clap::Subcommand, Debug)]
pub enum FleetCommand {
    /// Make the event's CA and the laptop's certificate, and write the fleet stick
    Setup(SetupArgs),
    /// Sign the certificate requests the stations left on the fleet stick
    Sign(SignArgs),
    /// Receive the stations' journals: systemd-journal-remote in the foreground
    Serve(ServeArgs),
    /// One line per station from the journal files received from the stations
    Status(StatusArgs),
    /// On a station: join the event's fleet with the fleet stick (run it twice: request, then certificate)
    Join(JoinArgs),
    /// On a station: leave the event's fleet (the uploader stops sending)
    Leave(LeaveArgs),
}

#[derive(clap::Args, Debug)]
pub struct JoinArgs {
    /// The mounted fleet stick (its wordjudge/fleet folder is read, and the request written there)
    #[arg(long, value_name = "DIR")]
    stick: PathBuf,
    /// This station's name in the fleet: 1 to 63 letters, digits and hyphens
    #[arg(long, value_name = "NAME")]
    station: String,
    /// The station's fleet folder (its key, certificate and the uploader's settings)
    #[arg(long, value_name = "DIR", default_value = join::DEFAULT_FLEET_DIR)]
    fleet_dir: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct LeaveArgs {
    /// The station's fleet folder
    #[arg(long, value_name = "DIR", default_value = join::DEFAULT_FLEET_DIR)]
    fleet_dir: PathBuf,
}

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
    #[arg(long, value_name = "DIR", default_value = DEFAULT_CA_DIR)]
    ca_dir: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct SignArgs {
    /// The mounted fleet stick
    #[arg(long, value_name = "DIR")]
    stick: PathBuf,
    /// Where the event's CA is kept
    #[arg(long, value_name = "DIR", default_value = DEFAULT_CA_DIR)]
    ca_dir: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Where the event's CA is kept
    #[arg(long, value_name = "DIR", default_value = DEFAULT_CA_DIR)]
    ca_dir: PathBuf,
    /// The port to listen on (HTTPS)
    #[arg(long, default_value_t = stick::DEFAULT_PORT)]
    port: u16,
    /// Where the stations' journal goes (stations.journal; `fleet status` reads the folder)
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DIR)]
    output: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    /// Folder of the received journal files, remote-<host>.journal [default: /var/log/journal/remote]
    #[arg(long, value_name = "DIR", conflicts_with = "file")]
    dir: Option<PathBuf>,
    /// Read these journal files instead of a folder (repeatable)
    #[arg(long, value_name = "FILE")]
    file: Vec<PathBuf>,
    /// Also write a one-page HTML view to FILE (atomically)
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The time to show "last seen" against, RFC 3339 [default: now]
    #[arg(long, value_name = "TIME", conflicts_with = "watch")]
    now: Option<String>,
    /// Read again every SECONDS (1 to 3600), printing the table and writing the page each time, until stopped
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    watch: Option<u64>,
}

/// Why `fleet setup`, `sign` or `serve` did nothing.
#[derive(Debug)]
pub enum FleetSetupError {
    Stick(StickError),
    Ca(CaError),
    NoStick(PathBuf),
    StickIo(PathBuf, std::io::Error),
    OtherEvent { stick: String, ours: String },
    JournalRemoteMissing,
    SocatMissing,
    Serve(&'static str, std::io::Error),
    Stopped(&'static str, String),
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
            FleetSetupError::OtherEvent { stick, ours } => write!(
                f,
                "this stick's CA ({stick}) is not this laptop's ({ours}): it belongs to another event, or to another CA folder (--ca-dir)"
            ),
            FleetSetupError::JournalRemoteMissing => write!(
                f,
                "systemd-journal-remote is not installed here (Debian and Ubuntu: the systemd-journal-remote package)"
            ),
            FleetSetupError::SocatMissing => write!(
                f,
                "socat is not installed here; it checks the stations' certificates in front of systemd-journal-remote (Debian and Ubuntu: the socat package)"
            ),
            FleetSetupError::Serve(step, e) => write!(f, "could not {step}: {e}"),
            FleetSetupError::Stopped(name, status) => write!(f, "{name} stopped ({status}): nothing is received now"),
        }
    }
}

/// Why `fleet status` gave no status.
#[derive(Debug)]
pub enum StatusError {
    NoJournalFiles(PathBuf),
    Unreadable(PathBuf, std::io::Error),
    NotAFile(PathBuf),
    JournalctlMissing,
    JournalctlFailed { status: String, stderr: String },
    LineTooLong { entry: usize, len: u64 },
    BadNow(String),
    Entries(FleetError),
    WriteHtml(PathBuf, std::io::Error),
}

impl std::fmt::Display for StatusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StatusError::NoJournalFiles(dir) => write!(
                f,
                "{} holds no journal files (*.journal): has systemd-journal-remote received anything yet? Give the folder it writes to (--dir) or the files (--file)",
                dir.display()
            ),
            StatusError::Unreadable(path, e) => write!(f, "cannot read {}: {e}", path.display()),
            StatusError::NotAFile(path) => write!(f, "{} is not a journal file", path.display()),
            StatusError::JournalctlMissing => write!(
                f,
                "journalctl is not installed here; it reads the journal files (Debian and Ubuntu: the systemd package)"
            ),
            StatusError::JournalctlFailed { status, stderr } => {
                write!(f, "journalctl could not read the journal ({status}): {}", stderr.trim())
            }
            StatusError::LineTooLong { entry, len } => {
                write!(f, "journal entry {entry} is {len} bytes long, more than a wordjudge record can be")
            }
            StatusError::BadNow(text) => {
                write!(f, "--now {} is not an RFC 3339 time (2026-11-22T14:02:11Z)", wordjudge::word::quote(text))
            }
            StatusError::Entries(e) => e.fmt(f),
            StatusError::WriteHtml(path, e) => write!(f, "cannot write {}: {e}", path.display()),
        }
    }
}

pub fn run(command: FleetCommand) -> ExitCode {
    match command {
        FleetCommand::Setup(args) => match setup(&args) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => super::fail(e),
        },
        FleetCommand::Sign(args) => match sign(&args) {
            Ok((text, refused)) => {
                print!("{text}");
                if refused == 0 {
                    ExitCode::SUCCESS
                } else {
                    super::fail(format!("{refused} request(s) refused: nothing was signed for them"))
                }
            }
            Err(e) => super::fail(e),
        },
        FleetCommand::Serve(args) => match serve(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => super::fail(e),
        },
        FleetCommand::Join(args) => match join::visit(&args.stick.join(stick::FOLDER), &args.fleet_dir, &args.station) {
            Ok(step) => {
                print!("{}", join_report(&step));
                ExitCode::SUCCESS
            }
            Err(e) => super::fail(format!("{e}; nothing changed")),
        },
        FleetCommand::Leave(args) => match join::leave(&args.fleet_dir) {
            Ok(Some(was)) => {
                println!("left the fleet of {} (this station no longer sends to {})", was.event, was.upload_url);
                ExitCode::SUCCESS
            }
            Ok(None) => {
                println!("this station is in no fleet; its fleet folder holds no key any more");
                ExitCode::SUCCESS
            }
            Err(e) => super::fail(e),
        },
        FleetCommand::Status(args) if args.watch.is_some() => watch(&args),
        FleetCommand::Status(args) => match status(&args) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => super::fail(e),
        },
    }
}

/// What a visit of the fleet stick did, in the words the director reads.
fn join_report(step: &JoinStep) -> String {
    match step {
        JoinStep::Requested { request, replaced } => format!(
            "request left on the stick: {}{}\nnext: on the laptop `wordjudge fleet sign --stick DIR`, then bring the stick back here\n",
            request.display(),
            if *replaced { " (the certificate there was for another key of this station: it is signed again)" } else { "" }
        ),
        JoinStep::Joined(j) | JoinStep::AlreadyJoined(j) => format!(
            "{} the fleet of {} as {}: sending to {}\nCA sha256 {}\ncertificate sha256 {} (until {})\nlaptop sha256 {}\n",
            if matches!(step, JoinStep::Joined(_)) { "joined" } else { "already in" },
            j.event,
            j.station,
            j.upload_url,
            j.ca_sha256,
            j.certificate_sha256,
            j.not_after,
            j.laptop_sha256.as_deref().unwrap_or("- (the stick carries no laptop.pem)")
        ),
    }
}

/// `fleet setup`: the CA (kept if there), the laptop's certificate for the
/// address, and the stick's folder, written file by file through temporary
/// names.
fn setup(args: &SetupArgs) -> Result<String, FleetSetupError> {
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
    let (ca, created) = EventCa::open_or_create(&args.ca_dir, &args.event, &host).map_err(FleetSetupError::Ca)?;
    let fingerprint = EventCa::fingerprint(&ca.ca_pem()).map_err(FleetSetupError::Ca)?;
    let file = FleetFile { ca_sha256: fingerprint.clone(), ..file };
    let folder = args.stick.join(stick::FOLDER);
    for dir in [folder.clone(), folder.join(stick::REQUESTS), folder.join(stick::CERTIFICATES)] {
        std::fs::create_dir_all(&dir).map_err(|e| FleetSetupError::StickIo(dir.clone(), e))?;
    }
    let ca_pem = std::fs::read(ca.ca_pem()).map_err(|e| FleetSetupError::StickIo(ca.ca_pem(), e))?;
    let laptop_pem = std::fs::read(ca.laptop_pem()).map_err(|e| FleetSetupError::StickIo(ca.laptop_pem(), e))?;
    for (name, bytes) in
        [(stick::CA_FILE, ca_pem), (stick::LAPTOP_FILE, laptop_pem), (stick::FLEET_FILE, file.to_text().into_bytes())]
    {
        let path = folder.join(name);
        wordjudge::outside_files::write_atomically(&path, &bytes).map_err(|e| FleetSetupError::StickIo(path.clone(), e))?;
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
    text.push_str(&format!("upload to:   {}\n", file.upload_url));
    text.push_str(&format!("network:     {network}\n"));
    text.push_str(&format!("stick:       {} (no private key is on it)\n", folder.display()));
    text.push_str("next: at each station, director menu, \"Join the event's fleet\": it leaves its certificate request on this stick;\n");
    text.push_str(&format!("      then wordjudge fleet sign --stick {}, and wordjudge fleet serve\n", args.stick.display()));
    Ok(text)
}

/// `fleet sign`: every request on the stick whose certificate is missing or
/// older, signed; a request that fails its checks is named and left unsigned.
/// Returns the report and how many were refused.
fn sign(args: &SignArgs) -> Result<(String, usize), FleetSetupError> {
    let ca = EventCa::open(&args.ca_dir).map_err(FleetSetupError::Ca)?;
    let folder = args.stick.join(stick::FOLDER);
    let stick_ca = folder.join(stick::CA_FILE);
    if !stick_ca.is_file() {
        return Err(FleetSetupError::NoStick(folder));
    }
    let ours = EventCa::fingerprint(&ca.ca_pem()).map_err(FleetSetupError::Ca)?;
    let theirs = EventCa::fingerprint(&stick_ca).map_err(FleetSetupError::Ca)?;
    if ours != theirs {
        return Err(FleetSetupError::OtherEvent { stick: theirs, ours });
    }
    let requests = folder.join(stick::REQUESTS);
    let certificates = folder.join(stick::CERTIFICATES);
    std::fs::create_dir_all(&certificates).map_err(|e| FleetSetupError::StickIo(certificates.clone(), e))?;
    let mut names: Vec<PathBuf> = std::fs::read_dir(&requests)
        .map_err(|e| FleetSetupError::StickIo(requests.clone(), e))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "csr"))
        .collect();
    names.sort();
    let (mut report, mut refused) = (String::new(), 0);
    for request in names {
        let name = request.file_stem().and_then(|n| n.to_str()).unwrap_or("").to_string();
        if stick::check_station_name(&name).is_err() {
            refused += 1;
            report.push_str(&format!("refused  {}: {}\n", request.display(), StickError::BadStationName(name)));
            continue;
        }
        let out = certificates.join(format!("{name}.pem"));
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        if modified(out.as_path()).is_some() && modified(out.as_path()) >= modified(request.as_path()) {
            report.push_str(&format!("kept     {name}: signed before\n"));
            continue;
        }
        let partial = certificates.join(format!(".{name}.pem.new"));
        match ca.sign_station(&request, &name, &partial) {
            Ok(()) => {
                std::fs::rename(&partial, &out).map_err(|e| FleetSetupError::StickIo(out.clone(), e))?;
                let fp = EventCa::fingerprint(&out).map_err(FleetSetupError::Ca)?;
                report.push_str(&format!("signed   {name}: {} (sha256 {fp})\n", out.display()));
            }
            Err(e) => {
                let _ = std::fs::remove_file(&partial);
                refused += 1;
                report.push_str(&format!("refused  {name}: {e}\n"));
            }
        }
    }
    if report.is_empty() {
        report = format!("no requests in {}: has a station joined with this stick yet?\n", requests.display());
    }
    Ok((report, refused))
}

/// `fleet serve`: the stations' uploads received until stopped. Two
/// existing programs, because Debian's `systemd-journal-remote` is built
/// without GnuTLS (`systemd-journal-remote --version`: `-GNUTLS`), so it
/// cannot check a client's certificate (`--trust` is "not available"):
/// - `socat` holds the port: TLS with the laptop's certificate, and only a
///   client whose certificate the event's CA signed gets through (`verify=1`);
/// - `systemd-journal-remote` receives plain HTTP from it on a unix socket
///   in a private folder, writing every station's entries into one journal
///   file in `--output` ([`RECEIVED_FILE`]).
/// Runs until SIGINT, SIGTERM or SIGHUP (then both end and the private
/// folder goes: `Ok`), or until either program stops by itself (`Err`, why).
fn serve(args: &ServeArgs) -> Result<(), FleetSetupError> {
    let stop = wordjudge::shutdown::stop_flag();
    let ca = match EventCa::open(&args.ca_dir) {
        Ok(ca) => ca,
        Err(e) => return Err(FleetSetupError::Ca(e)),
    };
    let Some(program) = ["/usr/lib/systemd/systemd-journal-remote", "/lib/systemd/systemd-journal-remote"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
    else {
        return Err(FleetSetupError::JournalRemoteMissing);
    };
    if let Err(e) = std::fs::create_dir_all(&args.output) {
        return Err(FleetSetupError::StickIo(args.output.clone(), e));
    }
    // journal-remote listens on a unix socket in a folder only this user
    // enters: nothing but socat can reach it.
    let private = match tempfile::Builder::new().prefix("wordjudge-fleet-").tempdir() {
        Ok(d) => d,
        Err(e) => return Err(FleetSetupError::Serve("make a private folder", e)),
    };
    let socket = private.path().join("journal-remote.sock");
    // One file for every station: all come through socat, so journal-remote
    // could only tell them apart by socat's process; `fleet status` tells
    // them apart by their records.
    let output = args.output.join(RECEIVED_FILE);
    let mut receiver = Command::new(program);
    receiver
        .arg(format!("--listen-http={}", socket.display()))
        .arg("--split-mode=none")
        .arg(format!("--output={}", output.display()));
    let mut receiver = match ends_with_us(&mut receiver).spawn() {
        Ok(c) => c,
        Err(e) => return Err(FleetSetupError::Serve("start systemd-journal-remote", e)),
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !socket.exists() {
        if std::time::Instant::now() > deadline || !matches!(receiver.try_wait(), Ok(None)) {
            let _ = receiver.kill();
            let status = receiver.wait().map(|s| s.to_string()).unwrap_or_default();
            return Err(FleetSetupError::Stopped("systemd-journal-remote", status));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let listen = format!(
        "OPENSSL-LISTEN:{},reuseaddr,fork,cert={},key={},cafile={},verify=1,openssl-min-proto-version=TLS1.2",
        args.port,
        ca.laptop_pem().display(),
        ca.laptop_key().display(),
        ca.ca_pem().display()
    );
    let mut front = Command::new("socat");
    front.arg(listen).arg(format!("UNIX-CONNECT:{}", socket.display()));
    let front = match ends_with_us(&mut front).spawn() {
        Ok(c) => c,
        Err(e) => {
            let _ = receiver.kill();
            let _ = receiver.wait();
            return Err(match e.kind() {
                std::io::ErrorKind::NotFound => FleetSetupError::SocatMissing,
                _ => FleetSetupError::Serve("start socat", e),
            });
        }
    };
    eprintln!(
        "wordjudge: receiving on port {} (TLS: only stations whose certificate the event's CA signed) into {}",
        args.port,
        output.display()
    );
    // Until either ends, or a signal asks us to: then both end here, and
    // `private` (the socket's folder) goes when this returns.
    let mut children = [("socat", front), ("systemd-journal-remote", receiver)];
    loop {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            for (_, child) in &mut children {
                end_gently(child);
            }
            eprintln!("wordjudge: stopped receiving; what arrived is in {}", output.display());
            return Ok(());
        }
        for i in 0..children.len() {
            if let Ok(Some(status)) = children[i].1.try_wait() {
                end_gently(&mut children[1 - i].1);
                return Err(FleetSetupError::Stopped(children[i].0, status.to_string()));
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// SIGTERM, so the receiver closes its journal file whole; SIGKILL if it
/// has not ended 5 s later.
fn end_gently(child: &mut std::process::Child) {
    // SAFETY: kill(2) on a child this process started and has not reaped.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while matches!(child.try_wait(), Ok(None)) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The journal file `fleet serve` writes in its output folder.
pub const RECEIVED_FILE: &str = "stations.journal";

/// A child that gets SIGTERM when this process ends, however it ends: the
/// receiver and its front never outlive `fleet serve`.
fn ends_with_us(command: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only prctl(2), a plain system call.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

/// `fleet status --watch`: the table and the page again every SECONDS until
/// stopped; a round that cannot read says why and the next one tries again.
fn watch(args: &StatusArgs) -> ExitCode {
    let every = std::time::Duration::from_secs(args.watch.unwrap_or(10));
    loop {
        match status(args) {
            Ok(text) => print!("\x1b[2J\x1b[H{text}"),
            Err(e) => eprintln!("wordjudge: {e} (trying again in {} s)", every.as_secs()),
        }
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        std::thread::sleep(every);
    }
}

fn status(args: &StatusArgs) -> Result<String, StatusError> {
    let now = match &args.now {
        Some(text) => text.parse::<jiff::Timestamp>().map_err(|_| StatusError::BadNow(text.clone()))?,
        None => jiff::Timestamp::now(),
    };
    let source = source_args(args)?;
    let status = read_journal(&source)?;
    let tz = jiff::tz::TimeZone::system();
    if let Some(path) = &args.html {
        let page = render::html(&status, now, &tz);
        wordjudge::outside_files::write_atomically(path, page.as_bytes())
            .map_err(|e| StatusError::WriteHtml(path.clone(), e))?;
    }
    Ok(render::text(&status, now, &tz))
}

/// journalctl's arguments naming what to read, checked first so a wrong
/// folder gets its own message.
fn source_args(args: &StatusArgs) -> Result<Vec<String>, StatusError> {
    if !args.file.is_empty() {
        let mut out = Vec::new();
        for file in &args.file {
            let meta = std::fs::metadata(file).map_err(|e| StatusError::Unreadable(file.clone(), e))?;
            if !meta.is_file() {
                return Err(StatusError::NotAFile(file.clone()));
            }
            out.push(format!("--file={}", file.display()));
        }
        return Ok(out);
    }
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_DIR));
    let entries = std::fs::read_dir(&dir).map_err(|e| StatusError::Unreadable(dir.clone(), e))?;
    let journal = |p: &Path| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".journal") || n.ends_with(".journal~"));
    if !entries.flatten().any(|e| journal(&e.path())) {
        return Err(StatusError::NoJournalFiles(dir));
    }
    Ok(vec![format!("--directory={}", dir.display())])
}

/// Runs journalctl over `source` and sums its lines up, one at a time.
fn read_journal(source: &[String]) -> Result<fleet::Status, StatusError> {
    let mut child = Command::new("journalctl")
        .args(["--no-pager", "--all", "-o", "json"])
        .arg(format!("--output-fields={}", fleet::output_fields().join(",")))
        .args(source)
        .arg(format!("SYSLOG_IDENTIFIER={SYSLOG_IDENTIFIER}"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => StatusError::JournalctlMissing,
            _ => StatusError::JournalctlFailed { status: e.to_string(), stderr: String::new() },
        })?;
    let mut stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("piped"));
    let mut fleet = fleet::Fleet::new();
    let mut line = Vec::new();
    let mut entry = 0;
    let result = loop {
        entry += 1;
        match wordjudge::outside_files::read_line_bounded(&mut reader, LINE_LIMIT, &mut line) {
            Ok(wordjudge::outside_files::Line::Complete) => {
                if let Err(e) = fleet.add_line(&String::from_utf8_lossy(&line)) {
                    break Err(StatusError::Entries(e));
                }
            }
            Ok(wordjudge::outside_files::Line::TooLong { len }) => break Err(StatusError::LineTooLong { entry, len }),
            Ok(wordjudge::outside_files::Line::End) => break Ok(()),
            Err(e) => break Err(StatusError::JournalctlFailed { status: e.to_string(), stderr: String::new() }),
        }
    };
    if result.is_err() {
        let _ = child.kill();
    }
    let exit = child.wait();
    let stderr = errors.join().unwrap_or_default();
    result?;
    match exit {
        Ok(s) if s.success() => {}
        Ok(s) => return Err(StatusError::JournalctlFailed { status: s.to_string(), stderr }),
        Err(e) => return Err(StatusError::JournalctlFailed { status: e.to_string(), stderr }),
    }
    fleet.finish().map_err(StatusError::Entries)
}
