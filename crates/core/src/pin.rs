//! The director PIN: stored only as a salted Argon2 hash (PHC string), never
//! as the PIN itself, so a config copied off a station does not give the PIN
//! away cheaply.

use argon2::password_hash::{rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

/// Why a PIN cannot be set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadPin(pub &'static str);

impl std::fmt::Display for BadPin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for BadPin {}

/// A PIN is 4 to 12 digits (typed on a keyboard's digit row or keypad).
pub fn check_pin_format(pin: &str) -> Result<(), BadPin> {
    if !(4..=12).contains(&pin.len()) || !pin.bytes().all(|b| b.is_ascii_digit()) {
        return Err(BadPin("a director PIN is 4 to 12 digits"));
    }
    Ok(())
}

/// Hashes a PIN with a fresh random salt.
pub fn hash_pin(pin: &str) -> Result<String, BadPin> {
    check_pin_format(pin)?;
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(pin.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|_| BadPin("could not hash the PIN"))
}

/// The most work a stored hash may ask of a check: a hash in a config file
/// is input like any other, and `m=4194304` would ask for 4 GiB.
const MAX_MEMORY_KIB: u32 = 64 * 1024;
const MAX_PASSES: u32 = 16;

/// Whether `pin` matches a stored hash. A malformed hash, or one asking for
/// more work than a station gives a check, matches nothing.
///
/// Argon2 needs a 19 MiB work buffer; glibc keeps freed memory of that size
/// in the heap (its mmap threshold rises after the first such free), so the
/// kiosk's resident memory would stay 20 MB higher after the first PIN. The
/// buffer is released to the system once the check is done.
pub fn verify_pin(pin: &str, stored_hash: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(stored_hash) else { return false };
    let Ok(params) = argon2::Params::try_from(&parsed) else { return false };
    if params.m_cost() > MAX_MEMORY_KIB || params.t_cost() > MAX_PASSES || params.p_cost() > 4 {
        return false;
    }
    let matches = Argon2::default().verify_password(pin.as_bytes(), &parsed).is_ok();
    release_freed_memory();
    matches
}

/// Returns freed heap memory to the system (glibc's `malloc_trim`).
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; no pointer is involved.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_salted_and_verifies() {
        let a = hash_pin("2468").unwrap();
        let b = hash_pin("2468").unwrap();
        assert_ne!(a, b, "salted");
        assert!(!a.contains("2468"));
        assert!(verify_pin("2468", &a) && verify_pin("2468", &b));
        assert!(!verify_pin("2469", &a));
        assert!(!verify_pin("2468", "not a hash"));
        assert!(hash_pin("12").is_err() && hash_pin("12ab").is_err());
    }

    #[test]
    fn a_hash_asking_for_gigabytes_matches_nothing_and_allocates_nothing() {
        let a = hash_pin("2468").unwrap();
        let greedy = a.replace("m=19456", "m=4194304");
        assert_ne!(a, greedy);
        assert!(!verify_pin("2468", &greedy));
    }
}
