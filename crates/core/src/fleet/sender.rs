//! Who sent what the laptop received: the station a verified client
//! certificate names (what `fleet route` joins a connection to), and the
//! station a received journal file came from (what `fleet status` reads as
//! its sender). `wordjudge fleet serve` keeps each station's uploads in a
//! file of its own, `from-NAME.journal`, reached only through a connection
//! whose certificate names NAME: the file's name is the transport's proof.

use super::stick;

/// What a station's journal files in `fleet serve`'s output are called:
/// `from-NAME.journal` (and the receiver's rotated `from-NAME@….journal`).
pub const FILE_PREFIX: &str = "from-";

/// The sender a journal file of `fleet serve`'s output came from: `NAME` of
/// `from-NAME.journal` or `from-NAME@….journal[~]`, when NAME is a
/// station's name; `None` for any other file.
pub fn sender_of(file_name: &str) -> Option<&str> {
    let rest = file_name.strip_prefix(FILE_PREFIX)?;
    let end = rest.find(['@', '.'])?;
    let name = &rest[..end];
    let tail = &rest[end..];
    let journal = tail.ends_with(".journal") || tail.ends_with(".journal~");
    (journal && stick::station_name_is_valid(name)).then_some(name)
}

/// A station's certificate as its subject names it: the station, and the
/// issue `fleet sign` gave it (`serialNumber`, one per signature, so a
/// certificate `fleet sign --replace` retired can be told from the current
/// one; `None` in a certificate signed before issues were given).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CertificateSubject<'a> {
    pub station: &'a str,
    pub issue: Option<&'a str>,
}

/// The longest issue a subject may give (digits: milliseconds since 1970).
const MAX_ISSUE_DIGITS: usize = 20;

/// The station a verified certificate's subject names, as socat gives it
/// (`CN = table-3, serialNumber = 17`, OpenSSL's one-line form), as
/// `openssl -nameopt RFC2253` prints it (`serialNumber=17,CN=table-3`) or in
/// `-subj` form (`/CN=table-3/serialNumber=17`): exactly one CN that is a
/// station's name, at most one serialNumber of digits, nothing else.
pub fn station_of_subject(subject: &str) -> Option<CertificateSubject<'_>> {
    let subject = subject.trim();
    let parts: Vec<&str> = match subject.strip_prefix('/') {
        Some(rest) => rest.split('/').collect(),
        None => subject.split(',').collect(),
    };
    let (mut station, mut issue) = (None, None);
    for part in parts {
        let (key, value) = part.split_once('=')?;
        let value = value.trim();
        match key.trim() {
            "CN" if station.is_none() && stick::station_name_is_valid(value) => station = Some(value),
            "serialNumber"
                if issue.is_none()
                    && (1..=MAX_ISSUE_DIGITS).contains(&value.len())
                    && value.bytes().all(|b| b.is_ascii_digit()) =>
            {
                issue = Some(value)
            }
            _ => return None,
        }
    }
    Some(CertificateSubject { station: station?, issue })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_subject_of_one_station_name_is_routed() {
        for ok in ["CN = table-3", "CN=table-3", "/CN=table-3"] {
            assert_eq!(station_of_subject(ok), Some(CertificateSubject { station: "table-3", issue: None }), "{ok}");
        }
        for ok in [
            "CN = table-3, serialNumber = 1765160000123",
            "serialNumber=1765160000123,CN=table-3",
            "/CN=table-3/serialNumber=1765160000123",
        ] {
            let read = CertificateSubject { station: "table-3", issue: Some("1765160000123") };
            assert_eq!(station_of_subject(ok), Some(read), "{ok}");
        }
        for refused in [
            "O = wordjudge fleet, CN = 192.168.10.2",
            "CN = table-3, O = x",
            "CN = table-3 // table-4",
            "CN = ../x",
            "CN = ",
            "",
            "serialNumber = 3",
            "CN = table-3, CN = table-4",
            "CN = table-3, serialNumber = 3, serialNumber = 4",
            "CN = table-3, serialNumber = 3a",
            "CN = table-3, serialNumber = ",
            "CN = table-3, serialNumber = 123456789012345678901",
            "/CN=table-3/O=x",
        ] {
            assert_eq!(station_of_subject(refused), None, "{refused}");
        }
    }

    #[test]
    fn a_file_names_its_sender_only_in_its_own_form() {
        assert_eq!(sender_of("from-table-3.journal"), Some("table-3"));
        assert_eq!(sender_of("from-table-3@0123-abcd.journal"), Some("table-3"));
        assert_eq!(sender_of("from-table-3@0123.journal~"), Some("table-3"));
        for none in [
            "stations.journal",
            "remote-wj-01.journal",
            "from-.journal",
            "from-a b.journal",
            "from-table-3.txt",
            "from-x",
        ] {
            assert_eq!(sender_of(none), None, "{none}");
        }
    }
}
