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

/// The station a verified certificate's subject names, as socat gives it
/// (`CN = table-3`, OpenSSL's one-line form; `CN=table-3` and `/CN=table-3`
/// read the same): exactly one CN that is a station's name, nothing else.
pub fn station_of_subject(subject: &str) -> Option<&str> {
    let subject = subject.trim();
    let rest = subject
        .strip_prefix("/CN=")
        .or_else(|| subject.strip_prefix("CN="))
        .or_else(|| subject.strip_prefix("CN = "))?;
    stick::station_name_is_valid(rest).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_subject_of_one_station_name_is_routed() {
        for ok in ["CN = table-3", "CN=table-3", "/CN=table-3"] {
            assert_eq!(station_of_subject(ok), Some("table-3"), "{ok}");
        }
        for refused in [
            "O = wordjudge fleet, CN = 192.168.10.2",
            "CN = table-3, O = x",
            "CN = table-3 // table-4",
            "CN = ../x",
            "CN = ",
            "",
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
