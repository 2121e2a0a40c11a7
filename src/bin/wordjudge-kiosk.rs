//! `wordjudge-kiosk`: the station's full-screen kiosk (and `--windowed` on a
//! desktop), headless screenshots, the kiosk's PIN child and the USB sticks'
//! root helper: the commands that need the GUI and input stack. It takes the
//! same command line as `wordjudge` (`wordjudge-kiosk kiosk --appliance …`);
//! see `src/cli/mod.rs` for why there are two programs.

#[path = "../cli/mod.rs"]
mod cli;
#[path = "../cli/gui.rs"]
mod gui;

fn main() -> std::process::ExitCode {
    cli::run(gui::run_gui)
}
