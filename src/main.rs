//! `wordjudge-kiosk`: the station's full-screen kiosk (and `--windowed` on a
//! desktop), headless screenshots, the kiosk's PIN child and the USB sticks'
//! root helper: the commands that need the GUI and input stack. It takes the
//! same command line as `wordjudge` (`wordjudge-kiosk kiosk --appliance …`);
//! `crates/cli/src/lib.rs` says why there are two programs.

mod gui;

fn main() -> std::process::ExitCode {
    wordjudge_cli::run(gui::run_gui)
}
