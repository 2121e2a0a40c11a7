//! `wordjudge kiosk` and `wordjudge screenshot`: the UI commands, and the
//! GUI program's dispatch ([`run_gui`]), which also runs the USB sticks'
//! root helper (it links libudev).

use super::{fail, Cli, Command, Context};
use std::path::PathBuf;
use std::process::ExitCode;
use wordjudge::gpio::Backend;

#[derive(clap::Args, Debug)]
pub struct KioskArgs {
    /// Run in a desktop window (winit) instead of full screen on the console (linuxkms)
    #[arg(long)]
    windowed: bool,
    /// Judge button and lamps: rppal (Raspberry Pi OS), cdev (the kernel GPIO character device), sim(ulated, lamps shown on screen with --windowed), off, or auto
    #[arg(long, default_value = "auto", value_name = "auto|rppal|cdev|sim|off", value_parser = super::gpio_backend)]
    gpio: Backend,
    /// Run as the appliance's service (the systemd unit passes it): only then
    /// does the director menu offer reboot and power-off
    #[arg(long, env = "WORDJUDGE_APPLIANCE")]
    appliance: bool,
    /// USB sticks in the director menu: system (udev and the root helper
    /// units, the appliance's default), folders:DIR (each folder of DIR is a
    /// stick: desktops and tests), or off (the default elsewhere)
    #[arg(long, value_name = "system|folders:DIR|off")]
    usb: Option<wordjudge::usb::Backend>,
    /// Updates of the station from a bundle on a stick: system (RAUC, the
    /// appliance's default; offered only where /etc/rauc/system.conf
    /// exists), sim:DIR (simulated: desktops and tests), or off (the
    /// default elsewhere)
    #[arg(long, value_name = "system|sim:DIR|off")]
    updates: Option<wordjudge::update::Backend>,
}

/// `wordjudge-kiosk`'s [`super::GuiRunner`]: the commands that need the
/// GUI or input stack, run here.
#[allow(dead_code)] // `wordjudge-kiosk`'s runner; `wordjudge` forwards instead
pub fn run_gui(cli: Cli) -> ExitCode {
    let context = match &cli.command {
        // The root helper reads no config: it takes a device name and nothing else.
        Command::Stick(_) | Command::Screenshot(_) => None,
        _ => Some(Context::resolve(&cli)),
    };
    match (cli.command, context) {
        (Command::Kiosk(args), Some(context)) => kiosk(context, args),
        (Command::Screenshot(args), _) => screenshot(args),
        (Command::Stick(command), _) => super::stick::run(command),
        _ => fail("wordjudge-kiosk runs the kiosk, screenshots and the USB helper; the other commands are wordjudge's"),
    }
}

fn kiosk(context: Context, args: KioskArgs) -> ExitCode {
    let options = wordjudge::app::runner::KioskOptions {
        windowed: args.windowed,
        gpio: args.gpio,
        config: context.loaded,
        lexicon_dir: context.lexicon_dir,
        appliance: args.appliance,
        usb: args.usb.unwrap_or(if args.appliance { wordjudge::usb::Backend::System } else { wordjudge::usb::Backend::Off }),
        updates: args.updates.unwrap_or(if args.appliance {
            wordjudge::update::Backend::System
        } else {
            wordjudge::update::Backend::Off
        }),
    };
    match wordjudge::app::runner::run(options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

#[derive(clap::Args, Debug)]
pub struct ScreenshotArgs {
    /// Directory for the PNG files
    #[arg(long)]
    out: PathBuf,
    #[arg(long, default_value_t = 1920)]
    width: u32,
    #[arg(long, default_value_t = 1080)]
    height: u32,
}

fn screenshot(args: ScreenshotArgs) -> ExitCode {
    match wordjudge::app::screenshots::render_all(&args.out, args.width, args.height) {
        Ok(paths) => {
            for path in paths {
                println!("{}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}
