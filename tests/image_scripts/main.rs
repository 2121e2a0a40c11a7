//! The appliance's own shell scripts in kiosk-image/, run on small trees these tests
//! write: the Raspberry Pi card's kernel hook and the PC image's A/B update back-end.
//!
//! One binary per subject links wordjudge (and Slint) once instead of once per file.

mod pi_boot_hook;
mod update_backend;
