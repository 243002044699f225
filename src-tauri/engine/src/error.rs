//! Typed errors. Every error has a serializable [`ErrorKind`] so a UI or the CLI can act on it
//! without parsing messages.

use std::path::PathBuf;

use serde::Serialize;
use ts_rs::TS;

use crate::model::Origin;

/// The broad class of an error, stable across versions and safe to switch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// The caller passed something that can never be valid (a hostile session id, a bad flag).
    InvalidInput,
    /// The named thing does not exist (unknown session, agent or run).
    NotFound,
    /// A configuration file (fleet, agent) is missing or malformed.
    Config,
    /// A data file exists but cannot be parsed; it was left untouched.
    Corrupt,
    /// The operation was refused to protect data (owned by another agent, unsafe backup root).
    Refused,
    /// The Claude desktop app is running (or may be): its store is left alone until it quits.
    AppRunning,
    /// An operating-system error (permissions, disk full, vanished file).
    Io,
}

/// An error and its kind, as it crosses a process boundary (IPC, CLI JSON).
#[derive(Debug, Clone, Serialize, TS)]
pub struct ErrorPayload {
    /// What kind of failure it is.
    pub kind: ErrorKind,
    /// The error in words, for a person.
    pub message: String,
}

/// Everything that can go wrong in the engine; [`Error::kind`] sorts them.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A session id that is not one (ids name files: only letters, digits and '-').
    #[error("invalid session id {0:?}: a session id may contain only letters, digits and '-'")]
    InvalidSessionId(String),

    /// An argument that can never be valid, with what is wrong.
    #[error("invalid input: {0}")]
    InvalidInput(String),

    /// No session has this id.
    #[error("session {0} was not found")]
    SessionNotFound(String),

    /// The session has no subagent run with this id.
    #[error("session {session_id} has no subagent {agent_id}")]
    SubagentNotFound {
        /// The session.
        session_id: String,
        /// The subagent asked for.
        agent_id: String,
    },

    /// The open fleet has no agent of this name.
    #[error("agent {0:?} is not in the fleet")]
    UnknownAgent(String),

    /// Something that needs a fleet was asked with none open.
    #[error("no fleet is open; open a herdctl.yaml first")]
    NoFleet,

    /// No run of this id is in the data dir.
    #[error("run {0:?} was not found")]
    RunNotFound(String),

    /// A fleet or agent file that is missing or malformed.
    #[error("cannot use fleet file {}: {reason}", path.display())]
    FleetConfig {
        /// The fleet or agent file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// A data file that exists but cannot be used; it was left untouched.
    #[error("{} cannot be parsed and was left untouched: {reason}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why it cannot be used.
        reason: String,
    },

    /// An adoption that would have no effect: a job or platform record outranks it.
    #[error(
        "cannot adopt session {session_id}: it is already attributed to agent {owner:?} (origin {origin}); job and platform records outrank adoption, so the record would have no effect"
    )]
    AdoptionRefused {
        /// The session.
        session_id: String,
        /// The agent a job or platform record gives it to.
        owner: String,
        /// How that agent got it.
        origin: Origin,
    },

    /// Refused to protect data, and why.
    #[error("refused: {0}")]
    Refused(String),

    /// Corral was about to write into or remove a folder it cannot prove it made; it was left as
    /// it is (see `owned`).
    #[error("{} is not Corral's, so Corral left it as it is: {why}", path.display())]
    NotCorrals {
        /// The folder.
        path: PathBuf,
        /// What proof is missing.
        why: String,
    },

    /// A search query that cannot be read (what is wrong, in words).
    #[error("{0}")]
    Query(String),

    /// The search index cannot be opened, read or written.
    #[error("the search index cannot be used: {0}")]
    SearchIndex(String),

    /// The desktop app's store exists but its report cannot be trusted to be complete.
    #[error("desktop app store: {0}")]
    DesktopStore(String),

    /// The desktop app runs, or whether it runs cannot be told: nothing was written.
    #[error("{0}")]
    DesktopAppRunning(String),

    /// An operating-system error, and what was being done.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, to which path.
        context: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Wraps an I/O error with a sentence saying what was being done and to which path.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io { context: context.into(), source }
    }

    /// Wraps an I/O error on `path`, with `action` describing the attempt ("read", "create").
    pub fn io_at(action: &str, path: &std::path::Path, source: std::io::Error) -> Self {
        Self::Io { context: format!("cannot {action} {}", path.display()), source }
    }

    /// A data file that exists but cannot be used, and why (it is left untouched).
    pub fn unreadable(path: &std::path::Path, why: impl std::fmt::Display) -> Self {
        Self::Unreadable { path: path.to_path_buf(), reason: why.to_string() }
    }

    /// A folder Corral cannot prove it made, and why (it is left untouched).
    pub fn not_corrals(path: &std::path::Path, why: impl Into<String>) -> Self {
        Self::NotCorrals { path: path.to_path_buf(), why: why.into() }
    }

    /// The error's kind, for a caller to act on.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::InvalidSessionId(_) | Self::InvalidInput(_) | Self::Query(_) => {
                ErrorKind::InvalidInput
            }
            Self::SessionNotFound(_)
            | Self::SubagentNotFound { .. }
            | Self::UnknownAgent(_)
            | Self::RunNotFound(_) => ErrorKind::NotFound,
            Self::FleetConfig { .. } | Self::NoFleet => ErrorKind::Config,
            Self::Unreadable { .. } | Self::DesktopStore(_) => ErrorKind::Corrupt,
            Self::AdoptionRefused { .. } | Self::Refused(_) | Self::NotCorrals { .. } => {
                ErrorKind::Refused
            }
            Self::DesktopAppRunning(_) => ErrorKind::AppRunning,
            Self::Io { .. } | Self::SearchIndex(_) => ErrorKind::Io,
        }
    }

    /// The error as it crosses a process boundary.
    pub fn payload(&self) -> ErrorPayload {
        ErrorPayload { kind: self.kind(), message: self.to_string() }
    }
}

/// `?` turns an engine error into what crosses the process boundary.
impl From<Error> for ErrorPayload {
    fn from(e: Error) -> Self {
        e.payload()
    }
}

/// The engine's result: its error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
