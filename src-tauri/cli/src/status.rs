//! `status`: which sessions a `claude` process is on now, and whether each is working, waiting
//! on you or idle, with the evidence; `resume`: open a terminal resuming one, guarded and
//! verified.

use corral_engine::live::{LiveState, live_states_in};
use corral_engine::occupancy::SystemProcesses;
use corral_engine::resume;
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
        let job_going = s.job.as_ref().is_some_and(|j| j.active);
        if s.state == LiveState::NotRunning && !job_going {
            quiet += 1;
            continue;
        }
        // A session only a job record says is going is marked as such: not a measurement.
        let word = if s.state == LiveState::NotRunning { "job says" } else { word(s.state) };
        say!("{word:<8} {}  {}", s.session_id, name(&s.session_id).unwrap_or_default());
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
    /// The terminal to open: a program (`kitty`, `Terminal`, …) or a template whose words are
    /// split on spaces (no shell), with `{cwd}` and `{command}` replaced (default: $TERMINAL,
    /// then the platform's terminals).
    #[arg(long, value_name = "PROGRAM|TEMPLATE")]
    terminal: Option<String>,
}

pub fn resume(catalog: &Catalog, a: &ResumeArgs, json: bool) -> Result<(), Error> {
    if a.print {
        let cmd = resume::plan_in(catalog, &a.session_id, a.from_home, &SystemProcesses)?;
        if json {
            return print_json(&cmd);
        }
        say!("{}", cmd.display);
        return Ok(());
    }
    let terminals =
        resume::terminals_to_try(a.terminal.as_deref(), std::env::var("TERMINAL").ok().as_deref())?;
    let done =
        resume::resume_in(catalog, &a.session_id, a.from_home, &terminals, &SystemProcesses)?;
    if json {
        print_json(&done)?;
    } else {
        match (done.pid, &done.reason) {
            (Some(pid), _) => {
                say!("Resumed {} in {} (claude process {pid}).", a.session_id, done.terminal);
            }
            (None, why) => say!(
                "{} opened, but the session {}",
                done.terminal,
                why.as_deref().unwrap_or("did not start")
            ),
        }
    }
    match done.reason {
        None => Ok(()),
        Some(why) => Err(Error::Refused(format!("the resume {why}"))),
    }
}
