//! How these tests run one of the appliance's shell scripts: with `sh`, the given
//! environment (the scripts' test hooks), and its outcome as (succeeded, stdout trimmed,
//! stderr); and the scratch folder standing in for the partitions and files a script
//! works on.

use std::ffi::OsStr;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

/// A temporary folder, removed when dropped, with paths relative to it.
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch { dir: tempfile::tempdir().unwrap() }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes TEXT to REL, making its folders.
    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    /// Writes TEXT to REL as a program (mode 755): a stand-in for a tool a script runs.
    pub fn write_executable(&self, rel: &str, text: &str) {
        use std::os::unix::fs::PermissionsExt;
        self.write(rel, text);
        fs::set_permissions(self.path(rel), fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// REL's text, or "" if it cannot be read.
    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel)).unwrap_or_default()
    }
}

/// Runs `sh SCRIPT ARGS...` with ENV added to this process's environment.
pub fn run_script<K, V>(script: &str, args: &[&str], env: impl IntoIterator<Item = (K, V)>) -> (bool, String, String)
where
    K: AsRef<OsStr>,
    V: AsRef<OsStr>,
{
    let out = Command::new("sh").arg(script).args(args).envs(env).output().expect("run sh");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// As run_script, asserting success; its stdout.
pub fn run_script_ok<K, V>(script: &str, args: &[&str], env: impl IntoIterator<Item = (K, V)>) -> String
where
    K: AsRef<OsStr>,
    V: AsRef<OsStr>,
{
    let (ok, out, err) = run_script(script, args, env);
    assert!(ok, "{script} {args:?} failed: {err}");
    out
}

/// Declares a test file's `Station`: a struct over the `Scratch` standing in for its
/// partitions and files, which it derefs to, so each file writes only its own methods.
macro_rules! scratch_station {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        struct $name {
            scratch: $crate::script_run::Scratch,
        }

        impl std::ops::Deref for $name {
            type Target = $crate::script_run::Scratch;
            fn deref(&self) -> &Self::Target {
                &self.scratch
            }
        }
    };
}
pub(crate) use scratch_station;
