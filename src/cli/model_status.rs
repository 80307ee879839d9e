//! `toolsift model status` with no id: which model search ranks with by
//! default and why, read from what every front end reads (the config
//! file's `[embeddings]`, the `TOOLSIFT_EMBEDDINGS_*` and `TOOLSIFT_MODEL`
//! variables); a command's own flags name another for that command.

use toolsift::embed::EmbeddingSettings;
use toolsift::terminal_text::escape;

use super::error::CliError;

/// What ranks, and why.
struct Ranking {
    model: String,
    source: &'static str,
    why: String,
    bytes: Option<u64>,
}

fn decide(config: &toolsift::config::Config, env: &dyn Fn(&str) -> Option<String>) -> Ranking {
    let from_env = EmbeddingSettings::from_env(env);
    let named = |s: &EmbeddingSettings| s.local.clone().or_else(|| s.url.clone());
    if let Some(m) = named(&from_env) {
        return Ranking {
            model: m,
            source: "environment",
            why: "TOOLSIFT_EMBEDDINGS_LOCAL or TOOLSIFT_EMBEDDINGS_URL names it".into(),
            bytes: None,
        };
    }
    if let Some(m) = named(&config.embeddings) {
        return Ranking {
            model: m,
            source: "config",
            why: format!("the config file names it ({})", config.origin()),
            bytes: None,
        };
    }
    if toolsift::embed::model_off_in(env) {
        return Ranking {
            model: "none".into(),
            source: "off",
            why: "TOOLSIFT_MODEL=off: BM25F ranks alone".into(),
            bytes: None,
        };
    }
    Ranking {
        model: toolsift::embed::bundled::NAME.into(),
        source: "built in",
        why: "no model is named, so the one built into toolsift ranks (all-MiniLM-L6-v2 tuned for tool search; nothing fetched, works offline)".into(),
        bytes: Some(toolsift::embed::bundled::bytes()),
    }
}

pub fn ranking(json: bool) -> Result<(), CliError> {
    let env = |n: &str| std::env::var(n).ok();
    let config = toolsift::config::Config::load(None)?;
    let r = decide(&config, &env);
    let ranks = if r.source == "off" {
        "BM25F alone".to_string()
    } else {
        format!("hybrid: {} and BM25F, with the learned ranking", r.model)
    };
    if json {
        let v = serde_json::json!({
            "model": r.model,
            "source": r.source,
            "why": r.why,
            "bytes": r.bytes,
            "search_ranks_with": ranks,
        });
        return super::output::write_stdout(&format!("{v:#}\n"));
    }
    let mut out = format!("model    {}\n", escape(&r.model));
    out.push_str(&format!("source   {}", r.source));
    if let Some(b) = r.bytes {
        out.push_str(&format!(" ({})", toolsift::numbers::bytes(b)));
    }
    out.push('\n');
    out.push_str(&format!("why      {}\n", escape(&r.why)));
    out.push_str(&format!("search   {}\n", escape(&ranks)));
    out.push_str("other    --embeddings-local DIR|HF_ID on a command, or [embeddings] local in the config file, picks another\n");
    super::output::write_stdout(&out)
}
