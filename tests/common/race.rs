//! A racer for tests of "swapped after a check": a process that trades a
//! real folder for a link to another folder (`renameat2(RENAME_EXCHANGE)`),
//! either as fast as it can or right after each look at the folder (an
//! inotify watch), as a user's process can on a stick while a privileged
//! command works in it.

#![allow(dead_code)] // each test crate uses what it needs

use std::path::{Path, PathBuf};

/// Exchanges two names atomically (`renameat2(RENAME_EXCHANGE)`): a real
/// folder and a link to a folder elsewhere trade places, as a process of
/// the laptop's user can do on a stick while root works in it.
pub fn exchange(a: &Path, b: &Path) -> bool {
    let (a, b) = (
        std::ffi::CString::new(a.as_os_str().as_encoded_bytes()).unwrap(),
        std::ffi::CString::new(b.as_os_str().as_encoded_bytes()).unwrap(),
    );
    // SAFETY: renameat2(2) on two valid C strings.
    unsafe { libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE) == 0 }
}

/// How a racer times its swaps.
#[derive(Clone, Copy, Debug)]
pub enum Race {
    /// Back and forth as fast as it can, for as long as the command runs.
    Timed,
    /// Once each time the folder is opened or read (an inotify watch on
    /// it): the swap lands right after the command's check.
    Inotify,
}

/// Races `folder` against a link to `victim` (swapping the two names) until
/// `stop`; returns how many swaps it made. Ends with `folder` real again.
pub fn race(
    folder: PathBuf,
    victim: PathBuf,
    how: Race,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<usize> {
    let link = folder.with_file_name(".racer-link");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    std::thread::spawn(move || {
        let mut swaps = 0;
        let stopped = || stop.load(std::sync::atomic::Ordering::Relaxed);
        match how {
            Race::Timed => {
                while !stopped() {
                    if exchange(&folder, &link) {
                        swaps += 1;
                    }
                    std::thread::yield_now();
                }
            }
            Race::Inotify => {
                // SAFETY: inotify(7) calls on this thread's own descriptor.
                let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
                assert!(fd >= 0);
                let path = std::ffi::CString::new(folder.as_os_str().as_encoded_bytes()).unwrap();
                let mask =
                    libc::IN_OPEN | libc::IN_ACCESS | libc::IN_CLOSE_NOWRITE | libc::IN_CREATE | libc::IN_MOVED_TO;
                let watch = unsafe { libc::inotify_add_watch(fd, path.as_ptr(), mask) };
                assert!(watch >= 0, "inotify watch on {}", folder.display());
                let mut buf = [0u8; 4096];
                while !stopped() {
                    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
                    if n > 0 {
                        // Swapped right after the command looked, then back
                        // a moment later (the watch follows the folder).
                        if exchange(&folder, &link) {
                            swaps += 1;
                            std::thread::sleep(std::time::Duration::from_millis(2));
                            exchange(&folder, &link);
                        }
                    } else {
                        std::thread::sleep(std::time::Duration::from_micros(100));
                    }
                }
                unsafe { libc::close(fd) };
            }
        }
        // The real folder back in its place.
        if std::fs::symlink_metadata(&folder).is_ok_and(|m| m.file_type().is_symlink()) {
            exchange(&folder, &link);
        }
        let _ = std::fs::remove_file(&link);
        swaps
    })
}

/// Trades every entry of `folder` whose name ends with `suffix` with `link` (and back a
/// moment later) until `stop`: right after each entry is made (`inotify`)
/// or whenever a scan finds one. Returns the swaps made.
pub fn race_new_entries(
    folder: PathBuf,
    suffix: &'static str,
    link: PathBuf,
    inotify: bool,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut swaps = 0;
        let mut swap = |name: &std::ffi::OsStr| {
            if name.to_string_lossy().ends_with(suffix) && crate::race::exchange(&folder.join(name), &link) {
                swaps += 1;
                std::thread::sleep(std::time::Duration::from_millis(2));
                crate::race::exchange(&folder.join(name), &link);
            }
        };
        if inotify {
            // SAFETY: inotify(7) calls on this thread's own descriptor.
            let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
            assert!(fd >= 0);
            let path = std::ffi::CString::new(folder.as_os_str().as_encoded_bytes()).unwrap();
            assert!(unsafe { libc::inotify_add_watch(fd, path.as_ptr(), libc::IN_CREATE) } >= 0);
            let mut buf = [0u8; 4096];
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
                let mut at = 0usize;
                while n > 0 && at + std::mem::size_of::<libc::inotify_event>() <= n as usize {
                    // SAFETY: the kernel wrote whole events into buf.
                    let event = unsafe { std::ptr::read_unaligned(buf.as_ptr().add(at) as *const libc::inotify_event) };
                    let start = at + std::mem::size_of::<libc::inotify_event>();
                    let raw = &buf[start..start + event.len as usize];
                    let name = &raw[..raw.iter().position(|&b| b == 0).unwrap_or(raw.len())];
                    swap(std::os::unix::ffi::OsStrExt::from_bytes(name));
                    at = start + event.len as usize;
                }
                if n <= 0 {
                    std::thread::sleep(std::time::Duration::from_micros(50));
                }
            }
            unsafe { libc::close(fd) };
        } else {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for entry in std::fs::read_dir(&folder).unwrap().flatten() {
                    swap(&entry.file_name());
                }
            }
        }
        swaps
    })
}
