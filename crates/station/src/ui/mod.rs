//! The Slint UI: the compiled `.slint` window and the one function that puts
//! a [`ViewModel`] into it. The window decides nothing: it shows the `View`
//! struct it is given (one struct per screen, `ui/seam.slint`; one `.slint`
//! file per screen, `ui/screens/`) and hands every key to its `key`
//! callback, which [`on_key_event`] turns into the flow's typed [`Event`].

pub mod fingers;
mod fit;
pub mod headless;
pub mod keymap;

slint::include_modules!();

use crate::kiosk::flow::Event;
use crate::kiosk::view::{ScreenKind, ViewModel};
use slint::{Model, ModelRc, SharedString, VecModel};

/// One field of a view, as the window holds it.
trait ToSlint {
    type Slint;
    fn to_slint(&self) -> Self::Slint;
}

impl ToSlint for String {
    type Slint = SharedString;
    fn to_slint(&self) -> SharedString {
        self.as_str().into()
    }
}

impl ToSlint for bool {
    type Slint = bool;
    fn to_slint(&self) -> bool {
        *self
    }
}

impl ToSlint for i32 {
    type Slint = i32;
    fn to_slint(&self) -> i32 {
        *self
    }
}

impl ToSlint for Vec<String> {
    type Slint = ModelRc<SharedString>;
    fn to_slint(&self) -> ModelRc<SharedString> {
        ModelRc::new(VecModel::from(self.iter().map(SharedString::from).collect::<Vec<_>>()))
    }
}

impl ToSlint for Vec<i32> {
    type Slint = ModelRc<i32>;
    fn to_slint(&self) -> ModelRc<i32> {
        ModelRc::new(VecModel::from(self.clone()))
    }
}

/// A screen's struct copied field by field into its `.slint` twin of the
/// same name: the field list is the only thing written per screen.
macro_rules! copy_fields {
    ($from:expr => $to:ident { $($field:ident),* $(,)? } $(+ { $($extra:ident: $value:expr),* })?) => {
        $to { $($field: $from.$field.to_slint(),)* $($($extra: $value,)*)? }
    };
}

fn screen(kind: ScreenKind) -> Screen {
    match kind {
        ScreenKind::Ready => Screen::Ready,
        ScreenKind::Entry => Screen::Entry,
        ScreenKind::Verdict => Screen::Verdict,
        ScreenKind::OutOfService => Screen::OutOfService,
        ScreenKind::Pin => Screen::Pin,
        ScreenKind::Director => Screen::Director,
        ScreenKind::Confirm => Screen::Confirm,
        ScreenKind::Edit => Screen::Edit,
        ScreenKind::Usb => Screen::Usb,
    }
}
/// The window's `View` for a view model: each screen's struct copied into
/// its twin.
pub fn to_slint(v: &ViewModel) -> View {
    let lamps = &v.lamps;
    View {
        screen: screen(v.screen),
        bar: copy_fields!(v.bar => TopBar {
            station_name, lexicon_id, lexicon_status, demo, demo_label, warning, warning_label, director_hold
        }),
        ready: copy_fields!(v.ready => ReadyView { heading, question, instruction, hint, slip, slip_label, rule, counts }),
        entry: copy_fields!(v.entry => EntryView {
            instruction, footer, keys, hint, hint_alert, countdown, expected, words, current_word, confirmation,
            letters, next_word, delete, clear, judge
        }),
        verdict: copy_fields!(v.verdict => VerdictView {
            acceptable, icon, label, words, details, footer, slip, consequence, second, copied
        } + { words_lines: fit::word_lines(&v.verdict.words).to_slint() }),
        service: copy_fields!(v.service => ServiceView { title, call, detail }),
        pin: copy_fields!(v.pin => PinView { title, dots, prompt, message, footer, pad, back }),
        edit: copy_fields!(v.edit => EditView { title, value, prompt, message, footer, pad, back }),
        confirm: copy_fields!(v.confirm => ConfirmView { question, detail, keys, change, keep }),
        menu: copy_fields!(v.menu => MenuView { title, items, selected, lines, message, facts_page, rows_tap, back }),
        usb: copy_fields!(v.usb => UsbView { status, alert, detail, progress_shown, progress, back, change, pad }),
        lamps: LampPanel {
            show: lamps.show,
            green: lamps.lit.green,
            red: lamps.lit.red,
            service: lamps.lit.service,
            labels: lamps.labels.to_vec().to_slint(),
        },
    }
}

/// Hands every key event and every tap of the window to `handler` as the
/// flow's typed [`Event`] (fresh press, repeat or release of a
/// [`crate::kiosk::flow::Key`], or a finished tap on a touch target): Slint's
/// key text and the targets' names never leave this layer.
pub fn on_key_event(window: &AppWindow, handler: impl Fn(Event) + 'static) {
    let handler = std::rc::Rc::new(handler);
    let keys = handler.clone();
    window.on_key(move |kind, text, ctrl, alt, shift| keys(keymap::map_event(kind, &text, ctrl, alt, shift)));
    let taps = handler.clone();
    window.on_tap(move |target| {
        // A tap made while a second finger was down (or of a cancelled
        // touch) types nothing: see `fingers`.
        if fingers::tap_spoiled() {
            return;
        }
        if let Some(event) = keymap::map_tap(&target) {
            taps(event)
        }
    });
    window.on_hold(move |down| handler(Event::DirectorHold(down && !fingers::tap_spoiled())));
}

/// Shows a view: one typed value for the whole window.
pub fn show(window: &AppWindow, v: &ViewModel) {
    let mut view = to_slint(v);
    keep_shown_lists(&window.get_view(), &mut view);
    window.set_view(view);
}

/// Keeps every list the window shows whose items did not change: a
/// repeater handed a new model builds its elements again, and a target
/// built again under a finger loses the press (a key held while the
/// count's confirmation left the screen typed nothing when let go).
fn keep_shown_lists(shown: &View, new: &mut View) {
    fn keep<T: Clone + PartialEq + 'static>(shown: &ModelRc<T>, new: &mut ModelRc<T>) {
        if shown.row_count() == new.row_count() && shown.iter().eq(new.iter()) {
            *new = shown.clone();
        }
    }
    keep(&shown.ready.counts, &mut new.ready.counts);
    keep(&shown.entry.words, &mut new.entry.words);
    keep(&shown.entry.letters, &mut new.entry.letters);
    keep(&shown.verdict.words_lines, &mut new.verdict.words_lines);
    keep(&shown.pin.pad, &mut new.pin.pad);
    keep(&shown.edit.pad, &mut new.edit.pad);
    keep(&shown.menu.items, &mut new.menu.items);
    keep(&shown.menu.lines, &mut new.menu.lines);
    keep(&shown.usb.pad, &mut new.usb.pad);
    keep(&shown.lamps.labels, &mut new.lamps.labels);
}
