//! A director's USB stick: reading, its word lists to install one by
//! one, an export, and how the work ended.

use super::*;

/// Where a USB screen is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsbPhase {
    /// Work is running in the background; keys wait.
    Working(UsbWork),
    /// The stick is open: its word lists, to install one by one.
    List,
    /// Finished: the outcome, until any key returns to the menu.
    Done(UsbDone),
}

/// How USB work ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsbDone {
    /// Unmounted: the stick may be removed. How many lists were installed.
    Ejected { installed: usize },
    /// The log is on the stick, which was unmounted.
    Exported { folder: String, lines: usize, intact: bool, signed: bool },
    /// The fleet stick's visit ended; the stick was unmounted.
    Fleet(FleetVisit),
    /// It failed; nothing was installed, the log is unchanged.
    Failed { work: UsbWork, problem: String },
    /// The station stopped waiting for it: ESC, no answer in time, or the
    /// stick pulled out. The station records whatever the work still does.
    Stopped { work: UsbWork, why: StopReason },
}

/// Why the station stopped waiting for stick work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    Escape,
    /// No answer within this many seconds.
    NoAnswer(u64),
    Removed,
}

impl UsbWork {
    /// How long the station waits for this work before it gives up: a stick
    /// that stops answering must never hold the station. Reading compiles
    /// every list (seconds each on a Pi 3); a fleet stick holds a few small
    /// files. An install writes the station's own bytes to its own card and
    /// is never stopped (`None`).
    pub fn deadline(self) -> Option<Duration> {
        match self {
            UsbWork::Reading => Some(Duration::from_secs(180)),
            UsbWork::Exporting => Some(Duration::from_secs(180)),
            UsbWork::Ejecting => Some(Duration::from_secs(30)),
            UsbWork::JoiningFleet => Some(Duration::from_secs(10)),
            UsbWork::Installing => None,
        }
    }
}

/// The answer to the last key on the list of word lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsbMessage {
    /// ENTER again installs this row.
    ConfirmInstall,
    Installed {
        lexicon: String,
        status: String,
    },
    InstallRefused(String),
    /// The row has no lexicon name yet: choose one with LEFT and RIGHT.
    NeedsName,
    /// The list is not the lexicon it is named as: it is never installed.
    WillNotInstall {
        name: String,
    },
    /// The file cannot be used at all.
    Unusable,
    AlreadyInstalled,
    Refused(UsbError),
}

/// What a stick was opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsbPurpose {
    Import,
    Export,
    JoinFleet,
}

/// A stick opened from the director menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsbScreen {
    pub stick: StickChoice,
    pub purpose: UsbPurpose,
    pub phase: UsbPhase,
    pub rows: Vec<ImportRow>,
    /// `.txt` files on the stick not looked at (too many).
    pub left_out: usize,
    /// The row under the cursor; `rows.len()` is the last row, "unmount".
    pub selected: usize,
    pub confirming: Option<usize>,
    pub message: Option<UsbMessage>,
    /// The menu page it returns to.
    pub(super) back: MenuPage,
    pub(super) last_key: Duration,
    /// When the work now running started (its deadline counts from here).
    pub(super) working_since: Duration,
}

impl UsbScreen {
    /// Rows installed so far.
    pub fn installed(&self) -> usize {
        self.rows.iter().filter(|r| matches!(r.state, ImportState::Installed { .. })).count()
    }
}

impl Kiosk {
    pub(super) fn usb_update(&mut self, update: UsbUpdate, now: Duration) {
        let Screen::Usb(usb) = &mut self.screen else { return };
        if !matches!(usb.phase, UsbPhase::Working(_)) {
            return;
        }
        // The director's idle time counts from when the answer is shown.
        usb.last_key = now;
        let installed = usb.installed();
        match update {
            UsbUpdate::ImportList { rows, left_out } => {
                usb.rows = rows;
                usb.left_out = left_out;
                usb.selected = 0;
                usb.phase = UsbPhase::List;
            }
            UsbUpdate::Row { index, row } => {
                if let ImportState::Installed { lexicon, status } = &row.state {
                    usb.message = Some(UsbMessage::Installed { lexicon: lexicon.clone(), status: status.clone() });
                }
                if let Some(slot) = usb.rows.get_mut(index) {
                    *slot = row;
                }
                usb.phase = UsbPhase::List;
            }
            UsbUpdate::InstallRefused { reason, .. } => {
                usb.message = Some(UsbMessage::InstallRefused(reason));
                usb.phase = UsbPhase::List;
            }
            UsbUpdate::Ejected => usb.phase = UsbPhase::Done(UsbDone::Ejected { installed }),
            UsbUpdate::Exported { folder, lines, intact, signed } => {
                usb.phase = UsbPhase::Done(UsbDone::Exported { folder, lines, intact, signed })
            }
            UsbUpdate::Fleet(visit) => usb.phase = UsbPhase::Done(UsbDone::Fleet(visit)),
            UsbUpdate::Failed { work, problem } => usb.phase = UsbPhase::Done(UsbDone::Failed { work, problem }),
        }
    }

