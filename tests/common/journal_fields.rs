//! An event's fields under the names tracing-journald gives them: what the
//! tests that capture the recorder's journald copies read (the audit log's
//! journald tests and the fleet's).

use std::collections::BTreeMap;
use tracing::field::{Field, Visit};
use wordjudge_core::recorder::journal_field_name;

/// Journal field name → value.
pub type Fields = BTreeMap<String, String>;

/// Collects an event's fields into [`Fields`].
pub struct Visitor<'a>(pub &'a mut Fields);

impl Visit for Visitor<'_> {
    // As tracing-journald: strings raw, everything else through Debug.
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(journal_field_name(field.name()), value.to_string());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(journal_field_name(field.name()), format!("{value:?}"));
    }
}
