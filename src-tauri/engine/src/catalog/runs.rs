//! What a session's subagents' runs cost, for the listing's figure: found beside the session's
//! transcript and read when that transcript is read, each run again only when its file changed.
//!
//! A run is written while its session's transcript waits for it, and the transcript records the
//! run's result when it ends, so a session whose transcript is unchanged has runs that are
//! unchanged too: a listing that finds the transcript fresh looks at no run (no `stat` on a warm
//! start). A run still growing after its session's process died is counted as last read until the
//! transcript changes; `corral-cli cost` reads every run afresh.

use std::collections::HashMap;
use std::path::Path;

use crate::index::FileStamp;
use crate::transcript::facts::{FactsScanner, RunSpend};
use crate::transcript::ledger::run_spend;
use crate::transcript::subagents::{FlatAgents, subagent_files};

/// Brings `scanner`'s record of the runs of session `session_id` (transcript `main`; `flat` the
/// flat agent files of its folder) up to date. With Claude Code's own figure, which covers the
/// runs, none is read. A run that vanished or cannot be read is not counted.
pub(super) fn refresh(
    scanner: &mut FactsScanner,
    main: &Path,
    session_id: &str,
    flat: &FlatAgents,
) {
    if scanner.has_recorded_cost() {
        if !scanner.runs().is_empty() {
            scanner.set_runs(Vec::new());
        }
        return;
    }
    let Some(dir) = main.parent() else { return };
    let files = subagent_files(main, session_id, flat);
    if files.is_empty() && scanner.runs().is_empty() {
        return;
    }
    let before: HashMap<&str, &RunSpend> =
        scanner.runs().iter().map(|r| (r.file.as_str(), r)).collect();
    let runs: Vec<RunSpend> = files
        .iter()
        .filter_map(|f| {
            let file = f.path.strip_prefix(dir).ok()?.to_str()?;
            // Stamped before it is read: a run that grows meanwhile differs next time.
            let stamp = FileStamp::of(&std::fs::metadata(&f.path).ok()?);
            if let Some(r) = before.get(file)
                && r.size == stamp.size
                && r.mtime_ns == stamp.mtime_ns
            {
                return Some((*r).clone());
            }
            let spend = run_spend(&f.path, main).ok()?;
            Some(RunSpend {
                file: file.to_owned(),
                size: stamp.size,
                mtime_ns: stamp.mtime_ns,
                spend,
            })
        })
        .collect();
    scanner.set_runs(runs);
}
