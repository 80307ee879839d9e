//! `toolsift serve`'s settings in layers: the `[serve]` record (the flags
//! over the config file's section, [`crate::layer`]) applied over the
//! defaults. The defaults are stated once, in [`ServeConfig::default`] and
//! the defaults of the parts it holds; `--help` shows them from there
//! ([`ServeConfig::defaults_shown`]). What the environment holds (API keys,
//! upstream keys) and the embedding provider are the command's to read.

use std::time::Duration;

use crate::config::ServeSection;
use crate::layer::set;
use crate::numbers::thousands;

use super::{ServeConfig, ServeError};

/// Milliseconds as a time limit (0 is taken as 1 ms).
fn millis(ms: Option<u64>) -> Option<Duration> {
    ms.map(|ms| Duration::from_millis(ms.max(1)))
}

impl ServeConfig {
    /// Puts the values `s` gives over these (see the module docs).
    pub fn apply(&mut self, s: &ServeSection) -> Result<(), ServeError> {
        set(&mut self.addr, s.addr);
        set(&mut self.max_body_bytes, s.max_body_bytes);
        set(&mut self.request_timeout, millis(s.request_timeout_ms));
        set(&mut self.max_in_flight, s.max_in_flight.map(|n| n.max(1)));
        set(&mut self.max_queued, s.max_queued);
        set(&mut self.log_queries, s.log_queries);
        set(&mut self.insecure_no_auth, s.insecure_no_auth);
        let service = &mut self.service;
        set(&mut service.max_catalog_tools, s.max_catalog_tools);
        if let Some(n) = s.default_max_tools {
            service.default_max_tools =
                crate::tools_handle::MaxTools::new(n).ok_or(ServeError::Zero {
                    key: "default_max_tools",
                })?;
        }
        set(&mut service.token_basis, s.token_basis);
        set(&mut service.max_sessions, s.max_sessions);
        set(
            &mut service.session_idle,
            s.session_idle_secs.map(Duration::from_secs),
        );
        set(&mut service.cache_bytes, s.cache_bytes);
        set(&mut service.token_cache_bytes, s.token_cache_bytes);
        set(&mut service.default_ranker, s.default_ranker);
        set(&mut service.gate, s.gate);
        set(&mut self.upstream_timeout, millis(s.upstream_timeout_ms));
        set(&mut self.conn.head_timeout, millis(s.head_timeout_ms));
        set(&mut self.conn.idle_timeout, millis(s.idle_timeout_ms));
        set(&mut self.conn.shutdown_grace, millis(s.shutdown_grace_ms));
        set(
            &mut self.conn.max_connections,
            s.max_connections.map(|n| n.max(1)),
        );
        if let Some(n) = s.max_passthrough {
            self.max_passthrough = n.max(1);
            // As many may wait as pass, unless the layer says otherwise.
            self.max_passthrough_queued = self.max_passthrough;
        }
        set(&mut self.max_passthrough_queued, s.max_passthrough_queued);
        if let Some(spec) = &s.sessions {
            self.sessions = spec.parse().map_err(ServeError::Sessions)?;
        }
        set(&mut self.store.wait_replicas, s.sessions_wait_replicas);
        set(
            &mut self.store.shared.bytes,
            s.shared_cache_mb.map(|mb| mb.saturating_mul(1 << 20)),
        );
        match s.shared_cache_ttl_secs {
            Some(0) => {
                return Err(ServeError::Zero {
                    key: "shared_cache_ttl_secs",
                });
            }
            Some(secs) => self.store.shared.ttl = Duration::from_secs(secs),
            None => {}
        }
        Ok(())
    }

