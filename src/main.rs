//! The `wordjudge` command: the tools directors, operators and scripts use
//! from a shell (`judge`, `lexicon`, `audit`, `config`, `gpio`). It links no
//! GUI or input library; `kiosk`, `screenshot` and the USB helper run in
//! `wordjudge-kiosk`, which `wordjudge` executes for them. See `wordjudge
//! --help` and `src/cli/mod.rs`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::run(cli::forward_to_kiosk)
}
