//! The events around adjudications: the typed fields of each
//! ([`AuditEvent`]) and how each reads in `audit show`; their names are
//! [`EventKind`]s (`event_kind`).

use super::EventKind;
use serde::{Deserialize, Serialize};

/// Why a checkpoint was signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointReason {
    Shutdown,
    NewDay,
    Export,
    /// Asked for explicitly (director menu, tests).
    Requested,
    /// Not a record: the checkpoint each journald copy of a line carries,
    /// which a fleet's laptop verifies ([`crate::recorder::journal`]).
    Journal,
}

impl CheckpointReason {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckpointReason::Shutdown => "shutdown",
            CheckpointReason::NewDay => "new_day",
            CheckpointReason::Export => "export",
            CheckpointReason::Requested => "requested",
            CheckpointReason::Journal => "journal",
        }
    }
}

/// Everything the log records besides adjudications. Serialized with an
/// `event` tag in snake case (`{"event":"pin_refused","failures":2}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum AuditEvent {
    Startup {
        version: String,
    },
    Shutdown,
    LexiconOpened {
        id: String,
        status: String,
        fingerprint: Option<String>,
        problem: Option<String>,
    },
    /// Switched by the director.
    LexiconSwitched {
        from: String,
        to: String,
    },
    /// The director chose `to`, and it was refused (it did not verify, or
    /// the config could not be saved); nothing changed.
    LexiconSwitchRefused {
        from: String,
        to: String,
        reason: String,
    },
    PinAccepted,
    PinRefused {
        failures: u32,
    },
    LockedOut {
        seconds: u32,
    },
    DirectorLeft,
    ConfigProblem {
        problem: String,
    },
    GpioProblem {
        problem: String,
    },
    /// No keyboard is plugged in (at start, or one was pulled out): players
    /// cannot type the words. Recorded once until one is plugged in again.
    KeyboardMissing,
    /// A keyboard is plugged in again after [`AuditEvent::KeyboardMissing`].
    KeyboardFound {
        keyboards: u32,
    },
    /// The kiosk found no screen it could draw on (no DRM device, no
    /// connected display): the station stays out of service, calmly, until
    /// one appears.
    DisplayProblem {
        problem: String,
    },
    /// Written by the log itself at open: the last line of `file` was torn
    /// (a crash or power cut mid-write); its `torn_bytes` bytes starting at
    /// `offset` were moved to `moved_to` and the chain continues.
    Recovered {
        file: String,
        offset: u64,
        torn_bytes: u64,
        torn_sha256: String,
        moved_to: String,
        /// Challenge number found in the torn bytes, if any (never reused,
        /// never shown: the verdict waits for the write).
        challenge: Option<u64>,
    },
    /// Written by the log itself when writing works again after failing
    /// `since` (RFC 3339) with `error`. The `held` records kept in memory
    /// follow, each marked `delayed`; `lost` were dropped when the memory
    /// backlog was full (journald still has them). `challenges` is the range
    /// numbered while failing; `note` says when numbers may repeat.
    WriteFailed {
        since: String,
        error: String,
        held: u64,
        lost: u64,
        challenges: Option<[u64; 2]>,
        note: Option<String>,
    },
    /// Written by the log itself as the last line of a file: the chain
    /// continues in `next_file` (`reason`: `new day` or `size`).
    Rotated {
        next_file: String,
        reason: String,
    },
    /// The station's checkpoint signing key was made (first start).
    KeyCreated {
        key_name: String,
        /// SHA-256 of the 32-byte Ed25519 public key, hex.
        fingerprint: String,
        /// The public key as a note verifier key (`name+keyid+base64`).
        verifier_key: String,
    },
    /// A signed checkpoint of the log up to record `count` (whose
    /// `line_sha256` is `head`); `note` is the C2SP signed note.
    Checkpoint {
        count: u64,
        head: String,
        reason: CheckpointReason,
        note: String,
    },
    /// The log was exported (`format`, where to).
    Export {
        format: String,
        destination: String,
    },
    /// Numbers shown while the log could not be written, by a process that
    /// stopped before it could write them. `verify` names them as shown
    /// without a record.
    ChallengesLost {
        first: u64,
        last: u64,
        since: Option<String>,
    },
    /// The director switched the event profile (lexicon and challenge rule).
    ProfileSwitched {
        from: Option<String>,
        to: String,
        lexicon: String,
        rule: String,
    },
    /// The director changed a station setting: `pin` (the hash is never
    /// recorded), `station_name` or `clock`, with the new value where it may
    /// be shown.
    SettingChanged {
        setting: String,
        value: Option<String>,
    },
    /// A setting change the station refused; nothing changed.
    SettingRefused {
        setting: String,
        reason: String,
    },
    /// The judging path failed unexpectedly (a caught panic): the station
    /// went out of service without showing a verdict.
    JudgingFault {
        lexicon: String,
        problem: String,
    },
    /// A file of the active lexicon changed on disk after it was verified;
    /// the station keeps judging with the verified copy it holds.
    LexiconFileChanged {
        lexicon: String,
        change: String,
    },
    /// The director installed a word list (from a USB stick): `file` of
    /// lexicon `lexicon`, from `source`, with the status the lexicon had
    /// after the install, computed from the installed bytes.
    LexiconInstalled {
        lexicon: String,
        file: String,
        source: String,
        status: String,
        evidence: String,
        fingerprint: String,
        content_sha256: Option<String>,
        fst_sha256: String,
        words: u64,
    },
    /// A word list the director chose was not installed; nothing changed.
    LexiconInstallRefused {
        source: String,
        name: Option<String>,
        reason: String,
    },
    /// The director used a USB stick: opened it for import, had the
    /// export written to it, ejected it.
    UsbStick {
        action: String,
        stick: String,
    },
    /// The station joined the fleet of the event `fleet` with a fleet stick: it sends
    /// its journal to `upload_url`, trusting only the event's CA
    /// (`ca_sha256`, the SHA-256 of its certificate), with its own
    /// certificate (`certificate_sha256`) naming it `certificate_name`.
    FleetJoined {
        fleet: String,
        certificate_name: String,
        upload_url: String,
        ca_sha256: String,
        certificate_sha256: String,
        /// The laptop's certificate as the stick carried it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        laptop_sha256: Option<String>,
        stick: String,
    },
    /// The station left the fleet of the event `fleet`: it sends nothing now.
    FleetLeft {
        fleet: String,
        upload_url: String,
        ca_sha256: String,
    },
    /// A fleet stick was refused (`reason`); nothing changed.
    FleetRefused {
        stick: String,
        reason: String,
    },
    /// Work with a USB stick failed (`action`: import, install, export,
    /// eject), e.g. the stick was pulled out; what was installed and the log
    /// did not change.
    UsbFailed {
        action: String,
        stick: String,
        problem: String,
    },
    /// The director confirmed an update of the station: `bundle` (its file
    /// name on the stick) of `version`, signed by `signer`, over `current`;
    /// `downgrade` when it is not newer (the PIN was typed again).
    UpdateStarted {
        version: String,
        current: String,
        signer: String,
        bundle: String,
        downgrade: bool,
    },
    /// The director chose to install `bundle` (its file name on the stick)
    /// and the station refused it at its check, before anything was
    /// written: RAUC could not verify it (signature, truncated), or it is
    /// for another kind of station. `reason` is what the screen said.
    UpdateRefused {
        bundle: String,
        reason: String,
    },
    /// The update is in the other slot; the station restarts into it next.
    UpdateInstalled {
        version: String,
    },
    /// The update did not finish; the station runs as before.
    UpdateFailed {
        version: String,
        reason: String,
    },
    /// The boot check's verdict after an update (written by root after the
    /// restart, recorded once): `outcome` is `marked-good` (kept) or
    /// `rolled-back` (the station went back to the old slot).
    UpdateOutcome {
        slot: String,
        version: String,
        outcome: String,
        detail: String,
    },
    /// The wall clock moved by much more or less than the boot clock
    /// (CLOCK_BOOTTIME) since the record before, in one boot: it was set
    /// (by the director, `cause` says so, or by NTP correcting a clock that
    /// started wrong) or jumped. `from` is what the wall clock would read had
    /// it run with the boot clock since that record, `to` what it read;
    /// `seconds` is `to - from`. Written before the record that saw it, so
    /// a reader of the times around it knows which to trust.
    ClockJumped {
        from: String,
        to: String,
        seconds: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cause: Option<String>,
    },
    /// The checkpoint signing key could not be made or read (a FIFO or a
    /// damaged file in its place, no randomness): no checkpoint is signed
    /// until it is fixed. Recorded once per start and problem.
    KeyProblem {
        problem: String,
    },
}

