//! Signed checkpoints: the station's Ed25519 key and C2SP signed notes.
//!
//! A checkpoint says "this log had `count` records and the last one's
//! `line_sha256` was `head`", signed by the station. It is written as a
//! [C2SP signed note](https://c2sp.org/signed-note) whose text follows the
//! checkpoint shape of c2sp.org/tlog-checkpoint (origin line, count, base64
//! hash, then extension lines):
//!
//! ```text
//! wordjudge.audit/table-7-3f2a91c0
//! 42
//! <base64 of the 32-byte head hash>
//! time 2025-05-01T18:00:00.000Z
//! station Table 7
//! reason shutdown
//!
//! — wordjudge.audit/table-7-3f2a91c0 <base64(key id || Ed25519 signature)>
//! ```
//!
//! The key ID is SHA-256(key name || 0x0A || 0x01 || public key)\[:4\], and the
//! public key is handed out as a note verifier key
//! `<name>+<key id hex>+<base64(0x01 || public key)>` (the format Go's
//! `golang.org/x/mod/sumdb/note` reads), in a `.pub` file.
//!
//! The signed-note format itself (key IDs, verifier keys, the signature
//! block, what a verifier accepts) is Cloudflare's `signed_note` crate's
//! job; this module owns the station's key and the checkpoint's text.
//!
//! The key is made at the station's first start, in `key/` inside the audit
//! folder: `key/ed25519.key` (the private seed; mode 0600, folder 0700) and
//! `key/ed25519.pub`. It is on the same card as the log, so a checkpoint only
//! proves something once a copy of it has left the station (an export on a
//! USB stick, a director's photo): whoever holds the card can sign anything.

use crate::digest::sha256_hex;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ed25519_dalek::{Signer as _, SigningKey, Verifier as _, VerifyingKey};
use std::fmt;

pub use super::key_fingerprint::{FingerprintError, KeyFingerprint, NotedFingerprint};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// The key folder inside the audit folder.
pub const KEY_DIR: &str = "key";
const PRIVATE_FILE: &str = "ed25519.key";
const PUBLIC_FILE: &str = "ed25519.pub";
const PRIVATE_HEADER: &str = "wordjudge audit signing key (Ed25519 seed, base64) — keep this file on the station";

/// Signature type byte of Ed25519 in signed notes.
const ED25519: u8 = 0x01;

/// The note key ID of `name` with Ed25519 public key `key`.
fn key_id(name: &str, key: &VerifyingKey) -> u32 {
    let mut encoded = vec![ED25519];
    encoded.extend_from_slice(key.as_bytes());
    signed_note::key_id(name, &encoded)
}

/// Why a key could not be made or read, or a note not checked.
#[derive(Debug)]
pub enum KeyError {
    Io { path: PathBuf, source: std::io::Error },
    Damaged { path: PathBuf, problem: String },
    Random(String),
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::Io { path, source } => write!(f, "checkpoint key {}: {source}", path.display()),
            KeyError::Damaged { path, problem } => write!(f, "checkpoint key {} is damaged: {problem}", path.display()),
            KeyError::Random(e) => write!(f, "no randomness for a checkpoint key: {e}"),
        }
    }
}

impl std::error::Error for KeyError {}

impl fmt::Display for KeyFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A key name for `station`: `wordjudge.audit/<slug>-<8 hex of the key>`
/// (no spaces or `+`, as signed notes require).
fn key_name(station: &str, key: &VerifyingKey) -> String {
    let slug: String = station
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let slug = if slug.is_empty() { "station".to_string() } else { slug };
    format!("wordjudge.audit/{slug}-{}", &sha256_hex(key.as_bytes())[..8])
}

/// Why a text is not an audit verifier key (`name+keyid+base64`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifierKeyError {
    /// Not `name+keyid+base64` of a key.
    Format,
    /// A key, but not an Ed25519 one.
    NotEd25519,
    /// The key id is not the one its name and key give.
    KeyId,
    /// The key part is not base64.
    Base64(base64::DecodeError),
    /// 32 bytes that are not an Ed25519 public key (no point of the curve).
    NotAPoint,
}

