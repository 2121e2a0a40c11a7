//! The one way the live station runs slow work: one job at a time on a thread
//! of its own, its messages polled on the UI thread without ever blocking.
//! The stick desk's worker ([`super::sticks::worker`]) and the update
//! desk's ([`super::updates::worker`]) both run on it.
//!
//! Why a desk of its own: a stick can take seconds to answer (or never, once
//! its hardware hangs), `rauc install` takes minutes, and the screen must
//! never freeze nor the watchdog go hungry. A panic inside a job must end as
//! that job's failure, never as a dead kiosk. And work the flow stops
//! waiting for cannot be stopped (a thread blocked in a mount stays
//! blocked), so it is kept as *abandoned*: the desk stays busy until it
//! ends, because a second job on the same stick would block too, and what
//! it did is still reported, for the audit log.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;

/// A job could not start: one is running, abandoned work has not ended, or
/// no thread could be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy;

/// What a poll of the running job heard.
#[derive(Debug)]
pub enum Heard<M> {
    /// A message from the job.
    Message(M),
    /// The job's thread ended without its last message.
    Silent,
}

/// A job: what the desk calls it (`T`) and where its messages arrive.
type Job<T, M> = (T, mpsc::Receiver<M>);

/// At most one job running, plus the abandoned jobs that have not ended.
pub struct JobDesk<T, M> {
    thread_name: &'static str,
    running: Option<Job<T, M>>,
    abandoned: Vec<Job<T, M>>,
}

