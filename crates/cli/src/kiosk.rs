//! `wordjudge kiosk` and `wordjudge screenshot`: the UI commands' arguments.
//! They run in `wordjudge-kiosk` (its `src/gui.rs`); `wordjudge` only parses
//! them, so that `wordjudge kiosk --help` and a typo are answered alike.

use std::path::PathBuf;
use wordjudge_core::gpio::Backend;

#[derive(clap::Args, Debug)]
pub struct KioskArgs {
    /// Run in a desktop window (winit) instead of full screen on the console (linuxkms)
    #[arg(long)]
    pub windowed: bool,
    /// Judge button and lamps: rppal (Raspberry Pi OS), cdev (the kernel GPIO character device), sim(ulated, lamps shown on screen with --windowed), off, or auto
    #[arg(long, default_value = "auto", value_name = "auto|rppal|cdev|sim|off", value_parser = super::gpio_backend)]
    pub gpio: Backend,
    /// Run as the appliance's service (the systemd unit passes it): only then
    /// does the director menu offer reboot and power-off
    #[arg(long, env = "WORDJUDGE_APPLIANCE")]
    pub appliance: bool,
    /// USB sticks in the director menu: system (udev and the root helper
    /// units, the appliance's default), folders:DIR (each folder of DIR is a
    /// stick: desktops and tests), or off (the default elsewhere)
    #[arg(long, value_name = "system|folders:DIR|off", value_parser = wordjudge_core::usb::backend)]
    pub usb: Option<wordjudge_core::backend::Backend>,
    /// Updates of the station from a bundle on a stick: system (RAUC, the
    /// appliance's default; offered only where /etc/rauc/system.conf
    /// exists), sim:DIR (simulated: desktops and tests), or off (the
    /// default elsewhere)
    #[arg(long, value_name = "system|sim:DIR|off", value_parser = wordjudge_core::update::backend)]
    pub updates: Option<wordjudge_core::backend::Backend>,
}

#[derive(clap::Args, Debug)]
pub struct ScreenshotArgs {
    /// Directory for the PNG files
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value_t = 1920)]
    pub width: u32,
    #[arg(long, default_value_t = 1080)]
    pub height: u32,
}
