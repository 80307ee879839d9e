//! `toolsift serve`: its settings merged from the flags, the config file's
//! `[serve]` and the defaults; then the server, until a signal stops it.

use super::args::ServeArgs;
use super::error::CliError;
use super::output::write_stdout;

/// The API keys named by `--api-key-env` (`flag`), else by the config
/// file's `api_key_env`, read from the environment.
pub(super) fn api_keys(
    flag: &[String],
    file: Option<&[String]>,
) -> Result<toolsift::server::ApiKeys, CliError> {
    let names = if flag.is_empty() {
        file.unwrap_or_default()
    } else {
        flag
    };
    toolsift::server::ApiKeys::from_env(names, &|n| std::env::var(n).ok())
        .map_err(|e| CliError::Usage(e.to_string()))
}

/// The server's settings: flags, then the config file's `[serve]`, then the
/// defaults.
fn serve_config(args: &ServeArgs) -> Result<toolsift::server::ServeConfig, CliError> {
    use toolsift::server::{ApiKeys, ServeConfig};
    let config = toolsift::config::Config::load(args.config.as_deref())?;
    let file = &config.serve;
    let mut c = ServeConfig::default();
    c.addr = args.addr.or(file.addr).unwrap_or(c.addr);
    c.keys = api_keys(&args.api_key_env, file.api_key_env.as_deref())?;
    c.max_body_bytes = args
        .max_body_bytes
        .or(file.max_body_bytes)
        .unwrap_or(c.max_body_bytes);
    if let Some(ms) = args.request_timeout_ms.or(file.request_timeout_ms) {
        c.request_timeout = std::time::Duration::from_millis(ms.max(1));
    }
    c.max_in_flight = args
        .max_in_flight
        .or(file.max_in_flight)
        .unwrap_or(c.max_in_flight)
        .max(1);
    c.max_queued = file.max_queued.unwrap_or(c.max_queued);
    c.log_queries = args.log_queries || file.log_queries.unwrap_or(false);
    c.insecure_no_auth = args.insecure_no_auth || file.insecure_no_auth.unwrap_or(false);
    let s = &mut c.service;
    s.max_catalog_tools = args
        .max_catalog_tools
        .or(file.max_catalog_tools)
        .unwrap_or(s.max_catalog_tools);
    s.default_max_tools = args
        .default_max_tools
        .or(file.default_max_tools)
        .unwrap_or(s.default_max_tools);
    if s.default_max_tools == 0 {
        return Err(CliError::Usage(
            "--default-max-tools must be a positive integer".into(),
        ));
    }
    s.token_basis = args
        .token_basis
        .or(file.token_basis)
        .unwrap_or(s.token_basis);
    s.max_sessions = file.max_sessions.unwrap_or(s.max_sessions);
    if let Some(secs) = file.session_idle_secs {
        s.session_idle = std::time::Duration::from_secs(secs);
    }
    s.cache_bytes = file.cache_bytes.unwrap_or(s.cache_bytes);
    s.token_cache_bytes = file.token_cache_bytes.unwrap_or(s.token_cache_bytes);
    if let Some(ms) = args.upstream_timeout_ms.or(file.upstream_timeout_ms) {
        c.upstream_timeout = std::time::Duration::from_millis(ms.max(1));
    }
    let ms = |flag: Option<u64>, key: Option<u64>, default: std::time::Duration| {
        flag.or(key)
            .map_or(default, |ms| std::time::Duration::from_millis(ms.max(1)))
    };
    c.conn.head_timeout = ms(
        args.head_timeout_ms,
        file.head_timeout_ms,
        c.conn.head_timeout,
    );
    c.conn.idle_timeout = ms(
        args.idle_timeout_ms,
        file.idle_timeout_ms,
        c.conn.idle_timeout,
    );
    c.conn.shutdown_grace = ms(
        args.shutdown_grace_ms,
        file.shutdown_grace_ms,
        c.conn.shutdown_grace,
    );
    c.conn.max_connections = args
        .max_connections
        .or(file.max_connections)
        .unwrap_or(c.conn.max_connections)
        .max(1);
    c.max_passthrough = args
        .max_passthrough
        .or(file.max_passthrough)
        .unwrap_or(c.max_passthrough)
        .max(1);
    c.max_passthrough_queued = file.max_passthrough_queued.unwrap_or(c.max_passthrough);
    if let Some(name) = args
        .metrics_key_env
        .as_ref()
        .or(file.metrics_key_env.as_ref())
    {
        let keys = ApiKeys::from_env(std::slice::from_ref(name), &|n| std::env::var(n).ok())
            .map_err(|e| {
                CliError::Usage(e.to_string().replace("--api-key-env", "--metrics-key-env"))
            })?;
        c.metrics_key = std::env::var(name).ok().filter(|_| !keys.is_empty());
    }
    if let Some(spec) = args.sessions.as_ref().or(file.sessions.as_ref()) {
        c.sessions = spec
            .parse()
            .map_err(|e| CliError::Usage(format!("--sessions {e}")))?;
    }
    c.store.wait_replicas = args
        .sessions_wait_replicas
        .or(file.sessions_wait_replicas)
        .unwrap_or(c.store.wait_replicas);
    if let Some(mb) = args.shared_cache_mb.or(file.shared_cache_mb) {
        c.store.shared.bytes = mb.saturating_mul(1 << 20);
    }
    match args.shared_cache_ttl_secs.or(file.shared_cache_ttl_secs) {
        Some(0) => {
            return Err(CliError::Usage(
                "--shared-cache-ttl-secs must be a positive integer".into(),
            ));
        }
        Some(secs) => c.store.shared.ttl = std::time::Duration::from_secs(secs),
        None => {}
    }
    c.upstreams = upstreams(args, file, &|n| std::env::var(n).ok())?;
    s.embeddings = args.embed.build(Some(&config.embeddings), false)?;
    s.default_ranker = args
        .default_ranker
        .or(file.default_ranker)
        .unwrap_or(s.default_ranker);
    s.gate = args
        .gate
        .map(super::args::Switch::on)
        .or(file.gate)
        .unwrap_or(s.gate);
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
