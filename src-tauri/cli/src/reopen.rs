//! `reopen`: after a restart, start each recent folder's newest conversation again, each in a
//! terminal of its own, guarded and verified.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use corral_engine::occupancy::SystemProcesses;
use corral_engine::reopen::{
    self, FolderState, Git, GitState, RecentWork, ReopenChoice, ReopenReport, StartResult,
    StartSettings, TrustReader,
};
use corral_engine::{Catalog, Error, resume};
use serde::Serialize;

use crate::{print_json, say};

/// `reopen`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ReopenArgs {
    /// Folders to reopen (each must be among the recent ones); none: list them.
    #[arg(value_name = "FOLDER", conflicts_with = "all")]
    folders: Vec<PathBuf>,
    /// Reopen every recent folder that is free.
    #[arg(long)]
    all: bool,
    /// How far back is recent (`21d`, `3w`, `21`).
    #[arg(long, value_name = "AGE", default_value = "21d", value_parser = crate::cleanup::parse_days)]
    days: u32,
    /// Show what would start, with the commands; start nothing.
    #[arg(long)]
    dry_run: bool,
    /// Offer conversations of every surface too (`claude -p`, SDKs, the desktop app).
    #[arg(long)]
    every_surface: bool,
    /// Start each with Remote Control on, named after its folder (unique in the batch).
    #[arg(long)]
    remote_control: bool,
    /// The terminal to open (as for `resume`).
    #[arg(long, value_name = "PROGRAM|TEMPLATE")]
    terminal: Option<String>,
    /// How long each start may take to show a `claude` process, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    start_timeout: u64,
}

/// What `reopen --json` prints.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Reopened {
    recent: RecentWork,
    /// The conversations chosen (`--all` or FOLDERs): with `--dry-run`, what would start.
    chosen: Vec<String>,
    /// The starts, when some were asked for (not with `--dry-run`).
    report: Option<ReopenReport>,
}

pub fn reopen(
    catalog: &Catalog,
    a: &ReopenArgs,
    desktop_store: Option<&std::path::Path>,
    json: bool,
) -> Result<(), Error> {
    let store = corral_engine::desktop::store_from_env(desktop_store);
    let mut recent = reopen::recent_work_in(
        catalog,
        &SystemProcesses,
        a.days,
        a.every_surface,
        store.as_deref(),
        chrono::Utc::now(),
    )?;
    let dirs: Vec<PathBuf> = recent.rows.iter().map(|r| PathBuf::from(&r.folder)).collect();
    for (row, git) in recent.rows.iter_mut().zip(reopen::git_states(&Git::default(), &dirs)) {
        row.git = Some(git);
    }
    let chosen = choose(&recent, a)?;
    if chosen.is_empty() || a.dry_run {
        if json {
            let chosen = chosen.iter().map(|c| c.session_id.clone()).collect();
            return print_json(&Reopened { recent, chosen, report: None });
        }
        print_recent(&recent, &chosen, a);
        return Ok(());
    }
    let terminals =
        resume::terminals_to_try(a.terminal.as_deref(), std::env::var("TERMINAL").ok().as_deref())?;
    let trust = TrustReader::of(catalog);
    let cancel = AtomicBool::new(false);
    let settings = StartSettings {
        terminals: &terminals,
        processes: &SystemProcesses,
        timeout: std::time::Duration::from_secs(a.start_timeout.clamp(1, 120)),
        spacing: reopen::START_SPACING,
        remote_control: a.remote_control,
        trusted: &|f| trust.trusted(f),
        cancel: &cancel,
    };
    let report = reopen::reopen_in(catalog, &chosen, &settings, &mut |o, _| {
        if !json {
            say!("{:<15} {}", result_word(o.result), o.folder.as_deref().unwrap_or(&o.session_id));
            if let Some(why) = &o.why {
                say!("                {why}");
            }
        }
    })?;
    let failed = report.failed;
    if json {
        let chosen = chosen.iter().map(|c| c.session_id.clone()).collect();
        print_json(&Reopened { recent, chosen, report: Some(report) })?;
    } else {
        say!(
            "{} started, {} failed to start, {} skipped.",
            report.started,
            report.failed,
            report.skipped
        );
    }
    if failed > 0 {
        return Err(Error::Refused(format!("{failed} of the chosen did not start")));
    }
    Ok(())
}