impl<T: Copy, M: Send + 'static> JobDesk<T, M> {
    /// A desk whose threads carry `thread_name` (seen in the journal and `ps`).
    pub fn new(thread_name: &'static str) -> JobDesk<T, M> {
        JobDesk { thread_name, running: None, abandoned: Vec::new() }
    }

    /// Spawns `job` on its own thread; `on_panic` is its last message if it
    /// panics. The job may send messages before its last one (progress).
    fn spawn(
        &self,
        job: impl FnOnce(&mpsc::Sender<M>) -> M + Send + 'static,
        on_panic: M,
    ) -> Option<mpsc::Receiver<M>> {
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name(self.thread_name.into())
            .spawn(move || {
                let last = catch_unwind(AssertUnwindSafe(|| job(&tx))).unwrap_or(on_panic);
                let _ = tx.send(last);
            })
            .ok()
            .map(|_| rx)
    }

    /// Starts `job` as the running job, called `tag`, unless the desk is busy.
    pub fn start(
        &mut self,
        tag: T,
        job: impl FnOnce(&mpsc::Sender<M>) -> M + Send + 'static,
        on_panic: M,
    ) -> Result<(), Busy> {
        if self.busy() {
            return Err(Busy);
        }
        let rx = self.spawn(job, on_panic).ok_or(Busy)?;
        self.running = Some((tag, rx));
        Ok(())
    }

    /// Starts `job` as work nobody waits for (letting go of a stick): the
    /// desk is busy until it ends, and its messages come from
    /// [`JobDesk::drain_abandoned`]. False when no thread could be made.
    pub fn start_unwaited(
        &mut self,
        tag: T,
        job: impl FnOnce(&mpsc::Sender<M>) -> M + Send + 'static,
        on_panic: M,
    ) -> bool {
        match self.spawn(job, on_panic) {
            Some(rx) => {
                self.abandoned.push((tag, rx));
                true
            }
            None => false,
        }
    }

    /// Whether a job runs, or abandoned work has not ended.
    pub fn busy(&self) -> bool {
        self.running.is_some() || !self.abandoned.is_empty()
    }

    /// The running job's tag.
    pub fn running(&self) -> Option<T> {
        self.running.as_ref().map(|(tag, _)| *tag)
    }

    /// Stops waiting for the running job: from now on it is abandoned work.
    /// Returns its tag.
    pub fn abandon(&mut self) -> Option<T> {
        let job = self.running.take()?;
        let tag = job.0;
        self.abandoned.push(job);
        Some(tag)
    }

    /// The running job's next message, if one has arrived. The job stops
    /// being the running one after a message `is_last` says ends it, or
    /// when its thread ended without one ([`Heard::Silent`]).
    pub fn poll(&mut self, is_last: impl Fn(&M) -> bool) -> Option<(T, Heard<M>)> {
        let (tag, rx) = self.running.as_ref()?;
        let tag = *tag;
        let heard = match rx.try_recv() {
            Ok(message) => Heard::Message(message),
            Err(mpsc::TryRecvError::Empty) => return None,
            Err(mpsc::TryRecvError::Disconnected) => Heard::Silent,
        };
        if !matches!(&heard, Heard::Message(m) if !is_last(m)) {
            self.running = None;
        }
        Some((tag, heard))
    }

    /// Every message abandoned work sent since the last call, in order, with
    /// its job's tag. A job is forgotten after a message `is_last` says ends
    /// it, or when its thread is gone.
    pub fn drain_abandoned(&mut self, is_last: impl Fn(&M) -> bool) -> Vec<(T, M)> {
        let mut heard = Vec::new();
        self.abandoned.retain(|(tag, rx)| loop {
            match rx.try_recv() {
                Err(mpsc::TryRecvError::Empty) => return true,
                Err(mpsc::TryRecvError::Disconnected) => return false,
                Ok(message) => {
                    let last = is_last(&message);
                    heard.push((*tag, message));
                    if last {
                        return false;
                    }
                }
            }
        });
        heard
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn wait<T: Copy, M: Send + 'static>(desk: &mut JobDesk<T, M>) -> (T, Heard<M>) {
        for _ in 0..500 {
            if let Some(heard) = desk.poll(|_| true) {
                return heard;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the job never answered");
    }

    #[test]
    fn a_job_that_panics_ends_as_its_own_failure_and_frees_the_desk() {
        let mut desk: JobDesk<u8, Result<u32, &str>> = JobDesk::new("wordjudge-test");
        desk.start(1, |_| panic!("a bug"), Err("the job failed")).unwrap();
        assert!(matches!(wait(&mut desk), (1, Heard::Message(Err("the job failed")))));
        assert!(!desk.busy());
        desk.start(2, |_| Ok(7), Err("the job failed")).unwrap();
        assert!(matches!(wait(&mut desk), (2, Heard::Message(Ok(7)))));
    }

    #[test]
    fn progress_keeps_a_job_running_until_its_last_message() {
        let mut desk: JobDesk<(), u32> = JobDesk::new("wordjudge-test");
        let (go, wait_go) = mpsc::channel::<()>();
        desk.start(
            (),
            move |tx| {
                tx.send(10).unwrap();
                tx.send(50).unwrap();
                wait_go.recv().unwrap();
                100
            },
            0,
        )
        .unwrap();
        let is_last = |m: &u32| *m == 100;
        let mut seen = Vec::new();
        while seen.len() < 2 {
            if let Some(((), Heard::Message(m))) = desk.poll(is_last) {
                seen.push(m);
            }
        }
        assert_eq!(seen, [10, 50]);
        assert!(desk.busy() && desk.running().is_some(), "progress is not the end");
        assert_eq!(desk.start((), |_| 1, 0), Err(Busy));
        go.send(()).unwrap();
        loop {
            match desk.poll(is_last) {
                Some(((), Heard::Message(100))) => break,
                Some(other) => panic!("{other:?}"),
                None => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        assert!(!desk.busy());
    }

    #[test]
    fn abandoned_work_keeps_the_desk_busy_and_is_still_heard_when_it_ends() {
        let mut desk: JobDesk<&str, &str> = JobDesk::new("wordjudge-test");
        let (go, wait_go) = mpsc::channel::<()>();
        desk.start(
            "reading",
            move |_| {
                wait_go.recv().unwrap();
                "read"
            },
            "failed",
        )
        .unwrap();
        assert_eq!(desk.abandon(), Some("reading"));
        assert_eq!(desk.abandon(), None, "nothing runs now");
        assert!(desk.poll(|_| true).is_none(), "nothing of abandoned work is polled as running");
        assert!(desk.busy());
        assert_eq!(desk.start("again", |_| "x", "failed"), Err(Busy), "no second job while it lives");
        go.send(()).unwrap();
        let mut heard = Vec::new();
        for _ in 0..500 {
            heard.extend(desk.drain_abandoned(|_| true));
            if !desk.busy() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(heard, [("reading", "read")]);
        assert!(!desk.busy());
    }

    #[test]
    fn a_job_whose_thread_ends_without_its_last_message_is_heard_as_silent() {
        let mut desk: JobDesk<(), u32> = JobDesk::new("wordjudge-test");
        // A job that "ends" with a message the desk does not take as last,
        // then its thread is gone: the desk hears silence, and is free.
        desk.start((), |_| 1, 0).unwrap();
        let mut heard = Vec::new();
        for _ in 0..500 {
            match desk.poll(|_| false) {
                Some(((), Heard::Message(m))) => heard.push(Some(m)),
                Some(((), Heard::Silent)) => {
                    heard.push(None);
                    break;
                }
                None => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        assert_eq!(heard, [Some(1), None]);
        assert!(!desk.busy());
    }
}
