//! The simulated twin of [`super::system::SystemSticks`]: each folder in a
//! directory is a plugged-in stick (tests, and `--usb folders:DIR` on a
//! desktop, where the kiosk must never mount anything).
//!
//! Plugging in is `mkdir DIR/NAME`, pulling out is removing it. Import hands
//! out the folder itself and export its `wordjudge/` subfolder, as the real
//! helper does; what the folders cannot simulate is the read-only mount,
//! which the kiosk never relies on anyway (it only reads while importing).

use super::{Mode, Stick, StickError, Sticks, EXPORT_FOLDER};
use std::path::PathBuf;

/// Sticks as folders of `root`.
#[derive(Debug, Clone)]
pub struct FolderSticks {
    root: PathBuf,
}

impl FolderSticks {
    pub fn new(root: PathBuf) -> FolderSticks {
        FolderSticks { root }
    }

    fn folder(&self, stick: &Stick) -> Result<PathBuf, StickError> {
        let path = self.root.join(&stick.device);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => Ok(path),
            Ok(_) => Err(StickError::NotAStick { device: stick.device.clone(), why: "not a folder".into() }),
            Err(e) => Err(StickError::NotAStick { device: stick.device.clone(), why: e.to_string() }),
        }
    }
}

impl Sticks for FolderSticks {
    fn list(&self) -> Vec<Stick> {
        let Ok(listing) = crate::outside_files::list_named_folder(&self.root, 64) else { return Vec::new() };
        let mut sticks: Vec<Stick> = listing
            .entries
            .into_iter()
            .filter(|e| e.kind == crate::outside_files::EntryKind::Folder)
            .map(|e| e.name)
            .filter(|name| !name.starts_with('.'))
            .map(|name| Stick { label: name.to_uppercase(), device: name, fs_type: "folder".into(), size: 0 })
            .collect();
        sticks.sort_by(|a, b| a.device.cmp(&b.device));
        sticks
    }

    fn attach(&self, stick: &Stick, mode: Mode) -> Result<PathBuf, StickError> {
        let folder = self.folder(stick)?;
        match mode {
            Mode::Import => Ok(folder),
            Mode::Export => {
                let export = folder.join(EXPORT_FOLDER);
                std::fs::create_dir_all(&export).map_err(|e| StickError::System {
                    action: "prepare the export folder on".into(),
                    device: stick.device.clone(),
                    why: e.to_string(),
                })?;
                Ok(export)
            }
        }
    }

    fn detach(&self, _stick: &Stick) -> Result<(), StickError> {
        Ok(())
    }
}

/// One stick (`sdz1`) whose mount hangs until the sender [`HangingSticks::new`]
/// returns is used (or dropped): a stick that stopped answering, the
/// kernel-side wait no flag can cut short. Mounted, it is the folder given.
pub struct HangingSticks {
    release: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
    root: PathBuf,
}

impl HangingSticks {
    pub fn new(root: PathBuf) -> (HangingSticks, std::sync::mpsc::Sender<()>) {
        let (tx, rx) = std::sync::mpsc::channel();
        (HangingSticks { release: std::sync::Mutex::new(rx), root }, tx)
    }

    /// The one stick it has.
    pub fn stick() -> Stick {
        Stick { device: "sdz1".into(), label: "HANG".into(), fs_type: "vfat".into(), size: 0 }
    }
}

impl Sticks for HangingSticks {
    fn list(&self) -> Vec<Stick> {
        vec![HangingSticks::stick()]
    }
    fn attach(&self, _: &Stick, _: Mode) -> Result<PathBuf, StickError> {
        let _ = self.release.lock().map(|rx| rx.recv());
        Ok(self.root.clone())
    }
    fn detach(&self, _: &Stick) -> Result<(), StickError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_sticks_and_export_gets_its_own_folder() {
        let dir = tempfile::tempdir().unwrap();
        let sticks = FolderSticks::new(dir.path().to_path_buf());
        assert!(sticks.list().is_empty());
        std::fs::create_dir(dir.path().join("usb1")).unwrap();
        std::fs::write(dir.path().join("not-a-stick.txt"), "x").unwrap();
        let list = sticks.list();
        assert_eq!(list.len(), 1);
        assert_eq!(sticks.attach(&list[0], Mode::Import).unwrap(), dir.path().join("usb1"));
        let export = sticks.attach(&list[0], Mode::Export).unwrap();
        assert_eq!(export, dir.path().join("usb1").join(EXPORT_FOLDER));
        assert!(export.is_dir());
        std::fs::remove_dir_all(dir.path().join("usb1")).unwrap();
        assert!(matches!(sticks.attach(&list[0], Mode::Import), Err(StickError::NotAStick { .. })));
        assert_eq!(sticks.detach(&list[0]), Ok(()));
    }
}
