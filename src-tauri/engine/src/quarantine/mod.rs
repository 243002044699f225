//! Deleting sessions safely: a delete moves everything a session left behind into Corral's
//! quarantine as a run — previewed, journaled before each move, undone from History or
//! `corral-cli undo` — and nothing is ever deleted outright.
//!
//! - **What goes** (`leftovers`): the transcript, its `<sid>/` folder (subagent runs, tool
//!   results, Claude Code's title sidecar), `session-env/<sid>/`, `file-history/<sid>/`,
//!   `tasks/<sid>/`, `todos/<sid>-*.json`, `debug/<sid>.txt`, `uploads/<sid>/`, an Agent View
//!   job record naming it (`jobs/<id>/`) and Corral's adoption record of it. What stays
//!   (`history.jsonl`'s lines, herdctl's names, the desktop app's sidebar) is said in the
//!   preview.
//! - **Guards** (`plan`): refused while a `claude` process may be on the session (or the
//!   process table cannot be read), while a herdctl job is running or pending on it, or while
//!   Claude Code's background job says it is going. Subagent runs and continuations are noted.
//! - **The move** ([`crate::moving`]): into `<data dir>/quarantine/<run id>/<n>/<name>`, one
//!   rename that never replaces on one filesystem; across filesystems a copy checked byte for
//!   byte before the source goes. Every item is journaled (`intended`, with its quarantine slot)
//!   in one write before the first move, so a crash leaves every byte in its place or in the
//!   slot its entry names, and the run's undo ([`crate::runs`]) puts it back.
//! - **Emptying** (`contents`): a run's quarantine folder goes to the system's trash, never a
//!   permanent delete of Corral's own; a trash that refuses keeps the files and says so.

mod apply;
mod contents;
mod leftovers;
mod plan;

pub use apply::{DeleteProgress, DeleteReport, delete_in};
pub use contents::{
    EmptyReport, KeptRun, QuarantineRun, QuarantinedSession, SystemTrash, Trash, empty, quarantine,
    restore_in, runs_older_than,
};
pub use leftovers::{HomeLeftovers, LeftoverItem, NOT_REMOVED};
pub use plan::{
    DeletePlan, DeleteRequest, DeleteRules, PlannedSession, RefusedSession, plan_delete,
    plan_delete_in,
};
