//! Starting (stdio) or reaching (streamable HTTP) one server and listing
//! every page of its tools, within a time limit.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{
    StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
};
use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;

use super::listener::Listener;
use super::owners::Tracked;
use super::reaper::spawn_registered;
use super::login::Before;
use super::screened::{LastUnreadable, ScreenedChild};
use super::{McpServer, Transport};

/// A live connection to one server.
pub(super) type Client = RunningService<RoleClient, Listener>;

/// How much of a server's stderr is kept for its error report.
const STDERR_TAIL_BYTES: usize = 2048;

pub(super) struct Connected {
    pub(super) client: Client,
    pub(super) tools: Vec<rmcp::model::Tool>,
    /// The tools it listed that could not be read, each a sentence.
    pub(super) skipped: Vec<String>,
    pub(super) pgid: Option<i32>,
}

pub(super) struct Failure {
    pub(super) why: String,
    pub(super) stderr_tail: String,
    pub(super) pgid: Option<i32>,
    /// The server's `WWW-Authenticate` challenge: it needs a login.
    pub(super) login: Option<String>,
    /// What became of the login kept for it (refused, not renewed).
    pub(super) before: super::login::Before,
    /// What the user should hear of its kept login (a file refused).
    pub(super) warning: Option<String>,
}

impl Failure {
    fn plain(why: String, stderr_tail: String, pgid: Option<i32>) -> Failure {
        Failure {
            why,
            stderr_tail,
            pgid,
            login: None,
            before: super::login::Before::Nothing,
            warning: None,
        }
    }
}

/// Connects to one server and lists every page of its tools, within `limit`.
pub(super) async fn connect_and_list(
    server: &McpServer,
    limit: Duration,
    listener: Listener,
) -> Result<Connected, Failure> {
    match &server.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
            inherit_env,
            sandbox,
        } => {
            // Sealed: the safe set (and what the entry asks to inherit),
            // then the entry's own env; never the rest of ours.
            let mut cmd = tokio::process::Command::new(command);
            cmd.env_clear()
                .envs(super::child_env::inherited(inherit_env, std::env::vars_os()))
                .envs(env)
                .args(args)
                .kill_on_drop(true)
                .process_group(0);
            if let Some(dir) = cwd {
                cmd.current_dir(dir);
            }
            if let super::Sandbox::On(grant) = sandbox {
                let at = (command.as_str(), args.as_slice());
                super::sandbox::confine(&server.name, &mut cmd, at, (env, cwd.as_deref()), grant)
                    .map_err(|e| {
                        Failure::plain(format!("cannot sandbox it: {e}"), String::new(), None)
                    })?;
            }
            connect_stdio(command, cmd, limit, listener).await
        }
        Transport::Http { url, headers, .. } => {
            let who = Who {
                server: &server.name,
                url,
                as_key: server.login_as.as_deref(),
            };
            connect_http(who, headers, limit, listener).await
        }
    }
}

/// The last [`STDERR_TAIL_BYTES`] a server wrote on its stderr, read as it
/// writes.
type StderrTail = Arc<Mutex<Vec<u8>>>;

/// Starts a stdio server and lists its tools within `limit`; a failure
/// carries the tail of its stderr, and says what its output held that
/// rmcp could not read when it did not answer in time.
async fn connect_stdio(
    command: &str,
    cmd: tokio::process::Command,
    limit: Duration,
    listener: Listener,
) -> Result<Connected, Failure> {
    let (process, stderr, unreadable) = start(cmd).map_err(|e| {
        Failure::plain(
            format!("cannot start {command:?}: {e}"),
            String::new(),
            None,
        )
    })?;
    let pgid = process.id().and_then(|id| i32::try_from(id).ok());
    let tail = keep_tail(stderr);
    let outcome = tokio::time::timeout(limit, async {
        let wire = listener.wire();
        let client = listener
            .serve(Tracked::new(process, wire))
            .await
            .map_err(|e| e.to_string())?;
        let listing = super::lenient::list_tools(&client)
            .await
            .map_err(|e| e.to_string())?;
        Ok::<_, String>((client, listing))
    })
    .await;
    if !matches!(outcome, Ok(Ok(_))) {
        // Give the reader a moment to catch the last words.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let stderr_tail = || {
        tail.lock()
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .unwrap_or_default()
    };
    match outcome {
        Ok(Ok((client, listing))) => Ok(Connected {
            client,
            tools: listing.tools,
            skipped: listing.skipped,
            pgid,
        }),
        Ok(Err(why)) => Err(Failure::plain(describe_failure(&why), stderr_tail(), pgid)),
        Err(_) => Err(Failure::plain(
            match unreadable.lock().map(|u| u.clone()) {
                Ok(Some(u)) => format!("did not answer within {} s; {u}", limit.as_secs_f64()),
                _ => format!("did not answer within {} s", limit.as_secs_f64()),
            },
            stderr_tail(),
            pgid,
        )),
    }
}

/// Starts `cmd` in its own process group, its output screened
/// (`screened.rs`): a message rmcp cannot read fails the request it
/// answered at once, saying why.
fn start(
    cmd: tokio::process::Command,
) -> std::io::Result<(ScreenedChild, Option<ChildStderr>, LastUnreadable)> {
    spawn_registered(
        || ScreenedChild::spawn(cmd),
        |(process, _, _)| process.id().and_then(|id| i32::try_from(id).ok()),
    )
}

