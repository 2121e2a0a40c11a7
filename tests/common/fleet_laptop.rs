//! The event's laptop in a test: `fleet serve` on a free loopback port,
//! and `systemd-journal-upload` sending a journal file to it with a
//! station's key and certificate, as a joined station's uploader does.
//! Shared by the fleet tests and the event-day test.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A free TCP port on the loopback.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub(crate) fn upload(url: &str, key: &Path, cert: &Path, trust: &Path, journal: &Path) -> Output {
    Command::new("/usr/lib/systemd/systemd-journal-upload")
        .arg(format!("--url={url}"))
        .arg(format!("--key={}", key.display()))
        .arg(format!("--cert={}", cert.display()))
        .arg(format!("--trust={}", trust.display()))
        .arg(format!("--file={}", journal.display()))
        .arg("--follow=no")
        .output()
        .expect("systemd-journal-upload runs")
}

/// `fleet serve`, stopped when the test ends, however it ends.
pub(crate) struct Serving(pub(crate) std::process::Child);

impl Serving {
    /// `fleet serve` with the CA in `ca`, once it listens on `port` (its
    /// private folder made under `tmp`).
    pub(crate) fn listening(ca: &Path, port: u16, received: &Path, tmp: &Path) -> Serving {
        Serving::listening_on(ca, port, received, tmp, "127.0.0.1", &[])
    }

    /// The same, waiting for it on `address`, with `extra` arguments.
    pub(crate) fn listening_on(
        ca: &Path,
        port: u16,
        received: &Path,
        tmp: &Path,
        address: &str,
        extra: &[&str],
    ) -> Serving {
        let mut serve = Serving(
            Command::new(crate::built::wordjudge())
                .args(["fleet", "serve", "--port", &port.to_string()])
                .args(extra)
                .arg("--ca-dir")
                .arg(ca)
                .arg("--output")
                .arg(received)
                .env("TMPDIR", tmp)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::net::TcpStream::connect((address, port)).is_err() {
            assert!(std::time::Instant::now() < deadline, "fleet serve never listened on {port}");
            assert!(serve.0.try_wait().unwrap().is_none(), "fleet serve ended");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        serve
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
