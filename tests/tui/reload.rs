//! The real binary watching its catalog file: a tool added to the file
//! shows without a restart; a broken edit keeps the last good catalog.

use crate::tty::Tty;

const ONE: &str = r#"
[[tool]]
name = "lookup_status"
description = "Look up the current service status"

[tool.input_schema]
type = "object"
"#;

#[test]
fn an_edited_catalog_file_shows_its_new_tools() {
    let dir = std::env::temp_dir().join(format!("toolsift-reload-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tools.toml");
    std::fs::write(&path, ONE).unwrap();
    let mut tty = Tty::spawn_with(&["explore", path.to_str().unwrap()], &[]);
    tty.wait_for("lookup_status");
    // Written as an editor saves: a new tool appended.
    std::fs::write(
        &path,
        format!("{ONE}\n[[tool]]\nname = \"refund_payment\"\ndescription = \"Refund a payment\"\n\n[tool.input_schema]\ntype = \"object\"\n"),
    )
    .unwrap();
    tty.wait_for("refund_payment");
    tty.wait_for("read again, 2 tools (were 1)");
    // A broken save: the message says where, first; the tools stay.
    std::fs::write(&path, "[[tool]]\nname = ").unwrap();
    tty.wait_for("tools.toml:2:8: invalid TOML");
    assert!(tty.contents().contains("refund_payment"));
    tty.send(b"q");
    assert!(tty.wait_exit().success());
    std::fs::remove_dir_all(&dir).ok();
}
