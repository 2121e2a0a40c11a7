//! The appliance's own shell scripts in kiosk-image/, run on small trees these tests
//! write: the Raspberry Pi card's kernel hook, the A/B update back-ends (the PC's and the
//! Pi 5 family's) and the Pi card's boot counter as the boot check reads it.
//!
//! One binary per subject links wordjudge (and Slint) once instead of once per file.

mod boot_check_pi5;
mod boot_counter_pi;
mod installed_files;
mod pi_boot_hook;
mod pi_tryboot_backend;
mod script_run;
mod update_backend;
