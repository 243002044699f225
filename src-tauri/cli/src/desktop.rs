//! `desktop report`: the Claude desktop app's sidebars, which one is current (and by which rule),
//! and the conversations other sidebars hold that it does not.

use std::path::{Path, PathBuf};

use corral_engine::desktop::{self, MissingStatus, Report};
use corral_engine::{Catalog, Error};

use crate::{print_json, say, warn_human};

#[derive(Debug, clap::Subcommand)]
pub enum DesktopCommand {
    /// Compare the current sidebar with every other one: what is missing here, and why the rest
    /// was left out. Exits 1 when the store cannot be trusted to be complete.
    Report(ReportArgs),
    /// Copy entries of other sidebars, unchanged, into the sidebar --account/--org, as an
    /// undoable run: the whole store is backed up first, and the desktop app must be closed.
    /// --dry-run shows what would be restored and what is refused, and why.
    Restore(RestoreArgs),
    /// Questions the desktop app rejected when it quit: every open AskUserQuestion gets a
    /// rejection the owner never gave. Lists each with its question (updates the search index
    /// first), so each session can be told the rejection was the app closing.
    Questions,
}

#[derive(Debug, clap::Args)]
pub struct RestoreArgs {
    /// The target sidebar's account (a uuid; its folder must exist). Without --account/--org:
    /// this session's own entry (CLAUDE_CODE_HOST_SESSION_ID), never a guess.
    #[arg(long, requires = "org", value_parser = uuid_arg, value_name = "UUID")]
    account: Option<String>,
    /// The target sidebar's org.
    #[arg(long, requires = "account", value_parser = uuid_arg, value_name = "UUID")]
    org: Option<String>,
    /// Every conversation the report lists as missing.
    #[arg(long, conflicts_with = "ids")]
    all: bool,
    /// Conversations by cliSessionId (or a prefix naming exactly one).
    #[arg(value_name = "CLI_SESSION_ID", required_unless_present = "all")]
    ids: Vec<String>,
    /// Allow a second entry for a folder an entry here already uses.
    #[arg(long)]
    allow_shared_folder: bool,
    /// Replace this sidebar's entry of the same file name when the source is strictly newer.
    #[arg(long)]
    replace_older: bool,
    /// Show the plan; write nothing.
    #[arg(long)]
    dry_run: bool,
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Compare against this account's sidebar (with --org) instead of the one the rules name.
    #[arg(long, requires = "org", value_parser = uuid_arg, value_name = "UUID")]
    account: Option<String>,
    /// The org of --account.
    #[arg(long, requires = "account", value_parser = uuid_arg, value_name = "UUID")]
    org: Option<String>,
}

/// An account or org: a folder name of the store, uuid-shaped (never a path).
fn uuid_arg(s: &str) -> Result<String, String> {
    if desktop::is_uuid(s) {
        Ok(s.to_owned())
    } else {
        Err("an account or org is a uuid (8-4-4-4-12 hex digits)".to_owned())
    }
}

pub fn run(
    catalog: &Catalog,
    store_root: Option<&Path>,
    c: &DesktopCommand,
    json: bool,
) -> Result<(), Error> {
    let Some(root) = desktop::store_from_env(store_root) else {
        return Err(Error::InvalidInput(
            "this platform has no default desktop store; give --desktop-store DIR".to_owned(),
        ));
    };
    match c {
        DesktopCommand::Report(a) => report(catalog, &root, a, json),
        DesktopCommand::Restore(a) => restore(catalog, &root, a, json),
        DesktopCommand::Questions => questions(catalog, json),
    }
}

fn questions(catalog: &Catalog, json: bool) -> Result<(), Error> {
    let index = corral_engine::search::SearchIndex::open(catalog.data_dir())?;
    crate::search::update(&index, catalog, crate::search::for_answer())?;
    let found = corral_engine::lost_questions::lost_questions(&index, catalog)?;
    if json {
        return print_json(&found);
    }
    if found.is_empty() {
        say!("No rejected questions.");
        return Ok(());
    }
    for q in &found {
        let name =
            q.custom_name.as_deref().or(q.auto_name.as_deref()).unwrap_or("Untitled session");
        say!(
            "{}  {name}  ({})  rejected {}{}",
            q.session_id,
            q.working_directory,
            q.rejected_at.as_deref().unwrap_or("?"),
            if q.likely_quit { "  [likely the app quitting]" } else { "" }
        );
        for line in q.question.lines() {
            say!("    {line}");
        }
    }
    Ok(())
}

