//! Why a servers file cannot be used, with where (file, line, server).

/// A config that cannot be used, with where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpConfigError {
    #[error("{path}: cannot read: {message}")]
    Io { path: String, message: String },
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{origin}: server {server:?}: {message}")]
    Server {
        origin: String,
        server: String,
        message: String,
    },
    #[error("{origin}: {message}")]
    Invalid { origin: String, message: String },
}
