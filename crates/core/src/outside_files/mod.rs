//! The one door for bytes the station did not write itself in this run:
//! files a stick, the card, a config editor or a peer hands it, read and
//! written one safe way.
//!
//! A file someone else named may be a FIFO nobody writes to, `/dev/zero`, a
//! 100 MB file, a symbolic link out of a stick, a folder, or a file swapped
//! after it was checked. Every read, open and write of such a file in
//! `src/` goes through this module; `tests/outside_files.rs` reads the
//! sources and fails on any other, apart from a short, commented allow-list.
//!
//! * [`read`]: open without blocking, judge the *opened* file (`fstat`),
//!   regular files only, a size limit checked before a byte is read and
//!   enforced while reading; a no-follow mode for paths under a stick.
//! * [`write`]: the one atomic write: a fresh temporary file in the same
//!   folder (`O_EXCL`, never through a link), an explicit mode, `fsync`,
//!   rename, `fsync` of the folder.
//! * [`walk`]: a folder's entries, listed without following a link and
//!   without leaving the folder, bounded in count.
//! * [`held`]: a folder someone else may swap (a stick in the laptop), held
//!   by its descriptor: reads, writes and deletes relative to it, so a swap
//!   after the check redirects nothing.
//!
//! What no flag can cut short, a stick whose I/O hangs in the kernel, is
//! never waited on by the screen: stick and update work runs on the desks'
//! own threads (the station's `desks::sticks::worker` and
//! `desks::updates::worker`), and the flow gives each job a deadline and lets ESC or the stick pulled out end the wait
//! (`kiosk::flow`: `UsbWork::deadline`, `UPDATE_CHECK_DEADLINE`); a thread
//! left blocked is recorded when it ends and holds back new stick work.

pub mod held;
pub mod read;
pub mod walk;
pub mod write;

pub use held::HeldFolder;

pub use read::*;
pub use walk::{list_folder, list_named_folder, open_folder, Entry, EntryKind, Listing};
pub use write::{create_new_file, sync_folder, write_atomically, write_atomically_with_mode, write_new_file};
