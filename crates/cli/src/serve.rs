//! `wordjudge fleet serve`, on the director's laptop: the stations' journal
//! uploads received, each station's apart from every other's, by the
//! certificate that sent it; and `fleet route`, the small step between the
//! TLS front and a station's receiver.
//!
//! Why this shape. Debian's `systemd-journal-remote` is built without
//! GnuTLS (`systemd-journal-remote --version`: `-GNUTLS`), so it cannot check
//! a client's certificate, and one receiver for everyone could not tell who
//! sent an entry: any station's certificate could then send entries naming
//! another station. So:
//! - `socat` holds the port: TLS with the laptop's certificate, and only a
//!   client whose certificate the event's CA signed gets through
//!   (`verify=1`); for each connection it runs `wordjudge fleet route` with
//!   the verified certificate's subject in its environment
//!   (`SOCAT_OPENSSL_X509_SUBJECT`);
//! - `route` takes the station's name from that subject (`CN=NAME`, one DNS
//!   label, and the issue `fleet sign` gave it, `serialNumber`: the
//!   laptop's own certificate and anything else are turned away), lets
//!   through only the issue the CA signed last for that station (a
//!   certificate `fleet sign --replace` retired is revoked here) and
//!   connects the upload to that station's receiver;
//! - each station signed by the CA (`signed/NAME.pem`) has its own
//!   `systemd-journal-remote`, on a unix socket in a private folder (mode
//!   0700: nothing but `route` reaches it), writing `from-NAME.journal` in
//!   `--output`. What is in a station's file came over that station's
//!   certificate: `fleet status` reads the file's name as the sender.
//!
//! One station cannot stop the others: a receiver that dies is started
//! again (a station whose receiver dies five times within a minute is
//! stopped alone, and said so), a station over its disk quota
//! (`--max-per-station`) is stopped alone, and when the disk's free space
//! falls under `--keep-free` the station with the most on the disk is the
//! one that caused it: stopped if it still sends, and if it is already
//! stopped nobody else is (its files stay, evidence for the director, who is
//! told once to move them off the disk). A `--keep-free` the disk cannot
//! give is refused at start, not applied to every station.

use crate::route::{CA_ENV, SOCKETS_ENV};
use crate::serve_space::{free_bytes, space_action, station_sizes, SpaceAction};
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};
use wordjudge_core::fleet::ca::EventCa;
use wordjudge_core::fleet::sender::FILE_PREFIX;
use wordjudge_core::fleet::stick;

/// Receivers started again within [`RESTART_WINDOW`] before that station's
/// receiver is stopped: a receiver that cannot stay up is a problem to show,
/// not to hide.
const MAX_RESTARTS: usize = 5;
const RESTART_WINDOW: Duration = Duration::from_secs(60);

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Where the event's CA is kept
    #[arg(long, value_name = "DIR", default_value = wordjudge_core::fleet::DEFAULT_CA_DIR)]
    pub ca_dir: PathBuf,
    /// The port to listen on (HTTPS)
    #[arg(long, default_value_t = stick::DEFAULT_PORT)]
    pub port: u16,
    /// The laptop's address to listen on [default: the address `fleet setup` was given for the laptop, which its certificate names]
    #[arg(long, value_name = "ADDRESS")]
    pub listen: Option<std::net::Ipv4Addr>,
    /// Where the stations' journals go, one file per station (from-NAME.journal; `fleet status` reads the folder)
    #[arg(long, value_name = "DIR", default_value = wordjudge_core::fleet::DEFAULT_RECEIVED_DIR)]
    pub output: PathBuf,
    /// The most one station's journal files may hold, in MiB; a station over it is stopped and said so, the others go on
    #[arg(long, value_name = "MIB", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_per_station: u64,
    /// The free space, in MiB, below which the station with the most on the disk is stopped
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    pub keep_free: u64,
}

