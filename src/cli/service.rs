//! Where a command's searches go (`--service` and the `x-cave-*` flags): a
//! remote compatible service, or the embedded one.

use toolsift::embed::Embeddings;
use toolsift::search::Searcher;

use super::args::ServiceArgs;
use super::error::CliError;

impl ServiceArgs {
    /// The searcher these settings name: remote when a service is given
    /// here or in $CAVE_BASE_URL, else embedded.
    pub fn searcher(&self, embeddings: Option<Embeddings>) -> Result<Searcher, CliError> {
        self.searcher_or(None, embeddings)
    }

    /// [`ServiceArgs::searcher`] with a service from the config file, used
    /// when the flag names none (before $CAVE_BASE_URL).
    pub fn searcher_or(
        &self,
        from_config: Option<&str>,
        embeddings: Option<Embeddings>,
    ) -> Result<Searcher, CliError> {
        self.searcher_plain(from_config, embeddings, None)
    }

    /// [`ServiceArgs::searcher_or`] whose embedded search says why BM25F
    /// ranks alone (`plain_because`).
    pub fn searcher_plain(
        &self,
        from_config: Option<&str>,
        embeddings: Option<Embeddings>,
        plain_because: Option<String>,
    ) -> Result<Searcher, CliError> {
        use toolsift::client::{Client, ClientConfig, ClientSettings};
        let env = |n: &str| std::env::var(n).ok();
        let api_key = match &self.service_key_env {
            None => None,
            Some(name) => Some(env(name).filter(|k| !k.is_empty()).ok_or_else(|| {
                CliError::Usage(format!(
                    "--service-key-env {name}: the environment variable is not set or empty"
                ))
            })?),
        };
        let settings = ClientSettings {
            service: self
                .service
                .clone()
                .or_else(|| from_config.map(str::to_string)),
            api_key,
            agent: self.agent.clone(),
            workflow: self.workflow.clone(),
            retention: self.retention.clone(),
            user_hash: self.user_hash.clone(),
        };
        let usage = match &self.usage {
            None => None,
            Some(path) => {
                let read = toolsift::service::usage::read_pairs(path)
                    .map_err(|e| CliError::Usage(format!("--usage {e}")))?;
                for w in &read.skipped {
                    eprintln!(
                        "toolsift: warning: --usage {}",
                        toolsift::terminal_text::escape(w)
                    );
                }
                // Read to measure: every key's pairs in one pool.
                let pairs = read
                    .pairs
                    .into_iter()
                    .map(|p| toolsift::service::usage::Pair { key: None, ..p })
                    .collect();
                Some(std::sync::Arc::new(toolsift::service::usage::Usage::new(
                    pairs,
                )))
            }
        };
        match ClientConfig::resolve(&settings, &env)? {
            None => Ok(Searcher::Embedded(std::sync::Arc::new(
                toolsift::service::Service::new(toolsift::service::ServiceConfig {
                    embeddings,
                    usage,
                    plain_because,
                    ..Default::default()
                }),
            ))),
            Some(_) if usage.is_some() => Err(CliError::Usage(
                "--usage ranks in the embedded search; a remote service (--service, $CAVE_BASE_URL or the config's service) ranks itself, so leave --usage out".into(),
            )),
            Some(_) if embeddings.is_some() => Err(CliError::Usage(
                "an embedding provider serves the embedded search; with a remote service (--service, $CAVE_BASE_URL or the config's service) the service ranks, so leave the --embeddings-* flags out".into(),
            )),
            Some(config) => Ok(Searcher::remote(Client::new(config)?)),
        }
    }
}
