//! `wordjudge fleet status`: the stations' state from the journal copies of
//! their audit records, on the director's laptop.
//!
//! `status` tests the pure summary (`wordjudge_core::fleet`) on `journalctl -o
//! json` lines; `journal_files` writes real journal files with
//! `systemd-journal-remote` and runs the built program over them; `cli`
//! checks what it refuses; `proof` that only a paired station's signed lines
//! count as its records; `setup` the laptop's CA, stick and receiver;
//! `join` a station joining with the stick and sending to the receiver.

mod browser;
#[path = "../common/built.rs"]
mod built;
mod cli;
#[path = "../common/fleet_laptop.rs"]
mod fleet_laptop;
mod join;
#[path = "../common/journal_export.rs"]
mod journal_export;
#[path = "../common/journal_fields.rs"]
mod journal_fields;
mod journal_files;
mod proof;
#[path = "../common/race.rs"]
mod race;
mod receive;
mod recorded;
mod setup;
mod status;
mod support;
