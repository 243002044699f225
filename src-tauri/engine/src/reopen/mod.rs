//! Reopening recent work after a restart: each folder's newest conversation of the last N days
//! (`recent`), the folder's git state read so nothing the repository says runs (`git`), and the
//! chosen ones started again, each in its own terminal, guarded and verified (`start`).

mod facade;
mod git;
mod recent;
mod start;

pub use facade::{TrustReader, recent_work_in};
pub use git::{GIT_TIMEOUT, Git, GitState, git_state, git_states};
pub use recent::{
    DEFAULT_DAYS, FolderState, LeftOut, LeftOutReason, RecentRules, RecentWork, ReopenRow,
    folder_state, recent_work, trusted_in,
};
pub use start::{
    ReopenChoice, ReopenOutcome, ReopenReport, START_SPACING, StartResult, StartSettings, reopen_in,
};
