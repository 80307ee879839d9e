//! `--count-with`: the provider's counting endpoint, its model, URL, key
//! and time limit, as `check` and `explore` take them.

use toolsift::provider_count::{CountCache, CountConfig};

use super::args::CountArgs;
use super::error::CliError;

impl CountArgs {
    /// Where and how to count, when `--count-with` is given; a key that is
    /// not set is a usage error naming the variable.
    pub fn config(&self) -> Result<Option<CountConfig>, CliError> {
        let Some(provider) = self.count_with else {
            return Ok(None);
        };
        let env = self
            .count_key_env
            .clone()
            .unwrap_or_else(|| provider.key_env().to_string());
        let key = std::env::var(&env).ok().filter(|k| !k.is_empty()).ok_or_else(|| {
            CliError::Usage(format!(
                "--count-with {}: the key is read from ${env}, which is not set (or give --count-key-env NAME)",
                provider.name()
            ))
        })?;
        Ok(Some(CountConfig {
            provider,
            model: self
                .count_model
                .clone()
                .unwrap_or_else(|| provider.count_model().to_string()),
            base_url: self
                .count_url
                .clone()
                .unwrap_or_else(|| provider.api_origin().to_string()),
            key,
            timeout: self
                .count_timeout_ms
                .map_or(toolsift::provider_count::DEFAULT_TIMEOUT, |ms| {
                    std::time::Duration::from_millis(ms.max(1))
                }),
            cache_dir: CountCache::default_dir(),
        }))
    }
}