    /// The default of each `[serve]` key that has one fixed value, as
    /// `--help` shows it (keys whose default depends on the machine say so
    /// in their own help).
    pub fn defaults_shown() -> Vec<(&'static str, String)> {
        let d = ServeConfig::default();
        let ms = |t: Duration| thousands(t.as_millis() as u64);
        let on = |b: bool| if b { "on" } else { "off" }.to_string();
        vec![
            ("addr", d.addr.to_string()),
            ("max_body_bytes", thousands(d.max_body_bytes as u64)),
            (
                "max_catalog_tools",
                thousands(d.service.max_catalog_tools as u64),
            ),
            ("default_max_tools", d.service.default_max_tools.to_string()),
            ("token_basis", d.service.token_basis.to_string()),
            ("request_timeout_ms", ms(d.request_timeout)),
            ("max_sessions", thousands(d.service.max_sessions as u64)),
            (
                "session_idle_secs",
                thousands(d.service.session_idle.as_secs()),
            ),
            ("cache_bytes", thousands(d.service.cache_bytes as u64)),
            (
                "token_cache_bytes",
                thousands(d.service.token_cache_bytes as u64),
            ),
            ("log_queries", on(d.log_queries)),
            ("insecure_no_auth", on(d.insecure_no_auth)),
            ("sessions", "memory".to_string()),
            ("sessions_wait_replicas", d.store.wait_replicas.to_string()),
            ("shared_cache_mb", thousands(d.store.shared.bytes >> 20)),
            (
                "shared_cache_ttl_secs",
                thousands(d.store.shared.ttl.as_secs()),
            ),
            ("upstream_timeout_ms", ms(d.upstream_timeout)),
            ("head_timeout_ms", ms(d.conn.head_timeout)),
            ("idle_timeout_ms", ms(d.conn.idle_timeout)),
            ("shutdown_grace_ms", ms(d.conn.shutdown_grace)),
            ("max_passthrough", d.max_passthrough.to_string()),
            ("default_ranker", d.service.default_ranker.to_string()),
            ("gate", on(d.service.gate)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layer::Layer;

    #[test]
    fn flags_win_over_the_file_and_the_defaults_fill_the_rest() {
        let file = ServeSection {
            max_body_bytes: Some(1000),
            request_timeout_ms: Some(2000),
            max_passthrough: Some(5),
            ..Default::default()
        };
        let flags = ServeSection {
            max_body_bytes: Some(10),
            max_passthrough_queued: Some(7),
            ..Default::default()
        };
        let mut c = ServeConfig::default();
        c.apply(&flags.over(file)).unwrap();
        assert_eq!(c.max_body_bytes, 10);
        assert_eq!(c.request_timeout, Duration::from_millis(2000));
        assert_eq!((c.max_passthrough, c.max_passthrough_queued), (5, 7));
        assert_eq!(c.upstream_timeout, ServeConfig::default().upstream_timeout);
    }

    #[test]
    fn a_bad_value_says_which_key() {
        let mut c = ServeConfig::default();
        let zero = ServeSection {
            default_max_tools: Some(0),
            ..Default::default()
        };
        let e = c.apply(&zero).unwrap_err();
        assert!(
            matches!(
                e,
                ServeError::Zero {
                    key: "default_max_tools"
                }
            ),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "default_max_tools must be a positive integer, not 0"
        );
        let store = ServeSection {
            sessions: Some("postgres://x".into()),
            ..Default::default()
        };
        assert!(matches!(
            ServeConfig::default().apply(&store),
            Err(ServeError::Sessions(_))
        ));
    }

    #[test]
    fn every_default_shown_is_a_key_of_the_section() {
        let keys = section_keys();
        for (key, _) in ServeConfig::defaults_shown() {
            assert!(keys.contains(&key.to_string()), "{key}");
        }
    }

    /// The keys `[serve]` takes, read off the file's own error message.
    fn section_keys() -> Vec<String> {
        let e = crate::config::parse("[serve]\nnope = 1\n", "t").unwrap_err();
        e.to_string()
            .split('`')
            .skip(3)
            .step_by(2)
            .map(str::to_string)
            .collect()
    }
}
