//! Starting the chosen rows: each in a terminal of its own running `claude --resume <id>` in
//! its folder (optionally `--remote-control <name>`), each start guarded again just before it
//! (the table is read anew: a process may have started since the rows were shown) and verified
//! by its `--resume` id within a bound, spaced so a machine is not flooded, and cancellable
//! between starts. A failed start is never reported as started.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::Result;
use crate::occupancy::{OccupancySnapshot, ProcessSource};
use crate::resume::{Fallback, Terminal, launch, plan_resume, wait_started};

/// The pause between two starts.
pub const START_SPACING: Duration = Duration::from_millis(750);

/// One row to start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReopenChoice {
    /// The conversation.
    pub session_id: String,
    /// Its Remote Control name (used when [`StartSettings::remote_control`] is on).
    pub remote_name: Option<String>,
}

/// What became of one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum StartResult {
    /// A `claude` process is on the conversation.
    Started,
    /// A terminal was asked, but no process came (or the terminal would not open).
    FailedToStart,
    /// Not started: the folder is held, its state is unknown, or the conversation is gone.
    Skipped,
    /// Not tried: the batch was cancelled first.
    NotTried,
}

/// One row's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReopenOutcome {
    /// The conversation.
    pub session_id: String,
    /// Its folder, when known.
    pub folder: Option<String>,
    /// What became of it.
    pub result: StartResult,
    /// Why (for every result but a plain start), or a note on a start (it waits at Claude
    /// Code's question whether the folder is trusted).
    pub why: Option<String>,
    /// The terminal it opened in.
    pub terminal: Option<String>,
    /// The process on it, once started.
    pub pid: Option<u32>,
    /// The command, as a person would type it.
    pub command: Option<String>,
}

/// A batch's outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReopenReport {
    /// Started and verified.
    pub started: u32,
    /// Asked for and not started.
    pub failed: u32,
    /// Skipped by the guard (or gone).
    pub skipped: u32,
    /// The batch was cancelled before its end.
    pub cancelled: bool,
    /// Each row, in the order given.
    pub rows: Vec<ReopenOutcome>,
}

/// How a batch starts.
pub struct StartSettings<'a> {
    /// The terminals to try.
    pub terminals: &'a [Terminal],
    /// The process table.
    pub processes: &'a dyn ProcessSource,
    /// How long each start may take to show a process.
    pub timeout: Duration,
    /// The pause between starts.
    pub spacing: Duration,
    /// Start each with Remote Control on, under its [`ReopenChoice::remote_name`].
    pub remote_control: bool,
    /// Whether Claude Code trusts a folder (`Some(false)`: it will ask first).
    pub trusted: &'a dyn Fn(&str) -> Option<bool>,
    /// Set to stop before the next start.
    pub cancel: &'a AtomicBool,
}

/// Starts `chosen` (sessions of `catalog`), reporting each outcome to `progress` as it comes.
pub fn reopen_in(
    catalog: &crate::catalog::Catalog,
    chosen: &[ReopenChoice],
    settings: &StartSettings<'_>,
    progress: &mut dyn FnMut(&ReopenOutcome, usize),
) -> Result<ReopenReport> {
    let sessions = catalog.listed_sessions()?;
    let default_home = crate::paths::default_claude_home();
    let mut report = ReopenReport::default();
    let mut first = true;
    for (i, choice) in chosen.iter().enumerate() {
        if settings.cancel.load(Ordering::Relaxed) {
            report.cancelled = true;
        }
        let outcome = if report.cancelled {
            not_tried(choice)
        } else {
            if !first {
                std::thread::sleep(settings.spacing);
            }
            first = false;
            let session = sessions.iter().find(|s| s.session_id == choice.session_id);
            match session {
                None => skipped(choice, None, "the conversation is not listed any more".to_owned()),
                Some(s) => {
                    start_one(s, choice, catalog.claude_home(), default_home.as_deref(), settings)
                }
            }
        };
        match outcome.result {
            StartResult::Started => report.started += 1,
            StartResult::FailedToStart => report.failed += 1,
            StartResult::Skipped => report.skipped += 1,
            StartResult::NotTried => {}
        }
        progress(&outcome, i);
        report.rows.push(outcome);
    }
    Ok(report)
}

fn start_one(
    s: &crate::model::SessionSummary,
    choice: &ReopenChoice,
    claude_home: &Path,
    default_home: Option<&Path>,
    settings: &StartSettings<'_>,
) -> ReopenOutcome {
    let snapshot = OccupancySnapshot::capture(settings.processes);
    let folder = Some(s.working_directory.clone());
    let mut command = match plan_resume(s, &snapshot, claude_home, default_home, Fallback(None)) {
        Ok(c) => c,
        Err(e) => return skipped(choice, folder, e.to_string()),
    };
    let remote = choice.remote_name.as_deref().filter(|_| settings.remote_control);
    if let Some(name) = remote.filter(|n| valid_remote_name(n)) {
        command.args.push("--remote-control".to_owned());
        command.args.push(name.to_owned());
        command.display = format!("{} --remote-control {name}", command.display);
    }
    let base = ReopenOutcome {
        session_id: choice.session_id.clone(),
        folder,
        result: StartResult::FailedToStart,
        why: None,
        terminal: None,
        pid: None,
        command: Some(command.display.clone()),
    };
    let terminal = match launch(settings.terminals, &command) {
        Ok(t) => t,
        Err(e) => return ReopenOutcome { why: Some(e.to_string()), ..base },
    };
    match wait_started(settings.processes, &command.session_id, settings.timeout) {
        Ok(pid) => {
            let why = ((settings.trusted)(&s.working_directory) == Some(false)).then(|| {
                "waiting at Claude Code's question whether you trust this folder".to_owned()
            });
            ReopenOutcome {
                result: StartResult::Started,
                why,
                terminal: Some(terminal),
                pid: Some(pid),
                ..base
            }
        }
        Err(why) => ReopenOutcome { why: Some(why), terminal: Some(terminal), ..base },
    }
}

/// A Remote Control name Corral made ([`super::recent`]'s): letters, digits and `-`, not
/// starting with `-` (it is one argument, but it must never read as an option).
fn valid_remote_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('-')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

fn skipped(choice: &ReopenChoice, folder: Option<String>, why: String) -> ReopenOutcome {
    ReopenOutcome {
        session_id: choice.session_id.clone(),
        folder,
        result: StartResult::Skipped,
        why: Some(why),
        terminal: None,
        pid: None,
        command: None,
    }
}

fn not_tried(choice: &ReopenChoice) -> ReopenOutcome {
    ReopenOutcome {
        result: StartResult::NotTried,
        why: Some("cancelled before it was started".to_owned()),
        ..skipped(choice, None, String::new())
    }
}
