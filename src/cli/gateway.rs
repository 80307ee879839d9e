//! `toolsift gateway`: an MCP server in front of MCP servers, over stdio
//! (the default: what a host starts) or streamable HTTP (`--http ADDR`).
//! Its settings: flags, then the config file's `[gateway]`, then defaults.

use std::sync::Arc;
use std::time::Duration;

use toolsift::gateway::{
    self, Gateway, GatewayConfig, HttpConfig, ListSaving, Log, Recorder, ToolRule,
};
use toolsift::tokens::TokenBasis;

use super::args::GatewayArgs;
use super::error::CliError;
use super::mcp::McpArgs;
use super::output::emit;

/// Everything the gateway needs.
struct Plan {
    config: GatewayConfig,
    http: Option<HttpConfig>,
    basis: TokenBasis,
    log_calls: bool,
    call_timeout: Duration,
    shutdown_grace: Duration,
    /// The named keys, for the servers each key logs in to as itself.
    key_logins: toolsift::sources::mcp::KeyLogins,
}

/// A count from the flags or the file (0 is refused there) as a size.
fn count(n: Option<u64>) -> Option<usize> {
    n.map(|n| usize::try_from(n).unwrap_or(usize::MAX).max(1))
}

/// The gateway's settings: the flags over the config file's `[gateway]`,
/// over the defaults ([`toolsift::layer`]).
fn plan(args: &GatewayArgs) -> Result<Plan, CliError> {
    use toolsift::layer::Layer;
    let file_config = toolsift::config::Config::load(args.config.as_deref())?;
    let file = &file_config.gateway;
    // A bad max_tools is named as the user wrote it: the flag, or the file's key.
    if let Some(n) = args.settings.cap.max_tools {
        gateway::check_max_tools(n, "--max-tools")?;
    }
    if let Some(n) = file.cap.max_tools {
        let what = match &file_config.source {
            Some(path) => format!("{}: [gateway] max_tools", path.display()),
            None => "[gateway] max_tools".to_string(),
        };
        gateway::check_max_tools(n, &what)?;
    }
    let layer = args.settings.clone().over(file.clone());
    let mut c = GatewayConfig::default();
    // A value out of range is named by its flag.
    c.apply(&layer)
        .map_err(|e| e.naming(|key| format!("--{}", key.replace('_', "-"))))?;
    c.service.usage = learning(args, &file_config)?.map(Arc::new);
    add_rules(&mut c.rules, args, file)?;
    choose_ranker(args, &file_config, layer.ranker.is_some(), &mut c)?;
    let shutdown_grace = layer
        .shutdown_grace_secs
        .map_or(gateway::DEFAULT_SHUTDOWN_GRACE, Duration::from_secs);
    // The variables of the gateway's own keys reach no server, whatever a
    // servers-file entry inherits.
    toolsift::sources::mcp::withhold(
        [&layer.api_key_env, &layer.operator_key_env]
            .into_iter()
            .flatten()
            .flatten()
            .map(String::as_str)
            .chain(file_config.access.envs()),
    );
    let named = named_keys(&layer, &file_config.access)?;
    let http = http_config(&layer, shutdown_grace, named.1)?;
    c.access = named.0;
    let key_logins = gateway::key_logins(
        &file_config.access,
        layer.api_key_env.as_deref().unwrap_or_default(),
        http.is_some(),
        &|n| std::env::var(n).ok(),
    );
    Ok(Plan {
        key_logins,
        config: c,
        http,
        basis: layer.token_basis.unwrap_or_default(),
        log_calls: layer.log_calls.unwrap_or(false),
        call_timeout: Duration::from_secs(
            layer
                .call_timeout_secs
                .unwrap_or(gateway::DEFAULT_CALL_TIMEOUT.as_secs())
                .max(1),
        ),
        shutdown_grace,
    })
}

