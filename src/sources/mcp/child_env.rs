//! What of toolsift's own environment a stdio server is started with.
//!
//! A server gets what the official MCP SDKs give one by default (on Unix
//! `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`; on Windows the
//! system folders and the user's profile), then its own `env` and `envFile`
//! from the servers file, and nothing else: never the API keys toolsift was
//! started with. A server that needs more says so with `inherit_env`
//! (`inheritEnv` in the JSON files): `true` for everything, or a list of
//! names (`"AWS_*"` ends in a star for every name that starts so).
//! The variables that hold the gateway's own keys (those its
//! `--api-key-env` and `--operator-key-env` name, [`withhold`]) are never
//! passed, whatever `inherit_env` says.

use std::ffi::OsString;
use std::sync::RwLock;

use serde::Deserialize;

/// The variables every stdio server gets from toolsift's environment, as
/// the official SDKs pass them.
#[cfg(not(windows))]
pub const SAFE_VARS: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
#[cfg(windows)]
pub const SAFE_VARS: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PATHEXT",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
];

/// Set by `toolsift gateway` to its process id and passed to every server
/// it starts whatever the server inherits: a server that is itself the
/// gateway (a servers file that names it) is refused rather than recursed.
pub const PARENT_VAR: &str = "TOOLSIFT_GATEWAY_PARENT";

/// The variables no server inherits: the ones that hold the gateway's own
/// keys, set by [`withhold`].
static WITHHELD: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Never passes the variables `names` to a server, whatever its
/// `inherit_env` (the gateway's `--api-key-env` and `--operator-key-env`:
/// its keys are its own). Adds to those already withheld.
pub fn withhold<'a>(names: impl IntoIterator<Item = &'a str>) {
    let mut withheld = WITHHELD.write().unwrap_or_else(|p| p.into_inner());
    for name in names {
        if !withheld.iter().any(|w| names_equal(w, name)) {
            withheld.push(name.to_string());
        }
    }
}

fn is_withheld(name: &str) -> bool {
    WITHHELD
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .any(|w| names_equal(w, name))
}

/// What a server takes from toolsift's environment beyond [`SAFE_VARS`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum InheritEnv {
    /// The safe set only.
    #[default]
    Safe,
    /// Everything toolsift has (`inherit_env = true`).
    All,
    /// The safe set and these names; `PREFIX*` takes every name that
    /// starts with PREFIX.
    Also(Vec<String>),
}

/// `inherit_env` as written: `true`, `false` or a list of names.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(super) enum InheritEnvEntry {
    Switch(bool),
    Names(Vec<String>),
}

/// A name in `inherit_env`'s list that is not a variable's name (quoted).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "inherit_env: {0} is not a variable name (letters, digits and _, with an optional * at the end)"
)]
pub(super) struct InheritEnvError(String);

impl InheritEnvEntry {
    pub(super) fn read(self) -> Result<InheritEnv, InheritEnvError> {
        Ok(match self {
            InheritEnvEntry::Switch(false) => InheritEnv::Safe,
            InheritEnvEntry::Switch(true) => InheritEnv::All,
            InheritEnvEntry::Names(names) => {
                if let Some(bad) = names.iter().find(|n| !is_name_pattern(n)) {
                    return Err(InheritEnvError(
                        serde_json::Value::from(bad.as_str()).to_string(),
                    ));
                }
                InheritEnv::Also(names)
            }
        })
    }
}

fn is_name_pattern(name: &str) -> bool {
    let body = name.strip_suffix('*').unwrap_or(name);
    (!body.is_empty() || name == "*")
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '(' || c == ')')
}

impl InheritEnv {
    /// Whether a variable of toolsift's is passed to the server.
    fn takes(&self, name: &str) -> bool {
        if is_withheld(name) {
            return false;
        }
        if name == PARENT_VAR || SAFE_VARS.iter().any(|s| names_equal(s, name)) {
            return true;
        }
        match self {
            InheritEnv::Safe => false,
            InheritEnv::All => true,
            InheritEnv::Also(names) => names.iter().any(|n| match n.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => names_equal(n, name),
            }),
        }
    }
}

#[cfg(not(windows))]
fn names_equal(a: &str, b: &str) -> bool {
    a == b
}
#[cfg(windows)]
fn names_equal(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// The variables of `own` (toolsift's environment) a server is started
/// with; its configured `env` goes on top. A value that is a shell function
/// (`() { …`) is never passed, as the SDKs do not.
pub fn inherited(
    inherit: &InheritEnv,
    own: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    own.into_iter()
        .filter(|(k, v)| {
            let Some(name) = k.to_str() else {
                return false;
            };
            inherit.takes(name) && !v.to_string_lossy().starts_with("()")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own() -> Vec<(OsString, OsString)> {
        [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/u"),
            ("OPENAI_API_KEY", "sk-secret"),
            ("TOOLSIFT_API_KEY", "ts-secret"),
            ("AWS_REGION", "eu-west-1"),
            ("AWS_SECRET_ACCESS_KEY", "aws-secret"),
            ("TERM", "() { :; }; echo pwned"),
        ]
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect()
    }

    fn names(inherit: &InheritEnv) -> Vec<String> {
        let mut n: Vec<String> = inherited(inherit, own())
            .into_iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    }

    #[test]
    fn by_default_only_the_safe_set_passes_and_no_key() {
        assert_eq!(names(&InheritEnv::Safe), ["HOME", "PATH"]);
    }

    #[test]
    fn named_variables_and_prefixes_are_added_to_the_safe_set() {
        let also = InheritEnv::Also(vec!["AWS_*".into(), "OPENAI_API_KEY".into()]);
        assert_eq!(
            names(&also),
            [
                "AWS_REGION",
                "AWS_SECRET_ACCESS_KEY",
                "HOME",
                "OPENAI_API_KEY",
                "PATH"
            ]
        );
    }

    #[test]
    fn all_takes_everything_but_shell_functions() {
        let all = names(&InheritEnv::All);
        assert!(all.contains(&"OPENAI_API_KEY".to_string()), "{all:?}");
        assert!(!all.contains(&"TERM".to_string()), "{all:?}");
    }

    #[test]
    fn the_gateways_own_key_variables_are_never_passed() {
        withhold(["TOOLSIFT_API_KEY"]);
        for inherit in [
            InheritEnv::All,
            InheritEnv::Also(vec!["*".into()]),
            InheritEnv::Also(vec!["TOOLSIFT_*".into()]),
            InheritEnv::Also(vec!["TOOLSIFT_API_KEY".into()]),
        ] {
            let passed = names(&inherit);
            assert!(
                !passed.iter().any(|n| n == "TOOLSIFT_API_KEY"),
                "{inherit:?}: {passed:?}"
            );
        }
        // Everything else `true` takes still passes.
        assert_eq!(names(&InheritEnv::All).len(), 5);
    }

    #[test]
    fn entries_are_read_and_bad_names_refused() {
        let read = |v: serde_json::Value| InheritEnvEntry::deserialize(v).unwrap().read();
        assert_eq!(read(serde_json::json!(true)), Ok(InheritEnv::All));
        assert_eq!(read(serde_json::json!(false)), Ok(InheritEnv::Safe));
        assert_eq!(
            read(serde_json::json!(["AWS_*"])),
            Ok(InheritEnv::Also(vec!["AWS_*".into()]))
        );
        let err = read(serde_json::json!(["A B"])).unwrap_err().to_string();
        assert!(err.contains("\"A B\""), "{err}");
    }
}
