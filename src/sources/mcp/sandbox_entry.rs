//! A stdio server's `sandbox` as written in its entry, checked: which
//! folders it may read and write beyond the base every sandboxed server
//! gets (`sandbox_grant.rs`), and which TCP ports it may connect to.
//!
//! ```json
//! "sandbox": true
//! "sandbox": { "read": ["~/data"], "write": ["/tmp/out"], "net": false }
//! "sandbox": { "net": ["api.example.com:443", 8080] }
//! ```
//!
//! No `sandbox` (or `false`): the server runs as a plain process, as it
//! always has. `true` or an object: the base grant plus what the object
//! adds; `net` unsaid is any network, `false` none, a list only those
//! TCP ports (Landlock filters ports, not hosts: a host written before a
//! port is kept for the start-up statement only).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::vars::{VarError, Vars, home_path};

/// Whether a stdio server runs confined, and to what.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Sandbox {
    /// A plain process with the user's rights (no `sandbox`, or `false`).
    #[default]
    Off,
    /// Confined to the base grant and this.
    On(SandboxGrant),
}

/// What a sandboxed server may reach besides the base grant.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxGrant {
    /// Folders (or files) it may read, absolute.
    pub read: Vec<PathBuf>,
    /// Folders (or files) it may read and write, absolute.
    pub write: Vec<PathBuf>,
    pub net: Net,
    /// The project folder (the entry's `cwd`, else the servers file's
    /// workspace), read-only.
    pub project: Option<PathBuf>,
}

/// The network a sandboxed server may reach.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Net {
    /// Any (`net` unsaid, or `true`).
    #[default]
    Any,
    /// No TCP connection and no listening port (`false`).
    Denied,
    /// TCP connections to these ports alone, as written (`"host:443"`).
    Ports(Vec<(u16, String)>),
}

/// Why a `sandbox` cannot be read: the field and its bad value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "sandbox: expected true, false or an object with \"read\", \"write\" and \"net\", not {0}"
    )]
    Shape(String),
    #[error("sandbox: unknown key {0} (expected \"read\", \"write\" or \"net\")")]
    UnknownKey(String),
    #[error("sandbox.{field}: expected a list of paths, not {value}")]
    NotAList { field: &'static str, value: String },
    #[error("sandbox.{field}[{index}]: expected a path, not {value}")]
    NotAPath {
        field: &'static str,
        index: usize,
        value: String,
    },
    #[error(
        "sandbox.{field}[{index}]: {value} is relative, and this entry has no project folder to read it from: write an absolute path or ~/..."
    )]
    Relative {
        field: &'static str,
        index: usize,
        value: String,
    },
    #[error("sandbox.{field}[{index}]: {error}")]
    Var {
        field: &'static str,
        index: usize,
        error: VarError,
    },
    #[error(
        "sandbox.net: expected true, false or a list of TCP ports (443, \"443\" or \"host:443\"), not {0}"
    )]
    NetShape(String),
    #[error(
        "sandbox.net[{index}]: {value} is not a TCP port: write 443, \"443\" or \"host:443\" (1 to 65535; Landlock filters ports, not hosts)"
    )]
    NotAPort { index: usize, value: String },
    #[error(
        "sandbox is for servers started with `command`; a server reached by url runs elsewhere"
    )]
    OnUrl,
}

/// A value as the message shows it: JSON, cut when long.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

/// `sandbox` as written, with the entry's project folder (its `cwd`, else
/// the file's workspace) and the variables of its file.
pub(super) fn read(
    value: &Value,
    project: Option<&Path>,
    vars: &Vars<'_>,
) -> Result<Sandbox, SandboxError> {
    let object = match value {
        Value::Bool(false) => return Ok(Sandbox::Off),
        Value::Bool(true) => {
            return Ok(Sandbox::On(SandboxGrant {
                project: project.map(Path::to_path_buf),
                ..SandboxGrant::default()
            }));
        }
        Value::Object(object) => object,
        other => return Err(SandboxError::Shape(shown(other))),
    };
    if let Some(key) = object
        .keys()
        .find(|k| !matches!(k.as_str(), "read" | "write" | "net"))
    {
        return Err(SandboxError::UnknownKey(shown(&Value::from(key.as_str()))));
    }
    Ok(Sandbox::On(SandboxGrant {
        read: paths(object.get("read"), "read", project, vars)?,
        write: paths(object.get("write"), "write", project, vars)?,
        net: net(object.get("net"))?,
        project: project.map(Path::to_path_buf),
    }))
}

