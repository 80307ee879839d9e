//! Everything the explorer starts from: what [`App::new`](super::app::App::new)
//! is made of, checked before the terminal opens.

use std::path::PathBuf;
use std::sync::Arc;

use super::keymap::Keymap;
use crate::catalog::Catalog;
use crate::search::Searcher;
use crate::settings::Settings;
use crate::sources::mcp::{McpHost, ServerStatus};

pub struct Setup {
    pub catalog: Arc<Catalog>,
    /// The catalog files, as the header names them.
    pub sources: String,
    /// Valid for `catalog` (the caller checks, so that bad flags fail
    /// before the terminal opens).
    pub settings: Settings,
    /// The user named the ranker (a flag or the config file); else the
    /// explorer picked it, and Tune's save leaves it out.
    pub ranker_chosen: bool,
    pub keymap: Keymap,
    pub no_color: bool,
    /// Live MCP servers the catalog came from, if any (real tool calls go
    /// there).
    pub mcp: Option<Arc<McpHost>>,
    /// What became of each MCP server.
    pub mcp_servers: Vec<ServerStatus>,
    /// The MCP servers followed as they start (`explore --mcp`): their
    /// tools join the catalog as each lists them.
    pub mcp_start: Option<super::servers::ServersStart>,
    /// Where searches go: the embedded service or a remote one.
    pub searcher: Searcher,
    /// The Tune screen's request file (JSONL or `@demo`), if any.
    pub queries: Option<String>,
    /// Where the settings are saved.
    pub config_path: Option<PathBuf>,
    /// Tokens the context can spend on tools: the full catalog is offered
    /// after a failed search only if it fits. None: never offered.
    pub context_budget: Option<u64>,
    /// A demo tour plays: its captions and whether it is paused show.
    pub demo: bool,
    /// Exact counts from this provider (`--count-with`), if any.
    pub count: Option<crate::provider_count::CountConfig>,
    /// Where the catalog is read again from when one of its files changes
    /// (empty: nothing is watched: a built-in catalog, standard input, MCP
    /// servers).
    pub reload: Vec<crate::catalog::CatalogSource>,
    /// A running gateway or service followed (`--follow`), and the request
    /// file its misses are added to.
    pub follow: Option<Follow>,
    /// The search model, fetched and loaded off the UI thread once the
    /// explorer is open (its first run); BM25F ranks meanwhile.
    pub model_later: Option<crate::embed::ModelJob>,
}

/// Where the live screen adds its misses as requests, unless told.
pub const MISSES_FILE: &str = "toolsift-misses.jsonl";

/// What `explore --follow` follows, and where its misses go as requests.
#[derive(Debug, Clone)]
pub struct Follow {
    pub source: crate::follow::Source,
    pub requests_file: String,
    /// The live screen is in front at the start.
    pub open_first: bool,
    /// Why the traffic is judged by no catalog (the far side's could not
    /// be had and none was named); `None`: judged by the explorer's.
    pub blind: Option<String>,
}

impl Follow {
    /// Why the misses are judged by no catalog, said on screen as the
    /// explorer opens (the live screen's box keeps it whole after: "judged
    /// by").
    pub fn blind_said(&self) -> Option<String> {
        let why = self.blind.as_ref()?;
        Some(format!(
            "{why}; misses are judged by no catalog until it can be read (asked again each time the follower connects)"
        ))
    }
}

impl Setup {
    /// The explorer on `catalog` through `searcher`, with the built-in
    /// settings and keys, and nothing else: no MCP servers, request file,
    /// config file or budget.
    pub fn new(catalog: Arc<Catalog>, searcher: Searcher) -> Setup {
        Setup {
            sources: catalog.name().to_string(),
            catalog,
            settings: Settings::default(),
            ranker_chosen: false,
            keymap: Keymap::defaults(),
            no_color: false,
            mcp: None,
            mcp_servers: Vec::new(),
            mcp_start: None,
            searcher,
            queries: None,
            config_path: None,
            context_budget: None,
            demo: false,
            count: None,
            reload: Vec::new(),
            follow: None,
            model_later: None,
        }
    }

    /// The demo tour's explorer: the demo catalog, the built-in settings,
    /// the demo's requests on the Tune screen, and no config file written.
    pub fn demo(catalog: Arc<Catalog>) -> Setup {
        Setup {
            queries: Some("@demo".into()),
            demo: true,
            // The tour shows a recorded gateway session on the live screen.
            follow: Some(Follow {
                blind: None,
                source: crate::follow::Source::Recorded,
                requests_file: MISSES_FILE.into(),
                open_first: false,
            }),
            ..Setup::new(catalog, Searcher::embedded())
        }
    }
}
