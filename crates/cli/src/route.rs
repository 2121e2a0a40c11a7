//! `wordjudge fleet route`, the small step between `fleet serve`'s TLS front
//! and a station's receiver: run by socat for each verified connection, it
//! reads the station and the certificate's issue from the subject socat
//! verified, lets through only the issue the event's CA signed last for that
//! station, and joins the upload to that station's receiver. Why the laptop
//! is built this way is [`crate::serve`]'s.

use std::path::Path;
use std::time::{Duration, Instant};
use wordjudge_core::fleet::ca::EventCa;
use wordjudge_core::fleet::sender::station_of_subject;

/// The environment variable that tells `fleet route` where the stations'
/// sockets are (set in socat's environment, which its children inherit).
pub(crate) const SOCKETS_ENV: &str = "WORDJUDGE_FLEET_SOCKETS";

/// The environment variable that tells `fleet route` where the event's CA
/// is: it lets through only a station's current certificate.
pub(crate) const CA_ENV: &str = "WORDJUDGE_FLEET_CA";

/// How long `route` waits for a station's receiver to be there (it is
/// started within two seconds of the station's certificate being signed).
const ROUTE_WAIT: Duration = Duration::from_secs(5);

/// `fleet route`, run by socat for each verified connection: the upload on
/// standard input and output joined to its station's receiver, or refused
/// (exit 2, said on standard error, which socat logs) when the certificate
/// names no station or the station has no receiver.
pub fn route() -> Result<(), String> {
    let sockets = std::env::var_os(SOCKETS_ENV).ok_or("not run by `fleet serve` (no sockets folder)")?;
    let subject = std::env::var("SOCAT_OPENSSL_X509_SUBJECT").map_err(|_| "no verified certificate subject")?;
    let presented = station_of_subject(&subject).ok_or_else(|| {
        format!("the certificate {} names no station: refused", wordjudge_core::word::quote(&subject))
    })?;
    let station = presented.station;
    // Only the station's current certificate: one `fleet sign --replace`
    // retired (the old box, or a copy of its key) is revoked here.
    let ca = std::env::var_os(CA_ENV).ok_or("not run by `fleet serve` (no CA folder)")?;
    let current = EventCa::open(Path::new(&ca))
        .and_then(|ca| ca.current_issue(station))
        .map_err(|e| format!("{station}: cannot read its certificate on this laptop ({e}): refused"))?;
    match current {
        Some(issue) if issue.as_deref() == presented.issue => {}
        Some(_) => {
            return Err(format!(
                "{station}'s certificate was replaced (fleet sign --replace); this earlier one is revoked: refused"
            ))
        }
        None => return Err(format!("{station} has no certificate from this laptop's CA: refused")),
    }
    let socket = Path::new(&sockets).join(format!("{station}.sock"));
    let deadline = Instant::now() + ROUTE_WAIT;
    let stream = loop {
        match std::os::unix::net::UnixStream::connect(&socket) {
            Ok(stream) => break stream,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => {
                return Err(format!(
                    "{station} has no receiver ({e}): not signed by this laptop's CA, stopped, or over its quota"
                ))
            }
        }
    };
    let mut upload = stream.try_clone().map_err(|e| e.to_string())?;
    let to_receiver = std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut upload);
        let _ = upload.shutdown(std::net::Shutdown::Write);
    });
    let mut answers = stream;
    let _ = std::io::copy(&mut answers, &mut std::io::stdout().lock());
    let _ = to_receiver.join();
    Ok(())
}
