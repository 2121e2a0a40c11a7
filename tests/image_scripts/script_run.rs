//! How these tests run one of the appliance's shell scripts: with `sh`, the given
//! environment (the scripts' test hooks), and its outcome as (succeeded, stdout trimmed,
//! stderr).

use std::ffi::OsStr;
use std::process::Command;

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