/// Why `fleet serve` did not start, or stopped by itself.
#[derive(Debug)]
pub enum ServeError {
    Ca(wordjudge_core::fleet::ca::CaError),
    /// No address to listen on: the laptop's certificate names none that is an IPv4 address.
    NoListenAddress(String),
    JournalRemoteMissing,
    SocatMissing,
    /// A step of starting failed.
    Serve(&'static str, std::io::Error),
    /// The output folder cannot be made.
    Output(PathBuf, std::io::Error),
    /// A program stopped by itself, with its status.
    Stopped(&'static str, String),
    /// `--keep-free` asks for more room than the output's disk has free
    /// now: every station would be stopped at once.
    KeepFreeTooLarge {
        keep_free_mib: u64,
        free_mib: u64,
    },
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Ca(e) => e.fmt(f),
            ServeError::NoListenAddress(host) => write!(
                f,
                "the laptop's certificate names {}, not an IPv4 address to listen on: give the laptop's address on the \
                 stations' network with --listen",
                wordjudge_core::word::quote(host)
            ),
            ServeError::JournalRemoteMissing => {
                write!(f, "systemd-journal-remote is not installed here (Debian and Ubuntu: the systemd-journal-remote package)")
            }
            ServeError::SocatMissing => write!(
                f,
                "socat is not installed here; it checks the stations' certificates in front of systemd-journal-remote (Debian and Ubuntu: the socat package)"
            ),
            ServeError::Serve(step, e) => write!(f, "could not {step}: {e}"),
            ServeError::Output(path, e) => write!(f, "{}: {e}", path.display()),
            ServeError::Stopped(name, status) => write!(f, "{name} stopped ({status}): nothing is received now"),
            ServeError::KeepFreeTooLarge { keep_free_mib, free_mib } => write!(
                f,
                "--keep-free {keep_free_mib} MiB is more than the disk has free ({free_mib} MiB): every station would be \
                 stopped at once; give a smaller --keep-free, or free room on that disk"
            ),
        }
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServeError::Ca(e) => Some(e),
            ServeError::Serve(_, e) | ServeError::Output(_, e) => Some(e),
            _ => None,
        }
    }
}

/// One station's receiver and what happened to it.
struct Receiver {
    child: Option<Child>,
    restarts: VecDeque<Instant>,
    /// Why it was stopped for good (until `serve` starts again).
    stopped: Option<String>,
}

/// Every station's receiver, by name.
struct Receivers {
    program: PathBuf,
    sockets: PathBuf,
    output: PathBuf,
    by_station: BTreeMap<String, Receiver>,
    /// The stopped station whose files keep the disk short, once said.
    short_said: Option<String>,
}

impl Receivers {
    fn socket(&self, station: &str) -> PathBuf {
        self.sockets.join(format!("{station}.sock"))
    }

    fn file(&self, station: &str) -> PathBuf {
        self.output.join(format!("{FILE_PREFIX}{station}.journal"))
    }

    /// A receiver for every station the CA signed that has none yet.
    fn add_signed(&mut self, ca: &EventCa) {
        let names = match ca.signed_stations() {
            Ok(names) => names,
            Err(e) => {
                eprintln!("wordjudge: the CA folder's signed stations cannot be read ({e}); trying again");
                return;
            }
        };
        for name in names {
            if self.by_station.contains_key(&name) {
                continue;
            }
            let child = match start_receiver(&self.program, &self.socket(&name), &self.file(&name)) {
                Ok(child) => Some(child),
                Err(e) => {
                    eprintln!("wordjudge: {name}: {e}; trying again");
                    continue;
                }
            };
            eprintln!("wordjudge: receiving from {name} into {}", self.file(&name).display());
            self.by_station.insert(name, Receiver { child, restarts: VecDeque::new(), stopped: None });
        }
    }

    /// Receivers that died started again, each station on its own.
    fn restart_dead(&mut self) {
        let names: Vec<String> = self.by_station.keys().cloned().collect();
        for name in names {
            let (socket, file) = (self.socket(&name), self.file(&name));
            let receiver = self.by_station.get_mut(&name).expect("listed");
            let Some(child) = receiver.child.as_mut() else { continue };
            let Ok(Some(status)) = child.try_wait() else { continue };
            receiver.child = None;
            let _ = std::fs::remove_file(&socket);
            let now = Instant::now();
            receiver.restarts.retain(|at| now.duration_since(*at) < RESTART_WINDOW);
            if receiver.restarts.len() >= MAX_RESTARTS {
                let why = format!("its receiver stopped {MAX_RESTARTS} times within a minute (last: {status})");
                eprintln!("wordjudge: {name}: {why}; its uploads are refused until serve starts again, the other stations go on");
                receiver.stopped = Some(why);
                continue;
            }
            receiver.restarts.push_back(now);
            eprintln!("wordjudge: {name}: systemd-journal-remote stopped ({status}); starting it again");
            match start_receiver(&self.program, &socket, &file) {
                Ok(child) => {
                    receiver.child = Some(child);
                    eprintln!("wordjudge: {name}: receiving again into {}", file.display());
                }
                Err(e) => eprintln!("wordjudge: {name}: {e}"),
            }
        }
    }