/// The learned use to rank with (`--learn`): the flag's file, else the
/// config file's (named as the user wrote it), opened, its warnings said.
fn learning(
    args: &GatewayArgs,
    file_config: &toolsift::config::Config,
) -> Result<Option<toolsift::service::usage::Usage>, CliError> {
    let learn = match (&args.learn, &file_config.gateway.learn) {
        (Some(path), _) => Some((path.clone(), "--learn".to_string())),
        (None, Some(value)) => {
            let home = std::env::var("HOME").ok();
            let origin = file_config.source.as_deref();
            let path = toolsift::config::path_in(value, origin, home.as_deref());
            let what = match origin {
                Some(o) => format!("{}: [gateway] learn", o.display()),
                None => "[gateway] learn".to_string(),
            };
            Some((path, what))
        }
        (None, None) => None,
    };
    let Some((path, what)) = learn else {
        return Ok(None);
    };
    let usage = toolsift::service::usage::Usage::open(&path)
        .map_err(|e| CliError::Usage(format!("{what} {e}")))?;
    for w in usage.warnings() {
        eprintln!(
            "toolsift: warning: {what} {}",
            toolsift::terminal_text::escape(w)
        );
    }
    Ok(Some(usage))
}

/// The tool rules: the config file's `[gateway.tools]`, then the flags'
/// (`--allow-read`, `--allow`, `--ask`, `--deny`), a bad pattern named by
/// where it was written.
fn add_rules(
    rules: &mut gateway::ToolRules,
    args: &GatewayArgs,
    file: &toolsift::config::GatewaySection,
) -> Result<(), CliError> {
    for (pattern, rule) in &file.tools {
        rules
            .add(pattern, *rule)
            .map_err(|e| CliError::Usage(format!("[gateway.tools]: {e}")))?;
    }
    for (flag, patterns, rule) in [
        ("--allow-read", &args.allow_read, ToolRule::Read),
        ("--allow", &args.allow, ToolRule::Allow),
        ("--ask", &args.ask, ToolRule::Ask),
        ("--deny", &args.deny, ToolRule::Deny),
    ] {
        for pattern in patterns {
            rules
                .add(pattern, rule)
                .map_err(|e| CliError::Usage(format!("{flag}: {e}")))?;
        }
    }
    Ok(())
}

/// The embeddings and the ranker `search_tools` ranks with. No ranker and
/// no provider named: hybrid with the default model when the hub cache
/// holds it (the start-up line says which ranker answers). A ranker that
/// needs embeddings without them, and the regex ranker, are refused.
fn choose_ranker(
    args: &GatewayArgs,
    file_config: &toolsift::config::Config,
    ranker_named: bool,
    c: &mut GatewayConfig,
) -> Result<(), CliError> {
    c.service.embeddings = args.embed.build(Some(&file_config.embeddings), false)?;
    if !ranker_named && c.service.embeddings.is_none() {
        super::embed::default_for_service(
            &args.embed,
            &file_config.embeddings,
            &mut c.service,
            "toolsift gateway: search_tools ranks with hybrid:",
            "toolsift gateway: search_tools",
        );
        if c.service.embeddings.is_some() {
            c.ranker = toolsift::engine::Ranker::Hybrid;
        }
    }
    if c.ranker.needs_embeddings() && c.service.embeddings.is_none() {
        return Err(CliError::Usage(format!(
            "--ranker {}: needs an embedding provider (--embeddings-local or --embeddings-url, or [embeddings] in the config)",
            c.ranker
        )));
    }
    if c.ranker.is_regex() {
        return Err(CliError::Usage(
            "--ranker regex: search_tools takes words; choose bm25, embeddings or hybrid".into(),
        ));
    }
    Ok(())
}

/// The named keys of the config file (`[gateway.keys]`) and their
/// values, over HTTP; over stdio (one user, no keys) none, and a note
/// says so.
fn named_keys(
    layer: &toolsift::config::GatewaySection,
    plan: &toolsift::config::AccessPlan,
) -> Result<(gateway::Access, Vec<String>), CliError> {
    if plan.keys.is_empty() {
        return Ok(Default::default());
    }
    if layer.http.is_none() {
        eprintln!(
            "toolsift: note: [gateway.keys] name API keys of the HTTP gateway; over stdio (one user, no keys) every tool is reached"
        );
        return Ok(Default::default());
    }
    gateway::Access::from_plan(plan, &|n| std::env::var(n).ok())
        .map_err(|e| CliError::Usage(e.to_string()))
}

