//! `wordjudge fleet`, on the director's laptop:
//! - `setup`: the event's CA and the laptop's certificate
//!   ([`wordjudge_core::fleet::ca`]), and the fleet stick
//!   ([`wordjudge_core::fleet::stick`]);
//! - `sign`: the stations' certificates, from the requests they left on the
//!   stick, each signed only once the director confirms its key's code; no
//!   link on the stick followed, openssl working in a private folder;
//! - `serve`: the stations' uploads received, each station's apart, on the
//!   laptop's one address ([`super::serve`]);
//! - `join`, `leave`: a station's visit of the fleet stick from a shell,
//!   recorded in its audit log as the menu records it;
//! - `status`: the stations' state from the journal files it received
//!   ([`super::status`]).

use super::fleet_stick::Tally;
use std::path::PathBuf;
use std::process::ExitCode;
use wordjudge_core::fleet::join::{self, JoinStep};
use wordjudge_core::fleet::stick;
use wordjudge_core::outside_files;

#[derive(clap::Subcommand, Debug)]
#[command(defer = true)] // built only when chosen: see the `Command` enum in lib.rs
pub enum FleetCommand {
    /// Make the event's CA and the laptop's certificate, and write the fleet stick
    Setup(super::fleet_stick::SetupArgs),
    /// Sign the certificate requests the stations left on the fleet stick
    Sign(super::fleet_stick::SignArgs),
    /// Receive the stations' journals: one systemd-journal-remote per station, in the foreground
    Serve(super::serve::ServeArgs),
    /// (Run by `fleet serve` for each connection: joins it to its station's receiver)
    #[command(hide = true)]
    Route,
    /// One line per station from the journal files received from the stations
    Status(super::status::StatusArgs),
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

pub fn run(context: &super::Context, command: FleetCommand) -> ExitCode {
    match command {
        FleetCommand::Setup(args) => match super::fleet_stick::setup(&args) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => super::fail(e),
        },
        FleetCommand::Sign(args) => match super::fleet_stick::sign(&args) {
            Ok((text, tally)) => {
                print!("{}", terminal_safe(&text));
                match tally {
                    Tally { refused: 0, waiting: 0 } => ExitCode::SUCCESS,
                    Tally { refused, waiting: 0 } => {
                        super::fail(format!("{refused} request(s) refused: nothing was signed for them"))
                    }
                    Tally { refused, waiting } => super::fail(format!(
                        "{waiting} request(s) wait for the director's confirmation (--accept NAME=CODE, the code the \
                         station shows), {refused} refused: nothing was signed for them"
                    )),
                }
            }
            Err(e) => super::fail(e),
        },
        FleetCommand::Serve(args) => match super::serve::serve(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => super::fail(e),
        },
        FleetCommand::Route => match super::route::route() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => super::fail(e),
        },
        FleetCommand::Join(args) => join_here(context, &args),
        FleetCommand::Leave(args) => leave_here(context, &args),
        FleetCommand::Status(args) if args.watch.is_some() => super::status::watch(&args),
        FleetCommand::Status(args) => match super::status::status(&args) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => super::fail(e),
        },
    }
}

/// `text` for the director's terminal: every control or text-direction
/// character but the line ends escaped (`\u{1b}`, `\u{202e}`). The sign
/// report names files found on the stick, and a file name may hold an
/// escape sequence meant for the terminal.
fn terminal_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\n' || wordjudge_core::config::station_name_char_allowed(c) {
            out.push(c);
        } else {
            out.push_str(&wordjudge_core::word::printable(&c.to_string(), 1));
        }
    }
    out
}

