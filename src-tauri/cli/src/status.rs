//! `status`: which sessions a `claude` process is on now, and whether each is working, waiting
//! on you or idle, with the evidence.

use corral_engine::live::{LiveState, live_states_in};
use corral_engine::occupancy::SystemProcesses;
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
