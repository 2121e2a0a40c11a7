//! `wordjudge`: the command line directors, operators and scripts use from
//! a shell (`judge`, `lexicon`, `audit`, `config`, `gpio`, `fleet`). Its
//! package depends on `wordjudge-core` alone, so it links no GUI or input
//! library; `kiosk`, `screenshot` and the USB helper run in
//! `wordjudge-kiosk`, which this program executes for them. See `wordjudge
//! --help` and this crate's `lib.rs`.

fn main() -> std::process::ExitCode {
    wordjudge_cli::run(wordjudge_cli::forward_to_kiosk)
}
