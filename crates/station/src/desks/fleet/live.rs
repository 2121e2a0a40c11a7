//! The live station in the event's fleet: a fleet stick's visit recorded
//! (`fleet_joined`, `fleet_refused`, or the request left on it), the
//! uploader started on joining and stopped on leaving, and the fleet's line
//! in the director menu.
//!
//! What joining does to files is [`wordjudge_core::fleet::join`]'s; the stick's
//! mount and the background thread are the USB desk's
//! ([`crate::desks::sticks::worker::UsbDesk::join_fleet`]). The uploader and the wired
//! network are systemd units the kiosk may start and stop through polkit
//! (its rule names these two units only), without waiting for them
//! (`--no-block`: this runs on the kiosk's own thread, whose watchdog is
//! 10 s); they also start at boot by themselves on a station that has
//! joined, so a station whose start here failed still sends after its next
//! restart.
//!
//! Leaving stops them only once the uploader has sent the `fleet_left`
//! record, or [`LAST_SEND`] has passed: the laptop then shows the station
//! as having left, not as gone silent. The uploader keeps its own copies of
//! the key and certificates (`LoadCredential=`), so they leave the fleet
//! folder at once.

use crate::desks::live::LiveStation;
use crate::desks::FleetMembership;
use crate::desks::LeaveError;
use std::path::PathBuf;
use wordjudge_core::audit::AuditEvent;
use wordjudge_core::fleet::join::{self, JoinStep};
use wordjudge_core::usb::Stick;

/// The units a joined station runs: its wired network, then the uploader.
pub const FLEET_UNITS: [&str; 2] = ["wordjudge-fleet-network.service", "wordjudge-fleet-upload.service"];

/// The uploader's cursor file (`--save-state`), rewritten after every
/// upload the laptop took: its time is when the station last sent.
pub const UPLOAD_STATE: &str = "/var/lib/systemd/journal-upload/state";

/// How long a station that left the fleet keeps its uploader running for
/// the `fleet_left` record to reach the laptop; a laptop that is down or
/// away gets it never, and the laptop shows the station as silent since its
/// last record.
pub const LAST_SEND: std::time::Duration = std::time::Duration::from_secs(15);

/// The fleet's units, to stop once the uploader has sent what was recorded
/// until `left` (the `fleet_left` record's time), or at `deadline`; with no
/// `left`, at once (a start in no fleet).
#[derive(Debug, Clone, Copy)]
pub struct FleetUnitsStop {
    left: Option<std::time::SystemTime>,
    deadline: std::time::Instant,
}

/// When the uploader last sent something the laptop took (its cursor
/// file's time), if it ever did.
fn last_sent() -> Option<std::time::SystemTime> {
    std::fs::metadata(UPLOAD_STATE).and_then(|m| m.modified()).ok()
}

impl LiveStation {
    /// The station's fleet folder: beside its config (on the appliance
    /// `/var/lib/wordjudge/fleet`, where the units look).
    pub(in crate::desks) fn fleet_dir(&self) -> PathBuf {
        self.config_path.parent().map(|p| p.join("fleet")).unwrap_or_else(|| PathBuf::from(join::DEFAULT_FLEET_DIR))
    }

    /// The station's name in the fleet, from its own name.
    pub(in crate::desks) fn fleet_station_name(&self) -> String {
        join::fleet_name(&self.config.station_name)
    }

    /// Records a fleet stick's visit, and starts the uploader on joining.
    pub(in crate::desks) fn record_fleet(&mut self, stick: &Stick, result: Result<JoinStep, String>) {
        match result {
            Ok(JoinStep::Requested { replaced, code, .. }) => {
                let action = format!(
                    "fleet request for {} left on it{}{}",
                    self.fleet_station_name(),
                    if replaced { " (the certificate there was for another key)" } else { "" },
                    code.map(|c| format!(", station key code {c}")).unwrap_or_default()
                );
                tracing::info!("fleet: {action}");
                self.record(AuditEvent::UsbStick { action, stick: stick.describe() });
            }
            Ok(JoinStep::Joined(joined)) => {
                tracing::info!(
                    "fleet: joined {} as {}, sending to {}",
                    joined.event,
                    joined.station,
                    joined.upload_url
                );
                self.record(AuditEvent::FleetJoined {
                    fleet: joined.event,
                    certificate_name: joined.station,
                    upload_url: joined.upload_url,
                    ca_sha256: joined.ca_sha256,
                    certificate_sha256: joined.certificate_sha256,
                    laptop_sha256: joined.laptop_sha256,
                    stick: stick.describe(),
                });
                // A leave's stop still waiting must not stop this membership's units.
                self.fleet_units_stop = None;
                if self.appliance {
                    if let Err(problem) =
                        wordjudge_core::usb::system::systemctl_no_block("start", &FLEET_UNITS.map(String::from))
                    {
                        // They start at the next boot by themselves.
                        tracing::warn!("fleet: the uploader did not start now: {problem}");
                    }
                }
            }
            Ok(JoinStep::AlreadyJoined(joined)) => {
                let action = format!("fleet stick: already in the fleet of {}", joined.event);
                tracing::info!("fleet: {action}");
                self.record(AuditEvent::UsbStick { action, stick: stick.describe() });
            }
            Err(reason) => {
                tracing::warn!("fleet: stick {} refused: {reason}", stick.describe());
                self.record(AuditEvent::FleetRefused { stick: stick.describe(), reason });
            }
        }
    }