/// A list of paths, each expanded (`${VAR}`, `~/`) and made absolute
/// against the project folder.
fn paths(
    value: Option<&Value>,
    field: &'static str,
    project: Option<&Path>,
    vars: &Vars<'_>,
) -> Result<Vec<PathBuf>, SandboxError> {
    let items = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(SandboxError::NotAList {
                field,
                value: shown(other),
            });
        }
    };
    let home = (vars.env)("HOME");
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let Some(text) = item.as_str().filter(|t| !t.trim().is_empty()) else {
            return Err(SandboxError::NotAPath {
                field,
                index,
                value: shown(item),
            });
        };
        let expanded = vars.expand(text).map_err(|error| SandboxError::Var {
            field,
            index,
            error,
        })?;
        let path = home_path(Path::new(&expanded), home.as_deref());
        let path = match project {
            _ if path.is_absolute() => path,
            Some(p) => p.join(path),
            None => {
                return Err(SandboxError::Relative {
                    field,
                    index,
                    value: shown(item),
                });
            }
        };
        out.push(path);
    }
    Ok(out)
}

/// `net`: unsaid or `true` any, `false` none, or a list of ports.
fn net(value: Option<&Value>) -> Result<Net, SandboxError> {
    let items = match value {
        None | Some(Value::Null) | Some(Value::Bool(true)) => return Ok(Net::Any),
        Some(Value::Bool(false)) => return Ok(Net::Denied),
        Some(Value::Array(items)) => items,
        Some(other) => return Err(SandboxError::NetShape(shown(other))),
    };
    let mut ports = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let bad = || SandboxError::NotAPort {
            index,
            value: shown(item),
        };
        let (port, written) = match item {
            Value::Number(n) => (n.as_u64().ok_or_else(bad)?, n.to_string()),
            Value::String(s) => {
                let digits = s.rsplit_once(':').map_or(s.as_str(), |(_, p)| p);
                (digits.trim().parse::<u64>().map_err(|_| bad())?, s.clone())
            }
            _ => return Err(bad()),
        };
        let port = u16::try_from(port)
            .ok()
            .filter(|p| *p > 0)
            .ok_or_else(bad)?;
        ports.push((port, written));
    }
    Ok(Net::Ports(ports))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_with(value: Value, project: Option<&str>) -> Result<Sandbox, SandboxError> {
        let env = |n: &str| match n {
            "HOME" => Some("/home/u".to_string()),
            "DATA" => Some("/srv/data".to_string()),
            _ => None,
        };
        read(&value, project.map(Path::new), &Vars::env(&env))
    }

    fn why(value: Value) -> String {
        read_with(value, None).unwrap_err().to_string()
    }

    #[test]
    fn true_false_and_an_object_read_as_the_switch_and_the_grant() {
        assert_eq!(read_with(json!(false), None), Ok(Sandbox::Off));
        let Ok(Sandbox::On(base)) = read_with(json!(true), Some("/p")) else {
            panic!()
        };
        assert_eq!(base.project.as_deref(), Some(Path::new("/p")));
        assert_eq!(base.net, Net::Any);
        assert_eq!(read_with(json!({}), Some("/p")), Ok(Sandbox::On(base)));
        let Ok(Sandbox::On(g)) = read_with(
            json!({"read": ["~/data", "${DATA}/x", "rel"], "write": ["/tmp/out"], "net": ["api.example.com:443", 8080, "9090"]}),
            Some("/p"),
        ) else {
            panic!()
        };
        let read: Vec<&str> = g.read.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(read, ["/home/u/data", "/srv/data/x", "/p/rel"]);
        assert_eq!(g.write, [PathBuf::from("/tmp/out")]);
        assert_eq!(
            g.net,
            Net::Ports(vec![
                (443, "api.example.com:443".into()),
                (8080, "8080".into()),
                (9090, "9090".into())
            ])
        );
        let Ok(Sandbox::On(closed)) = read_with(json!({"net": false}), None) else {
            panic!()
        };
        assert_eq!(closed.net, Net::Denied);
    }

    #[test]
    fn a_bad_sandbox_names_its_field_and_value() {
        assert_eq!(
            why(json!("yes")),
            "sandbox: expected true, false or an object with \"read\", \"write\" and \"net\", not \"yes\""
        );
        assert!(why(json!({"reed": []})).starts_with("sandbox: unknown key \"reed\""));
        assert_eq!(
            why(json!({"read": "/x"})),
            "sandbox.read: expected a list of paths, not \"/x\""
        );
        assert_eq!(
            why(json!({"write": ["/a", 3]})),
            "sandbox.write[1]: expected a path, not 3"
        );
        assert!(
            why(json!({"read": ["data"]})).starts_with("sandbox.read[0]: \"data\" is relative")
        );
        assert!(
            why(json!({"read": ["${NOPE}/x"]}))
                .starts_with("sandbox.read[0]: environment variable NOPE is not set")
        );
        assert!(
            why(json!({"net": "none"})).starts_with("sandbox.net: expected true, false or a list")
        );
        for bad in [
            json!("api.example.com"),
            json!(0),
            json!(70000),
            json!("x:https"),
            json!(null),
        ] {
            let message = why(json!({"net": ["ok:1", bad.clone()]}));
            assert!(
                message.starts_with(&format!("sandbox.net[1]: {bad} is not a TCP port")),
                "{message}"
            );
        }
    }
}
