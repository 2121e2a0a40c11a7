//! An update of the whole station from a bundle on a director's stick:
//! copied onto the station, checked and previewed, confirmed (a downgrade
//! or a reinstall with the director PIN again), installed from that copy
//! with its progress, then the station restarts into it through the
//! director menu's own reboot.
//!
//! Nothing changes on the station until the director confirms, and a
//! failure at any step leaves it running as before.

use super::*;

/// Where an update screen is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdatePhase {
    /// The bundle is being copied onto the station and its signature
    /// checked; keys wait.
    Checking,
    /// Its facts, for the director to confirm with ENTER (ESC cancels).
    Preview(UpdatePreview),
    /// A downgrade or reinstall: the director PIN again, typed here.
    Pin { preview: UpdatePreview, typed: String, message: Option<PinMessage> },
    /// Installing; keys wait. The last percentage RAUC printed.
    Installing { preview: UpdatePreview, percent: Option<u8> },
    /// Finished: the outcome.
    Done(UpdateDone),
}

/// How an update ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateDone {
    /// The check refused the bundle, and why; nothing changed.
    Refused(UpdateError),
    /// The install could not start (the station was busy, or the bundle
    /// previewed was dropped meanwhile); nothing changed.
    NotStarted(UpdateNotStarted),
    /// The install did not finish, or was refused at its start; the
    /// station runs as before.
    Failed(UpdateError),
    /// The bundle's check did not answer within this many seconds: the
    /// station stopped waiting; nothing changed.
    NoAnswer { seconds: u64 },
    /// Installed; the restart was asked for (or refused, and why).
    Installed { version: String, restart: Result<(), SystemError> },
}

/// An update from the director menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateScreen {
    pub offer: UpdateOffer,
    pub phase: UpdatePhase,
    /// The menu page it returns to.
    pub(super) back: MenuPage,
    /// When the phase on screen appeared: the preview's ENTER counts only
    /// once it settled, as a confirmation's does.
    pub(super) shown_at: Duration,
    pub(super) last_key: Duration,
}

impl UpdateScreen {
    /// Whether its idle time runs out: never while work runs, nor once
    /// installed (the station is restarting).
    pub(super) fn may_expire(&self) -> bool {
        matches!(self.phase, UpdatePhase::Preview(_) | UpdatePhase::Pin { .. })
            || matches!(
                self.phase,
                UpdatePhase::Done(
                    UpdateDone::Refused(_)
                        | UpdateDone::NotStarted(_)
                        | UpdateDone::Failed(_)
                        | UpdateDone::NoAnswer { .. }
                )
            )
    }
}

/// How long the station waits for a bundle to be copied off a stick and
/// checked: a 1 GB bundle from a slow USB 2 stick and RAUC's check on a Pi 3
/// take a few minutes; a stick that stops answering must not hold the
/// station for ever.
pub const UPDATE_CHECK_DEADLINE: Duration = Duration::from_secs(600);

impl Kiosk {
    /// The check of a bundle has not answered within its deadline: the
    /// station stops waiting and says so.
    pub(super) fn update_watch(&mut self, now: Duration, station: &mut dyn Station) {
        let Screen::Update(update) = &mut self.screen else { return };
        if update.phase == UpdatePhase::Checking && now >= update.shown_at + UPDATE_CHECK_DEADLINE {
            let _ = station.update_request(UpdateRequest::Cancel);
            update.phase = UpdatePhase::Done(UpdateDone::NoAnswer { seconds: UPDATE_CHECK_DEADLINE.as_secs() });
            update.shown_at = now;
            update.last_key = now;
        }
    }

    /// The director chose "Install update": the bundle is checked first.
    pub(super) fn open_update(&mut self, offer: UpdateOffer, now: Duration, station: &mut dyn Station) {
        let Screen::Director(menu) = &mut self.screen else { return };
        let request = UpdateRequest::Check { device: offer.device.clone(), file: offer.file.clone() };
        match station.update_request(request) {
            Ok(()) => {
                let back = menu.page;
                self.screen = Screen::Update(UpdateScreen {
                    offer,
                    phase: UpdatePhase::Checking,
                    back,
                    shown_at: now,
                    last_key: now,
                });
            }
            Err(e) => menu.message = Some(MenuMessage::UpdateRefused(e)),
        }
    }