/// Over HTTP (`--http ADDR`): the address, the API keys (`named`: the
/// config file's named keys), the operator keys, the connections' grace
/// (the calls', `--shutdown-grace`, so the log says the one the docs do)
/// and the sessions' bounds; a bind the keys do not allow is refused.
fn http_config(
    layer: &toolsift::config::GatewaySection,
    shutdown_grace: Duration,
    named: Vec<String>,
) -> Result<Option<HttpConfig>, CliError> {
    let Some(addr) = layer.http else {
        return Ok(None);
    };
    let keys = super::serve::api_keys(layer.api_key_env.as_deref().unwrap_or_default())?
        .with_keys(named)
        .with_operators(super::serve::operator_keys(
            layer.operator_key_env.as_deref(),
        )?);
    let config = HttpConfig {
        addr,
        keys,
        insecure_no_auth: layer.insecure_no_auth.unwrap_or(false),
        conn: toolsift::http::conn::ConnLimits {
            shutdown_grace,
            ..Default::default()
        },
        sessions: gateway::SessionLimits {
            max: count(layer.max_sessions).unwrap_or(gateway::DEFAULT_MAX_SESSIONS),
            max_per_key: count(layer.max_sessions_per_key)
                .unwrap_or(gateway::DEFAULT_MAX_SESSIONS_PER_KEY),
        },
    };
    gateway::check_bind(&config)?;
    Ok(Some(config))
}

/// The gateway over the servers of `mcp` and the catalog `files`, with the
/// servers' changes to follow.
fn build(
    files: &[String],
    mcp: &McpArgs,
    config: GatewayConfig,
    recorder: Recorder,
    call_timeout: Duration,
    dry_run: bool,
    start_wait: Duration,
) -> Result<Built, CliError> {
    if !mcp.any() {
        return Err(CliError::Usage(
            "the gateway needs MCP servers to stand in front of: --mcp CONFIG (Claude Desktop, Cursor or Claude Code's mcpServers JSON, or TOML), --mcp-stdio \"CMD ARGS\" or --mcp-url URL".into(),
        ));
    }
    let mut mcp = mcp.clone();
    mcp.call_timeout = Some(call_timeout);
    mcp.refuse_gateways = true;
    mcp.say_sandbox = true;
    // A dry run counts every server's tools: it waits for them. Serving, the
    // gateway answers the host at once, whatever server is slow.
    let (host, catalog, changes) = if dry_run {
        let (loaded, changes) = super::mcp_live::load_watching(&mcp)?;
        let host = loaded
            .host
            .ok_or_else(|| CliError::Usage("no MCP server is configured".into()))?;
        (host, Some(Arc::unwrap_or_clone(loaded.catalog)), changes)
    } else {
        let started = super::mcp_live::start_watching(&mcp, start_wait)?;
        (started.host, started.catalog, started.changes)
    };
    let file_catalogs = files
        .iter()
        .map(|f| toolsift::catalog::load(&toolsift::catalog::CatalogSource::parse(f)))
        .collect::<Result<Vec<_>, _>>()?;
    let gateway = Gateway::new(config, host, catalog, file_catalogs, recorder)?;
    Ok(Built {
        gateway: Arc::new(gateway),
        changes,
        servers: mcp,
    })
}

/// A gateway built, the servers' changes to follow, and the flags that
/// name its servers (to read the servers file again when it changes).
struct Built {
    gateway: Arc<Gateway>,
    changes: tokio::sync::mpsc::UnboundedReceiver<String>,
    servers: McpArgs,
}

pub fn run(args: &GatewayArgs) -> Result<(), CliError> {
    stand_first()?;
    let plan = plan(args)?;
    // Before any server starts: the metrics recorder is the process's. A
    // dry run sends nothing.
    let telemetry = if args.dry_run {
        toolsift::telemetry::Wanted::default()
    } else {
        toolsift::telemetry::start()?
    };
    // A dry run logs too (a tool rule that matches nothing is worth a
    // warning there most), but writes no trace.
    let recorder = if args.dry_run {
        Recorder::new(Log::Stderr, false, None)?
    } else {
        Recorder::new(Log::Stderr, plan.log_calls, args.trace.as_deref())?
    };
    // The port is taken before the servers start: one in use is said at
    // once, not after a long start.
    let listener = match (&plan.http, args.dry_run) {
        (Some(http), false) => Some(gateway::bind(http)?),
        _ => None,
    };
    // The servers' logins know the named keys; a key told to log in is
    // told the config file that names it.
    let mut servers = args.mcp.clone();
    servers.key_logins = plan.http.is_some().then(|| plan.key_logins.clone());
    servers.gateway_config = args.config.clone();
    let built = build(
        &args.catalogs,
        &servers,
        plan.config,
        recorder,
        plan.call_timeout,
        args.dry_run,
        start_wait(args.start_wait)?,
    )?;
    if args.dry_run {
        let outcome = dry_run(&built.gateway, plan.basis, args.json);
        // The servers go, and their temp folders with them.
        toolsift::sources::mcp::kill_all_servers();
        return outcome;
    }
    say_started(&built.gateway, plan.basis, plan.http.is_none());
    if let Some(said) = toolsift::telemetry::said(telemetry) {
        built.gateway.recorder().info(&said);
    }
    stop_calls_on_exit(&built.gateway, plan.shutdown_grace);
    let outcome = serve(built, plan.http, listener);
    // The servers go with the host; the last spans and metrics go out.
    toolsift::sources::mcp::kill_all_servers();
    toolsift::telemetry::shutdown();
    outcome
}

