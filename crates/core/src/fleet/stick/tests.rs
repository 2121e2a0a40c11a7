//! Tests of the fleet stick's files: the fleet file, the binding and the names.

use super::*;

fn sample() -> FleetFile {
    FleetFile {
        event: "Nationals 2026".into(),
        upload_url: "https://192.168.10.2:19532".into(),
        ca_sha256: "ab".repeat(32),
        address: None,
        gateway: None,
    }
}

#[test]
fn what_setup_writes_reads_back() {
    let file = FleetFile { address: Some("192.168.10.21/24".into()), gateway: Some("192.168.10.1".into()), ..sample() };
    assert_eq!(FleetFile::parse(&file.to_text()), Ok(file));
    assert_eq!(FleetFile::parse(&sample().to_text()), Ok(sample()));
}

#[test]
fn each_field_out_of_form_is_refused_with_its_reason() {
    let cases: Vec<(FleetFile, &str)> = vec![
        (FleetFile { event: String::new(), ..sample() }, "the event's name"),
        (FleetFile { event: "   ".into(), ..sample() }, "the event's name"),
        (FleetFile { event: "Nationals \u{202E}6202".into(), ..sample() }, "text-direction character"),
        (FleetFile { event: "Nat\u{2066}ionals".into(), ..sample() }, "text-direction character"),
        (FleetFile { event: "Nat\u{1b}[2Jionals".into(), ..sample() }, "text-direction character"),
        (FleetFile { upload_url: "http://192.168.10.2:19532".into(), ..sample() }, "must be https://HOST:PORT"),
        (FleetFile { upload_url: "https://laptop".into(), ..sample() }, "must be https://HOST:PORT"),
        (FleetFile { upload_url: "https://laptop:19532/x".into(), ..sample() }, "must be https://HOST:PORT"),
        (FleetFile { upload_url: "https://lap top:19532".into(), ..sample() }, "must be https://HOST:PORT"),
        (FleetFile { upload_url: "https://laptop:0".into(), ..sample() }, "must be https://HOST:PORT"),
        (FleetFile { ca_sha256: "AB".repeat(32), ..sample() }, "64 hex digits"),
        (FleetFile { ca_sha256: "ab".into(), ..sample() }, "64 hex digits"),
        (FleetFile { address: Some("192.168.10.21".into()), ..sample() }, "with its prefix length"),
        (FleetFile { address: Some("192.168.10.21/33".into()), ..sample() }, "with its prefix length"),
        (FleetFile { gateway: Some("192.168.10.1".into()), ..sample() }, "without an address"),
    ];
    for (file, reason) in cases {
        let e = FleetFile::parse(&file.to_text()).unwrap_err().to_string();
        assert!(e.contains(reason), "{file:?}: {e}");
    }
    let e = FleetFile::parse("event = \"x\"\nupload_url = \"https://a:1\"\nca_sha256 = \"\"\nport = 1\n").unwrap_err();
    assert!(matches!(e, StickError::Toml(_)), "{e}");
}

#[test]
fn key_codes_are_sixteen_hex_digits_of_the_public_keys_sha256_in_groups() {
    let pem = "-----BEGIN PUBLIC KEY-----\nAAEC\nAw==\n-----END PUBLIC KEY-----\n";
    let der = public_key_der(pem).unwrap();
    assert_eq!(der, [0, 1, 2, 3]);
    let hex = crate::digest::sha256_hex(&der);
    assert_eq!(key_code(&der), format!("{}-{}-{}-{}", &hex[0..4], &hex[4..8], &hex[8..12], &hex[12..16]));
    assert_eq!(public_key_der("no key here"), None);
}

#[test]
fn held_folders_are_made_and_links_on_the_way_refused() {
    let stick = tempfile::tempdir().unwrap();
    let made = held_folder(stick.path(), "wordjudge/fleet/requests", true).unwrap();
    assert_eq!(made.path(), stick.path().join("wordjudge/fleet/requests"));
    assert!(stick.path().join("wordjudge/fleet/requests").is_dir());
    assert!(matches!(
        held_folder(stick.path(), "wordjudge/fleet/certificates", false),
        Err(StickFolderError::Missing(_))
    ));
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), stick.path().join("wordjudge/fleet/certificates")).unwrap();
    for create in [false, true] {
        let e = held_folder(stick.path(), "wordjudge/fleet/certificates", create).unwrap_err();
        assert!(matches!(e, StickFolderError::Link(_)), "{e}");
        assert!(e.to_string().contains("symbolic link"), "{e}");
    }
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0, "nothing made through the link");
    std::fs::write(stick.path().join("wordjudge/fleet/file"), "x").unwrap();
    assert!(matches!(held_folder(stick.path(), "wordjudge/fleet/file", true), Err(StickFolderError::NotAFolder(_))));
}

#[test]
fn the_fleet_folder_is_inside_the_one_folder_a_station_may_write() {
    assert_eq!(FOLDER, format!("{}/{FOLDER_IN_EXPORT}", crate::usb::EXPORT_FOLDER));
}

#[test]
fn station_names_are_one_dns_label() {
    for good in ["wj-01", "STATION3", "a"] {
        assert!(station_name_is_valid(good), "{good}");
    }
    for bad in ["", "-wj", "wj-", "wj 01", "wj.01", "wj/01", "../x", &"a".repeat(64)] {
        assert!(!station_name_is_valid(bad), "{bad}");
    }
}
