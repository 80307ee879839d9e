//! The gateway's settings in layers: the `[gateway]` record (the flags over
//! the config file's section, [`crate::layer`]) applied over the defaults,
//! which are stated once, in [`GatewayConfig::default`] and this module's
//! constants; `--help` shows them from there
//! ([`GatewayConfig::defaults_shown`]). The tool rules, the learning file,
//! the embedding provider and the HTTP listener are the command's to read.

use super::GatewayError;
use crate::config::{GatewaySection, HiddenText};
use crate::layer::set;
use crate::tokens::TokenBasis;

use super::{
    DEFAULT_CALL_TIMEOUT, DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SESSIONS_PER_KEY,
    DEFAULT_SHUTDOWN_GRACE, GATEWAY_MAX_TOOLS, GatewayConfig,
};
use crate::tools_handle::MaxTools;

impl GatewayConfig {
    /// Puts the values `s` gives over these (a value out of range is an
    /// error that names its key).
    pub fn apply(&mut self, s: &GatewaySection) -> Result<(), GatewayError> {
        if let Some(n) = s.cap.max_tools {
            check_max_tools(n, "max_tools")?;
        }
        set(&mut self.max_tools, s.cap.max_tools);
        set(&mut self.ranker, s.ranker);
        set(&mut self.service.gate, s.gate);
        set(&mut self.breaker_threshold, s.breaker_threshold);
        set(
            &mut self.breaker_threshold_read_only,
            s.breaker_threshold_read_only,
        );
        set(&mut self.expose_found, s.expose_found);
        set(&mut self.learn_shared, s.learn_shared);
        set(&mut self.hidden_text, s.hidden_text);
        match s.hidden_text_results {
            None => {}
            Some(HiddenText::Strip) => self.hidden_text_results = true,
            Some(HiddenText::Keep) => self.hidden_text_results = false,
            Some(HiddenText::Drop) => {
                return Err(GatewayError::ResultsCannotBeDropped {
                    key: "hidden_text_results".into(),
                });
            }
        }
        Ok(())
    }

    /// The default of each `[gateway]` key that has one, as `--help`
    /// shows it.
    pub fn defaults_shown() -> Vec<(&'static str, String)> {
        let d = GatewayConfig::default();
        let on = |b: bool| if b { "on" } else { "off" }.to_string();
        vec![
            ("insecure_no_auth", on(false)),
            ("max_tools", d.max_tools.to_string()),
            ("max_sessions", DEFAULT_MAX_SESSIONS.to_string()),
            (
                "max_sessions_per_key",
                DEFAULT_MAX_SESSIONS_PER_KEY.to_string(),
            ),
            (
                "ranker",
                format!(
                    "{}; hybrid when no ranker nor embedding provider is named and the default model is in the cache",
                    d.ranker
                ),
            ),
            ("gate", on(d.service.gate)),
            ("breaker_threshold", d.breaker_threshold.to_string()),
            (
                "breaker_threshold_read_only",
                d.breaker_threshold_read_only.to_string(),
            ),
            (
                "call_timeout_secs",
                DEFAULT_CALL_TIMEOUT.as_secs().to_string(),
            ),
            (
                "shutdown_grace_secs",
                DEFAULT_SHUTDOWN_GRACE.as_secs().to_string(),
            ),
            ("expose_found", on(d.expose_found)),
            ("learn_shared", on(d.learn_shared)),
            ("log_calls", on(false)),
            ("token_basis", TokenBasis::default().to_string()),
            ("hidden_text", d.hidden_text.to_string()),
            (
                "hidden_text_results",
                if d.hidden_text_results {
                    HiddenText::Strip
                } else {
                    HiddenText::Keep
                }
                .to_string(),
            ),
        ]
    }
}

/// `max_tools` at most [`GATEWAY_MAX_TOOLS`]; else an error naming `what`.
pub fn check_max_tools(n: MaxTools, what: &str) -> Result<(), GatewayError> {
    n.at_most(GATEWAY_MAX_TOOLS)
        .map(|_| ())
        .map_err(|value| GatewayError::OutOfRange {
            key: what.to_string(),
            min: 1,
            max: GATEWAY_MAX_TOOLS.get(),
            value,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layer::Layer;
    use crate::settings::flags::MaxToolsFlag;

    #[test]
    fn flags_over_the_file_over_the_defaults() {
        let file = GatewaySection {
            cap: MaxToolsFlag {
                max_tools: MaxTools::new(5),
            },
            breaker_threshold: Some(7),
            ..Default::default()
        };
        let flags = GatewaySection {
            cap: MaxToolsFlag {
                max_tools: MaxTools::new(4),
            },
            gate: Some(false),
            ..Default::default()
        };
        let mut c = GatewayConfig::default();
        c.apply(&flags.over(file)).unwrap();
        assert_eq!(c.max_tools.get(), 4);
        assert_eq!(c.breaker_threshold, 7);
        assert!(!c.service.gate);
        let d = GatewayConfig::default();
        assert_eq!(c.breaker_threshold_read_only, d.breaker_threshold_read_only);
    }

    #[test]
    fn out_of_range_and_drop_are_refused() {
        let big = GatewaySection {
            cap: MaxToolsFlag {
                max_tools: MaxTools::new(GATEWAY_MAX_TOOLS.get() + 1),
            },
            ..Default::default()
        };
        let e = GatewayConfig::default().apply(&big).unwrap_err();
        assert_eq!(e.to_string(), "max_tools must be from 1 to 64, not 65");
        assert_eq!(
            e.naming(|k| format!("--{}", k.replace('_', "-")))
                .to_string(),
            "--max-tools must be from 1 to 64, not 65"
        );
        let drop = GatewaySection {
            hidden_text_results: Some(HiddenText::Drop),
            ..Default::default()
        };
        assert!(GatewayConfig::default().apply(&drop).is_err());
    }
}