impl fmt::Display for VerifierKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifierKeyError::Format => {
                f.write_str("not a verifier key (expected name+keyid+base64 of an Ed25519 key)")
            }
            VerifierKeyError::NotEd25519 => f.write_str("not an Ed25519 verifier key"),
            VerifierKeyError::KeyId => f.write_str("the key id does not match the name and key"),
            VerifierKeyError::Base64(e) => write!(f, "the key is not base64: {e}"),
            VerifierKeyError::NotAPoint => f.write_str("not an Ed25519 public key"),
        }
    }
}

impl std::error::Error for VerifierKeyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            VerifierKeyError::Base64(e) => Some(e),
            _ => None,
        }
    }
}

/// The public half: a key name and an Ed25519 public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteVerifier {
    pub name: String,
    pub key: VerifyingKey,
}

impl NoteVerifier {
    /// `<name>+<key id hex>+<base64(0x01 || key)>`.
    pub fn to_text(&self) -> String {
        signed_note::new_ed25519_verifier_key(&self.name, &self.key)
    }

    /// Reads a verifier key (first non-empty line of a `.pub` file).
    pub fn parse(text: &str) -> Result<NoteVerifier, VerifierKeyError> {
        let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        // The format, the key id and the algorithm are signed_note's to check.
        signed_note::StandardVerifier::new(line).map_err(|e| match e {
            signed_note::VerifierError::Format => VerifierKeyError::Format,
            signed_note::VerifierError::Alg => VerifierKeyError::NotEd25519,
            signed_note::VerifierError::Id => VerifierKeyError::KeyId,
        })?;
        // What it accepted, read again for the key itself (its fingerprint).
        let mut parts = line.splitn(3, '+');
        let (Some(name), Some(_), Some(b64)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(VerifierKeyError::Format);
        };
        let bytes = BASE64.decode(b64).map_err(VerifierKeyError::Base64)?;
        let raw = <[u8; 32]>::try_from(bytes.get(1..).unwrap_or_default()).map_err(|_| VerifierKeyError::NotEd25519)?;
        let key = VerifyingKey::from_bytes(&raw).map_err(|_| VerifierKeyError::NotAPoint)?;
        Ok(NoteVerifier { name: name.to_string(), key })
    }

    pub fn fingerprint(&self) -> KeyFingerprint {
        KeyFingerprint::of(&self.key)
    }
}

impl signed_note::Verifier for NoteVerifier {
    fn name(&self) -> &str {
        &self.name
    }
    fn key_id(&self) -> u32 {
        key_id(&self.name, &self.key)
    }
    fn verify(&self, msg: &[u8], sig: &[u8]) -> bool {
        ed25519_dalek::Signature::from_slice(sig).is_ok_and(|sig| self.key.verify(msg, &sig).is_ok())
    }
}

/// The station's signing key.
pub struct StationKey {
    signing: SigningKey,
    name: String,
}

impl fmt::Debug for StationKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StationKey").field("name", &self.name).finish_non_exhaustive()
    }
}

