//! A tool pattern (a gateway's tool rule, a server's `alwaysLoad` entry):
//! `*` matches any run of characters, everything else itself, case and
//! all. The one matcher both use.

/// `*` the only wildcard: the single-character one is NUL, which no
/// pattern holds, so `?` stays itself.
type Pattern = wildmatch::WildMatchPattern<'*', '\0'>;

/// Whether `text` fits `pattern`: `*` matches any run of characters
/// (none too), everything else itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    if !pattern.contains('*') {
        return pattern == text;
    }
    Pattern::new(pattern).matches(text)
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn a_star_matches_any_run_and_nothing_else_is_special() {
        assert!(glob("*", "anything") && glob("*", ""));
        assert!(glob("write_*", "write_file") && glob("write_*", "write_"));
        assert!(!glob("write_*", "rewrite_file"));
        assert!(glob("*delete*", "git_delete_branch"));
        assert!(glob("a*b*c", "aXbYc") && !glob("a*b*c", "aXcYb"));
        assert!(!glob("ab*ba", "aba"));
        assert!(glob("exact", "exact") && !glob("exact", "exactly"));
        assert!(glob("**", "x") && glob("a**b", "ab"));
        // `?` and brackets are themselves; case counts.
        assert!(glob("get?*", "get?x") && !glob("get?*", "getx"));
        assert!(glob("[a]*", "[a]b") && !glob("[a]*", "ab"));
        assert!(!glob("Write_*", "write_file"));
        // Characters, not bytes.
        assert!(glob("d*te", "dеlete") && glob("*é", "café"));
    }
}
