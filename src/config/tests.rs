//! The config file: lookup, merge, parse errors, and saving.

use super::*;
use crate::engine::Ranker;
use crate::settings::Settings;
use crate::tokens::TokenBasis;
use crate::tools_handle::{DEFAULT_INITIAL_TOOL_COUNT, Strategy};

fn no_env(_: &str) -> Option<String> {
    None
}

#[test]
fn saving_settings_keeps_the_rest_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/config.toml");
    let saved = Settings {
        strategy: Strategy::Deferred,
        initial_tool_count: crate::tools_handle::InitialToolCount::new(3),
        max_loaded_tools: crate::tools_handle::MaxTools::new(12),
        max_tools: None,
        ranker: Ranker::Bm25,
        token_basis: Some(TokenBasis::O200kBase),
        gate: true,
    };
    // A missing file (and folder) is created.
    save_explorer_settings(&path, &saved).unwrap();
    let c = Config::load_with(Some(&path), &no_env).unwrap();
    assert_eq!(
        c.explorer.settings.handle.initial_tool_count,
        Some(crate::tools_handle::InitialToolCount::new(3))
    );
    assert_eq!(
        c.explorer.settings.handle.max_loaded_tools,
        crate::tools_handle::MaxTools::new(12)
    );
    // Comments, other keys and tables survive; a setting with no value
    // goes.
    std::fs::write(
        &path,
        "# mine\n[explorer]\nservice = \"http://127.0.0.1:9\" # remote\nmax_tools = 5\n\n[keys]\nquit = \"Q\"\n",
    )
    .unwrap();
    save_explorer_settings(&path, &saved).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# mine\n"), "{text}");
    assert!(
        text.contains("service = \"http://127.0.0.1:9\" # remote"),
        "{text}"
    );
    assert!(!text.contains("max_tools"), "{text}");
    assert!(text.contains("quit = \"Q\""), "{text}");
    let c = Config::load_with(Some(&path), &no_env).unwrap();
    assert_eq!(
        c.explorer.settings.handle.strategy,
        Some(Strategy::Deferred)
    );
    assert_eq!(
        c.explorer.settings.handle.max_loaded_tools,
        crate::tools_handle::MaxTools::new(12)
    );
    assert_eq!(c.user_keys["quit"], ["Q"]);
    // A file the explorer cannot read is left alone, with where.
    std::fs::write(&path, "[explorer\n").unwrap();
    let e = save_explorer_settings(&path, &saved)
        .unwrap_err()
        .to_string();
    assert!(e.contains("config.toml:1"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "[explorer\n");
}

#[test]
fn saving_keeps_inline_comments_and_untouched_lines_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let before = "# my settings\n\
        [explorer]\n\
        # how tools are sent\n\
        strategy = \"deferred\"  # keep\n\
        initial_tool_count = 8   # the first ones\n\
        \n\
        max_loaded_tools   =  20 # cap\n\
        ranker = \"bm25\"\n\
        token_basis = \"o200k_base\"  # tokens\n\
        \n\
        [keys]\n\
        quit = \"Q\"  # mine\n";
    std::fs::write(&path, before).unwrap();
    let saved = Settings {
        strategy: Strategy::Deferred,
        initial_tool_count: crate::tools_handle::InitialToolCount::new(3),
        max_loaded_tools: crate::tools_handle::MaxTools::new(12),
        max_tools: None,
        ranker: Ranker::Bm25,
        token_basis: Some(TokenBasis::O200kBase),
        gate: true,
    };
    save_explorer_settings(&path, &saved).unwrap();
    let after = std::fs::read_to_string(&path).unwrap();
    // The two changed values keep their line's spacing and comment, the
    // setting the file lacked is added after the others; every other byte
    // is as it was.
    let expected = before
        .replace("initial_tool_count = 8 ", "initial_tool_count = 3 ")
        .replace("=  20 # cap", "=  12 # cap")
        .replace("# tokens\n", "# tokens\ngate = true\n");
    assert_eq!(after, expected);
    // Saving again changes nothing.
    save_explorer_settings(&path, &saved).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
}

