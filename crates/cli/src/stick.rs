//! `wordjudge stick attach|detach DEVICE`: the root helper the units
//! `wordjudge-stick-import@.service` and `wordjudge-stick-export@.service`
//! run (see [`wordjudge_core::usb::helper`]). Not for people: the kiosk asks
//! systemd, which runs this.

use super::fail;
use std::process::ExitCode;
use wordjudge_core::usb::{helper, Mode};

#[derive(clap::Subcommand, Debug)]
#[command(defer = true)] // built only when chosen: see the `Command` enum in lib.rs
pub enum StickCommand {
    /// Mount a USB stick for the kiosk: read-only for import, its wordjudge/ folder for export
    Attach {
        /// import (read-only) or export (the stick's wordjudge/ folder, writable by the kiosk)
        #[arg(long, value_parser = parse_mode)]
        mode: Mode,
        /// The device's kernel name, e.g. sdb1
        device: String,
    },
    /// Sync and unmount a stick (nothing to do if it is not mounted or is gone)
    Detach { device: String },
}

fn parse_mode(text: &str) -> Result<Mode, String> {
    text.parse()
}

/// Run by `wordjudge-kiosk` (its `src/gui.rs`); `wordjudge` forwards.
pub fn run(command: StickCommand) -> ExitCode {
    match command {
        StickCommand::Attach { mode, device } => match helper::attach(&device, mode) {
            Ok(path) => {
                println!("{device} attached for {} at {}", mode.as_str(), path.display());
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        },
        StickCommand::Detach { device } => match helper::detach(&device) {
            Ok(()) => {
                println!("{device} detached: it may be removed");
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        },
    }
}
