//! wordjudge-cli: the command line's parser and dispatch. Each subcommand
//! group lives in its own module; they print for people and return an exit
//! code (0 success, 1 a negative answer such as UNACCEPTABLE, 2 usage errors
//! and unusable inputs).
//!
//! Two programs share this parser. `wordjudge` (this crate's `main.rs`)
//! runs the commands directors and scripts use on laptops and in loops:
//! `judge`, `lexicon`, `audit`, `config`, `gpio`, `fleet`. This crate
//! depends on `wordjudge-core` alone, so Cargo keeps every GUI and input
//! crate out of that program: nothing of them is linked into it or runs
//! before its `main` (one of them, the Xlib loader under Slint's winit
//! backend, would dlopen libX11 and five more libraries at every start).
//! It starts like a small tool and runs where no GUI libraries are
//! installed. `wordjudge-kiosk` (the top package's `src/main.rs`) runs
//! what needs the GUI and input stack: the kiosk, screenshots and the USB
//! sticks' root helper. `wordjudge kiosk …` still works: it executes
//! `wordjudge-kiosk` from the same folder with the same arguments. The GUI
//! commands are reached only through the [`GuiRunner`] each program's
//! `main` passes in.

mod audit;
mod config;
mod fleet;
mod fleet_stick;
mod gpio;
mod judge;
pub mod kiosk;
mod lexicon;
mod route;
mod serve;
mod serve_space;
mod status;
pub mod stick;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use wordjudge_core::config::{config_path, lexicon_dir, Config, Loaded};

/// Exit code for usage errors and unusable lexicons or files.
pub const EXIT_USAGE: u8 = 2;

#[derive(Parser, Debug)]
#[command(name = "wordjudge", version, about = "Challenge self-lookup station for word-game tournaments")]
pub struct Cli {
    /// Config file [default: $WORDJUDGE_CONFIG, else /var/lib/wordjudge/config.toml]
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Lexicon directory [default: $WORDJUDGE_LEXICONS, else the config's lexicon_dir]
    #[arg(long, global = true, value_name = "DIR")]
    lexicons: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// `defer`: each subcommand's arguments (and the subcommands under it) are
/// built only when the command line chooses it, so a start pays for one
/// branch of the tree, not all of it; `--help` still lists every
/// subcommand with its line (clap applies the doc comments eagerly).
#[derive(Subcommand, Debug)]
#[command(defer = true)]
pub enum Command {
    /// Judge a challenge: prints ACCEPTABLE (exit 0) or UNACCEPTABLE (exit 1).
    Judge(judge::JudgeArgs),
    /// Build, list, inspect and verify lexicons.
    #[command(subcommand)]
    Lexicon(lexicon::LexiconCommand),
    /// Verify, show and export the audit log.
    #[command(subcommand)]
    Audit(audit::AuditCommand),
    /// Run the kiosk: full screen on the console, or --windowed on a desktop.
    Kiosk(kiosk::KioskArgs),
    /// Render every screen to PNG without a display.
    Screenshot(kiosk::ScreenshotArgs),
    /// Set the director PIN, show the config.
    #[command(subcommand)]
    Config(config::ConfigCommand),
    /// Check the judge button and lamps wiring.
    #[command(subcommand)]
    Gpio(gpio::GpioCommand),
    /// The stations' status from the journal files they sent (director's laptop).
    #[command(subcommand)]
    Fleet(fleet::FleetCommand),
    /// Internal: the kiosk's director-PIN check, run in a child process so
    /// Argon2's work buffer never counts in the kiosk's memory. Reads the
    /// stored hash and the PIN, one per line, on stdin; exit 0 = match.
    #[command(name = "check-pin-child", hide = true)]
    CheckPinChild,
    /// Root helper for USB sticks, run by the wordjudge-stick-*@.service units.
    #[command(subcommand, hide = true)]
    Stick(stick::StickCommand),
}

/// The config and lexicon directory as the global flags resolve them.
pub struct Context {
    pub loaded: Loaded,
    pub lexicon_dir: PathBuf,
}

/// How a program runs the commands that need the GUI or input stack:
/// `wordjudge` forwards them ([`forward_to_kiosk`]), `wordjudge-kiosk`
/// runs them (`run_gui` in its `src/gui.rs`).
pub type GuiRunner = fn(Cli) -> ExitCode;

/// The GUI program, installed beside this one.
pub const KIOSK_PROGRAM: &str = "wordjudge-kiosk";

/// `wordjudge kiosk|screenshot|stick …`: runs `wordjudge-kiosk` from this
/// program's folder with the same arguments, in this process (exec), so a
/// unit that starts `wordjudge kiosk` still has the kiosk as its main
/// process.
pub fn forward_to_kiosk(_: Cli) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let program = match std::env::current_exe() {
        Ok(me) => me.with_file_name(KIOSK_PROGRAM),
        Err(e) => return fail(format_args!("cannot find this program's folder ({e}), so not {KIOSK_PROGRAM} either")),
    };
    let error = std::process::Command::new(&program).args(std::env::args_os().skip(1)).exec();
    fail(format_args!(
        "cannot run {} ({error}): the kiosk, screenshots and the USB helper are in {KIOSK_PROGRAM}, installed beside wordjudge",
        program.display()
    ))
}

impl Context {
    pub fn resolve(cli: &Cli) -> Context {
        let loaded = Config::load(&config_path(cli.config.as_deref()));
        let lexicon_dir = lexicon_dir(cli.lexicons.as_deref(), &loaded.config);
        Context { loaded, lexicon_dir }
    }
}

/// Lets a closed output pipe end the process quietly (`wordjudge … | head -1`).
///
/// Rust starts every program with SIGPIPE ignored, so a write to a closed pipe
/// returns EPIPE and `println!` panics ("failed printing to stdout", exit
/// 101). The one-shot commands restore the default action instead: the
/// process ends on the signal (exit status 141 in a shell), as `cat` would.
/// The kiosk keeps SIGPIPE ignored: it is long-lived, writes only to
/// journald and stderr, and must never be killed by a reader going away.
fn restore_default_sigpipe() {
    // SAFETY: setting a signal's disposition to SIG_DFL has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Parses the command line and runs it; `gui` runs the commands that need
/// the GUI or input stack.
pub fn run(gui: GuiRunner) -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(EXIT_USAGE) } else { ExitCode::SUCCESS };
        }
    };
    if !matches!(cli.command, Command::Kiosk(_)) {
        restore_default_sigpipe();
    }
    if matches!(cli.command, Command::Kiosk(_) | Command::Screenshot(_) | Command::Stick(_) | Command::CheckPinChild) {
        return gui(cli);
    }
    let context = Context::resolve(&cli);
    match cli.command {
        Command::Judge(args) => judge::run(&context, args),
        Command::Lexicon(command) => lexicon::run(&context, command),
        Command::Audit(command) => audit::run(&context, command),
        Command::Gpio(command) => gpio::run(&context, command),
        Command::Config(command) => config::run(context, command),
        Command::Fleet(command) => fleet::run(&context, command),
        Command::Kiosk(_) | Command::Screenshot(_) | Command::Stick(_) | Command::CheckPinChild => {
            unreachable!("handled above")
        }
    }
}

/// Parses `--gpio`: clap stays here, in the command line, and the GPIO
/// module only knows the names (`Backend::from_str`).
pub fn gpio_backend(name: &str) -> Result<wordjudge_core::gpio::Backend, String> {
    name.parse()
}

/// Prints an error for people and returns the usage/unusable exit code.
pub fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("wordjudge: {message}");
    ExitCode::from(EXIT_USAGE)
}
