//! Deleting sessions safely: a delete moves everything a session left behind into Corral's
//! quarantine as a run — previewed, journaled before each move, undone from History or
//! `corral-cli undo` — and nothing is ever deleted outright.
//!
//! - **What goes** (`leftovers`): the transcript, its `<sid>/` folder (subagent runs, tool
//!   results, Claude Code's title sidecar), `session-env/<sid>/`, `file-history/<sid>/`,
//!   `tasks/<sid>/`, `todos/<sid>-*.json`, `debug/<sid>.txt`, `uploads/<sid>/`, an Agent View
//!   job record naming it (`jobs/<id>/`) and Corral's adoption record of it; herdctl's names
//!   for it are removed from its metadata (each journaled with the name, so undo sets it back).
//!   With the desktop app closed, its sidebar entries that show the session go too. What stays
//!   (`history.jsonl`'s lines; the sidebar while the app runs) is said in the preview.
//! - **Guards** (`plan`): refused while a `claude` process may be on the session (or the
//!   process table cannot be read), while a herdctl job is running or pending on it, or while
//!   Claude Code's background job says it is going. Subagent runs and continuations are noted.
//! - **The move** ([`crate::moving`]): into `<data dir>/quarantine/<run id>/<n>/<name>`, one
//!   rename that never replaces on one filesystem; across filesystems a copy checked byte for
//!   byte before the source goes. Every item is journaled (`intended`, with its quarantine slot)
//!   in one write before the first move, so a crash leaves every byte in its place or in the
//!   slot its entry names, and the run's undo ([`crate::runs`]) puts it back.
//! - **Sweeps** (`sweep`): the leftovers of sessions that no longer exist, and debug logs past
//!   an age, go the same way, each session's as one entry of the run.
//! - **Emptying** (`contents`): a run's quarantine folder goes to the system's trash, never a
//!   permanent delete of Corral's own; a trash that refuses keeps the files and says so.

mod apply;
mod contents;
mod leftovers;
mod plan;
mod planned;
mod sweep;

pub use apply::{DeleteProgress, DeleteReport, delete_in};
pub use contents::{
    EmptyReport, KeptRun, QuarantineRun, QuarantinedSession, SystemTrash, Trash, empty,
    empty_older_than, quarantine, restore_in, runs_older_than,
};
pub use leftovers::{HomeLeftovers, LeftoverItem, NOT_REMOVED, Orphaned};
pub use plan::{DeleteRequest, DeleteRules, plan_delete, plan_delete_in};
pub use planned::{DeletePlan, HerdctlName, PlannedSession, RefusedSession};
pub use sweep::{LeftoverSweep, ORPHANED_NAME};
