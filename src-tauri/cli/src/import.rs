//! `adoptable`, `adopt`, `release`, `import`, `runs`, `undo`: adoption and placement from the
//! command line. Every command has a JSON form (`--json`) and a short readable one.

use std::path::PathBuf;

use clap::Subcommand;
use corral_engine::adopt;
use corral_engine::import::{self, ApplyOptions, ImportTarget};
use corral_engine::occupancy::{OccupancySnapshot, SystemProcesses};
use corral_engine::placement::PlacementMode;
use corral_engine::runs::{self, UndoTarget};
use corral_engine::{Catalog, Error};
use serde_json::Value;

fn parse_mode(s: &str) -> Result<PlacementMode, String> {
    PlacementMode::parse(s).ok_or_else(|| format!("unknown mode {s:?}: use copy, move or link"))
}

/// Adoption and import commands.
#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// List the sessions an agent could adopt (unattributed, not subagent transcripts), newest first.
    Adoptable {
        /// The agent's qualified name (e.g. `team.gamma`).
        agent: String,
        /// Look in this working directory's transcript folder instead of the agent's.
        #[arg(long, value_name = "DIR", conflicts_with = "all_folders")]
        from: Option<PathBuf>,
        /// Look in every folder of the Claude home.
        #[arg(long)]
        all_folders: bool,
    },
    /// Record that an agent adopts a session (moves nothing).
    Adopt { agent: String, session_id: String },
    /// Remove an agent's adoption record (the transcript stays).
    Release { agent: String, session_id: String },
    /// Place transcripts into an agent's folder (with adoption records) or back into the Claude
    /// home; journaled and undoable.
    Import {
        /// Import into this agent's transcript folder and adopt the sessions.
        #[arg(
            long,
            value_name = "NAME",
            required_unless_present = "claude_home_target",
            conflicts_with = "claude_home_target"
        )]
        agent: Option<String>,
        /// Import into the Claude home, each session into the folder of the cwd it records.
        #[arg(long)]
        claude_home_target: bool,
        /// copy (default; keeps the source), link (hard link, symlink across devices), or move.
        #[arg(long, value_parser = parse_mode, default_value = "copy")]
        mode: PlacementMode,
        /// Show the plan; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Transcript files, transcript folders, or whole `projects/` trees.
        #[arg(required = true, value_name = "SOURCE")]
        sources: Vec<PathBuf>,
    },
    /// List runs (imports, desktop-sidebar restores and renames), newest first.
    Runs,
    /// Undo an import, desktop-sidebar restore or rename run (only what can be proven to be the
    /// run's own; a rename's earlier title is appended, the transcript never cut).
    Undo {
        run_id: String,
        /// Show what undo would do; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

fn to_value<T: serde::Serialize>(v: &T) -> Result<Value, Error> {
    serde_json::to_value(v).map_err(|e| Error::io("cannot encode JSON", std::io::Error::other(e)))
}

/// Runs one command and returns its JSON result.
/// `desktop_store` is `--desktop-store` (undo of a sidebar restore acts on that store only).
pub fn execute(
    catalog: &Catalog,
    cmd: &ImportCommand,
    desktop_store: Option<&std::path::Path>,
) -> Result<Value, Error> {
    let now = chrono::Utc::now();
    match cmd {
        ImportCommand::Adoptable { agent, from, all_folders } => {
            to_value(&adopt::adoptable(catalog, agent, from.as_deref(), *all_folders)?)
        }
        ImportCommand::Adopt { agent, session_id } => {
            to_value(&adopt::adopt(catalog, agent, session_id, now)?)
        }
        ImportCommand::Release { agent, session_id } => {
            to_value(&adopt::release(catalog, agent, session_id, now)?)
        }
        ImportCommand::Import { agent, claude_home_target: _, mode, dry_run, sources } => {
            let target = match agent {
                Some(name) => ImportTarget::Agent { name: name.clone() },
                None => ImportTarget::ClaudeHome,
            };
            let occupancy = OccupancySnapshot::capture(&SystemProcesses);
            let plan = import::plan_import(catalog, &target, sources, *mode, &occupancy)?;
            if *dry_run {
                return to_value(&plan.dry_run_report());
            }
            #[cfg(feature = "fault-points")]
            let simulated = corral_engine::placement::SimulatedCrossDevice;
            #[allow(unused_mut)]
            let mut opts = ApplyOptions { occupancy: Some(&occupancy), ..ApplyOptions::default() };
            #[cfg(feature = "fault-points")]
            if std::env::var_os("CORRAL_SIMULATE_CROSS_DEVICE").is_some() {
                opts.fs = &simulated;
            }
            let report = import::apply_with(catalog, &plan, now, &opts, &mut |_| true)?;
            to_value(&report)
        }
        ImportCommand::Runs => to_value(&runs::runs(catalog.data_dir())?),
        ImportCommand::Undo { run_id, dry_run } => {
            let target = UndoTarget::of(catalog)
                .with_desktop_store(corral_engine::desktop::store_from_env(desktop_store));
            if *dry_run {
                to_value(&runs::plan_undo(&target, run_id)?)
            } else {
                to_value(&runs::undo(&target, run_id, now)?)
            }
        }
    }
}

/// Runs one command and prints its result: JSON with `json`, else a few readable lines.
pub fn run(
    catalog: &Catalog,
    cmd: &ImportCommand,
    desktop_store: Option<&std::path::Path>,
    json: bool,
) -> Result<(), Error> {
    let value = execute(catalog, cmd, desktop_store)?;
    let text = if json {
        serde_json::to_string_pretty(&value)
            .map_err(|e| Error::io("cannot encode JSON", std::io::Error::other(e)))?
    } else {
        crate::escape_for_terminal(&render(cmd, &value))
    };
    // A closed pipe (`| head`) is not an error worth a panic.
    let mut out = std::io::stdout().lock();
    match std::io::Write::write_all(&mut out, format!("{text}\n").as_bytes()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(Error::io("cannot write to stdout", e)),
    }
    Ok(())
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The readable form.
pub fn render(cmd: &ImportCommand, v: &Value) -> String {
    let lines = match cmd {
        ImportCommand::Adoptable { .. } => render_adoptable(v),
        ImportCommand::Adopt { .. } => vec![render_adopt(v)],
        ImportCommand::Release { .. } => vec![render_release(v)],
        ImportCommand::Import { .. } => render_import(v),
        ImportCommand::Runs => render_runs(v),
        ImportCommand::Undo { .. } => render_undo(v),
    };
    lines.join("\n")
}

fn render_adoptable(v: &Value) -> Vec<String> {
    let items = v.as_array().map_or(&[][..], Vec::as_slice);
    if items.is_empty() {
        return vec!["no adoptable sessions".to_owned()];
    }
    items
        .iter()
        .map(|it| {
            let [id, mtime, cwd, name] =
                ["sessionId", "mtime", "sourceCwd", "autoName"].map(|k| s(it, k));
            format!("{id}  {mtime}  {cwd}  {name}")
        })
        .collect()
}

fn render_adopt(v: &Value) -> String {
    if v.get("alreadyAdopted").and_then(Value::as_bool) == Some(true) {
        format!("{} was already adopted by {}", s(v, "sessionId"), s(v, "agentName"))
    } else {
        format!("{} adopted by {} ({})", s(v, "sessionId"), s(v, "agentName"), s(v, "recordPath"))
    }
}

fn render_release(v: &Value) -> String {
    if v.get("released").and_then(Value::as_bool) == Some(true) {
        let run = s(v, "runId");
        format!(
            "released {} from {} (the transcript stays); undo with: corral-cli undo {run}",
            s(v, "sessionId"),
            s(v, "agentName")
        )
    } else {
        format!(
            "{} has no adoption record by {}; nothing changed",
            s(v, "sessionId"),
            s(v, "agentName")
        )
    }
}

fn render_import(v: &Value) -> Vec<String> {
    let dry = v.get("dryRun").and_then(Value::as_bool) == Some(true);
    let verb = if dry { "would place" } else { "placed" };
    let mut out: Vec<String> = list(v, "placed")
        .iter()
        .map(|p| format!("{verb} {}  {} -> {}", s(p, "sessionId"), s(p, "from"), s(p, "to")))
        .collect();
    out.extend(
        list(v, "skipped").iter().map(|k| {
            format!("skipped {}  {}: {}", s(k, "sessionId"), s(k, "reason"), s(k, "detail"))
        }),
    );
    out.push(match v.get("runId").and_then(Value::as_str) {
        Some(id) => {
            format!("run {id} (backup in {}); undo with: corral-cli undo {id}", s(v, "runDir"))
        }
        None if dry => "dry run: nothing was written".to_owned(),
        None => "nothing was placed; no run was recorded".to_owned(),
    });
    out
}

fn render_runs(v: &Value) -> Vec<String> {
    let items = v.as_array().map_or(&[][..], Vec::as_slice);
    if items.is_empty() {
        return vec!["no runs".to_owned()];
    }
    let n = |r: &Value, k: &str| r.get(k).and_then(Value::as_u64).unwrap_or(0);
    items
        .iter()
        .map(|r| {
            if let Some(rn) = r.get("rename").filter(|v| !v.is_null()) {
                let name = |k: &str| match rn.get(k).and_then(Value::as_str) {
                    Some(n) => format!(
                        "{:?}",
                        corral_engine::printable::for_terminal(
                            n,
                            corral_engine::printable::Lines::One
                        )
                    ),
                    None => "(no name)".to_owned(),
                };
                return format!(
                    "{}  rename {}  {} -> {}  {}  {}",
                    s(r, "runId"),
                    s(rn, "sessionId"),
                    name("from"),
                    name("to"),
                    s(r, "undoState"),
                    s(r, "backupDir")
                );
            }
            if let Some(rl) = r.get("release").filter(|v| !v.is_null()) {
                return format!(
                    "{}  release {} from {}  {}  {}",
                    s(r, "runId"),
                    s(rl, "sessionId"),
                    s(rl, "agentName"),
                    s(r, "undoState"),
                    s(r, "backupDir")
                );
            }
            let released = match n(r, "released") {
                0 => String::new(),
                k => format!("  released later {k}"),
            };
            let what = match r.get("sidebar").filter(|v| !v.is_null()) {
                Some(sb) => format!("desktop sidebar {}/{}  ", s(sb, "account"), s(sb, "org")),
                None => String::new(),
            };
            format!(
                "{}  {what}placed {}  records {}{released}  skipped {}  {}  {}",
                s(r, "runId"),
                n(r, "placed"),
                n(r, "records"),
                n(r, "skipped"),
                s(r, "undoState"),
                s(r, "backupDir")
            )
        })
        .collect()
}

fn render_undo(v: &Value) -> Vec<String> {
    let done = list(v, "undone").iter().chain(list(v, "steps"));
    let mut out: Vec<String> =
        done.map(|it| format!("{}  {}", s(it, "action"), s(it, "path"))).collect();
    out.extend(
        list(v, "notUndone")
            .iter()
            .map(|it| format!("NOT undone  {}: {}", s(it, "path"), s(it, "reason"))),
    );
    out
}