/// Reads `stderr` to its end in the background, keeping its last
/// [`STDERR_TAIL_BYTES`].
fn keep_tail(stderr: Option<ChildStderr>) -> StderrTail {
    let tail = StderrTail::default();
    if let Some(mut stderr) = stderr {
        let sink = tail.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 1024];
            while let Ok(n) = stderr.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut t) = sink.lock() {
                    t.extend_from_slice(&buf[..n]);
                    let excess = t.len().saturating_sub(STDERR_TAIL_BYTES);
                    t.drain(..excess);
                }
            }
        });
    }
    tail
}

/// The entry's headers as HTTP headers; `Err`: the name of one that is
/// not.
fn custom_headers(
    headers: &BTreeMap<String, String>,
) -> Result<HashMap<reqwest::header::HeaderName, reqwest::header::HeaderValue>, &str> {
    let mut custom = HashMap::new();
    for (k, v) in headers {
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes());
        let value = reqwest::header::HeaderValue::from_str(v);
        let (Ok(n), Ok(v)) = (name, value) else {
            return Err(k);
        };
        custom.insert(n, v);
    }
    Ok(custom)
}

/// Reaches a server by url with its kept login and lists its tools within
/// `limit`; a client its authorization server no longer knows is
/// forgotten and the server reached once more. A failure says whether it
/// needs a login, and what became of the login kept for it.
/// A server reached by url, and whose login goes with its requests.
#[derive(Clone, Copy)]
struct Who<'a> {
    server: &'a str,
    url: &'a str,
    /// A key's own login (none: the server's shared one).
    as_key: Option<&'a str>,
}

async fn connect_http(
    who: Who<'_>,
    headers: &BTreeMap<String, String>,
    limit: Duration,
    listener: Listener,
) -> Result<Connected, Failure> {
    let Who { server, url, .. } = who;
    let custom = custom_headers(headers).map_err(|k| {
        Failure::plain(
            format!("header {k:?} is not a valid HTTP header"),
            String::new(),
            None,
        )
    })?;
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    let store = super::login::TokenStore::for_key(server, url, who.as_key);
    // A kept login that is not the user's own is not used: said, and the
    // server's challenge asks for a login.
    let refused = store.refused().await.map(|e| e.to_string());
    let mut before = match &refused {
        Some(why) => Before::Refused(why.clone()),
        None if store.has_token().await => Before::Expired,
        None => Before::Nothing,
    };
    let mut outcome = reach(who, config.clone(), listener.clone(), limit).await;
    if let Ok(Err((why, None))) = &outcome
        && super::login::unknown_client(why)
    {
        // Its authorization server no longer knows the client the login
        // was made with: the login is useless, and the next one
        // registers anew.
        let _ = store.forget_client().await;
        before = Before::UnknownClient;
        outcome = reach(who, config, listener, limit).await;
    }
    match outcome {
        Ok(Ok((client, listing))) => Ok(Connected {
            client,
            tools: listing.tools,
            skipped: listing.skipped,
            pgid: None,
        }),
        Ok(Err((_, Some(challenge)))) => Err(Failure {
            why: "it needs a login".into(),
            stderr_tail: String::new(),
            pgid: None,
            login: Some(challenge),
            before,
            warning: refused,
        }),
        Ok(Err((why, None))) => Err(Failure {
            warning: refused,
            ..Failure::plain(describe_failure(&why), String::new(), None)
        }),
        Err(_) => Err(Failure::plain(
            format!("did not answer within {} s", limit.as_secs_f64()),
            String::new(),
            None,
        )),
    }
}

/// What connecting to a server reached by url came to: the connection
/// and its listing, or the error's whole text and the server's challenge
/// when it asks for a login; `Err` when `limit` ran out.
type Reached = Result<Result<(Client, super::lenient::Listing), (String, Option<String>)>, tokio::time::error::Elapsed>;

async fn reach(
    who: Who<'_>,
    config: StreamableHttpClientTransportConfig,
    listener: Listener,
    limit: Duration,
) -> Reached {
    tokio::time::timeout(limit, async {
        // The kept login's token, when there is one; none, and a server
        // that wants one says so in its challenge.
        let client = super::login::authorized_client(who.server, who.url, who.as_key)
            .await
            .map_err(|e| (e.to_string(), None))?;
        let transport = StreamableHttpClientTransport::with_client(client, config);
        let wire = listener.wire();
        let listener = listener.saying_its_calls();
        let client = listener.serve(Tracked::new(transport, wire)).await.map_err(|e| {
            let challenge = e.auth_challenge().map(str::to_string);
            (super::login::whole_text(&e), challenge)
        })?;
        let listing = super::lenient::list_tools(&client).await.map_err(|e| {
            let challenge = super::login::auth_challenge(&e).map(|(c, _)| c);
            (super::login::whole_text(&e), challenge)
        })?;
        Ok((client, listing))
    })
    .await
}

fn describe_failure(why: &str) -> String {
    let why = super::sdk_text::plain(why);
    let why = why.trim();
    if why.is_empty() {
        "the connection closed during the handshake".into()
    } else if why.contains("Broken pipe") || why.contains("connection closed") {
        format!("it exited or closed its input before answering the handshake ({why})")
    } else {
        why.to_string()
    }
}
