//! The `wordjudge` command: the kiosk, and the tools directors and operators
//! use from a shell. See `wordjudge --help`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