fn restore(catalog: &Catalog, root: &Path, a: &RestoreArgs, json: bool) -> Result<(), Error> {
    let req = desktop::RestoreRequest {
        all: a.all,
        ids: a.ids.clone(),
        allow_shared_folder: a.allow_shared_folder,
        replace_older: a.replace_older,
    };
    let store = desktop::Store::read(root);
    let (account, org) = match (&a.account, &a.org) {
        (Some(account), Some(org)) => (account.clone(), org.clone()),
        _ => {
            let host = std::env::var("CLAUDE_CODE_HOST_SESSION_ID").ok();
            desktop::own_sidebar(&store, host.as_deref()).ok_or_else(|| {
                Error::InvalidInput(
                    "give --account and --org: this is not a desktop-app session whose own entry \
                     names one sidebar, and a restore never writes into a guessed one (see \
                     `corral-cli desktop report`)"
                        .to_owned(),
                )
            })?
        }
    };
    let plan = desktop::plan_restore(&store, &account, &org, &req)?;
    let processes = corral_engine::occupancy::SystemProcesses;
    let report = if a.dry_run {
        plan.dry_run_report(desktop::app_state(&processes))
    } else {
        let run = desktop::RestoreRun {
            data_dir: catalog.data_dir(),
            processes: &processes,
            now: chrono::Utc::now(),
            clock: chrono::Utc::now,
        };
        desktop::restore(root, &plan, &run, &mut |_| true)?
    };
    if json {
        return print_json(&report);
    }
    let verb = if report.dry_run { "Would restore" } else { "Restored" };
    say!("{verb} into {}/{} ({}):", plan.account, plan.org, plan.target_dir);
    for i in &report.restored {
        let how = if i.replaced { "replaced an entry of the same name" } else { "new entry" };
        say!("  {}  {}  ({how})", i.cli_session_id, i.title.as_deref().unwrap_or("(no title)"));
    }
    for r in &report.refused {
        say!("  refused {}: {}", r.cli_session_id, r.reason);
    }
    let b = &report.backup;
    if b.files > 0 || b.too_large {
        let verb = if report.dry_run { "would copy" } else { "copied" };
        say!(
            "Backup of the whole store: {verb} {} files, {} KB{}.",
            b.files,
            b.bytes.div_ceil(1024),
            if b.too_large { " — more than a backup copies: a restore would refuse" } else { "" }
        );
        for l in &b.left_out {
            say!("  left out (too large to be the app's): {} ({} MB)", l.path, l.bytes >> 20);
        }
    }
    match &report.app {
        desktop::AppState::Closed => {}
        desktop::AppState::Running { processes } => say!(
            "The desktop app is running ({} processes): quit it before restoring.",
            processes.len()
        ),
        desktop::AppState::Unknown { reason } => {
            say!("Whether the desktop app runs is not known ({reason}): a restore would refuse.");
        }
    }
    match &report.run_id {
        Some(id) => say!(
            "Run {id} (the whole store is backed up in {}); undo with: corral-cli undo {id}",
            report.run_dir.as_deref().unwrap_or("?")
        ),
        None if report.dry_run => say!("Dry run: nothing was written."),
        None => say!("Nothing was restored; no run was recorded."),
    }
    Ok(())
}

fn report(catalog: &Catalog, root: &Path, a: &ReportArgs, json: bool) -> Result<(), Error> {
    let host = std::env::var("CLAUDE_CODE_HOST_SESSION_ID").ok();
    let cwd: Option<PathBuf> = std::env::current_dir().ok();
    let given = (a.account.as_deref(), a.org.as_deref());
    let r = desktop::report_in(catalog, root, given, host.as_deref(), cwd.as_deref())?;
    if json {
        print_json(&r)?;
    } else {
        print_report(&r);
    }
    match &r.finding {
        Some(f) => Err(Error::DesktopStore(f.clone())),
        None => Ok(()),
    }
}

fn print_report(r: &Report) {
    if !r.exists {
        say!("No Claude desktop app store at {} (no desktop app here).", r.store);
        return;
    }
    say!("Desktop app store: {}", r.store);
    match &r.current {
        Some(c) => say!(
            "Current sidebar: account {} org {} (rule: {})",
            c.account,
            c.org.as_deref().unwrap_or("unknown: compared account-wide"),
            serde_json::to_value(c.rule)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        ),
        None => say!("Current sidebar: not known"),
    }
    say!();
    for s in &r.sidebars {
        let who = match (&s.account_label, &s.org_label) {
            (Some(a), Some(o)) => format!("  ({a}, {o})"),
            (Some(a), None) => format!("  ({a})"),
            _ => String::new(),
        };
        say!(
            "{} {}/{}{}  {} entries, {} live{}{}",
            if s.current { "*" } else { " " },
            s.account,
            s.org,
            who,
            s.entries,
            s.live,
            s.newest_activity.as_deref().map(|t| format!(", newest {t}")).unwrap_or_default(),
            if s.target { "" } else { "  (not uuid-shaped: never a target)" }
        );
    }
    say!();
    say!("{} missing here:", r.missing.len());
    for m in &r.missing {
        // The flag that brings the row back, for the command line (the engine's note says it in
        // words, as the app does).
        let (status, flag) = match m.status {
            MissingStatus::Restorable => ("restorable", None),
            MissingStatus::Ambiguous => ("ambiguous", None),
            MissingStatus::SharedFolder => ("shared folder", Some("--allow-shared-folder")),
            MissingStatus::ReplaceOlder => {
                ("name taken here", m.can_replace.then_some("--replace-older"))
            }
        };
        say!(
            "  {}  {}  [{status}]  {}",
            m.cli_session_id,
            m.title.as_deref().unwrap_or("(no title)"),
            m.cwd.as_deref().unwrap_or("")
        );
        say!("      from {}/{}/{}", m.source.account, m.source.org, m.source.file);
        for also in &m.also_in {
            say!("      also in {}/{}", also.account, also.org);
        }
        if !m.note.is_empty() {
            say!("      {}", m.note);
        }
        if let Some(flag) = flag {
            say!("      (restore with {flag})");
        }
    }
    say!(
        "Left out: {} archived everywhere else, {} already here, {} naming no transcript.",
        r.left_out.archived,
        r.left_out.already_here,
        r.left_out.no_transcript_id
    );
    for w in &r.warnings {
        warn_human(&format!("warning: {}: {}", w.path, w.message));
    }
}
