//! The appliance's own shell scripts in kiosk-image/, run on small trees these tests
//! write: the Raspberry Pi card's kernel hook, the PC's A/B update back-end and the Pi
//! card's boot counter as the boot check reads it.
//!
//! One binary per subject links wordjudge (and Slint) once instead of once per file.

mod boot_counter_pi;
mod installed_units;
mod pi_boot_hook;
mod script_run;
mod update_backend;
