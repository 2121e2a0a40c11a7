//! The Slint UI: the compiled `.slint` window and the one function that puts
//! a [`ViewModel`] into it. The window decides nothing: it shows the `View`
//! struct it is given and hands every key to its `key` callback, which the
//! app layer connects to the flow.

pub mod headless;
pub mod keymap;

slint::include_modules!();

use crate::kiosk::view::{ScreenKind, ViewModel};
use slint::{ModelRc, SharedString, VecModel};

fn strings(items: &[String]) -> ModelRc<SharedString> {
    ModelRc::new(VecModel::from(items.iter().map(SharedString::from).collect::<Vec<_>>()))
}

fn screen(kind: ScreenKind) -> Screen {
    match kind {
        ScreenKind::Ready => Screen::Ready,
        ScreenKind::Entry => Screen::Entry,
        ScreenKind::Verdict => Screen::Verdict,
        ScreenKind::OutOfService => Screen::OutOfService,
        ScreenKind::Pin => Screen::Pin,
        ScreenKind::Director => Screen::Director,
        ScreenKind::Edit => Screen::Edit,
        ScreenKind::Usb => Screen::Usb,
    }
}

/// The window's `View` for a view model: a field-for-field copy.
pub fn to_slint(v: &ViewModel) -> View {
    View {
        screen: screen(v.screen),
        station_name: v.station_name.as_str().into(),
        lexicon_id: v.lexicon_id.as_str().into(),
        lexicon_status: v.lexicon_status.as_str().into(),
        demo: v.demo,
        demo_label: v.demo_label.as_str().into(),
        warning_label: v.warning_label.as_str().into(),
        ready_heading: v.ready_heading.as_str().into(),
        ready_question: v.ready_question.as_str().into(),
        ready_instruction: v.ready_instruction.as_str().into(),
        ready_slip_label: v.ready_slip_label.as_str().into(),
        ready_slip: v.ready_slip.as_str().into(),
        hint: v.hint.as_str().into(),
        hint_alert: v.hint_alert,
        entry_instruction: v.entry_instruction.as_str().into(),
        entry_footer: v.entry_footer.as_str().into(),
        entry_keys: v.entry_keys.as_str().into(),
        countdown: v.countdown.as_str().into(),
        expected: v.expected,
        words: strings(&v.words),
        current_word: v.current_word,
        confirmation: v.confirmation.as_str().into(),
        acceptable: v.acceptable,
        verdict_icon: v.verdict_icon.as_str().into(),
        verdict_label: v.verdict_label.as_str().into(),
        verdict_words: v.verdict_words.as_str().into(),
        verdict_details: v.verdict_details.as_str().into(),
        verdict_footer: v.verdict_footer.as_str().into(),
        verdict_slip: v.verdict_slip.as_str().into(),
        verdict_consequence: v.verdict_consequence.as_str().into(),
        verdict_second: v.verdict_second.as_str().into(),
        edit_title: v.edit_title.as_str().into(),
        edit_value: v.edit_value.as_str().into(),
        edit_prompt: v.edit_prompt.as_str().into(),
        edit_message: v.edit_message.as_str().into(),
        edit_footer: v.edit_footer.as_str().into(),
        service_title: v.service_title.as_str().into(),
        service_call: v.service_call.as_str().into(),
        service_detail: v.service_detail.as_str().into(),
        pin_title: v.pin_title.as_str().into(),
        pin_dots: v.pin_dots.as_str().into(),
        pin_prompt: v.pin_prompt.as_str().into(),
        pin_message: v.pin_message.as_str().into(),
        pin_footer: v.pin_footer.as_str().into(),
        menu_title: v.menu_title.as_str().into(),
        menu_items: strings(&v.menu_items),
        menu_selected: v.menu_selected,
        director_lines: strings(&v.director_lines),
        director_message: v.director_message.as_str().into(),
        usb_status: v.usb_status.as_str().into(),
        usb_detail: v.usb_detail.as_str().into(),
        show_lamps: v.show_lamps,
        lamp_green: v.lamps.green,
        lamp_red: v.lamps.red,
        lamp_service: v.lamps.service,
        lamp_labels: strings(&v.lamp_labels),
    }
}

/// Shows a view: one typed value for the whole window.
pub fn show(window: &AppWindow, v: &ViewModel) {
    window.set_view(to_slint(v));
}
