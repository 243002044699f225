//! `status`: which sessions a `claude` process is on now, and whether each is working, waiting
//! on you or idle, with the evidence; `resume`: open a terminal resuming one, guarded and
//! verified.

use corral_engine::live::{LiveState, live_states_in};
use corral_engine::occupancy::{OccupancySnapshot, SystemProcesses};
use corral_engine::resume::{self, Fallback, Terminal};
use corral_engine::{Catalog, Error};

use crate::{print_json, say};

pub fn status(catalog: &Catalog, json: bool) -> Result<(), Error> {
    let states = live_states_in(catalog, &SystemProcesses, chrono::Utc::now())?;
    if json {
        return print_json(&states);
    }
    let sessions = catalog.last_listed_sessions()?;
    let name = |id: &str| {
        sessions.iter().find(|s| s.session_id == id).map(|s| s.display_name().to_owned())
    };
    let word = |s: LiveState| match s {
        LiveState::Running => "running",
        LiveState::Waiting => "WAITING",
        LiveState::Idle => "idle",
        LiveState::NotRunning => "not running",
        LiveState::Unknown => "unknown",
    };
    let mut quiet = 0usize;
    for s in &states {
        if s.state == LiveState::NotRunning {
            quiet += 1;
            continue;
        }
        say!("{:<8} {}  {}", word(s.state), s.session_id, name(&s.session_id).unwrap_or_default());
        say!("         {}", s.why);
    }
    if quiet == states.len() {
        say!("No claude process is on any of the {} sessions.", states.len());
    } else {
        say!("{quiet} other sessions not running.");
    }
    Ok(())
}

#[derive(Debug, clap::Args)]
pub struct ResumeArgs {
    /// The session to resume.
    session_id: String,
    /// Print the command instead of opening a terminal.
    #[arg(long)]
    print: bool,
    /// Resume from your home folder when the session's own working directory is gone.
    #[arg(long)]
    from_home: bool,
    /// The terminal to open: a template whose words are split on spaces (no shell), with
    /// `{cwd}` and `{command}` replaced (default: $TERMINAL, then the platform's terminals).
    #[arg(long, value_name = "TEMPLATE")]
    terminal: Option<String>,
}

pub fn resume(catalog: &Catalog, a: &ResumeArgs, json: bool) -> Result<(), Error> {
    let session = catalog.session(&a.session_id)?;
    let snapshot = OccupancySnapshot::capture(&SystemProcesses);
    let home = corral_engine::paths::home_dir();
    let fallback = Fallback(a.from_home.then_some(home.as_deref()).flatten());
    let default_home = corral_engine::paths::default_claude_home();
    let cmd = resume::plan_resume(
        &session,
        &snapshot,
        catalog.claude_home(),
        default_home.as_deref(),
        fallback,
    )?;
    if a.print {
        if json {
            return print_json(&cmd);
        }
        say!("{}", cmd.display);
        return Ok(());
    }
    let terminals = match &a.terminal {
        Some(t) => vec![Terminal::Template(t.clone())],
        None => resume::default_terminals(std::env::var("TERMINAL").ok().as_deref()),
    };
    let program = resume::launch(&terminals, &cmd)?;
    let started = resume::wait_started(&SystemProcesses, &cmd.session_id, resume::START_TIMEOUT);
    if json {
        print_json(&serde_json::json!({
            "command": cmd,
            "terminal": program,
            "started": started.is_ok(),
            "pid": started.as_ref().ok(),
            "reason": started.as_ref().err(),
        }))?;
    } else {
        match &started {
            Ok(pid) => say!("Resumed {} in {program} (claude process {pid}).", cmd.session_id),
            Err(why) => say!("{program} opened, but the session {why}"),
        }
    }
    started.map(|_| ()).map_err(|why| Error::Refused(format!("the resume {why}")))
}
