//! `toolsift model status|fetch|remove`: the search model every front end
//! ranks with by default (hybrid: the dense model plus BM25F), in the
//! Hugging Face hub cache.

use clap::{Args, Subcommand};

use super::error::CliError;
#[cfg(feature = "embed-local")]
use toolsift::embed::hub::{self, HubSettings, ModelId};

#[derive(Args)]
pub struct ModelArgs {
    #[command(subcommand)]
    pub action: ModelAction,
}

#[derive(Subcommand)]
pub enum ModelAction {
    /// Which model search ranks with and why (the one built in, or one the config or environment names); with an id, whether that model is in the hub cache.
    Status {
        /// A Hugging Face id: whether it is fetched (default: the model search ranks with).
        #[arg(value_name = "HF_ID")]
        model: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Fetch the model into the hub cache now, with a progress bar (once; later runs read it there).
    Fetch {
        #[arg(value_name = "HF_ID")]
        model: Option<String>,
    },
    /// Forget a fetched model: its folder in the hub cache goes (search ranks with BM25F until it is fetched again).
    Remove {
        #[arg(value_name = "HF_ID")]
        model: Option<String>,
    },
}

#[cfg(not(feature = "embed-local"))]
pub fn run(_args: &ModelArgs) -> Result<(), CliError> {
    Err(CliError::Usage(
        "this toolsift was built without the embed-local feature, so it runs no model; search ranks with BM25F".into(),
    ))
}

#[cfg(feature = "embed-local")]
pub fn run(args: &ModelArgs) -> Result<(), CliError> {
    let env = |n: &str| std::env::var(n).ok();
    let settings = HubSettings::from_env(&env);
    let offline = toolsift::embed::offline_in(&env);
    match &args.action {
        #[cfg(bundled_model)]
        ModelAction::Status { model: None, json } => super::model_status::ranking(*json),
        ModelAction::Status { model, json } => status(&model_id(model)?, *json, &settings, offline),
        ModelAction::Fetch { model } => fetch(&model_id(model)?, &settings, offline),
        ModelAction::Remove { model } => remove(&model_id(model)?, &settings),
    }
}

/// The model named (default: the one search ranks with).
#[cfg(feature = "embed-local")]
fn model_id(m: &Option<String>) -> Result<ModelId, CliError> {
    let text = m.as_deref().unwrap_or(toolsift::embed::DEFAULT_MODEL);
    ModelId::parse(text).ok_or_else(|| {
        CliError::Usage(format!(
            "{:?} is not a Hugging Face model id (owner/name[@revision])",
            toolsift::terminal_text::escape(text)
        ))
    })
}

/// A path, safe to print.
#[cfg(feature = "embed-local")]
fn esc(p: &std::path::Path) -> String {
    toolsift::terminal_text::escape(&p.display().to_string()).into_owned()
}

/// `model status HF_ID`: whether the model is in the hub cache, and what
/// search ranks with because of it.
#[cfg(feature = "embed-local")]
fn status(
    model: &ModelId,
    json: bool,
    settings: &HubSettings,
    offline: bool,
) -> Result<(), CliError> {
    let dir = hub::cached(model, settings);
    let bytes = dir
        .as_ref()
        .map(|_| hub::bytes_under(&hub::repo_folder(model, settings)));
    let default = model.to_string() == toolsift::embed::DEFAULT_MODEL;
    let ranks = match (&dir, default) {
        (Some(_), true) => "hybrid (this model and BM25F)".to_string(),
        (Some(_), false) => format!("hybrid with --embeddings-local {model}"),
        (None, true) if offline => {
            "BM25F alone (the model is not fetched and fetching is off)".to_string()
        }
        (None, true) => {
            "hybrid, once the model is fetched on first use (BM25F if it cannot be)".to_string()
        }
        (None, false) => format!("--embeddings-local {model} fetches it on first use"),
    };
    if json {
        let v = serde_json::json!({
            "model": model.to_string(),
            "cached": dir.is_some(),
            "path": dir.as_ref().map(|d| d.display().to_string()),
            "bytes": bytes,
            "hub": settings.endpoint,
            "cache": settings.cache.display().to_string(),
            "offline": offline,
            "search_ranks_with": ranks,
        });
        return super::output::write_stdout(&format!("{v:#}\n"));
    }
    let mut out = format!("model    {model}\n");
    match (&dir, bytes) {
        (Some(d), Some(b)) => out.push_str(&format!(
            "fetched  yes: {} ({})\n",
            esc(d),
            toolsift::numbers::bytes(b)
        )),
        _ if default => out.push_str(&format!(
            "fetched  no (about {} MB from {})\n",
            toolsift::embed::DEFAULT_MODEL_BYTES / 1_000_000,
            toolsift::terminal_text::escape(&settings.endpoint)
        )),
        _ => out.push_str(&format!(
            "fetched  no (from {})\n",
            toolsift::terminal_text::escape(&settings.endpoint)
        )),
    }
    out.push_str(&format!("cache    {}\n", esc(&settings.cache)));
    out.push_str(&format!(
        "offline  {}\n",
        if offline {
            "yes (TOOLSIFT_OFFLINE or HF_HUB_OFFLINE): nothing is fetched"
        } else {
            "no: fetched on first use"
        }
    ));
    out.push_str(&format!("search   {ranks}\n"));
    super::output::write_stdout(&out)
}

/// `model fetch`: the model into the hub cache now, with a progress bar.
#[cfg(feature = "embed-local")]
fn fetch(model: &ModelId, settings: &HubSettings, offline: bool) -> Result<(), CliError> {
    if offline {
        return Err(CliError::Usage(
            "fetching is off (TOOLSIFT_OFFLINE or HF_HUB_OFFLINE is set); unset it to fetch".into(),
        ));
    }
    let dir = hub::resolve(model, settings, &mut |m| eprintln!("toolsift: {m}"))
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let bytes = hub::bytes_under(&hub::repo_folder(model, settings));
    super::output::write_stdout(&format!(
        "{model}: at hand in {} ({})\n",
        esc(&dir),
        toolsift::numbers::bytes(bytes)
    ))
}

/// `model remove`: the model's folder in the hub cache goes.
#[cfg(feature = "embed-local")]
fn remove(model: &ModelId, settings: &HubSettings) -> Result<(), CliError> {
    match hub::remove(model, settings).map_err(|e| CliError::Usage(e.to_string()))? {
        Some(b) => super::output::write_stdout(&format!(
            "{model}: removed from {} ({} freed)\n",
            esc(&settings.cache),
            toolsift::numbers::bytes(b)
        )),
        None => super::output::write_stdout(&format!(
            "{model}: not in {}; nothing to remove\n",
            esc(&settings.cache)
        )),
    }
}