/// A gateway must stand first: one started as a server of another
/// gateway refuses (it would start itself again and again), and this one
/// leaves its process id in the variable its servers inherit, so a
/// gateway among them knows.
fn stand_first() -> Result<(), CliError> {
    if let Some(parent) = std::env::var_os(gateway::PARENT_VAR) {
        return Err(CliError::Usage(format!(
            "this gateway was started as a server of another toolsift gateway (process {}): a gateway in front of a gateway starts itself again and again. Take the gateway's entry out of the servers file the first one reads",
            parent.to_string_lossy()
        )));
    }
    // SAFETY: no other thread runs yet (the runtime and the servers start
    // after); the servers inherit it.
    unsafe { std::env::set_var(gateway::PARENT_VAR, std::process::id().to_string()) };
    Ok(())
}

/// `--dry-run`: the saving, and every server with its state (a failed one
/// with why) in the JSON.
fn dry_run(gateway: &Gateway, basis: TokenBasis, json: bool) -> Result<(), CliError> {
    let saving = gateway::list_saving(gateway, basis);
    let mut value = serde_json::to_value(&saving)?;
    let servers: Vec<toolsift::check::ServerReport> = gateway
        .server_states()
        .iter()
        .map(toolsift::check::ServerReport::from)
        .collect();
    value["servers"] = serde_json::to_value(servers)?;
    emit(json, &value, || saving_text(&saving))
}

/// The start-up lines: the tools and what the host sees, and over stdio
/// from a terminal, that the gateway waits for a host.
fn say_started(gateway: &Gateway, basis: TokenBasis, stdio: bool) {
    let catalog = gateway.catalog();
    gateway.recorder().info(&format!(
        "{} from {}; the host sees {} (the always-load tools, {}, {} and {})",
        toolsift::numbers::counted(catalog.len(), "tool"),
        catalog.name(),
        gateway::list_saving(gateway, basis).gateway_tools,
        gateway::SEARCH_TOOLS,
        gateway::CALL_READ_TOOL,
        gateway::CALL_TOOL,
    ));
    if stdio && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        gateway.recorder().info(
            "waiting for an MCP host on stdin (an MCP host such as Claude Desktop starts the gateway itself: see docs/gateway.md); --dry-run shows the saving, --http HOST:PORT serves HTTP; Ctrl-C stops",
        );
    }
}

/// On a signal, the calls in flight get `grace` to finish; the stop says
/// how many finished and how many were cut, and the last spans and
/// metrics go out.
fn stop_calls_on_exit(gateway: &Arc<Gateway>, grace: Duration) {
    gateway.drain().set_grace(grace);
    let stopping = gateway.clone();
    toolsift::sources::mcp::before_exit(move || {
        if let Some(stopped) = stopping.drain().stop()
            && stopped.finished + stopped.cut > 0
        {
            stopping.recorder().info(&format!(
                "stopping: {} finished, {} answered that the gateway stopped (grace {} s)",
                toolsift::numbers::counted(stopped.finished, "call"),
                stopped.cut,
                grace.as_secs()
            ));
        }
        toolsift::telemetry::shutdown();
    });
}

