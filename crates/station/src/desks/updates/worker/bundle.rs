//! A bundle on a stick, as the update desk meets it: what a stick holds
//! and which of its bundles is offered, and the check's work on the job
//! thread (the bundle copied onto the station, then checked there).

use std::path::PathBuf;
use wordjudge_core::update::staged::{self, Staged};
use wordjudge_core::update::{shown, BundleInfo, UpdateError, Updates};
use wordjudge_core::usb::{Mode, Stick, Sticks};

/// A bundle on a stick: its file (escaped, as the menu names it) and its
/// version when its signature verified.
pub(super) type Looked = (String, Option<String>);

/// What a stick holds: the bundle to offer (the newest verified version,
/// else the first file, unverified).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Found {
    pub(super) file: String,
    pub(super) version: Option<String>,
}

/// The bundle to offer among those looked at.
pub(super) fn choose(found: Vec<Looked>) -> Option<Found> {
    let newest = found
        .iter()
        .filter_map(|(file, version)| Some((file, version.as_ref()?)))
        .max_by(|a, b| wordjudge_core::update::compare_versions(a.1, b.1).unwrap_or(std::cmp::Ordering::Equal));
    match newest {
        Some((file, version)) => Some(Found { file: file.clone(), version: Some(version.clone()) }),
        None => found.into_iter().next().map(|(file, _)| Found { file, version: None }),
    }
}

/// The check's work on its thread: the stick mounted, bundle `file` found
/// on it and copied onto the station (into `staging`), the stick
/// unmounted, the copy checked.
pub(super) fn copy_and_inspect(
    updates: &dyn Updates,
    sticks: &dyn Sticks,
    stick: &Stick,
    file: &str,
    staging: Option<PathBuf>,
) -> Result<(Staged, BundleInfo), UpdateError> {
    let staging = staging.ok_or(UpdateError::NotUpdatable)?;
    let root = sticks.attach(stick, Mode::Import).map_err(|e| UpdateError::Stick(e.to_string()))?;
    // The file as listed: its name was escaped for the menu, so it is
    // found again among the bundles, never joined blindly.
    let path = wordjudge_core::update::find_bundles(&root)
        .unwrap_or_default()
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| shown(&n.to_string_lossy()) == file));
    let staged = match path {
        Some(path) => staged::stage(&path, &staging),
        None => Err(UpdateError::Stick(format!("{file} is no longer on the stick"))),
    };
    // The stick is not needed once the copy is made (or failed).
    let _ = sticks.detach(stick);
    let staged = staged?;
    match updates.inspect(staged.path()) {
        Ok(info) => Ok((staged, info)),
        Err(e) => {
            staged.remove();
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_verified_bundle_is_offered() {
        let found = |v: &[(&str, Option<&str>)]| {
            choose(v.iter().map(|(f, v)| (f.to_string(), v.map(str::to_string))).collect())
        };
        assert_eq!(
            found(&[("a.raucb", Some("0.1.2")), ("b.raucb", None), ("c.raucb", Some("0.1.10"))]),
            Some(Found { file: "c.raucb".into(), version: Some("0.1.10".into()) })
        );
        assert_eq!(
            found(&[("x.raucb", None), ("y.raucb", None)]),
            Some(Found { file: "x.raucb".into(), version: None })
        );
        assert_eq!(found(&[]), None);
    }
}
