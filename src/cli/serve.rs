//! `toolsift serve`: its settings, the flags over the config file's
//! `[serve]` over the defaults; then the server, until a signal stops it.

use super::args::ServeArgs;
use super::error::CliError;
use super::output::write_stdout;

/// The API keys of the environment variables `names` (`--api-key-env`, or
/// the config file's `api_key_env`).
pub(super) fn api_keys(names: &[String]) -> Result<toolsift::server::ApiKeys, CliError> {
    toolsift::server::ApiKeys::from_env(names, &|n| std::env::var(n).ok())
        .map_err(|e| CliError::Usage(e.to_string()))
}

/// The operators' keys `--operator-key-env` names (none: no operator).
pub(super) fn operator_keys(
    names: Option<&[String]>,
) -> Result<toolsift::server::ApiKeys, CliError> {
    toolsift::server::ApiKeys::from_env(names.unwrap_or_default(), &|n| std::env::var(n).ok())
        .map_err(|e| CliError::Usage(e.to_string().replace("--api-key-env", "--operator-key-env")))
}

/// The server's settings: the flags over the config file's `[serve]`, over
/// the defaults ([`toolsift::layer`]).
fn serve_config(args: &ServeArgs) -> Result<toolsift::server::ServeConfig, CliError> {
    use toolsift::layer::Layer;
    use toolsift::server::{ApiKeys, ServeConfig};
    let config = toolsift::config::Config::load(args.config.as_deref())?;
    let file = &config.serve;
    let layer = args.settings.clone().over(file.clone());
    let mut c = ServeConfig::default();
    c.apply(&layer)?;
    c.keys = api_keys(layer.api_key_env.as_deref().unwrap_or_default())?
        .with_operators(operator_keys(layer.operator_key_env.as_deref())?);
    if let Some(name) = &layer.metrics_key_env {
        let keys = ApiKeys::from_env(std::slice::from_ref(name), &|n| std::env::var(n).ok())
            .map_err(|e| {
                CliError::Usage(e.to_string().replace("--api-key-env", "--metrics-key-env"))
            })?;
        c.metrics_key = std::env::var(name).ok().filter(|_| !keys.is_empty());
    }
    c.upstreams = upstreams(args, file, &|n| std::env::var(n).ok())?;
    let s = &mut c.service;
    s.embeddings = args.embed.build(Some(&config.embeddings), false)?;
    // No provider named: the default model serves the `embeddings` and
    // `hybrid` rankers (fetched once); requests that name none still rank
    // with BM25F, as the wire says.
    if s.embeddings.is_none() {
        super::embed::default_for_service(
            &args.embed,
            &config.embeddings,
            s,
            "toolsift serve: the embeddings and hybrid rankers use",
            "toolsift serve: no embeddings or hybrid ranker",
        );
    }
    if s.default_ranker.needs_embeddings() && s.embeddings.is_none() {
        return Err(CliError::Usage(format!(
            "--default-ranker {}: needs an embedding provider (--embeddings-local or --embeddings-url, or [embeddings] in the config)",
            s.default_ranker
        )));
    }
    Ok(c)
}

/// `PROVIDER=VALUE` of `flag`.
fn provider_pair(flag: &str, text: &str) -> Result<(toolsift::server::Provider, String), CliError> {
    let (p, v) = text.split_once('=').ok_or_else(|| {
        CliError::Usage(format!(
            "--{flag} {text:?}: write PROVIDER=VALUE, e.g. openai=..."
        ))
    })?;
    let p = p
        .parse()
        .map_err(|e| CliError::Usage(format!("--{flag} {text:?}: {e}")))?;
    Ok((p, v.to_string()))
}

/// The upstreams: flags, then `[serve.upstreams.PROVIDER]`, then the
/// providers' public URLs; keys from the named environment variables.
fn upstreams(
    args: &ServeArgs,
    file: &toolsift::config::ServeSection,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<toolsift::server::Upstreams, CliError> {
    use toolsift::server::{Provider, Upstream, Upstreams};
    for name in file.upstreams.keys() {
        name.parse::<Provider>()
            .map_err(|e| CliError::Usage(format!("config [serve.upstreams.{name}]: {e}")))?;
    }
    let mut urls = std::collections::BTreeMap::new();
    for text in &args.upstream {
        let (p, url) = provider_pair("upstream", text)?;
        urls.insert(p.name(), url);
    }
    let mut key_envs = std::collections::BTreeMap::new();
    for text in &args.upstream_key_env {
        let (p, name) = provider_pair("upstream-key-env", text)?;
        key_envs.insert(p.name(), name);
    }
    let mut out = Upstreams::default();
    for p in Provider::ALL {
        let section = file.upstreams.get(p.name());
        let url = urls
            .get(p.name())
            .cloned()
            .or_else(|| section.and_then(|s| s.url.clone()))
            .unwrap_or_else(|| p.api_base().to_string());
        let key_env = key_envs
            .get(p.name())
            .cloned()
            .or_else(|| section.and_then(|s| s.key_env.clone()));
        let key = match key_env {
            None => None,
            Some(name) => {
                let key = env(&name).filter(|k| !k.is_empty()).ok_or_else(|| {
                    CliError::Usage(format!(
                        "--upstream-key-env {}={name}: the environment variable is not set or empty",
                        p.name()
                    ))
                })?;
                if key.chars().any(|c| c.is_whitespace() || c.is_control()) {
                    return Err(CliError::Usage(format!(
                        "--upstream-key-env {}={name}: the key has white space or control characters",
                        p.name()
                    )));
                }
                Some(key)
            }
        };
        *out.get_mut(p) = if url == "none" {
            None
        } else {
            Some(
                Upstream::new(&url, key)
                    .map_err(|e| CliError::Usage(format!("--upstream {}: {e}", p.name())))?,
            )
        };
    }
    Ok(out)
}

pub fn run(args: &ServeArgs) -> Result<(), CliError> {
    let config = serve_config(args)?;
    toolsift::server::check_bind(&config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let shutdown = toolsift::server::shutdown_signal()?;
        let listener = toolsift::server::bind(&config).await?;
        toolsift::server::warm_up(&config).await;
        let local = listener.local_addr()?;
        write_stdout(&format!("listening on http://{local}\n"))?;
        Ok(toolsift::server::serve_on(listener, &config, shutdown).await?)
    })
}