impl AuditEvent {
    pub fn kind(&self) -> EventKind {
        match self {
            AuditEvent::Startup { .. } => EventKind::Startup,
            AuditEvent::Shutdown => EventKind::Shutdown,
            AuditEvent::LexiconOpened { .. } => EventKind::LexiconOpened,
            AuditEvent::LexiconSwitched { .. } => EventKind::LexiconSwitched,
            AuditEvent::LexiconSwitchRefused { .. } => EventKind::LexiconSwitchRefused,
            AuditEvent::PinAccepted => EventKind::PinAccepted,
            AuditEvent::PinRefused { .. } => EventKind::PinRefused,
            AuditEvent::LockedOut { .. } => EventKind::LockedOut,
            AuditEvent::DirectorLeft => EventKind::DirectorLeft,
            AuditEvent::ConfigProblem { .. } => EventKind::ConfigProblem,
            AuditEvent::GpioProblem { .. } => EventKind::GpioProblem,
            AuditEvent::KeyboardMissing => EventKind::KeyboardMissing,
            AuditEvent::KeyboardFound { .. } => EventKind::KeyboardFound,
            AuditEvent::DisplayProblem { .. } => EventKind::DisplayProblem,
            AuditEvent::Recovered { .. } => EventKind::Recovered,
            AuditEvent::WriteFailed { .. } => EventKind::WriteFailed,
            AuditEvent::Rotated { .. } => EventKind::Rotated,
            AuditEvent::KeyCreated { .. } => EventKind::KeyCreated,
            AuditEvent::Checkpoint { .. } => EventKind::Checkpoint,
            AuditEvent::Export { .. } => EventKind::Export,
            AuditEvent::ChallengesLost { .. } => EventKind::ChallengesLost,
            AuditEvent::ProfileSwitched { .. } => EventKind::ProfileSwitched,
            AuditEvent::SettingChanged { .. } => EventKind::SettingChanged,
            AuditEvent::SettingRefused { .. } => EventKind::SettingRefused,
            AuditEvent::JudgingFault { .. } => EventKind::JudgingFault,
            AuditEvent::LexiconFileChanged { .. } => EventKind::LexiconFileChanged,
            AuditEvent::LexiconInstalled { .. } => EventKind::LexiconInstalled,
            AuditEvent::LexiconInstallRefused { .. } => EventKind::LexiconInstallRefused,
            AuditEvent::UsbStick { .. } => EventKind::UsbStick,
            AuditEvent::UsbFailed { .. } => EventKind::UsbFailed,
            AuditEvent::FleetJoined { .. } => EventKind::FleetJoined,
            AuditEvent::FleetLeft { .. } => EventKind::FleetLeft,
            AuditEvent::FleetRefused { .. } => EventKind::FleetRefused,
            AuditEvent::UpdateStarted { .. } => EventKind::UpdateStarted,
            AuditEvent::UpdateRefused { .. } => EventKind::UpdateRefused,
            AuditEvent::UpdateInstalled { .. } => EventKind::UpdateInstalled,
            AuditEvent::UpdateFailed { .. } => EventKind::UpdateFailed,
            AuditEvent::UpdateOutcome { .. } => EventKind::UpdateOutcome,
            AuditEvent::ClockJumped { .. } => EventKind::ClockJumped,
            AuditEvent::KeyProblem { .. } => EventKind::KeyProblem,
        }
    }