    /// Stations over their quota stopped; when the disk is short of
    /// `keep_free`, the station with the most on it.
    fn enforce_quota(&mut self, max_per_station: u64, keep_free: u64) {
        let sizes = station_sizes(&self.output);
        for (name, receiver) in &mut self.by_station {
            let size = sizes.get(name).copied().unwrap_or(0);
            if receiver.child.is_some() && size > max_per_station {
                let why =
                    format!("its journal holds {} MiB, over its quota of {} MiB", size >> 20, max_per_station >> 20);
                stop_receiver(receiver, &self.sockets.join(format!("{name}.sock")), name, why);
            }
        }
        let Some(free) = free_bytes(&self.output) else { return };
        let running = |name: &str| self.by_station.get(name).is_some_and(|r| r.child.is_some());
        match space_action(&sizes, running, free, keep_free) {
            SpaceAction::Enough => self.short_said = None,
            SpaceAction::Stop(name) => {
                let why = format!(
                    "the disk has {} MiB free, under --keep-free, and this station has the most on it",
                    free >> 20
                );
                let socket = self.socket(&name);
                if let Some(receiver) = self.by_station.get_mut(&name) {
                    stop_receiver(receiver, &socket, &name, why);
                }
            }
            SpaceAction::StoppedHoldsIt(name) => {
                if self.short_said.as_deref() != Some(name.as_str()) {
                    eprintln!(
                        "wordjudge: the disk has {} MiB free, under --keep-free; {name}, already stopped, holds the most \
                         ({} MiB): no other station is stopped for it; move its files ({FILE_PREFIX}{name}*.journal*) off \
                         this disk to make room",
                        free >> 20,
                        sizes.get(&name).copied().unwrap_or(0) >> 20
                    );
                    self.short_said = Some(name);
                }
            }
        }
    }

    fn end_all(&mut self) {
        for receiver in self.by_station.values_mut() {
            if let Some(mut child) = receiver.child.take() {
                end_gently(&mut child);
            }
        }
    }
}

fn stop_receiver(receiver: &mut Receiver, socket: &Path, name: &str, why: String) {
    if let Some(mut child) = receiver.child.take() {
        end_gently(&mut child);
    }
    let _ = std::fs::remove_file(socket);
    eprintln!("wordjudge: {name}: stopped receiving: {why}; the other stations go on");
    receiver.stopped = Some(why);
}