impl StationKey {
    pub fn verifier(&self) -> NoteVerifier {
        NoteVerifier { name: self.name.clone(), key: self.signing.verifying_key() }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Loads the key in `key_dir`, or (when `create`) makes one if there is
    /// none. True in the second place when it was made now.
    pub fn load_or_create(key_dir: &Path, station: &str, create: bool) -> Result<Option<(StationKey, bool)>, KeyError> {
        let private = key_dir.join(PRIVATE_FILE);
        match crate::outside_files::read_small_text(&private, crate::outside_files::limits::SMALL_FILE) {
            Ok(text) => return StationKey::parse(&private, &text).map(|k| Some((k, false))),
            Err(e) if e.is_not_found() => {}
            Err(e) => {
                return Err(KeyError::Io {
                    path: private,
                    source: std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()),
                })
            }
        }
        if !create {
            return Ok(None);
        }
        let mut seed = [0u8; 32];
        getrandom::getrandom(&mut seed).map_err(|e| KeyError::Random(e.to_string()))?;
        let signing = SigningKey::from_bytes(&seed);
        let name = key_name(station, &signing.verifying_key());
        let key = StationKey { signing, name };
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| KeyError::Io { path, source }
        };
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(key_dir).map_err(io(key_dir))?;
        // The private part: 0600 from its first byte, synced, renamed.
        let text = format!("{PRIVATE_HEADER}\n{}\n{}\n", key.name, BASE64.encode(seed));
        crate::outside_files::write_atomically_with_mode(&private, text.as_bytes(), 0o600).map_err(io(&private))?;
        let public = key_dir.join(PUBLIC_FILE);
        crate::outside_files::write_atomically(&public, format!("{}\n", key.verifier().to_text()).as_bytes())
            .map_err(io(&public))?;
        Ok(Some((key, true)))
    }

    fn parse(path: &Path, text: &str) -> Result<StationKey, KeyError> {
        let damaged = |problem: &str| KeyError::Damaged { path: path.to_path_buf(), problem: problem.to_string() };
        let mut lines = text.lines();
        if lines.next() != Some(PRIVATE_HEADER) {
            return Err(damaged("unexpected first line"));
        }
        let name = lines.next().ok_or_else(|| damaged("no key name"))?.to_string();
        if !signed_note::is_key_name_valid(&name) {
            return Err(damaged("the key name is not a signed-note key name"));
        }
        let seed = BASE64.decode(lines.next().unwrap_or("")).map_err(|_| damaged("the seed is not base64"))?;
        let seed: [u8; 32] = seed.try_into().map_err(|_| damaged("the seed is not 32 bytes"))?;
        Ok(StationKey { signing: SigningKey::from_bytes(&seed), name })
    }

    /// Signs a checkpoint: the whole signed note's text. The text is made
    /// clean of control characters and the key name is checked when the key
    /// is read, so signing cannot fail; if it ever did, the note goes out
    /// unsigned (never a panic), and every verifier refuses it.
    pub fn sign(&self, checkpoint: &Checkpoint) -> String {
        let text = checkpoint.note_text(&self.name);
        let signed = signed_note::Note::new(text.as_bytes(), &[]).and_then(|mut note| {
            let signer: &dyn signed_note::Signer = self;
            note.add_sigs(&[signer])?;
            Ok(note.to_bytes())
        });
        match signed {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                tracing::error!("checkpoint {} could not be signed: {e}", checkpoint.count);
                text
            }
        }
    }
}

impl signed_note::Signer for StationKey {
    fn name(&self) -> &str {
        &self.name
    }
    fn key_id(&self) -> u32 {
        key_id(&self.name, &self.signing.verifying_key())
    }
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, ed25519_dalek::SignatureError> {
        Ok(self.signing.sign(msg).to_bytes().to_vec())
    }
}

/// Where the public key of the station whose audit folder is `dir` is.
pub fn public_key_path(dir: &Path) -> PathBuf {
    dir.join(KEY_DIR).join(PUBLIC_FILE)
}

/// What a checkpoint states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// Records in the log (the last one's `seq`).
    pub count: u64,
    /// `line_sha256` of record `count`, hex.
    pub head: String,
    pub time: String,
    pub station: String,
    pub reason: String,
}

impl Checkpoint {
    fn note_text(&self, origin: &str) -> String {
        let head = hex_to_bytes(&self.head).unwrap_or_default();
        let clean = |s: &str| s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect::<String>();
        format!(
            "{origin}\n{}\n{}\ntime {}\nstation {}\nreason {}\n",
            self.count,
            BASE64.encode(head),
            clean(&self.time),
            clean(&self.station),
            clean(&self.reason)
        )
    }
}

fn hex_to_bytes(hex: &str) -> Option<Vec<u8>> {
    (0..hex.len() / 2).map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()).collect()
}

/// Why a signed checkpoint is not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoteError {
    Malformed(String),
    /// No signature line by this key (name and key id).
    NotSignedByKey {
        key: String,
    },
    /// A signature line by this key that does not verify: text or
    /// signature changed.
    BadSignature,
}

impl fmt::Display for NoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoteError::Malformed(p) => write!(f, "not a signed checkpoint: {p}"),
            NoteError::NotSignedByKey { key } => write!(f, "the checkpoint carries no signature by the key {key}"),
            NoteError::BadSignature => {
                write!(f, "the checkpoint's signature does not verify: the checkpoint was altered or forged")
            }
        }
    }
}

impl std::error::Error for NoteError {}

