//! `wordjudge-kiosk`'s dispatch: the commands that need the GUI or input
//! stack (the kiosk, screenshots, the PIN child) and the USB sticks' root
//! helper. It lives in the kiosk's program, the one package that depends on
//! both the command line's parser and the station, so the command line's
//! own package never names Slint.

use std::process::ExitCode;
use wordjudge_cli::kiosk::{KioskArgs, ScreenshotArgs};
use wordjudge_cli::{fail, stick, Cli, Command, Context, EXIT_USAGE};
use wordjudge_core::backend::Backend;

/// `wordjudge-kiosk`'s [`wordjudge_cli::GuiRunner`].
pub fn run_gui(cli: Cli) -> ExitCode {
    let context = match &cli.command {
        // The root helper and the PIN child read no config: they take what
        // they are given and nothing else.
        Command::Stick(_) | Command::Screenshot(_) | Command::CheckPinChild => None,
        _ => Some(Context::resolve(&cli)),
    };
    match (cli.command, context) {
        (Command::Kiosk(args), Some(context)) => kiosk(context, args),
        (Command::Screenshot(args), _) => screenshot(args),
        (Command::Stick(command), _) => stick::run(command),
        (Command::CheckPinChild, _) => check_pin_child(),
        _ => fail("wordjudge-kiosk runs the kiosk, screenshots and the USB helper; the other commands are wordjudge's"),
    }
}

fn kiosk(context: Context, args: KioskArgs) -> ExitCode {
    // The appliance's service has the sticks and updates of the system;
    // anywhere else, none unless asked for.
    let appliance_default = if args.appliance { Backend::System } else { Backend::Off };
    let options = wordjudge_station::app::runner::KioskOptions {
        windowed: args.windowed,
        gpio: args.gpio,
        config: context.loaded,
        lexicon_dir: context.lexicon_dir,
        appliance: args.appliance,
        usb: args.usb.unwrap_or(appliance_default.clone()),
        updates: args.updates.unwrap_or(appliance_default),
    };
    match wordjudge_station::app::runner::run(options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn screenshot(args: ScreenshotArgs) -> ExitCode {
    match wordjudge_station::app::screenshots::render_all(&args.out, args.width, args.height) {
        Ok(paths) => {
            for path in paths {
                println!("{}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// `check-pin-child`: see [`wordjudge_station::desks::pin::checker`]. Touches no file.
/// The kiosk runs it as its own child (`/proc/self/exe`, this program).
fn check_pin_child() -> ExitCode {
    use std::io::Read;
    use wordjudge_station::desks::pin::checker::{EXIT_MATCH, EXIT_NO_MATCH, SAYS_MATCH, SAYS_NO_MATCH};
    let mut input = String::new();
    // A hash and a PIN are far below 4 KiB: anything longer is not ours.
    if std::io::stdin().take(4096).read_to_string(&mut input).is_err() {
        return ExitCode::from(EXIT_USAGE);
    }
    let mut lines = input.lines();
    let (Some(hash), Some(pin), None) = (lines.next(), lines.next(), lines.next()) else {
        return ExitCode::from(EXIT_USAGE);
    };
    if wordjudge_core::pin::verify_pin(pin, hash) {
        println!("{SAYS_MATCH}");
        ExitCode::from(EXIT_MATCH)
    } else {
        println!("{SAYS_NO_MATCH}");
        ExitCode::from(EXIT_NO_MATCH)
    }
}