/// `fleet serve`: runs until SIGINT, SIGTERM or SIGHUP (then every program
/// ends and the private folder goes: `Ok`), or until socat stops by itself
/// (`Err`, why).
pub fn serve(args: &ServeArgs) -> Result<(), ServeError> {
    let stop = wordjudge_core::shutdown::stop_flag();
    let ca = EventCa::open(&args.ca_dir).map_err(ServeError::Ca)?;
    let listen = listen_address(args, &ca)?;
    let program = journal_remote()?;
    let route = this_program_for_socat()?;
    std::fs::create_dir_all(&args.output).map_err(|e| ServeError::Output(args.output.clone(), e))?;
    if let Some(free) = free_bytes(&args.output) {
        if free < args.keep_free << 20 {
            return Err(ServeError::KeepFreeTooLarge { keep_free_mib: args.keep_free, free_mib: free >> 20 });
        }
    }
    // The receivers listen on unix sockets in a folder only this user
    // enters: nothing but `route` reaches them.
    let private = tempfile::Builder::new()
        .prefix("wordjudge-fleet-")
        .tempdir()
        .map_err(|e| ServeError::Serve("make a private folder", e))?;
    let mut receivers = Receivers {
        program,
        sockets: private.path().to_path_buf(),
        output: args.output.clone(),
        by_station: BTreeMap::new(),
        short_said: None,
    };
    receivers.add_signed(&ca);
    let socat_listen = format!(
        "OPENSSL-LISTEN:{},bind={listen},reuseaddr,fork,cert={},key={},cafile={},verify=1,openssl-min-proto-version=TLS1.2",
        args.port,
        ca.laptop_pem().display(),
        ca.laptop_key().display(),
        ca.ca_pem().display()
    );
    let mut front = Command::new("socat");
    front
        .arg(socat_listen)
        .arg(format!("EXEC:{route} fleet route"))
        .env(SOCKETS_ENV, private.path())
        .env(CA_ENV, &args.ca_dir);
    let mut front = match ends_with_us(&mut front).spawn() {
        Ok(c) => c,
        Err(e) => {
            receivers.end_all();
            return Err(match e.kind() {
                std::io::ErrorKind::NotFound => ServeError::SocatMissing,
                _ => ServeError::Serve("start socat", e),
            });
        }
    };
    eprintln!(
        "wordjudge: receiving on {listen}:{} (TLS: only stations whose certificate the event's CA signed, each into its own file) in {}",
        args.port,
        args.output.display()
    );
    let (max, keep_free) = (args.max_per_station << 20, args.keep_free << 20);
    let mut last_scan = Instant::now();
    loop {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            end_gently(&mut front);
            receivers.end_all();
            eprintln!("wordjudge: stopped receiving; what arrived is in {}", args.output.display());
            return Ok(());
        }
        if let Ok(Some(status)) = front.try_wait() {
            receivers.end_all();
            return Err(ServeError::Stopped("socat", status.to_string()));
        }
        receivers.restart_dead();
        receivers.enforce_quota(max, keep_free);
        if last_scan.elapsed() >= Duration::from_secs(2) {
            receivers.add_signed(&ca);
            last_scan = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// One address, the laptop's on the stations' network, never every
/// address the laptop has (a café's Wi-Fi, a phone's hotspot).
fn listen_address(args: &ServeArgs, ca: &EventCa) -> Result<std::net::Ipv4Addr, ServeError> {
    match args.listen {
        Some(address) => Ok(address),
        None => {
            let host = ca.laptop_host().map_err(ServeError::Ca)?.unwrap_or_default();
            host.parse::<std::net::Ipv4Addr>().map_err(|_| ServeError::NoListenAddress(host))
        }
    }
}

/// systemd's receiver, where Debian installs it.
fn journal_remote() -> Result<PathBuf, ServeError> {
    ["/usr/lib/systemd/systemd-journal-remote", "/lib/systemd/systemd-journal-remote"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .ok_or(ServeError::JournalRemoteMissing)
}

/// This program's path, for socat's `EXEC:` (which splits on spaces and
/// reads a few characters itself): refused rather than quoted wrong.
fn this_program_for_socat() -> Result<String, ServeError> {
    let route = std::env::current_exe().map_err(|e| ServeError::Serve("find this program", e))?;
    route.to_str().filter(|p| !p.contains([' ', ',', '!', '"', '\'', '\\'])).map(str::to_string).ok_or_else(|| {
        ServeError::Serve(
            "name this program for socat",
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "its path holds a space or a character socat reads"),
        )
    })
}

/// `systemd-journal-remote` on the unix socket `socket`, writing to
/// `output`, once it listens (at most 10 s).
fn start_receiver(program: &Path, socket: &Path, output: &Path) -> Result<Child, ServeError> {
    let _ = std::fs::remove_file(socket);
    let mut receiver = Command::new(program);
    receiver
        .arg(format!("--listen-http={}", socket.display()))
        .arg("--split-mode=none")
        .arg(format!("--output={}", output.display()))
        .stdout(std::process::Stdio::null());
    let mut receiver =
        ends_with_us(&mut receiver).spawn().map_err(|e| ServeError::Serve("start systemd-journal-remote", e))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while !socket.exists() {
        if Instant::now() > deadline || !matches!(receiver.try_wait(), Ok(None)) {
            let _ = receiver.kill();
            let status = receiver.wait().map(|s| s.to_string()).unwrap_or_default();
            return Err(ServeError::Stopped("systemd-journal-remote", status));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(receiver)
}

/// SIGTERM, so the receiver closes its journal file whole; SIGKILL if it
/// has not ended 5 s later.
fn end_gently(child: &mut Child) {
    // SAFETY: kill(2) on a child this process started and has not reaped.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(5);
    while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A child that gets SIGTERM when this process ends, however it ends: the
/// receivers and their front never outlive `fleet serve`.
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
