//! Ending cleanly on a signal. SIGTERM (systemd stopping the service), SIGINT
//! (a stray Ctrl+C on a console) and SIGHUP only raise a flag; the main loop
//! sees it, switches the lamps off, records the shut-down and returns, instead
//! of dying with a lamp lit and no record of why.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A flag that becomes true when SIGTERM, SIGINT or SIGHUP arrives.
pub fn stop_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT, signal_hook::consts::SIGHUP] {
        // Registration fails only for forbidden signals, which these are not.
        let _ = signal_hook::flag::register(signal, flag.clone());
    }
    flag
}
