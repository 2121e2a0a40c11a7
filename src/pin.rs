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

/// Whether `pin` matches a stored hash. A malformed hash matches nothing.
pub fn verify_pin(pin: &str, stored_hash: &str) -> bool {
    match PasswordHash::new(stored_hash) {
        Ok(parsed) => Argon2::default().verify_password(pin.as_bytes(), &parsed).is_ok(),
        Err(_) => false,
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
}
