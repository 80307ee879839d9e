//! Against real outside programs: the Caveman Python and TypeScript SDKs, real MCP servers, Redis, embedding models and a model hub. Each fails, never skips, when its program is missing (scripts/setup-test-deps.sh installs them).

#[path = "../common/mod.rs"]
mod common;

#[cfg(feature = "tui")]
mod asciinema;
#[cfg(feature = "embed-local")]
mod embeddings;
#[cfg(feature = "bundled-model")]
mod first_use;
mod gateway;
mod gateway_access;
mod gateway_approvals;
mod gateway_configs;
mod gateway_conformance;
mod gateway_faults;
mod gateway_first_view;
mod gateway_follow;
mod gateway_hidden;
mod gateway_inspector;
mod gateway_limits;
mod gateway_otel;

mod gateway_logins;
mod gateway_passthrough;
mod gateway_reads;
mod gateway_relay;
mod gateway_reload;
mod gateway_sandbox;
mod gateway_sealed;
mod gateway_sessions;
mod gateway_stop;
mod gateway_team;
mod gateway_tenants;
mod gateway_wire;
#[cfg(feature = "embed-local")]
mod hub;
#[cfg(feature = "embed-local")]
mod learned_ranking;
mod mcp_login;
mod mcp_login_guards;
mod mcp_servers;
mod mcp_support;
mod oauth_fixture;
mod openai_rendering;
mod otlp_receiver;
#[cfg(feature = "embed-local")]
mod people_words;
mod python_sdk;
#[cfg(feature = "redis")]
mod redis_cluster;
#[cfg(feature = "redis")]
mod redis_fleet;
#[cfg(feature = "redis")]
mod redis_replicas;
#[cfg(feature = "redis")]
mod redis_sessions;
mod release;
mod same_answer;
#[cfg(feature = "bundled-model")]
mod shipped_model;
mod typescript_sdk;
mod wheel;
