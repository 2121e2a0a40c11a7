//! What the fleet summary reads, against what it asks journalctl for.

use super::*;

#[test]
fn the_fields_read_are_the_recorders_names() {
    let fields = output_fields();
    for name in ["WORDJUDGE_EVENT", "WORDJUDGE_LINE", "WORDJUDGE_CHECKPOINT", "WORDJUDGE_LINE_SHA256", "_HOSTNAME"] {
        assert!(fields.iter().any(|f| f == name), "{name} in {fields:?}");
    }
    // What is read from the signed line is not asked of journalctl.
    for name in ["WORDJUDGE_RECORD", "WORDJUDGE_VERDICT", "WORDJUDGE_CHALLENGE"] {
        assert!(!fields.iter().any(|f| f == name), "{name} in {fields:?}");
    }
    // Every field the summary reads is asked for.
    let source = include_str!("mod.rs");
    for (call, prefix) in [(".wj(\"", "WORDJUDGE_"), (".get(\"", "")] {
        for read in source.split(call).skip(1).filter_map(|rest| rest.split('"').next()) {
            let field = format!("{prefix}{}", read.to_uppercase());
            assert!(
                fields.contains(&field)
                    || field == "__REALTIME_TIMESTAMP"
                    || !read.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "{field} is read but not asked for: {fields:?}"
            );
        }
    }
    assert_eq!(Range(3, 4).to_string(), "3-4");
    assert_eq!(Range(5, 5).to_string(), "5");
}