/// The rows asked for: every free one with `--all`, else each named folder (a folder that is
/// not a recent one is an error, naming why when it was left out).
fn choose(recent: &RecentWork, a: &ReopenArgs) -> Result<Vec<ReopenChoice>, Error> {
    let remote = |r: &reopen::ReopenRow| a.remote_control.then(|| r.remote_name.clone());
    let choice = |r: &reopen::ReopenRow| ReopenChoice {
        session_id: r.session_id.clone(),
        remote_name: remote(r),
    };
    if a.all {
        return Ok(recent
            .rows
            .iter()
            .filter(|r| r.state == FolderState::Free)
            .map(choice)
            .collect());
    }
    let mut chosen = Vec::new();
    for f in &a.folders {
        let wanted = corral_engine::paths::absolute(f);
        let same = |folder: &str| std::path::Path::new(folder) == wanted;
        if let Some(r) = recent.rows.iter().find(|r| same(&r.folder)) {
            chosen.push(choice(r));
            continue;
        }
        let why = recent.left_out.iter().find(|l| same(&l.folder)).map_or_else(
            || format!("no conversation in the last {} days", recent.days),
            |l| format!("left out: {}", l.why),
        );
        return Err(Error::InvalidInput(format!("{} is not a recent folder ({why})", f.display())));
    }
    Ok(chosen)
}

fn print_recent(recent: &RecentWork, chosen: &[ReopenChoice], a: &ReopenArgs) {
    if recent.rows.is_empty() {
        say!("No conversation in the last {} days to reopen.", recent.days);
    }
    for r in &recent.rows {
        let state = match r.state {
            FolderState::Free => "free",
            FolderState::Occupied => "occupied",
            FolderState::Unknown => "unknown",
        };
        let mark = if chosen.iter().any(|c| c.session_id == r.session_id) { "*" } else { " " };
        say!("{mark} {state:<9} {}  {}  {}", r.last_active, r.folder, git_words(r.git.as_ref()));
        say!("            {}  {}", r.session_id, r.name);
        if let Some(why) = &r.why {
            say!("            {why}");
        }
        if r.trusted == Some(false) {
            say!("            Claude Code will first ask whether you trust this folder");
        }
    }
    for l in &recent.left_out {
        say!("  left out  {}  {} ({})", l.last_active, l.folder, l.why);
    }
    if chosen.is_empty() && !recent.rows.is_empty() {
        say!("Reopen with --all (every free folder) or name the folders.");
    } else if a.dry_run {
        say!("Dry run: {} would start (*); nothing was started.", chosen.len());
    }
}

fn git_words(git: Option<&GitState>) -> String {
    match git {
        Some(GitState::Repository { branch, ahead, behind, changed, untracked, .. }) => {
            let mut w = branch.clone().unwrap_or_else(|| "(detached)".to_owned());
            if *changed + *untracked > 0 {
                w.push_str(&format!(" ±{}", changed + untracked));
            }
            if *ahead > 0 {
                w.push_str(&format!(" ↑{ahead}"));
            }
            if *behind > 0 {
                w.push_str(&format!(" ↓{behind}"));
            }
            w
        }
        Some(GitState::NotARepository) => "not a git repository".to_owned(),
        Some(GitState::Unreadable { why }) => format!("git: {why}"),
        None => String::new(),
    }
}

fn result_word(r: StartResult) -> &'static str {
    match r {
        StartResult::Started => "started",
        StartResult::FailedToStart => "FAILED TO START",
        StartResult::Skipped => "skipped",
        StartResult::NotTried => "not tried",
    }
}
