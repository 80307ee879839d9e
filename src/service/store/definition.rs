//! A tool as the shared store keeps it (in sessions and shared catalogs):
//! its Caveman wire descriptor, read back with the catalog's own checks.

use crate::catalog::Tool;

/// A tool as stored in a session: the Caveman wire descriptor.
pub(super) fn definition(t: &Tool) -> String {
    crate::provider::payload_tool(t, crate::provider::PayloadFormat::Caveman).to_string()
}

pub(super) fn parse_definition(text: &str) -> Option<Tool> {
    let catalog = crate::catalog::parse(
        &format!("[{text}]"),
        "session",
        "session",
        crate::catalog::SourceKind::Json,
    )
    .ok()?;
    catalog.tools().first().cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_round_trip() {
        let mut t = Tool::new("a\u{1b}", "d \"q\"");
        t.input_schema =
            serde_json::json!({"type": "object", "properties": {"x": {"type": "integer"}}});
        t.read_only = true;
        let back = parse_definition(&definition(&t)).unwrap();
        assert_eq!(
            (
                &back.name,
                &back.description,
                &back.input_schema,
                back.read_only
            ),
            (&t.name, &t.description, &t.input_schema, t.read_only)
        );
    }
}
