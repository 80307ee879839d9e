//! Variables in a server's entry, in each editor's syntax: `${NAME}` and
//! `${NAME:-default}` (Claude Code, Cursor, toolsift), and VS Code's
//! `${env:NAME}`, `${workspaceFolder}`, `${userHome}`, `${pathSeparator}`
//! and `${input:ID}` (an input of the file's `inputs`: its `default` when it
//! has one; VS Code asks the user for the others, which a gateway started
//! by a host cannot do).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One of a VS Code file's `inputs`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Input {
    pub default: Option<String>,
    pub description: Option<String>,
}

/// What a variable can stand for.
pub struct Vars<'a> {
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// `${workspaceFolder}`: the folder that holds `.vscode/` (or the file).
    pub workspace: Option<String>,
    pub inputs: BTreeMap<String, Input>,
}

/// A variable that cannot be given its value (named in the message).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VarError {
    /// The text a `${` is not closed in.
    #[error("unclosed ${{ in {0:?}")]
    Unclosed(String),
    #[error("${{workspaceFolder}} is VS Code's, and this file is in no workspace")]
    NoWorkspace,
    #[error("${{userHome}}: HOME is not set")]
    NoHome,
    #[error("${{workspaceFolderBasename}}: this file is in no workspace")]
    NoWorkspaceBasename,
    /// What is written between `${` and `}`.
    #[error("${{{0}}} is not an environment variable name")]
    NotAName(String),
    #[error("environment variable {0} is not set (write ${{{0}:-default}} to give a default)")]
    Unset(String),
    #[error("${{input:{0}}} names no input of the file's \"inputs\"")]
    NoInput(String),
    /// An input with no default (`what`: its description, quoted).
    #[error(
        "${{input:{id}}}{what} is asked of the user by VS Code and has no \"default\"; the gateway cannot ask. Give the value in an environment variable and write ${{env:NAME}} instead"
    )]
    Asked { id: String, what: String },
}

impl<'a> Vars<'a> {
    /// Only environment variables.
    pub fn env(env: &'a dyn Fn(&str) -> Option<String>) -> Vars<'a> {
        Vars {
            env,
            workspace: None,
            inputs: BTreeMap::new(),
        }
    }

    /// `text` with each variable replaced; an error names the variable.
    pub fn expand(&self, text: &str) -> Result<String, VarError> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                return Err(VarError::Unclosed(text.to_string()));
            };
            out.push_str(&self.value(&after[..end])?);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// The value of the variable written `${inner}`.
    fn value(&self, inner: &str) -> Result<String, VarError> {
        if let Some(id) = inner.strip_prefix("input:") {
            return self.input(id);
        }
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner.strip_prefix("env:").unwrap_or(inner), None),
        };
        match name {
            "workspaceFolder" if default.is_none() => {
                return self.workspace.clone().ok_or(VarError::NoWorkspace);
            }
            "userHome" if default.is_none() => {
                return (self.env)("HOME").ok_or(VarError::NoHome);
            }
            "workspaceFolderBasename" if default.is_none() => {
                return self
                    .workspace
                    .as_deref()
                    .and_then(|w| std::path::Path::new(w).file_name())
                    .map(|n| n.to_string_lossy().into_owned())
                    .ok_or(VarError::NoWorkspaceBasename);
            }
            "pathSeparator" | "/" if default.is_none() => return Ok("/".into()),
            _ => {}
        }
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(VarError::NotAName(inner.to_string()));
        }
        match ((self.env)(name), default) {
            (Some(value), _) => Ok(value),
            (None, Some(default)) => Ok(default.to_string()),
            (None, None) => Err(VarError::Unset(name.to_string())),
        }
    }

    fn input(&self, id: &str) -> Result<String, VarError> {
        let Some(input) = self.inputs.get(id) else {
            return Err(VarError::NoInput(id.to_string()));
        };
        input.default.clone().ok_or_else(|| VarError::Asked {
            id: id.to_string(),
            what: input
                .description
                .as_deref()
                .map(|d| format!(" ({d:?})"))
                .unwrap_or_default(),
        })
    }
}

/// `path` with a leading `~` (alone or before `/`) made the home folder.
pub fn home_path(path: &Path, home: Option<&str>) -> PathBuf {
    let Some(home) = home.filter(|h| !h.is_empty()) else {
        return path.to_path_buf();
    };
    match path.strip_prefix("~") {
        Ok(rest) if path.as_os_str().as_encoded_bytes().starts_with(b"~") => {
            Path::new(home).join(rest)
        }
        _ => path.to_path_buf(),
    }
}

/// `${workspaceFolder}` for a servers file in `dir`, as the host that
/// wrote it resolves it: the project that holds `.vscode/` (VS Code) or
/// `.cursor/` (Cursor); for the user's own `~/.cursor/` (no project of its
/// own) the folder the host started toolsift in; else the file's folder.
pub(super) fn workspace_of(dir: &Path, home: Option<&Path>, cwd: Option<&Path>) -> Option<PathBuf> {
    match dir.file_name() {
        Some(n) if n == ".vscode" || n == ".cursor" => {
            let project = dir.parent()?;
            let is_home = home
                .and_then(|h| h.canonicalize().ok().or_else(|| Some(h.to_path_buf())))
                .is_some_and(|h| h == project);
            if is_home && n == ".cursor" {
                cwd.map(Path::to_path_buf)
            } else {
                Some(project.to_path_buf())
            }
        }
        _ => Some(dir.to_path_buf()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TOKEN and HOME set, nothing else.
    fn env(name: &str) -> Option<String> {
        [("TOKEN", "s3cret"), ("HOME", "/home/u")]
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    }

    #[test]
    fn every_editors_syntax() {
        let mut vars = Vars::env(&env);
        vars.workspace = Some("/w".into());
        vars.inputs.insert(
            "region".into(),
            Input {
                default: Some("eu".into()),
                description: None,
            },
        );
        vars.inputs.insert(
            "key".into(),
            Input {
                default: None,
                description: Some("API key".into()),
            },
        );
        let x = |s: &str| vars.expand(s);
        assert_eq!(x("Bearer ${TOKEN}").unwrap(), "Bearer s3cret");
        assert_eq!(x("${env:TOKEN}").unwrap(), "s3cret");
        assert_eq!(
            x("${NOPE:-fallback}/${TOKEN:-x}").unwrap(),
            "fallback/s3cret"
        );
        assert_eq!(x("${NOPE:-}").unwrap(), "");
        assert_eq!(x("${workspaceFolder}/a").unwrap(), "/w/a");
        assert_eq!(x("${userHome}").unwrap(), "/home/u");
        assert_eq!(x("${input:region}").unwrap(), "eu");
        assert_eq!(x("${NOPE}"), Err(VarError::Unset("NOPE".into())));
        let e = x("${NOPE}").unwrap_err().to_string();
        assert!(
            e.contains("NOPE is not set") && e.contains("${NOPE:-default}"),
            "{e}"
        );
        let e = x("${input:key}").unwrap_err().to_string();
        assert!(e.contains("\"API key\"") && e.contains("cannot ask"), "{e}");
        assert!(
            x("${input:other}")
                .unwrap_err()
                .to_string()
                .contains("no input")
        );
        assert!(x("${a b}").is_err());
        assert!(x("${OPEN").is_err());
        assert_eq!(
            Vars::env(&env).expand("${workspaceFolder}"),
            Err(VarError::NoWorkspace)
        );
    }
}