    /// Stops waiting for the stick work running, if it may be stopped: the
    /// screen says why at once and players can judge again as soon as the
    /// director leaves.
    pub(super) fn usb_stop(&mut self, why: StopReason, station: &mut dyn Station) {
        let Screen::Usb(usb) = &mut self.screen else { return };
        let UsbPhase::Working(work) = usb.phase else { return };
        if work.deadline().is_none() {
            return;
        }
        station.usb_cancel();
        usb.phase = UsbPhase::Done(UsbDone::Stopped { work, why });
    }

    /// The running work's deadline passed, or its stick is gone.
    pub(super) fn usb_watch(&mut self, now: Duration, station: &mut dyn Station) {
        let Screen::Usb(usb) = &self.screen else { return };
        let UsbPhase::Working(work) = usb.phase else { return };
        let Some(deadline) = work.deadline() else { return };
        if now >= usb.working_since + deadline {
            return self.usb_stop(StopReason::NoAnswer(deadline.as_secs()), station);
        }
        if now >= self.last_stick_check + STICK_CHECK {
            self.last_stick_check = now;
            let device = usb.stick.device.clone();
            if !station.sticks().iter().any(|s| s.device == device) {
                self.usb_stop(StopReason::Removed, station);
            }
        }
    }

    pub(super) fn usb_key(&mut self, key: Key, now: Duration, station: &mut dyn Station) {
        let Screen::Usb(usb) = &mut self.screen else { return };
        match &usb.phase {
            // The stick is being read or written: keys wait, except ESC,
            // which stops waiting (the work also has a deadline, and a
            // stick pulled out ends it).
            UsbPhase::Working(_) if key == Key::Escape => return self.usb_stop(StopReason::Escape, station),
            UsbPhase::Working(_) => return,
            UsbPhase::Done(_) => {
                let back = usb.back;
                return self.open_menu(back, now, station, None);
            }
            UsbPhase::List => {}
        }
        usb.last_key = now;
        let eject_row = usb.rows.len();
        let mut request = None;
        match key {
            Key::Up => {
                usb.selected = usb.selected.saturating_sub(1);
                usb.confirming = None;
                usb.message = None;
            }
            Key::Down | Key::Tab => {
                usb.selected = (usb.selected + 1).min(eject_row);
                usb.confirming = None;
                usb.message = None;
            }
            Key::Escape => request = Some((UsbRequest::Eject, UsbWork::Ejecting)),
            Key::Enter if usb.selected == eject_row => request = Some((UsbRequest::Eject, UsbWork::Ejecting)),
            Key::Left | Key::Right if usb.selected < eject_row => {
                let row = &usb.rows[usb.selected];
                if matches!(row.state, ImportState::Installed { .. } | ImportState::Unusable(_)) {
                    return;
                }
                // Cycle through "no name" and every catalogue name.
                let mut names: Vec<Option<String>> = vec![None];
                names.extend(station.import_names().into_iter().map(Some));
                let at = names.iter().position(|n| *n == row.name).unwrap_or(0);
                let next =
                    if key == Key::Right { (at + 1) % names.len() } else { (at + names.len() - 1) % names.len() };
                usb.confirming = None;
                usb.message = None;
                request =
                    Some((UsbRequest::Rename { file: usb.selected, name: names[next].clone() }, UsbWork::Reading));
            }
            Key::Enter => {
                let index = usb.selected;
                usb.message = match &usb.rows[index].state {
                    ImportState::Would { installable: true, .. } if usb.confirming == Some(index) => {
                        usb.confirming = None;
                        request = Some((UsbRequest::Install { file: index }, UsbWork::Installing));
                        None
                    }
                    ImportState::Would { installable: true, .. } => {
                        usb.confirming = Some(index);
                        Some(UsbMessage::ConfirmInstall)
                    }
                    ImportState::Would { .. } => {
                        Some(UsbMessage::WillNotInstall { name: usb.rows[index].name.clone().unwrap_or_default() })
                    }
                    ImportState::Unnamed { .. } => Some(UsbMessage::NeedsName),
                    ImportState::Unusable(_) => Some(UsbMessage::Unusable),
                    ImportState::Installed { .. } => Some(UsbMessage::AlreadyInstalled),
                };
            }
            _ => {}
        }
        if let Some((request, work)) = request {
            match station.usb_request(request) {
                Ok(()) => {
                    usb.phase = UsbPhase::Working(work);
                    usb.working_since = now;
                }
                Err(e) => usb.message = Some(UsbMessage::Refused(e)),
            }
        }
    }
}