    /// Applies what the update work reported (only on its screen; the
    /// station has recorded it either way).
    pub(super) fn update_report(&mut self, report: UpdateReport, now: Duration, station: &mut dyn Station) {
        let Screen::Update(update) = &mut self.screen else { return };
        let phase = std::mem::replace(&mut update.phase, UpdatePhase::Checking);
        update.phase = match (phase, report) {
            (UpdatePhase::Checking, UpdateReport::Preview(preview)) => UpdatePhase::Preview(preview),
            (UpdatePhase::Checking, UpdateReport::Refused(reason)) => UpdatePhase::Done(UpdateDone::Refused(reason)),
            (UpdatePhase::Installing { preview, .. }, UpdateReport::Progress(percent)) => {
                UpdatePhase::Installing { preview, percent: Some(percent.min(100)) }
            }
            (UpdatePhase::Installing { .. }, UpdateReport::Failed(reason)) => {
                UpdatePhase::Done(UpdateDone::Failed(reason))
            }
            (UpdatePhase::Installing { .. }, UpdateReport::Installed { version }) => {
                // The director menu's own reboot: recorded, the log closed.
                let restart = station.system(SystemAction::Reboot);
                UpdatePhase::Done(UpdateDone::Installed { version, restart })
            }
            // Anything else is stale (an answer for a phase left behind).
            (phase, _) => phase,
        };
        update.shown_at = now;
        update.last_key = now;
    }

    pub(super) fn update_key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
        let locked = self.pin_locked_until(now).is_some();
        let Screen::Update(update) = &mut self.screen else { return };
        let back = update.back;
        match &mut update.phase {
            // Reading the bundle off the stick: ESC stops waiting (so
            // does the check's deadline, [`UPDATE_CHECK_DEADLINE`]).
            UpdatePhase::Checking if key == Key::Escape => {
                let _ = station.update_request(UpdateRequest::Cancel);
                self.open_menu(back, now, station, None);
            }
            // Writing the slot (RAUC runs it to its end), or reading the
            // bundle: other keys wait (a stick pulled out ends the work,
            // with a reason).
            UpdatePhase::Checking | UpdatePhase::Installing { .. } => {}
            UpdatePhase::Done(UpdateDone::Installed { restart: Ok(()), .. }) => {}
            UpdatePhase::Done(_) => self.open_menu(back, now, station, None),
            UpdatePhase::Preview(preview) => match key {
                Key::Escape => {
                    let _ = station.update_request(UpdateRequest::Cancel);
                    self.open_menu(back, now, station, None);
                }
                // An ENTER pressed as the preview appeared (a double-tap on the
                // menu's entry) is not a decision.
                Key::Enter if now < update.shown_at + CONFIRM_SETTLE => update.last_key = now,
                Key::Enter if preview.kind.needs_pin() => {
                    update.phase = UpdatePhase::Pin { preview: preview.clone(), typed: String::new(), message: None };
                    update.last_key = now;
                }
                Key::Enter => {
                    let preview = preview.clone();
                    self.start_install(preview, now, station);
                }
                _ => update.last_key = now,
            },
            UpdatePhase::Pin { preview, typed, message } => {
                update.last_key = now;
                match key {
                    Key::Escape => {
                        let _ = station.update_request(UpdateRequest::Cancel);
                        self.open_menu(back, now, station, None);
                    }
                    _ if locked => {}
                    Key::Char(c) if c.is_ascii_digit() => {
                        if typed.len() < PIN_MAX_LEN {
                            typed.push(c);
                        }
                        *message = None;
                    }
                    Key::Backspace => {
                        typed.pop();
                    }
                    Key::Enter => {
                        let (pin, preview) = (std::mem::take(typed), preview.clone());
                        match self.verify_director_pin(&pin, now, station) {
                            PinVerdict::Accepted => self.start_install(preview, now, station),
                            PinVerdict::LockedOut => {
                                // Too many wrong PINs: the update is dropped and the
                                // menu closes, as the PIN prompt locks.
                                let _ = station.update_request(UpdateRequest::Cancel);
                                self.go_home();
                            }
                            verdict => {
                                if let Screen::Update(UpdateScreen {
                                    phase: UpdatePhase::Pin { message, .. }, ..
                                }) = &mut self.screen
                                {
                                    *message = Some(match verdict {
                                        PinVerdict::NotSet => PinMessage::NotSet,
                                        PinVerdict::Wrong { attempts_left } => PinMessage::Wrong { attempts_left },
                                        _ => PinMessage::DigitsOnly,
                                    });
                                }
                            }
                        }
                    }
                    _ => *message = Some(PinMessage::DigitsOnly),
                }
            }
        }
    }

    fn start_install(&mut self, preview: UpdatePreview, now: Duration, station: &mut dyn Station) {
        let Screen::Update(update) = &mut self.screen else { return };
        update.last_key = now;
        update.phase = match station.update_request(UpdateRequest::Install) {
            Ok(()) => UpdatePhase::Installing { preview, percent: None },
            Err(e) => UpdatePhase::Done(UpdateDone::NotStarted(e)),
        };
    }

    /// The update screen's idle time ran out: the bundle is dropped and its
    /// stick unmounted, never left mounted behind the Ready screen.
    pub(super) fn update_expired(&mut self, station: &mut dyn Station) {
        if let Screen::Update(update) = &self.screen {
            if matches!(update.phase, UpdatePhase::Preview(_) | UpdatePhase::Pin { .. }) {
                let _ = station.update_request(UpdateRequest::Cancel);
            }
        }
    }
}
