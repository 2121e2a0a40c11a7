//! The one list of installed units: Cargo.toml's `[package.metadata.deb]`
//! assets, which cargo-deb reads for the package and
//! `kiosk-image/installed-units.sh` prints for the image's `customize.sh`.
//! The package once shipped without the two fleet units (a station
//! installed from it could not join): every unit in `systemd/` must be in
//! the list, the script must print exactly the list's units, and
//! `customize.sh` must install units from nowhere else.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The package's units as (source, installed path), from Cargo.toml.
fn package_units() -> BTreeSet<(String, String)> {
    let manifest: toml::Value = toml::from_str(&std::fs::read_to_string(repo().join("Cargo.toml")).unwrap()).unwrap();
    let assets = manifest["package"]["metadata"]["deb"]["assets"].as_array().expect("the .deb's assets");
    assets
        .iter()
        .filter_map(|row| {
            let row = row.as_array()?;
            let (src, dest) = (row[0].as_str()?, row[1].as_str()?);
            let unit = src.strip_prefix("systemd/").filter(|u| !u.contains('/') && u.ends_with(".service"))?;
            let dest = if dest.ends_with('/') { format!("{dest}{unit}") } else { dest.to_string() };
            Some((src.to_string(), dest))
        })
        .collect()
}

#[test]
fn the_package_and_the_image_install_the_same_units_from_one_list() {
    let listed = package_units();
    // Every unit of the repository is in the list: the fleet's two included.
    let sources: BTreeSet<String> = listed.iter().map(|(s, _)| s.clone()).collect();
    for entry in std::fs::read_dir(repo().join("systemd")).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".service") {
            assert!(sources.contains(&format!("systemd/{name}")), "systemd/{name} is not in the .deb's assets: {sources:?}");
        }
    }
    for fleet in ["systemd/wordjudge-fleet-network.service", "systemd/wordjudge-fleet-upload.service"] {
        assert!(sources.contains(fleet), "{fleet} missing from the package: {sources:?}");
    }
    // The image's list is the script's reading of the same rows.
    let out = Command::new("bash").arg(repo().join("kiosk-image/installed-units.sh")).arg(repo().join("Cargo.toml")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed: BTreeSet<(String, String)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let (src, dest) = l.split_once(' ').expect("SOURCE DESTINATION");
            (src.to_string(), dest.to_string())
        })
        .collect();
    assert_eq!(printed, listed, "installed-units.sh and Cargo.toml disagree");
    // customize.sh installs units only from that list.
    let customize = std::fs::read_to_string(repo().join("kiosk-image/customize.sh")).unwrap();
    assert!(customize.contains("kiosk-image/installed-units.sh"), "customize.sh does not read the list");
    for line in customize.lines().filter(|l| !l.trim_start().starts_with('#')) {
        assert!(
            !(line.contains("install ") && line.contains("$S/") && line.contains(".service")),
            "customize.sh installs a unit of its own: {line}"
        );
    }
}
