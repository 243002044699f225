//! Where the home's space goes, and sweeping up leftovers on their own: what sessions that no
//! longer exist left behind, and debug logs past an age, go into the quarantine as one run whose
//! undo puts them back byte for byte.

use std::fs;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime};

use chrono::Utc;
use corral_engine::occupancy::OccupancySnapshot;
use corral_engine::quarantine::{self, DeleteRequest, DeleteRules, LeftoverSweep};
use corral_engine::runs::{self, Leftover, UndoTarget};

use crate::import::{ALPHA_WD, World, sid};
use crate::quarantine::{full_session, nobody};

/// A time two days after the files were written: leftovers this test leaves are quiet by then.
fn later() -> chrono::DateTime<Utc> {
    Utc::now() + chrono::Duration::days(2)
}

fn sweep(orphaned: bool, debug_days: Option<u32>) -> DeleteRequest {
    DeleteRequest {
        sweep: LeftoverSweep { orphaned, debug_logs_older_than_days: debug_days },
        ..DeleteRequest::default()
    }
}

fn age(path: &Path, days: u64) {
    let t = SystemTime::now() - Duration::from_secs(days * 86_400);
    fs::File::options().write(true).open(path).unwrap().set_modified(t).unwrap();
}

#[test]
fn a_gone_session_s_leftovers_are_swept_and_undo_puts_them_back() {
    let w = World::new();
    full_session(&w, 1);
    let gone = full_session(&w, 2);
    fs::remove_file(&gone).unwrap();
    let catalog = w.catalog();
    let plan_at = |now| {
        quarantine::plan_delete(&catalog, &sweep(true, None), &OccupancySnapshot::nobody(), now)
            .unwrap()
    };
    // Just written: it may be a session starting, so it is nobody's leftovers yet.
    assert!(plan_at(Utc::now()).sessions.is_empty());
    let plan = plan_at(later());
    assert_eq!(plan.sessions.len(), 1, "{plan:?}");
    let s = &plan.sessions[0];
    assert_eq!(s.session_id, sid(2));
    assert_eq!(s.name, quarantine::ORPHANED_NAME);
    let kinds: Vec<Leftover> = s.items.iter().map(|i| i.kind).collect();
    assert_eq!(
        kinds,
        [
            Leftover::SessionFolder,
            Leftover::SessionEnv,
            Leftover::FileHistory,
            Leftover::Tasks,
            Leftover::Todos,
            Leftover::DebugLog,
            Leftover::AgentViewJob,
            Leftover::AdoptionRecord
        ]
    );
    assert_eq!(plan.bytes, s.items.iter().map(|i| i.bytes).sum::<u64>());

    let before = w.user_tree();
    let cancel = AtomicBool::new(false);
    let report = quarantine::delete_in(
        &catalog,
        &sweep(true, None),
        &nobody(),
        later(),
        &mut |_| {},
        &cancel,
    )
    .unwrap();
    assert_eq!(report.deleted, [sid(2)]);
    let after = w.user_tree();
    assert!(after.keys().all(|k| !k.contains(&sid(2))), "{after:?}");
    assert!(after.keys().any(|k| k.contains(&sid(1))));
    let run = report.run_id.unwrap();
    let undo = runs::undo_of(&UndoTarget::of(&catalog), &run, None, later()).unwrap();
    assert!(undo.not_undone.is_empty(), "{undo:?}");
    assert_eq!(w.user_tree(), before);
}

