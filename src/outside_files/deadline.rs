//! Work that may block on a device that stops answering, run against a
//! deadline.
//!
//! `O_NONBLOCK` keeps a FIFO from blocking an open, but no flag helps when a
//! stick's controller stops answering: the read sleeps in the kernel. So the
//! work runs on a thread of its own and the caller waits at most the
//! deadline. On a timeout the thread is left behind (a thread blocked in the
//! kernel cannot be stopped from user space); it owns only its own copies,
//! and what it returns later is dropped.

use std::sync::mpsc;
use std::time::Duration;

/// The work did not finish within its deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut(pub Duration);

impl std::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no answer within {} s", self.0.as_secs_f32())
    }
}

impl std::error::Error for TimedOut {}

/// Runs `work` on a thread of its own and returns its result, or
/// [`TimedOut`] once `deadline` has passed. A panic in `work` is resumed on
/// the caller's thread, as if the work had run there.
pub fn with_deadline<T: Send + 'static>(
    deadline: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, TimedOut> {
    let (tx, rx) = mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new().name("wordjudge-deadline".into()).spawn(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        let _ = tx.send(result);
    });
    if spawned.is_err() {
        return Err(TimedOut(Duration::ZERO));
    }
    match rx.recv_timeout(deadline) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => Err(TimedOut(deadline)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn a_read_that_never_ends_is_given_up_at_the_deadline() {
        // A FIFO opened for reading *with* blocking waits for a writer that
        // never comes: the kernel-side wait no flag can cut short.
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("stuck");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let started = Instant::now();
        let result = with_deadline(Duration::from_millis(200), move || std::fs::read(&fifo).map(|b| b.len()).ok());
        assert_eq!(result, Err(TimedOut(Duration::from_millis(200))));
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn work_that_finishes_gives_its_value() {
        assert_eq!(with_deadline(Duration::from_secs(5), || 6 * 7), Ok(42));
    }
}