    /// Leaves the fleet: its settings, key and certificates removed,
    /// recorded, and the uploader stopped once it has sent that record.
    pub(in crate::desks) fn leave_fleet_now(&mut self) -> Result<String, LeaveError> {
        let dir = self.fleet_dir();
        let Some(joined) = join::joined(&dir).map_err(|e| LeaveError::Failed(e.to_string()))? else {
            return Err(LeaveError::NotInFleet);
        };
        // The settings first: without upload.env the units never start again.
        join::leave(&dir).map_err(|e| LeaveError::Failed(e.to_string()))?;
        tracing::info!("fleet: left {}", joined.event);
        self.record(AuditEvent::FleetLeft {
            fleet: joined.event.clone(),
            upload_url: joined.upload_url,
            ca_sha256: joined.ca_sha256,
        });
        if self.appliance {
            // Stopped by `poll`, once this record has gone (or LAST_SEND).
            self.fleet_units_stop = Some(FleetUnitsStop {
                left: Some(std::time::SystemTime::now()),
                deadline: std::time::Instant::now() + LAST_SEND,
            });
        }
        Ok(joined.event)
    }

    /// At start, on a station in no fleet: the units are stopped at the
    /// first poll, in case the kiosk ended while a leave waited for the
    /// uploader (they would run until the next boot). Stopping a stopped
    /// unit changes nothing.
    pub(in crate::desks) fn stop_fleet_units_left_running(&mut self) {
        if self.appliance && matches!(join::joined(&self.fleet_dir()), Ok(None)) {
            self.fleet_units_stop = Some(FleetUnitsStop { left: None, deadline: std::time::Instant::now() });
        }
    }

    /// Called at every poll: stops the fleet's units once the uploader has
    /// sent the `fleet_left` record, or [`LAST_SEND`] after it. A stop that
    /// fails is said in the journal; the units do not start again at the
    /// next boot (their settings are gone).
    pub(in crate::desks) fn stop_fleet_units_once_sent(&mut self) {
        let Some(stop) = self.fleet_units_stop else { return };
        let sent = stop.left.is_some_and(|left| last_sent().is_some_and(|at| at > left));
        if !sent && std::time::Instant::now() < stop.deadline {
            return;
        }
        self.fleet_units_stop = None;
        let stopped = wordjudge_core::usb::system::systemctl_no_block("stop", &FLEET_UNITS.map(String::from));
        let how = match stop.left {
            None => "in no fleet at start",
            Some(_) if sent => "the laptop took the fleet_left record",
            Some(_) => "the laptop did not take the fleet_left record in time",
        };
        match stopped {
            Ok(()) if stop.left.is_none() => {}
            Ok(()) => tracing::info!("fleet: uploader stopped ({how})"),
            Err(problem) => tracing::warn!("fleet: the uploader did not stop ({how}): {problem}"),
        }
    }

    /// The fleet's line in the director menu: where the station sends and
    /// when it last did, or how to join.
    pub(in crate::desks) fn fleet_fact(&self) -> String {
        match join::joined(&self.fleet_dir()) {
            Ok(Some(joined)) => {
                let sent = last_sent().and_then(|t| {
                    let t = jiff::Timestamp::try_from(t).ok()?;
                    Some(t.to_zoned(self.zone()).strftime("%H:%M:%S").to_string())
                });
                match sent {
                    Some(time) => format!(
                        "{}: sending to the event's laptop ({}), last sent {time}",
                        joined.event,
                        crate::kiosk::view::laptop_of(&joined.upload_url)
                    ),
                    None => format!(
                        "{}: sending to the event's laptop ({}), nothing sent yet",
                        joined.event,
                        crate::kiosk::view::laptop_of(&joined.upload_url)
                    ),
                }
            }
            Ok(None) => match join::read_pending(&self.fleet_dir()) {
                // The code stays here until the second visit is done: the
                // director compares it with `fleet sign`'s on the laptop.
                Ok(Some(p)) => match join::pending_code(&self.fleet_dir()).ok().flatten() {
                    Some(code) => format!(
                        "request for {} on the stick of {}, station key code {code}: sign it on the laptop once \
                         the laptop shows this same code, then bring the stick back",
                        p.station, p.event
                    ),
                    None => format!(
                        "request for {} on the stick of {}: sign it on the laptop, then bring the stick back",
                        p.station, p.event
                    ),
                },
                _ => "none (a fleet stick joins one)".into(),
            },
            Err(e) => format!("cannot tell: {e}"),
        }
    }
}

impl FleetMembership for LiveStation {
    fn fleet_event(&self) -> Option<String> {
        wordjudge_core::fleet::join::joined(&self.fleet_dir()).ok().flatten().map(|j| j.event)
    }

    fn leave_fleet(&mut self) -> Result<String, LeaveError> {
        self.leave_fleet_now()
    }
}
