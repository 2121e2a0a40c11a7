//! The one list of installed files: Cargo.toml's `[package.metadata.deb]`
//! assets, which cargo-deb reads for the package and
//! `kiosk-image/installed-files.sh` prints (all but the programs) for the
//! image's `customize.sh`. The package once shipped without the two fleet
//! units (a station installed from it could not join), and without a doc
//! the image had: every file in `systemd/` and every `docs/*.md` must be on
//! the list, the script must print exactly the list's rows, and
//! `customize.sh` must install units, drop-ins, rules and docs from nowhere
//! else.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The package's files but its programs as (source, installed path, mode),
/// from Cargo.toml.
fn package_files() -> BTreeSet<(String, String, String)> {
    let manifest: toml::Value = toml::from_str(&std::fs::read_to_string(repo().join("Cargo.toml")).unwrap()).unwrap();
    let assets = manifest["package"]["metadata"]["deb"]["assets"].as_array().expect("the .deb's assets");
    assets
        .iter()
        .filter_map(|row| {
            let row = row.as_array()?;
            let (src, dest, mode) = (row[0].as_str()?, row[1].as_str()?, row[2].as_str()?);
            if src.starts_with("target/") {
                return None;
            }
            let name = src.rsplit('/').next().unwrap();
            let dest = if dest.ends_with('/') { format!("{dest}{name}") } else { dest.to_string() };
            Some((src.to_string(), dest, mode.to_string()))
        })
        .collect()
}

/// The package's units as (source, installed path).
fn package_units() -> BTreeSet<(String, String)> {
    package_files()
        .into_iter()
        .filter(|(src, _, _)| src.strip_prefix("systemd/").is_some_and(|u| !u.contains('/') && u.ends_with(".service")))
        .map(|(src, dest, _)| (src, dest))
        .collect()
}

/// What `installed-files.sh` prints, as (source, installed path, mode).
fn printed_files() -> BTreeSet<(String, String, String)> {
    let out = Command::new("bash")
        .arg(repo().join("kiosk-image/installed-files.sh"))
        .arg(repo().join("Cargo.toml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let fields: Vec<&str> = l.split(' ').collect();
            assert_eq!(fields.len(), 3, "not SOURCE DESTINATION MODE: {l}");
            (fields[0].to_string(), fields[1].to_string(), fields[2].to_string())
        })
        .collect()
}

/// Every file under `dir` of the repository, as a path from the repository.
fn files_under(dir: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut todo = vec![repo().join(dir)];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                found.push(path.strip_prefix(repo()).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    found
}

fn customize() -> String {
    std::fs::read_to_string(repo().join("kiosk-image/customize.sh")).unwrap()
}

#[test]
fn the_package_and_the_image_install_the_same_units_from_one_list() {
    let listed = package_units();
    // Every unit of the repository is in the list: the fleet's two included.
    let sources: BTreeSet<String> = listed.iter().map(|(s, _)| s.clone()).collect();
    for entry in std::fs::read_dir(repo().join("systemd")).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".service") {
            assert!(
                sources.contains(&format!("systemd/{name}")),
                "systemd/{name} is not in the .deb's assets: {sources:?}"
            );
        }
    }
    for fleet in ["systemd/wordjudge-fleet-network.service", "systemd/wordjudge-fleet-upload.service"] {
        assert!(sources.contains(fleet), "{fleet} missing from the package: {sources:?}");
    }
    // The image's list is the script's reading of the same rows.
    let printed: BTreeSet<(String, String)> = printed_files()
        .into_iter()
        .filter(|(src, _, _)| src.starts_with("systemd/") && src.ends_with(".service"))
        .map(|(src, dest, _)| (src, dest))
        .collect();
    assert_eq!(printed, listed, "installed-files.sh and Cargo.toml disagree");
    // customize.sh installs units only from that list.
    let customize = customize();
    assert!(customize.contains("kiosk-image/installed-files.sh"), "customize.sh does not read the list");
    for line in customize.lines().filter(|l| !l.trim_start().starts_with('#')) {
        assert!(
            !(line.contains("install ") && line.contains("$S/") && line.contains(".service")),
            "customize.sh installs a unit of its own: {line}"
        );
    }
}

#[test]
fn the_package_and_the_image_install_every_file_from_one_list() {
    let listed = package_files();
    let sources: BTreeSet<&str> = listed.iter().map(|(s, _, _)| s.as_str()).collect();
    // Every file of systemd/ (drop-ins and rules included) and every guide in docs/.
    let mut wanted = files_under("systemd");
    wanted.extend(
        std::fs::read_dir(repo().join("docs"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".md"))
            .map(|name| format!("docs/{name}")),
    );
    assert!(wanted.len() > 15, "too few files found to mean anything: {wanted:?}");
    for file in &wanted {
        assert!(
            sources.contains(file.as_str()),
            "{file} is not in the .deb's assets, so neither the package nor the image has it"
        );
    }
    // Every row names a file that exists (cargo-deb would fail on one that does not).
    for (src, _, _) in &listed {
        assert!(repo().join(src).is_file(), "the .deb's assets name {src}, which is not in the repository");
    }
    // The script prints exactly the list's rows, programs left out.
    assert_eq!(printed_files(), listed, "installed-files.sh and Cargo.toml disagree");
    // customize.sh installs nothing of systemd/, docs/ or the READMEs by itself (its
    // image-only files come from kiosk-image/).
    for line in customize().lines().filter(|l| !l.trim_start().starts_with('#')) {
        let own = ["$WJ_REPO/systemd", "$S/", "$WJ_REPO/docs", "$WJ_REPO/README", "$WJ_REPO/lexicons/README", "$doc"];
        assert!(
            !(line.contains("install ") && own.iter().any(|source| line.contains(source))),
            "customize.sh installs a file of its own instead of the list's: {line}"
        );
    }
}
