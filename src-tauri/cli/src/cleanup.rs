//! `delete`, `quarantine` and `storage`: deleting sessions into Corral's quarantine, what is in
//! it, and where the Claude home's space goes.

use std::sync::atomic::AtomicBool;

use clap::Subcommand;
use corral_engine::occupancy::SystemProcesses;
use corral_engine::quarantine::{self, DeleteRequest, DeleteRules, LeftoverSweep, SystemTrash};
use corral_engine::{Catalog, Error};

use crate::{print_json, say};

/// `delete`'s arguments.
#[derive(Debug, clap::Args)]
pub struct DeleteArgs {
    /// Sessions to delete (with rules: those of them the rules pick).
    #[arg(value_name = "SESSION_ID")]
    session_ids: Vec<String>,
    /// Only sessions whose last activity is older than this (`30d`, `12w`, `30`).
    #[arg(long, value_name = "AGE", value_parser = parse_days)]
    older_than: Option<u32>,
    /// Only sessions with no message at all.
    #[arg(long)]
    empty: bool,
    /// Only sessions whose transcript is larger than this (`500K`, `10M`, `1G`, bytes).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    larger_than: Option<u64>,
    /// Only sessions whose working directory no longer exists.
    #[arg(long)]
    folder_gone: bool,
    /// Only sessions that ran in this working directory.
    #[arg(long = "in", value_name = "FOLDER")]
    working_directory: Option<String>,
    /// Only sessions this agent owns (its qualified name).
    #[arg(long, value_name = "AGENT")]
    agent: Option<String>,
    /// Also sweep up what sessions that no longer exist left behind (untouched for a day).
    #[arg(long)]
    orphaned: bool,
    /// Also sweep up Claude Code's debug logs untouched for this long (`30d`); the sessions stay.
    #[arg(long, value_name = "AGE", value_parser = parse_days)]
    debug_logs_older_than: Option<u32>,
    /// Show what would be deleted, with sizes; change nothing.
    #[arg(long)]
    dry_run: bool,
}

/// What is in the quarantine, putting it back, and emptying it.
#[derive(Debug, Subcommand)]
pub enum QuarantineCommand {
    /// Every delete run, with its sessions and sizes.
    List,
    /// Put a delete run's sessions back (or one of them, with --session).
    Restore {
        run_id: String,
        /// Only this session.
        #[arg(long, value_name = "SESSION_ID")]
        session: Option<String>,
    },
    /// Send delete runs to the system's trash (never a permanent delete): the runs named, or
    /// those older than --older-than.
    Empty {
        #[arg(value_name = "RUN_ID", required_unless_present = "older_than")]
        run_ids: Vec<String>,
        /// Every run deleted longer ago than this (`30d`, `30`).
        #[arg(long, value_name = "AGE", value_parser = parse_days)]
        older_than: Option<u32>,
    },
}

pub(crate) fn parse_days(s: &str) -> Result<u32, String> {
    let (n, unit) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (s.get(..i).unwrap_or(""), c),
        _ => (s, 'd'),
    };
    let n: u32 = n.parse().map_err(|_| format!("{s:?} is not an age like 30d"))?;
    match unit.to_ascii_lowercase() {
        'd' => Ok(n),
        'w' => n.checked_mul(7).ok_or_else(|| format!("{s:?} is too long")),
        _ => Err(format!("{s:?}: use days (30d) or weeks (4w)")),
    }
}

fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (n, mult) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (t.get(..t.len() - 1).unwrap_or(""), 1u64 << 10),
        Some('M') => (t.get(..t.len() - 1).unwrap_or(""), 1 << 20),
        Some('G') => (t.get(..t.len() - 1).unwrap_or(""), 1 << 30),
        _ => (t, 1),
    };
    let n: f64 = n.parse().map_err(|_| format!("{s:?} is not a size like 10M"))?;
    if !n.is_finite() || n < 0.0 {
        return Err(format!("{s:?} is not a size"));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
    Ok((n * mult as f64) as u64)
}

/// `corral-cli delete`.
pub fn delete(
    catalog: &Catalog,
    a: &DeleteArgs,
    desktop_store: Option<&std::path::Path>,
    json: bool,
) -> Result<(), Error> {
    let request = DeleteRequest {
        session_ids: a.session_ids.clone(),
        rules: DeleteRules {
            older_than_days: a.older_than,
            empty: a.empty,
            larger_than: a.larger_than,
            folder_gone: a.folder_gone,
            working_directory: a.working_directory.clone(),
            agent: a.agent.clone(),
        },
        sweep: LeftoverSweep {
            orphaned: a.orphaned,
            debug_logs_older_than_days: a.debug_logs_older_than,
        },
        desktop_store: corral_engine::desktop::store_from_env(desktop_store),
    };
    let now = chrono::Utc::now();
    if a.dry_run {
        let plan = quarantine::plan_delete_in(catalog, &request, &SystemProcesses, now)?;
        if json {
            return print_json(&plan);
        }
        for s in &plan.sessions {
            say!("{}  {:>9}  {}", s.session_id, size(s.bytes), s.name);
            for item in &s.items {
                say!("    {:>9}  {}", size(item.bytes), item.path);
            }
            for note in &s.notes {
                say!("    note: {note}");
            }
        }
        for r in &plan.refused {
            say!("{}  left alone: {}", r.session_id, r.reason);
        }
        say!(
            "{}, {} would move into the quarantine",
            sessions(plan.sessions.len()),
            size(plan.bytes)
        );
        for kept in &plan.not_removed {
            say!("not removed: {kept}");
        }
        return Ok(());
    }
    let cancel = AtomicBool::new(false);
    let report =
        quarantine::delete_in(catalog, &request, &SystemProcesses, now, &mut |_| {}, &cancel)?;
    if json {
        return print_json(&report);
    }
    for r in &report.refused {
        say!("{}  left alone: {}", r.session_id, r.reason);
    }
    match &report.run_id {
        Some(id) => {
            say!(
                "{} ({}) moved into the quarantine",
                sessions(report.deleted.len()),
                size(report.bytes)
            );
            say!("run {id}; undo with: corral-cli undo {id}");
        }
        None => say!("nothing was deleted"),
    }
    Ok(())
}