#[test]
fn a_sweep_leaves_a_going_agent_view_job_and_refuses_a_fifo() {
    let w = World::new();
    let gone = full_session(&w, 1);
    fs::remove_file(&gone).unwrap();
    // Claude Code's background job says it is still working on session 1.
    let job = w.home.join("jobs").join("job1").join("state.json");
    fs::write(&job, format!(r#"{{"sessionId":"{}","state":"working"}}"#, sid(1))).unwrap();
    let plan = |req: &DeleteRequest| {
        quarantine::plan_delete(&w.catalog(), req, &OccupancySnapshot::nobody(), later()).unwrap()
    };
    assert!(plan(&sweep(true, None)).sessions.is_empty());

    let gone = full_session(&w, 2);
    fs::remove_file(&gone).unwrap();
    let fifo = w.home.join("session-env").join(sid(2)).join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let p = plan(&sweep(true, None));
    assert!(p.sessions.is_empty(), "{p:?}");
    assert_eq!(p.refused.len(), 1);
    assert!(p.refused[0].reason.contains("pipe"), "{:?}", p.refused);
}

#[test]
fn debug_logs_past_an_age_are_swept_and_their_sessions_stay() {
    let w = World::new();
    let kept = full_session(&w, 1);
    full_session(&w, 2);
    let old_log = w.home.join("debug").join(format!("{}.txt", sid(1)));
    age(&old_log, 40);
    let req = DeleteRequest { session_ids: vec![sid(2)], ..sweep(false, Some(30)) };
    let plan =
        quarantine::plan_delete(&w.catalog(), &req, &OccupancySnapshot::nobody(), Utc::now())
            .unwrap();
    // Session 2 is deleted whole (its young log with it); session 1 loses only its old log.
    let ids: Vec<&str> = plan.sessions.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, [sid(2).as_str(), sid(1).as_str()]);
    let log_only = &plan.sessions[1];
    assert_eq!(log_only.items.len(), 1);
    assert_eq!(log_only.items[0].kind, Leftover::DebugLog);
    assert!(log_only.name.starts_with("Debug log of "), "{}", log_only.name);

    let cancel = AtomicBool::new(false);
    let report =
        quarantine::delete_in(&w.catalog(), &req, &nobody(), Utc::now(), &mut |_| {}, &cancel)
            .unwrap();
    assert_eq!(report.deleted.len(), 2);
    assert!(!old_log.exists());
    assert!(kept.exists());
    assert!(w.catalog().session(&sid(1)).is_ok());
    assert!(w.catalog().session(&sid(2)).is_err());
}

#[test]
fn rules_pick_a_working_directory_or_an_agent() {
    let w = World::new();
    full_session(&w, 1);
    full_session(&w, 2);
    let pick = |rules: DeleteRules| {
        let req = DeleteRequest { rules, ..DeleteRequest::default() };
        quarantine::plan_delete(&w.catalog(), &req, &OccupancySnapshot::nobody(), Utc::now())
            .unwrap()
            .sessions
            .len()
    };
    let within =
        |wd: &str| DeleteRules { working_directory: Some(wd.into()), ..DeleteRules::default() };
    assert_eq!(pick(within(ALPHA_WD)), 2);
    assert_eq!(pick(within("/somewhere/else")), 0);
    let agent = |a: &str| DeleteRules { agent: Some(a.into()), ..DeleteRules::default() };
    assert_eq!(pick(agent("nobody-has-this-agent")), 0);
    let owner = w.catalog().session(&sid(1)).unwrap().agent_name.unwrap();
    assert_eq!(pick(agent(&owner)), 2);
}

#[test]
fn the_storage_report_adds_up_the_home() {
    let w = World::new();
    let t1 = full_session(&w, 1);
    full_session(&w, 2);
    fs::write(&t1, fs::read_to_string(&t1).unwrap().repeat(20)).unwrap();
    let gone = full_session(&w, 3);
    fs::remove_file(&gone).unwrap();
    age(&w.home.join("debug").join(format!("{}.txt", sid(2))), 40);
    // A link to a large folder elsewhere, and a FIFO: counted as entries, never followed or read.
    std::os::unix::fs::symlink("/usr", w.home.join("linked")).unwrap();
    let fifo = w.home.join("debug").join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let r = corral_engine::storage::storage(&w.catalog(), later()).unwrap();

    // Every byte of the home is in one of its areas.
    let all: u64 = walk_bytes(&w.home);
    assert_eq!(r.total_bytes, all);
    let area = |n: &str| r.areas.iter().find(|a| a.name == n).unwrap();
    assert!(area("projects").what.is_some());
    assert_eq!(area("debug").bytes, walk_bytes(&w.home.join("debug")));

    // Session 1 is the largest: its transcript, its folder and its keyed leftovers.
    let top = &r.largest[0];
    assert_eq!(top.session_id, sid(1));
    let folder = walk_bytes(&w.alpha_folder().join(sid(1)));
    let keyed: u64 = ["session-env", "file-history", "tasks"]
        .iter()
        .map(|d| walk_bytes(&w.home.join(d).join(sid(1))))
        .sum::<u64>()
        + walk_bytes(&w.home.join("debug").join(format!("{}.txt", sid(1))))
        + walk_bytes(&w.home.join("todos").join(format!("{0}-agent-{0}.json", sid(1))));
    assert_eq!(top.transcript_bytes, fs::metadata(&t1).unwrap().len());
    assert_eq!(top.bytes, top.transcript_bytes + folder + keyed);
    assert_eq!(r.largest.len(), 2);

    // One working directory, gone from this machine, holding both sessions.
    assert_eq!(r.folders.len(), 1);
    assert_eq!(r.folders[0].key.as_deref(), Some(ALPHA_WD));
    assert!(r.folders[0].gone);
    assert_eq!(r.folders[0].sessions, 2);
    assert_eq!(r.agents.iter().map(|a| a.sessions).sum::<u32>(), 2);

    assert_eq!(r.orphaned_sessions, 1);
    assert_eq!(r.orphaned[0].session_id, sid(3));
    assert_eq!(r.orphaned_bytes, r.orphaned[0].bytes);
    assert_eq!(r.debug_logs.files, 3);
    let thirty = r.debug_logs.older.iter().find(|a| a.days == 30).unwrap();
    // Only session 2's log, aged 40 days: the others were written today.
    assert_eq!(thirty.files, 1);
    assert_eq!(r.quarantine_bytes, 0);
}

fn walk_bytes(p: &Path) -> u64 {
    let m = fs::symlink_metadata(p).unwrap();
    if m.is_dir() {
        fs::read_dir(p).unwrap().map(|e| walk_bytes(&e.unwrap().path())).sum()
    } else if m.is_file() {
        m.len()
    } else {
        0
    }
}