#[test]
fn the_example_file_parses() {
    let text = include_str!("../../assets/config.example.toml");
    let uncommented: String = text
        .lines()
        .map(|l| {
            l.strip_prefix("# ")
                .filter(|r| r.contains(" = "))
                .unwrap_or(l)
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let file = parse(&uncommented, "example").unwrap();
    assert_eq!(file.explorer.context_budget, Some(32000));
    assert_eq!(file.explorer.queries.as_deref(), Some("requests.jsonl"));
}

#[test]
fn defaults_parse() {
    let c = Config::load_with(None, &no_env).unwrap();
    assert_eq!(
        c.explorer.settings.handle.strategy,
        Some(Strategy::Deferred)
    );
    assert_eq!(
        c.explorer.settings.handle.initial_tool_count,
        Some(crate::tools_handle::InitialToolCount::new(8))
    );
    assert_eq!(c.default_keys["quit"], ["q"]);
    assert_eq!(c.default_keys["quit_now"], ["ctrl-c"]);
    assert!(c.source.is_none());
}

#[test]
fn lookup_order() {
    let env = |k: &str| match k {
        "TOOLSIFT_CONFIG" => Some("/a.toml".to_string()),
        "XDG_CONFIG_HOME" => Some("/xdg".to_string()),
        "HOME" => Some("/home/u".to_string()),
        _ => None,
    };
    assert_eq!(
        locate(Some(Path::new("/flag.toml")), &env),
        Some((PathBuf::from("/flag.toml"), true))
    );
    assert_eq!(locate(None, &env), Some((PathBuf::from("/a.toml"), true)));
    let env2 = |k: &str| env(k).filter(|_| k != "TOOLSIFT_CONFIG");
    assert_eq!(
        locate(None, &env2),
        Some((PathBuf::from("/xdg/toolsift/config.toml"), false))
    );
    let env3 = |k: &str| env(k).filter(|_| k == "HOME");
    assert_eq!(
        locate(None, &env3),
        Some((PathBuf::from("/home/u/.config/toolsift/config.toml"), false))
    );
}

#[test]
fn user_file_merges_and_missing_default_location_is_fine() {
    let dir = std::env::temp_dir().join(format!("toolsift-config-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("toolsift")).unwrap();
    let file = dir.join("toolsift/config.toml");
    std::fs::write(
        &file,
        "[explorer]\ninitial_tool_count = 3\n[keys]\nquit = \"x\"\n",
    )
    .unwrap();
    let d = dir.display().to_string();
    let env = move |k: &str| (k == "XDG_CONFIG_HOME").then(|| d.clone());
    let c = Config::load_with(None, &env).unwrap();
    assert_eq!(
        c.explorer.settings.handle.initial_tool_count,
        Some(crate::tools_handle::InitialToolCount::new(3))
    );
    assert_eq!(
        c.explorer.settings.handle.strategy,
        Some(Strategy::Deferred)
    );
    assert_eq!(c.user_keys["quit"], ["x"]);
    assert_eq!(c.source.as_deref(), Some(file.as_path()));
    std::fs::remove_file(&file).unwrap();
    assert!(Config::load_with(None, &env).unwrap().source.is_none());
    // A file named explicitly must exist.
    let err = Config::load_with(Some(&file), &no_env).unwrap_err();
    assert!(err.to_string().contains("cannot read"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_name_file_line_and_key() {
    let err = parse("[explorer]\nstrategy = \n", "c.toml").unwrap_err();
    assert!(err.to_string().starts_with("c.toml:2:"), "{err}");
    let err = parse("[explorer]\nstratgy = \"all\"\n", "c.toml").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("c.toml:2:1: unknown field `stratgy`, expected one of `strategy`, "),
        "{err}"
    );
    assert!(
        err.to_string().ends_with("`queries`, `context_budget`"),
        "{err}"
    );
    let err = parse("[colors]\n", "c.toml").unwrap_err();
    assert!(err.to_string().contains("colors"), "{err}");
}

#[test]
fn the_built_in_file_states_the_code_defaults() {
    let x = parse(DEFAULT_CONFIG, "built-in config").unwrap().explorer;
    let explorer = Settings::default();
    assert_eq!(x.settings.handle.strategy, Some(explorer.strategy));
    assert_eq!(
        x.settings.handle.initial_tool_count,
        Some(DEFAULT_INITIAL_TOOL_COUNT)
    );
    assert_eq!(
        x.settings.handle.initial_tool_count,
        Some(explorer.initial_tool_count)
    );
    assert_eq!(x.settings.handle.max_loaded_tools, None);
    assert_eq!(x.settings.cap.max_tools, None);
    assert_eq!(x.settings.ranker, Some(Ranker::default()));
    assert_eq!(x.settings.handle.token_basis, None, "chosen by no one");
    assert_eq!(x.settings.handle.token_basis, explorer.token_basis);
}

#[test]
fn typed_values_parse() {
    let f = parse(
        "[explorer]\nstrategy = \"all\"\ntoken_basis = \"cl100k_base\"\nranker = \"embeddings\"\n",
        "c.toml",
    )
    .unwrap();
    assert_eq!(f.explorer.settings.handle.strategy, Some(Strategy::All));
    assert_eq!(
        f.explorer.settings.handle.token_basis,
        Some(TokenBasis::Cl100kBase)
    );
    assert_eq!(f.explorer.settings.ranker, Some(Ranker::Embeddings));
}

#[test]
fn a_bad_value_names_file_line_and_column_and_what_was_found() {
    let cases = [
        (
            "[explorer]\nstrategy = \"lazy\"\n",
            "c.toml:2:12: strategy must be all or deferred, not \"lazy\"",
        ),
        (
            "[explorer]\ninitial_tool_count = 2\ntoken_basis = \"gpt2\"\n",
            "c.toml:3:15: token_basis must be o200k_base, cl100k_base, estimated_bytes_div_4, openai, openai:MODEL, anthropic or anthropic:MODEL (:any after an Anthropic basis for tool_choice any or tool), not \"gpt2\"",
        ),
        (
            "[explorer]\nranker = \"dense\"\n",
            "c.toml:2:10: ranker must be bm25, embeddings or hybrid, not \"dense\"",
        ),
        // Regex is the query box's mode, not a setting of the explorer.
        (
            "[explorer]\nranker = \"regex\"\n",
            "c.toml:2:10: ranker must be bm25, embeddings or hybrid, not \"regex\"",
        ),
        (
            "[explorer]\nstrategy = 3\n",
            "c.toml:2:12: strategy must be all or deferred, not 3",
        ),
        // The SDK's rules, at the value.
        (
            "[explorer]\ninitial_tool_count = -1\n",
            "c.toml:2:22: initial_tool_count must be a non-negative integer, not -1",
        ),
        (
            "[explorer]\nmax_loaded_tools = 0\n",
            "c.toml:2:20: max_loaded_tools must be a positive integer, not 0",
        ),
        (
            "[explorer]\nmax_tools = \"8\"\n",
            "c.toml:2:13: max_tools must be a positive integer, not \"8\"",
        ),
        (
            "[explorer]\ncontext_budget = 1.5\n",
            "c.toml:2:18: context_budget must be a non-negative integer, not 1.5",
        ),
        (
            "[serve]\nmax_body_bytes = -1\n",
            "c.toml:2:18: max_body_bytes must be a non-negative integer, not -1",
        ),
        (
            "[serve]\ndefault_ranker = \"dense\"\n",
            "c.toml:2:18: default_ranker must be bm25, embeddings, hybrid or regex, not \"dense\"",
        ),
        (
            "[serve]\nlog_queries = \"yes\"\n",
            "c.toml:2:15: log_queries must be true or false, not \"yes\"",
        ),
        (
            "[serve]\naddr = \"localhost\"\n",
            "c.toml:2:8: addr must be an IP address and a port (HOST:PORT), not \"localhost\"",
        ),
        (
            "[embeddings]\nbatch = [1]\n",
            "c.toml:2:9: batch must be a non-negative integer, not an array",
        ),
        (
            "[embeddings]\ndisk_cache = 1\n",
            "c.toml:2:14: disk_cache must be true or false, not 1",
        ),
    ];
    for (text, expected) in cases {
        let err = parse(text, "c.toml").unwrap_err();
        assert!(matches!(err, ConfigError::Syntax { .. }), "{err:?}");
        assert_eq!(err.to_string(), expected);
    }
    // Good values still read.
    let f = parse(
        "[explorer]\ninitial_tool_count = 0\nmax_tools = 3\ncontext_budget = 0\n[serve]\naddr = \"127.0.0.1:0\"\nlog_queries = true\n",
        "c.toml",
    )
    .unwrap();
    assert_eq!(
        f.explorer.settings.handle.initial_tool_count,
        Some(crate::tools_handle::InitialToolCount::new(0))
    );
    assert_eq!(
        f.explorer.settings.cap.max_tools,
        crate::tools_handle::MaxTools::new(3)
    );
    assert_eq!(f.explorer.context_budget, Some(0));
    assert_eq!(f.serve.log_queries, Some(true));
}

#[test]
fn the_explorer_service_is_a_url_checked_at_its_line() {
    let f = parse(
        "[explorer]\nservice = \"http://127.0.0.1:8787\"\n",
        "c.toml",
    )
    .unwrap();
    assert_eq!(f.explorer.service.as_deref(), Some("http://127.0.0.1:8787"));
    let err = parse("[explorer]\nservice = \"ftp://tools.example\"\n", "c.toml").unwrap_err();
    assert!(matches!(err, ConfigError::Syntax { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.starts_with("c.toml:2:11: "), "{text}");
    assert!(text.contains("ftp://tools.example"), "{text}");
    assert!(text.contains("absolute http(s) URL"), "{text}");
    // A user file's service replaces none; a later one wins.
    let mut c = Config::load_with(None, &|_| None).unwrap();
    assert_eq!(c.explorer.service, None);
    c.merge(f);
    assert_eq!(c.explorer.service.as_deref(), Some("http://127.0.0.1:8787"));
    c.merge(parse("[explorer]\n", "d.toml").unwrap());
    assert_eq!(c.explorer.service.as_deref(), Some("http://127.0.0.1:8787"));
}

#[test]
fn a_path_a_config_file_gives_is_beside_it_or_under_home() {
    use std::path::Path;
    let config = Some(Path::new("/etc/toolsift/config.toml"));
    assert_eq!(
        path_in("learned.jsonl", config, Some("/home/u")),
        Path::new("/etc/toolsift/learned.jsonl")
    );
    assert_eq!(
        path_in("~/state/learned.jsonl", config, Some("/home/u")),
        Path::new("/home/u/state/learned.jsonl")
    );
    assert_eq!(
        path_in("/var/learned.jsonl", config, Some("/home/u")),
        Path::new("/var/learned.jsonl")
    );
    // No home: "~/" is a directory named "~" beside the file; no file: as
    // given.
    assert_eq!(
        path_in("~/l.jsonl", config, None),
        Path::new("/etc/toolsift/~/l.jsonl")
    );
    assert_eq!(path_in("l.jsonl", None, None), Path::new("l.jsonl"));
}