/// `corral-cli quarantine …`.
pub fn run(
    catalog: &Catalog,
    cmd: &QuarantineCommand,
    desktop_store: Option<&std::path::Path>,
    json: bool,
) -> Result<(), Error> {
    let now = chrono::Utc::now();
    match cmd {
        QuarantineCommand::List => {
            let runs = quarantine::quarantine(catalog.data_dir())?;
            if json {
                return print_json(&runs);
            }
            if runs.is_empty() {
                say!("the quarantine is empty");
            }
            for r in &runs {
                let state = match (&r.emptied_at, r.undone) {
                    (Some(at), _) => format!("emptied into the trash {at}"),
                    (None, true) => "restored".to_owned(),
                    (None, false) => size(r.bytes),
                };
                say!(
                    "{}  deleted {}  {}  {state}",
                    r.run_id,
                    r.deleted_at,
                    sessions(r.sessions.len())
                );
                for s in &r.sessions {
                    let held = if s.restored { "restored".to_owned() } else { size(s.bytes) };
                    say!("    {}  {:>9}  {}", s.session_id, held, s.name);
                }
            }
            Ok(())
        }
        QuarantineCommand::Restore { run_id, session } => {
            let store = corral_engine::desktop::store_from_env(desktop_store);
            let report = quarantine::restore_in(catalog, store, run_id, session.as_deref(), now)?;
            if json {
                return print_json(&report);
            }
            for it in &report.undone {
                say!("{:?}  {}", it.action, it.path);
            }
            for it in &report.not_undone {
                say!("NOT restored  {}: {}", it.path, it.reason);
            }
            Ok(())
        }
        QuarantineCommand::Empty { run_ids, older_than } => {
            let mut ids = run_ids.clone();
            if let Some(days) = older_than {
                ids.extend(quarantine::runs_older_than(catalog.data_dir(), *days, now)?);
            }
            let report = quarantine::empty(catalog.data_dir(), &ids, &SystemTrash, now)?;
            if json {
                return print_json(&report);
            }
            let noun = if report.emptied.len() == 1 { "run" } else { "runs" };
            say!(
                "{} {noun} ({}) sent to the system's trash",
                report.emptied.len(),
                size(report.bytes)
            );
            for k in &report.kept {
                say!("{}  kept: {}", k.run_id, k.reason);
            }
            Ok(())
        }
    }
}

/// `corral-cli storage`.
pub fn storage(catalog: &Catalog, json: bool) -> Result<(), Error> {
    let report = corral_engine::storage::storage(catalog, chrono::Utc::now())?;
    if json {
        return print_json(&report);
    }
    say!("{}  {}", size(report.total_bytes), report.claude_home);
    for a in &report.areas {
        say!("  {:>9}  {:<16} {}", size(a.bytes), a.name, a.what.as_deref().unwrap_or(""));
    }
    say!("largest sessions:");
    for s in report.largest.iter().take(10) {
        say!("  {:>9}  {}  {}", size(s.bytes), s.session_id, s.name);
    }
    say!("by working directory:");
    for f in report.folders.iter().take(10) {
        let gone = if f.gone { "  (gone)" } else { "" };
        let key = f.key.as_deref().unwrap_or("");
        say!("  {:>9}  {}  {key}{gone}", size(f.bytes), sessions(f.sessions as usize));
    }
    say!(
        "leftovers of {} that no longer exist: {} (corral-cli delete --orphaned)",
        sessions(report.orphaned_sessions as usize),
        size(report.orphaned_bytes)
    );
    let d = &report.debug_logs;
    say!("debug logs: {} in {} files", size(d.bytes), d.files);
    for aged in &d.older {
        say!(
            "  {:>9} untouched for {} days (corral-cli delete --debug-logs-older-than {}d)",
            size(aged.bytes),
            aged.days,
            aged.days
        );
    }
    say!("in Corral's quarantine: {}", size(report.quarantine_bytes));
    Ok(())
}

fn sessions(n: usize) -> String {
    format!("{n} session{}", if n == 1 { "" } else { "s" })
}

/// Bytes as a person reads them (1.3 GB).
fn size(bytes: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let b = bytes as f64;
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} KB", b / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", b / 1e6),
        _ => format!("{:.1} GB", b / 1e9),
    }
}