/// What a visit of the fleet stick did, in the words the director reads.
fn join_report(step: &JoinStep) -> String {
    match step {
        JoinStep::Requested { request, replaced, .. } => format!(
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

/// The station's audit log, for `fleet join` and `leave` on the command
/// line to record what they did (`fleet_joined`, `fleet_left`) as the
/// menu does; an error, and nothing done, where there is no station to
/// record in (no usable config, no audit folder) or the kiosk holds it.
fn station_log(context: &super::Context) -> Result<wordjudge_core::recorder::AuditLog, String> {
    let loaded = &context.loaded;
    if !loaded.usable() {
        return Err(format!(
            "this is no station: its config {} is not usable, so there is no audit log to record the fleet in",
            loaded.path.display()
        ));
    }
    let dir = &loaded.config.audit_dir;
    if !outside_files::is_real_dir(dir) {
        return Err(format!(
            "this is no station: its audit folder {} is not there (the kiosk makes it at its first start; give the \
             station's config with --config), and joining or leaving a fleet is recorded there",
            dir.display()
        ));
    }
    let log = wordjudge_core::recorder::AuditLog::open(dir, &loaded.config.station_name)
        .map_err(|busy| format!("{busy}: the kiosk is running; join or leave from its director menu"))?;
    if let Some(problem) = log.problem() {
        return Err(format!("the audit log cannot be written ({problem}), so joining or leaving would go unrecorded"));
    }
    Ok(log)
}

/// A record in the station's log, and the journal's copy sent before the
/// program ends.
fn record(log: &mut wordjudge_core::recorder::AuditLog, event: wordjudge_core::audit::AuditEvent) {
    if !log.record_event(event) {
        eprintln!("wordjudge: the record could not be written to the audit log: {}", log.problem().unwrap_or_default());
    }
    log.flush_journal(std::time::Duration::from_secs(2));
}

/// `fleet join` on a station: one visit of the stick, recorded.
fn join_here(context: &super::Context, args: &JoinArgs) -> ExitCode {
    // Its records reach the journal (and a fleet's laptop) as the menu's do.
    wordjudge_core::recorder::journal::with_journald(|| join_recorded(context, args))
}

fn join_recorded(context: &super::Context, args: &JoinArgs) -> ExitCode {
    let mut log = match station_log(context) {
        Ok(log) => log,
        Err(why) => return super::fail(format!("{why}; nothing changed")),
    };
    let stick_name = format!("command line, {}", wordjudge_core::word::printable(&args.stick.to_string_lossy(), 120));
    use wordjudge_core::audit::AuditEvent;
    let visited = join::station_audit_key(&context.loaded.config.audit_dir)
        .and_then(|key| join::visit(&args.stick, stick::FOLDER, &args.fleet_dir, &args.station, &key));
    match visited {
        Ok(step) => {
            match &step {
                JoinStep::Joined(j) => record(
                    &mut log,
                    AuditEvent::FleetJoined {
                        fleet: j.event.clone(),
                        certificate_name: j.station.clone(),
                        upload_url: j.upload_url.clone(),
                        ca_sha256: j.ca_sha256.clone(),
                        certificate_sha256: j.certificate_sha256.clone(),
                        laptop_sha256: j.laptop_sha256.clone(),
                        stick: stick_name,
                    },
                ),
                JoinStep::Requested { replaced, code, .. } => record(
                    &mut log,
                    AuditEvent::UsbStick {
                        action: format!(
                            "fleet request for {} left on it{}{}",
                            args.station,
                            if *replaced { " (the certificate there was for another key)" } else { "" },
                            code.as_deref().map(|c| format!(", station key code {c}")).unwrap_or_default()
                        ),
                        stick: stick_name,
                    },
                ),
                JoinStep::AlreadyJoined(j) => record(
                    &mut log,
                    AuditEvent::UsbStick {
                        action: format!("fleet stick: already in the fleet of {}", j.event),
                        stick: stick_name,
                    },
                ),
            }
            print!("{}", join_report(&step));
            if let JoinStep::Requested { code, .. } = &step {
                match code {
                    Some(code) => {
                        println!("station key code: {code} (the laptop's `fleet sign` lists the request with it)")
                    }
                    None => eprintln!("wordjudge: the station key code cannot be shown"),
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            record(&mut log, AuditEvent::FleetRefused { stick: stick_name, reason: e.to_string() });
            super::fail(format!("{e}; nothing changed"))
        }
    }
}

/// `fleet leave` on a station, recorded.
fn leave_here(context: &super::Context, args: &LeaveArgs) -> ExitCode {
    wordjudge_core::recorder::journal::with_journald(|| leave_recorded(context, args))
}

fn leave_recorded(context: &super::Context, args: &LeaveArgs) -> ExitCode {
    let mut log = match station_log(context) {
        Ok(log) => log,
        Err(why) => return super::fail(format!("{why}; nothing changed")),
    };
    match join::leave(&args.fleet_dir) {
        Ok(Some(was)) => {
            record(
                &mut log,
                wordjudge_core::audit::AuditEvent::FleetLeft {
                    fleet: was.event.clone(),
                    upload_url: was.upload_url.clone(),
                    ca_sha256: was.ca_sha256.clone(),
                },
            );
            println!(
                "left the fleet of {} (this station no longer sends to {})",
                wordjudge_core::word::printable(&was.event, 64),
                was.upload_url
            );
            ExitCode::SUCCESS
        }
        Ok(None) => {
            println!("this station is in no fleet; its fleet folder holds no key any more");
            ExitCode::SUCCESS
        }
        Err(e) => super::fail(e),
    }
}