/// Checks a signed note against `verifier` and reads the checkpoint in it.
pub fn open_note(note: &str, verifier: &NoteVerifier) -> Result<Checkpoint, NoteError> {
    let bad = |p: &str| NoteError::Malformed(p.to_string());
    // Stricter than the format: no DEL or C1 controls either.
    if note.chars().any(|c| c.is_control() && c != '\n') {
        return Err(bad("control characters"));
    }
    // A copy that lost its last newline (a field trimmed on the way) is the
    // same note: the signatures cover the text above the blank line.
    let note = if note.ends_with('\n') { note.to_string() } else { format!("{note}\n") };
    let parsed = signed_note::Note::from_bytes(note.as_bytes()).map_err(|e| bad(&e.to_string()))?;
    let known = signed_note::VerifierList::new(vec![Box::new(verifier.clone())]);
    parsed.verify(&known).map_err(|e| match e {
        // Other keys' signatures are ignored, as the spec says.
        signed_note::NoteError::UnverifiedNote => NoteError::NotSignedByKey { key: verifier.name.clone() },
        signed_note::NoteError::InvalidSignature { .. } => NoteError::BadSignature,
        other => bad(&other.to_string()),
    })?;
    let text = std::str::from_utf8(parsed.text()).map_err(|_| bad("not UTF-8"))?;
    let lines: Vec<&str> = text.lines().collect();
    let [origin, count, head, extensions @ ..] = &lines[..] else { return Err(bad("fewer than three lines")) };
    if *origin != verifier.name {
        return Err(bad("the origin line is not the key's name"));
    }
    let count = count.parse().map_err(|_| bad("the second line is not a record count"))?;
    let head = BASE64.decode(head).map_err(|_| bad("the third line is not base64"))?;
    if head.len() != 32 {
        return Err(bad("the head hash is not 32 bytes"));
    }
    let ext = |key: &str| {
        extensions.iter().find_map(|l| l.strip_prefix(key).and_then(|v| v.strip_prefix(' '))).unwrap_or("").to_string()
    };
    Ok(Checkpoint {
        count,
        head: head.iter().map(|b| format!("{b:02x}")).collect(),
        time: ext("time"),
        station: ext("station"),
        reason: ext("reason"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_verifies_with_its_key_and_fails_after_any_change() {
        let dir = tempfile::tempdir().unwrap();
        let (key, created) = StationKey::load_or_create(&dir.path().join(KEY_DIR), "Table 7", true).unwrap().unwrap();
        assert!(created);
        let private = dir.path().join(KEY_DIR).join(PRIVATE_FILE);
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&private).unwrap().permissions().mode() & 0o777, 0o600);
        let (again, created) = StationKey::load_or_create(&dir.path().join(KEY_DIR), "Other", true).unwrap().unwrap();
        assert!(!created);
        assert_eq!(again.verifier(), key.verifier());
        assert!(key.name().starts_with("wordjudge.audit/table-7-"), "{}", key.name());

        let public = std::fs::read_to_string(public_key_path(dir.path())).unwrap();
        // The PIN guard names the station by this file (it cannot ask this
        // layer where it is).
        assert_eq!(public_key_path(dir.path()), dir.path().join(crate::guard::AUDIT_KEY_FILE));
        let verifier = NoteVerifier::parse(&public).unwrap();
        assert_eq!(verifier, key.verifier());
        let checkpoint = Checkpoint {
            count: 42,
            head: "ab".repeat(32),
            time: "2025-05-01T18:00:00.000Z".into(),
            station: "Table 7".into(),
            reason: "shutdown".into(),
        };
        let note = key.sign(&checkpoint);
        assert!(note.starts_with(&format!("{}\n42\n", key.name())), "{note}");
        assert!(note.contains("\n\n\u{2014} wordjudge.audit/table-7-"), "{note}");
        assert_eq!(open_note(&note, &verifier), Ok(checkpoint));
        let changed = note.replacen("\n42\n", "\n43\n", 1);
        assert_eq!(open_note(&changed, &verifier), Err(NoteError::BadSignature));
        let other = StationKey::load_or_create(&dir.path().join("other"), "Table 7", true).unwrap().unwrap().0;
        assert!(matches!(open_note(&note, &other.verifier()), Err(NoteError::NotSignedByKey { .. })));
        assert!(NoteVerifier::parse("nonsense").is_err());
        let tampered_id = public.replacen('+', "+0", 1);
        assert!(NoteVerifier::parse(&tampered_id).is_err());
    }
}