/// Serves the host (over HTTP on the port taken, or stdio) until it goes
/// or a signal comes, following the servers' changes and the servers
/// files meanwhile.
fn serve(
    built: Built,
    http: Option<HttpConfig>,
    listener: Option<std::net::TcpListener>,
) -> Result<(), CliError> {
    let Built {
        gateway,
        changes,
        servers,
    } = built;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("toolsift-gateway")
        .enable_all()
        .build()?;
    let outcome: Result<(), CliError> = runtime.block_on(async {
        tokio::spawn(gateway.clone().follow_changes(changes));
        let files = servers.mcp.clone();
        tokio::spawn(
            gateway
                .clone()
                .follow_servers_files(files, move || servers.read_config()),
        );
        match (http, listener) {
            (Some(http), Some(listener)) => {
                let shutdown = toolsift::http::shutdown_signal()?;
                Ok(gateway::serve_http_on(gateway.clone(), http, listener, shutdown).await?)
            }
            (Some(http), None) => {
                let shutdown = toolsift::http::shutdown_signal()?;
                Ok(gateway::serve_http(gateway.clone(), http, shutdown).await?)
            }
            (None, _) => Ok(gateway::serve_stdio(gateway.clone()).await?),
        }
    });
    runtime.shutdown_timeout(Duration::from_secs(1));
    outcome
}

/// The `--dry-run` and `check --gateway` lines.
pub fn saving_text(s: &ListSaving) -> String {
    use toolsift::numbers::thousands;
    use toolsift::terminal_text::escape;
    // A small catalog can cost more through the gateway (its three
    // meta-tools) than direct: said as a cost, never as "saved 0".
    let saved_line = if s.gateway_tokens > s.direct_tokens {
        let more = s.gateway_tokens - s.direct_tokens;
        format!(
            "costs more per tools/list:        {:>7} tokens (+{:.1} %): the gateway's own tools outweigh what it defers here",
            thousands(more),
            if s.direct_tokens == 0 {
                100.0
            } else {
                more as f64 * 100.0 / s.direct_tokens as f64
            }
        )
    } else {
        format!(
            "saved per tools/list:             {:>7} tokens ({:.1} %)",
            thousands(s.saved()),
            s.saved_pct()
        )
    };
    let mut out = format!(
        "tools/list direct:           {:>3} tool{}, {:>7} tokens ({})\ntools/list through gateway:  {:>3} tool{}, {:>7} tokens\n{saved_line}\na search_tools answer of {}: {} tokens with tools of the median size, up to {} with the largest\n",
        s.direct_tools,
        if s.direct_tools == 1 { " " } else { "s" },
        thousands(s.direct_tokens),
        s.label,
        s.gateway_tools,
        if s.gateway_tools == 1 { " " } else { "s" },
        thousands(s.gateway_tokens),
        toolsift::numbers::counted(s.answer_tools, "tool"),
        thousands(s.answer_tokens_median),
        thousands(s.answer_tokens_max),
    );
    if s.servers.len() > 1 {
        let shares: Vec<String> = s
            .servers
            .iter()
            .map(|p| {
                format!(
                    "{} {}, {} tokens",
                    escape(&p.server),
                    toolsift::numbers::counted(p.tools, "tool"),
                    thousands(p.tokens)
                )
            })
            .collect();
        out.push_str(&format!("direct, by server: {}\n", shares.join("; ")));
    }
    let always: Vec<String> = s
        .always_load
        .iter()
        .map(|n| escape(n).into_owned())
        .collect();
    out.push_str(&format!(
        "always-load (listed through the gateway): {}\n",
        if always.is_empty() {
            "none".to_string()
        } else {
            always.join(", ")
        }
    ));
    out
}

/// `--start-wait SECS`: from 0 to 600 seconds.
fn start_wait(secs: Option<f64>) -> Result<Duration, CliError> {
    match secs {
        None => Ok(gateway::START_WAIT),
        Some(s) if (0.0..=600.0).contains(&s) => Ok(Duration::from_secs_f64(s)),
        Some(s) => Err(CliError::Usage(format!(
            "--start-wait must be from 0 to 600 seconds, not {s}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saving(direct_tokens: u64, gateway_tokens: u64) -> ListSaving {
        ListSaving {
            basis: "o200k_base",
            label: "o200k_base",
            direct_tools: 2,
            direct_tokens,
            gateway_tools: 3,
            gateway_tokens,
            answer_tools: 8,
            answer_tokens_max: 10,
            answer_tokens_median: 5,
            servers: Vec::new(),
            always_load: Vec::new(),
        }
    }

    #[test]
    fn a_gateway_that_costs_more_says_so_and_never_saved_0() {
        let text = saving_text(&saving(300, 750));
        assert!(
            text.contains("costs more per tools/list:") && text.contains("450 tokens (+150.0 %)"),
            "{text}"
        );
        assert!(!text.contains("saved per tools/list"), "{text}");
        let text = saving_text(&saving(1_000, 250));
        assert!(text.contains("750 tokens (75.0 %)"), "{text}");
    }
}
