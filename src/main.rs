//! The `wordjudge` command: the tools directors, operators and scripts use
//! from a shell (`judge`, `lexicon`, `audit`, `config`, `gpio`). It links no
//! GUI or input library; `kiosk`, `screenshot` and the USB helper run in
//! `wordjudge-kiosk`, which `wordjudge` executes for them. See `wordjudge
//! --help` and `src/cli/mod.rs`.
//!
//! Why the core modules are compiled here and not taken from the library:
//! the library also holds the kiosk (`app`, `ui`), so it depends on Slint,
//! and rustc links the `#[used]` constructors of every crate a program's
//! crate graph holds. One of them (tiny-xlib's, under Slint's winit
//! backend) dlopens libX11 and five more libraries at every start: half of
//! `wordjudge --version`'s time on a machine with X installed. So this
//! program compiles the same source files as its own modules
//! (`extern crate self as wordjudge` keeps every `wordjudge::` path in
//! `src/cli` meaning them) and never names the library; `app` and `ui` are
//! not among them. `tests/cli/programs.rs` checks that no GUI library is
//! loaded, at link time or at run time.

// The core modules' unit tests run once, in the library's test binary: this
// program's own test harness (`cargo test --bins`) is empty.
#![cfg(not(test))]

extern crate self as wordjudge;

// The library's core, layer 1 in `src/lib.rs` (what the command line uses,
// and what that uses). Parts only the kiosk calls, and the re-exports the
// library offers, are unused here.
#[allow(unused)]
mod audit;
#[allow(unused)]
mod backend_spec;
#[allow(unused)]
mod outside_files;
#[allow(unused)]
mod config;
#[allow(unused)]
mod digest;
#[allow(unused)]
mod fingerprint;
#[allow(unused)]
mod fleet;
#[allow(unused)]
mod gpio;
#[allow(unused)]
mod guard;
#[allow(unused)]
mod inspect;
#[allow(unused)]
mod judge;
#[allow(unused)]
mod lexicon;
#[allow(unused)]
mod panel;
#[allow(unused)]
mod pin;
#[allow(unused)]
mod profile;
#[allow(unused)]
mod recorder;
#[allow(unused)]
mod shutdown;
#[allow(unused)]
mod update;
#[allow(unused)]
mod usb;
#[allow(unused)]
mod word;

mod cli;

fn main() -> std::process::ExitCode {
    cli::run(cli::forward_to_kiosk)
}