    /// The `event` tag, e.g. `pin_refused`.
    pub fn name(&self) -> &'static str {
        self.kind().as_str()
    }

    /// Whether the event is a problem (a warning in journald).
    pub fn is_problem(&self) -> bool {
        matches!(
            self,
            AuditEvent::ConfigProblem { .. }
                | AuditEvent::GpioProblem { .. }
                | AuditEvent::KeyboardMissing
                | AuditEvent::DisplayProblem { .. }
                | AuditEvent::Recovered { .. }
                | AuditEvent::WriteFailed { .. }
                | AuditEvent::LockedOut { .. }
                | AuditEvent::PinRefused { .. }
                | AuditEvent::LexiconSwitchRefused { .. }
                | AuditEvent::ChallengesLost { .. }
                | AuditEvent::SettingRefused { .. }
                | AuditEvent::JudgingFault { .. }
                | AuditEvent::LexiconFileChanged { .. }
                | AuditEvent::LexiconInstallRefused { .. }
                | AuditEvent::UsbFailed { .. }
                | AuditEvent::FleetRefused { .. }
                | AuditEvent::UpdateRefused { .. }
                | AuditEvent::UpdateFailed { .. }
                | AuditEvent::ClockJumped { .. }
                | AuditEvent::KeyProblem { .. }
        ) || matches!(self, AuditEvent::LexiconOpened { problem: Some(_), .. })
            || matches!(self, AuditEvent::UpdateOutcome { outcome, .. } if outcome != "marked-good")
    }

    /// One line for people (journald's MESSAGE).
    pub fn describe(&self) -> String {
        match self {
            AuditEvent::Startup { version } => format!("wordjudge {version} started"),
            AuditEvent::Shutdown => "wordjudge shutting down".into(),
            AuditEvent::LexiconOpened { id, status, problem, .. } => match problem {
                Some(p) => format!("lexicon {id} opened: {status}: {p}"),
                None => format!("lexicon {id} opened: {status}"),
            },
            AuditEvent::LexiconSwitched { from, to } => format!("director switched lexicon {from} -> {to}"),
            AuditEvent::LexiconSwitchRefused { from, to, reason } => {
                format!("director's switch {from} -> {to} refused: {reason}")
            }
            AuditEvent::PinAccepted => "director PIN accepted".into(),
            AuditEvent::PinRefused { failures } => format!("director PIN refused ({failures} failures)"),
            AuditEvent::LockedOut { seconds } => format!("director menu locked for {seconds} s"),
            AuditEvent::DirectorLeft => "director left the menu".into(),
            AuditEvent::ConfigProblem { problem } => format!("config problem: {problem}"),
            AuditEvent::GpioProblem { problem } => format!("GPIO problem: {problem}"),
            AuditEvent::KeyboardMissing => "no keyboard is plugged in: players cannot type the words".into(),
            AuditEvent::KeyboardFound { keyboards } => format!("a keyboard is plugged in again ({keyboards} in all)"),
            AuditEvent::DisplayProblem { problem } => format!("no screen, out of service: {problem}"),
            AuditEvent::Recovered { file, torn_bytes, moved_to, .. } => {
                format!("audit log recovered: torn last line of {file} ({torn_bytes} bytes) moved to {moved_to}")
            }
            AuditEvent::WriteFailed { since, error, held, lost, .. } => format!(
                "audit log could not be written since {since} ({error}); {held} held records follow, {lost} lost"
            ),
            AuditEvent::Rotated { next_file, reason } => format!("audit log continues in {next_file} ({reason})"),
            AuditEvent::KeyCreated { key_name, fingerprint, .. } => {
                let fingerprint = crate::audit::checkpoint::KeyFingerprint(fingerprint.clone()).short();
                format!("checkpoint signing key {key_name} created, fingerprint {fingerprint}")
            }
            AuditEvent::Checkpoint { count, head, reason, .. } => {
                format!("checkpoint signed at record {count} (head {head}, {})", reason.as_str())
            }
            AuditEvent::Export { format, destination } => format!("audit log exported as {format} to {destination}"),
            AuditEvent::ChallengesLost { first, last, .. } => format!(
                "challenges {first} to {last} were shown while the audit log could not be written, and their records \
                 were lost when the station stopped"
            ),
            AuditEvent::ProfileSwitched { from, to, lexicon, rule } => {
                format!("director switched profile {} -> {to} ({lexicon}, {rule})", from.as_deref().unwrap_or("none"))
            }
            AuditEvent::SettingChanged { setting, value } => match value {
                Some(v) => format!("director changed {setting} to {v}"),
                None => format!("director changed {setting}"),
            },
            AuditEvent::SettingRefused { setting, reason } => format!("director's change of {setting} refused: {reason}"),
            AuditEvent::JudgingFault { lexicon, problem } => {
                format!("judging with {lexicon} failed unexpectedly; out of service: {problem}")
            }
            AuditEvent::LexiconFileChanged { lexicon, change } => format!("lexicon {lexicon}: {change}"),
            AuditEvent::LexiconInstalled { lexicon, file, source, status, fingerprint, words, .. } => {
                format!("director installed {file} of {lexicon} from {source}: {status}, fingerprint {fingerprint}, {words} words")
            }
            AuditEvent::LexiconInstallRefused { source, name, reason } => match name {
                Some(name) => format!("director's install of {source} as {name} refused: {reason}"),
                None => format!("director's install of {source} refused: {reason}"),
            },
            AuditEvent::UsbStick { action, stick } => format!("director's USB stick {stick}: {action}"),
            AuditEvent::UsbFailed { action, stick, problem } => format!("USB {action} with {stick} failed: {problem}"),
            AuditEvent::FleetJoined { fleet, certificate_name, upload_url, ca_sha256, stick, .. } => format!(
                "joined the fleet of {fleet} as {certificate_name} with {stick}: sending to {upload_url} (event CA sha256 {})",
                ca_sha256.get(..16).unwrap_or(ca_sha256)
            ),
            AuditEvent::FleetLeft { fleet, upload_url, .. } => {
                format!("left the fleet of {fleet}: no longer sending to {upload_url}")
            }
            AuditEvent::FleetRefused { stick, reason } => format!("fleet stick {stick} refused: {reason}"),
            AuditEvent::UpdateStarted { version, current, signer, bundle, downgrade } => {
                let kind = if *downgrade { "downgrade or reinstall" } else { "update" };
                format!("director started the {kind} {current} -> {version} from {bundle}, signed by {signer}")
            }
            AuditEvent::UpdateRefused { bundle, reason } => format!("director's update from {bundle} refused: {reason}"),
            AuditEvent::UpdateInstalled { version } => format!("update to {version} installed; the station boots it at its next restart"),
            AuditEvent::UpdateFailed { version, reason } => format!("update to {version} failed: {reason}"),
            AuditEvent::UpdateOutcome { slot, version, outcome, detail } => {
                let detail = if detail.is_empty() { String::new() } else { format!(": {detail}") };
                format!("boot check after the update to {version} (slot {slot}): {outcome}{detail}")
            }
            AuditEvent::ClockJumped { from, to, seconds, cause } => {
                let cause = cause.as_deref().map(|c| format!(" ({c})")).unwrap_or_default();
                format!("the wall clock jumped {} from {from} to {to}{cause}", crate::audit::clock::jump_text(*seconds))
            }
            AuditEvent::KeyProblem { problem } => {
                format!("checkpoint signing key unusable, no checkpoint will be signed: {problem}")
            }
        }
    }
}
