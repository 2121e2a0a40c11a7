//! The appliance's own shell scripts in kiosk-image/, run on small trees these tests
//! write: the Raspberry Pi card's kernel hook and the A/B update back-ends (PC and Pi).
//!
//! One binary per subject links wordjudge (and Slint) once instead of once per file.

mod pi_boot_hook;
mod script_run;
mod update_backend;
mod update_backend_pi;
