//! Deleting into the quarantine: everything a session left behind moves as one run, its undo puts
//! the tree back byte for byte, the guards refuse sessions in use, a restore never replaces what
//! was written since, a tampered journal moves nothing outside the home, and emptying goes to a
//! trash (or keeps everything when the trash refuses).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use corral_engine::occupancy::{FixedProcesses, OccupancySnapshot, ProcessInfo, TableUnreadable};
use corral_engine::quarantine::{self, DeleteReport, DeleteRequest, DeleteRules, Trash};
use corral_engine::runs::{self, Leftover, UndoTarget};

use crate::import::{ALPHA_WD, World, now, sid};

/// Session `n` in alpha's folder with everything a real home keeps for a session beside it.
pub(crate) fn full_session(w: &World, n: u32) -> PathBuf {
    let id = sid(n);
    let t = w.session(&w.alpha_folder(), &id, ALPHA_WD, false);
    let sub = w.alpha_folder().join(&id).join("subagents");
    fs::create_dir_all(&sub).unwrap();
    fs::write(sub.join("agent-a1.jsonl"), "{\"type\":\"user\",\"isSidechain\":true}\n").unwrap();
    for dir in ["session-env", "file-history", "tasks"] {
        fs::create_dir_all(w.home.join(dir).join(&id)).unwrap();
    }
    fs::write(w.home.join("file-history").join(&id).join("3f1c@v2"), "old bytes\n").unwrap();
    fs::create_dir_all(w.home.join("todos")).unwrap();
    fs::write(w.home.join("todos").join(format!("{id}-agent-{id}.json")), "[]").unwrap();
    fs::create_dir_all(w.home.join("debug")).unwrap();
    fs::write(w.home.join("debug").join(format!("{id}.txt")), "debug line\n").unwrap();
    let job = w.home.join("jobs").join(format!("job{n}"));
    fs::create_dir_all(&job).unwrap();
    fs::write(job.join("state.json"), format!(r#"{{"sessionId":"{id}","state":"done"}}"#)).unwrap();
    w.adoption_record(&id, "alpha");
    t
}

fn request(ids: &[String]) -> DeleteRequest {
    DeleteRequest { session_ids: ids.to_vec(), ..DeleteRequest::default() }
}

fn delete(w: &World, req: &DeleteRequest, processes: &FixedProcesses) -> DeleteReport {
    let cancel = AtomicBool::new(false);
    quarantine::delete_in(&w.catalog(), req, processes, now(), &mut |_| {}, &cancel).unwrap()
}

pub(crate) fn nobody() -> FixedProcesses {
    FixedProcesses(Ok(Vec::new()))
}

fn target(w: &World) -> UndoTarget {
    UndoTarget::of(&w.catalog())
}

#[test]
fn a_delete_moves_everything_the_session_left_and_undo_puts_the_tree_back() {
    let w = World::new();
    full_session(&w, 1);
    let other = full_session(&w, 2);
    let before = w.user_tree();
    let plan = quarantine::plan_delete(
        &w.catalog(),
        &request(&[sid(1)]),
        &OccupancySnapshot::nobody(),
        now(),
    )
    .unwrap();
    let kinds: Vec<Leftover> = plan.sessions[0].items.iter().map(|i| i.kind).collect();
    assert_eq!(
        kinds,
        [
            Leftover::Transcript,
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
    assert_eq!(plan.sessions[0].notes, ["its 1 subagent run goes with it"]);
    assert_eq!(w.user_tree(), before, "planning changes nothing");

    let report = delete(&w, &request(&[sid(1)]), &nobody());
    assert_eq!(report.deleted, [sid(1)]);
    assert_eq!(report.bytes, plan.bytes);
    let after = w.user_tree();
    assert!(after.keys().all(|k| !k.contains(&sid(1))), "nothing of it is left: {after:?}");
    assert!(other.exists());
    assert!(w.catalog().session(&sid(1)).is_err(), "gone from the listing");
    let [held] = &quarantine::quarantine(&w.data).unwrap()[..] else { panic!() };
    assert_eq!(held.sessions[0].session_id, sid(1));
    assert_eq!(held.bytes, plan.bytes);

    let run = report.run_id.unwrap();
    let undone = runs::undo(&target(&w), &run, now()).unwrap();
    assert!(undone.not_undone.is_empty(), "{:?}", undone.not_undone);
    assert_eq!(w.user_tree(), before, "back byte for byte");
    assert!(w.catalog().session(&sid(1)).is_ok());
    let listed = runs::runs(&w.data).unwrap();
    assert_eq!(listed[0].undo_state, runs::UndoState::Undone);
    // Undoing again changes nothing.
    assert!(runs::undo(&target(&w), &run, now()).unwrap().undone.is_empty());
}

#[test]
fn a_session_in_use_is_refused_and_so_is_every_session_when_the_table_is_unreadable() {
    let w = World::new();
    full_session(&w, 1);
    full_session(&w, 2);
    let before = w.user_tree();
    let holder = ProcessInfo {
        pid: 4242,
        name: "claude".into(),
        cmd: vec!["claude".into(), "--resume".into(), sid(1)],
        cwd: Some(ALPHA_WD.into()),
        exe: None,
        exited: false,
        parent: None,
    };
    let report = delete(&w, &request(&[sid(1)]), &FixedProcesses(Ok(vec![holder])));
    assert_eq!(report.run_id, None);
    assert!(report.refused[0].reason.contains("claude process 4242"), "{report:?}");
    let unreadable = FixedProcesses(Err(TableUnreadable("no /proc".into())));
    let report = delete(&w, &request(&[sid(2)]), &unreadable);
    assert!(report.refused[0].reason.contains("occupancy unknown"), "{report:?}");
    // A herdctl job running on it, and Claude Code's background job still working.
    w.job("abc123", "alpha", "schedule", &sid(1));
    let job = w.state.join("jobs").join("job-2026-11-20-abc123.yaml");
    let text = fs::read_to_string(&job).unwrap().replace("completed", "running");
    fs::write(&job, text).unwrap();
    fs::write(
        w.home.join("jobs/job2/state.json"),
        format!(r#"{{"sessionId":"{}","state":"working"}}"#, sid(2)),
    )
    .unwrap();
    let before_jobs = w.user_tree();
    let report = delete(&w, &request(&[sid(1), sid(2)]), &nobody());
    assert_eq!(report.run_id, None, "{report:?}");
    let reasons: Vec<&str> = report.refused.iter().map(|r| r.reason.as_str()).collect();
    assert!(reasons[0].contains("herdctl job job-2026-11-20-abc123"), "{reasons:?}");
    assert!(reasons[1].contains("background job job2 says it is working"), "{reasons:?}");
    assert_eq!(w.user_tree(), before_jobs);
    assert_ne!(before, before_jobs);
    assert!(runs::runs(&w.data).unwrap().is_empty(), "no run for a delete that moved nothing");
}

#[test]
fn rules_pick_empty_old_large_and_orphaned_sessions() {
    let w = World::new();
    full_session(&w, 1);
    // An empty session: only bookkeeping lines.
    let empty = w.alpha_folder().join(format!("{}.jsonl", sid(2)));
    fs::write(
        &empty,
        format!(
            "{{\"type\":\"summary\",\"summary\":\"x\",\"leafUuid\":\"u\",\"sessionId\":\"{}\"}}\n",
            sid(2)
        ),
    )
    .unwrap();
    let pick = |rules: DeleteRules| -> Vec<String> {
        let req = DeleteRequest { rules, ..DeleteRequest::default() };
        let plan = quarantine::plan_delete(&w.catalog(), &req, &OccupancySnapshot::nobody(), now())
            .unwrap();
        let mut ids: Vec<String> = plan.sessions.into_iter().map(|s| s.session_id).collect();
        ids.sort();
        ids
    };
    assert_eq!(pick(DeleteRules { empty: true, ..DeleteRules::default() }), [sid(2)]);
    // Session 1's messages are from 2026-03-04; `now()` is later.
    let old = pick(DeleteRules { older_than_days: Some(30), ..DeleteRules::default() });
    assert!(old.contains(&sid(1)), "{old:?}");
    assert_eq!(
        pick(DeleteRules { older_than_days: Some(100_000), ..DeleteRules::default() }),
        Vec::<String>::new()
    );
    assert_eq!(pick(DeleteRules { larger_than: Some(300), ..DeleteRules::default() }), [sid(1)]);
    // /home/u/projects/alpha does not exist on this machine.
    assert_eq!(pick(DeleteRules { folder_gone: true, ..DeleteRules::default() }).len(), 2);
    // No ids and no rule is a mistake, not "everything".
    let none = quarantine::plan_delete(
        &w.catalog(),
        &DeleteRequest::default(),
        &OccupancySnapshot::nobody(),
        now(),
    );
    assert!(none.is_err());
}

#[test]
fn a_restore_never_replaces_a_session_written_again_since() {
    let w = World::new();
    let t = full_session(&w, 1);
    let report = delete(&w, &request(&[sid(1)]), &nobody());
    // Claude Code started the session again meanwhile: a new transcript at the same path.
    fs::create_dir_all(t.parent().unwrap()).unwrap();
    fs::write(&t, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"new\"}}\n")
        .unwrap();
    let run = report.run_id.unwrap();
    let undone = runs::undo(&target(&w), &run, now()).unwrap();
    assert_eq!(undone.not_undone.len(), 1, "{undone:?}");
    assert!(undone.not_undone[0].reason.contains("differs from what is there now"), "{undone:?}");
    assert!(fs::read_to_string(&t).unwrap().contains("new"), "the newer transcript stays");
    let kept = runs::quarantine_dir(&w.data, &run);
    let held: Vec<_> =
        walk(&kept).into_iter().filter(|p| p.ends_with(format!("{}.jsonl", sid(1)))).collect();
    assert_eq!(held.len(), 1, "the deleted transcript is kept in the quarantine");
    assert!(w.home.join("session-env").join(sid(1)).is_dir(), "the rest came back");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

#[test]
fn a_tampered_journal_moves_nothing_outside_its_places() {
    let w = World::new();
    full_session(&w, 1);
    let report = delete(&w, &request(&[sid(1)]), &nobody());
    let run = report.run_id.unwrap();
    let journal = w.data.join("runs").join(&run).join("run.json");
    let mut j: serde_json::Value = serde_json::from_slice(&fs::read(&journal).unwrap()).unwrap();
    let outside = w.root.join("outside");
    fs::create_dir_all(&outside).unwrap();
    // Entry 0 (the transcript) now names a place outside the home; entry 2 (session-env) a
    // quarantine name that climbs out of the run's folder.
    j["entries"][0]["path"] = serde_json::json!(outside.join(format!("{}.jsonl", sid(1))));
    j["entries"][2]["backup"] = serde_json::json!("../../../outside/x");
    fs::write(&journal, serde_json::to_vec(&j).unwrap()).unwrap();
    let undone = runs::undo(&target(&w), &run, now()).unwrap();
    let refused: Vec<&str> = undone.not_undone.iter().map(|n| n.reason.as_str()).collect();
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(refused.iter().any(|r| r.contains("not in its place")), "{refused:?}");
    assert!(
        refused.iter().any(|r| r.contains("outside the run's quarantine folder")),
        "{refused:?}"
    );
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0, "nothing went outside");
    // A link where a folder of the home was: undo follows no link.
    let w = World::new();
    full_session(&w, 1);
    let run = delete(&w, &request(&[sid(1)]), &nobody()).run_id.unwrap();
    fs::remove_dir(w.home.join("file-history")).unwrap();
    std::os::unix::fs::symlink(&outside, w.home.join("file-history")).unwrap();
    let undone = runs::undo(&target(&w), &run, now()).unwrap();
    assert!(undone.not_undone.iter().any(|n| n.reason.contains("is a link")), "{undone:?}");
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0, "nothing went through the link");
}

/// A trash that moves what it gets into a folder (or refuses everything).
struct FolderTrash(PathBuf, bool);

impl Trash for FolderTrash {
    fn put(&self, path: &Path) -> Result<(), String> {
        if !self.1 {
            return Err("the trash is full".into());
        }
        fs::create_dir_all(&self.0).unwrap();
        fs::rename(path, self.0.join(path.file_name().unwrap())).map_err(|e| e.to_string())
    }
}

#[test]
fn emptying_goes_to_the_trash_and_a_refusing_trash_keeps_everything() {
    let w = World::new();
    full_session(&w, 1);
    let run = delete(&w, &request(&[sid(1)]), &nobody()).run_id.unwrap();
    let q = runs::quarantine_dir(&w.data, &run);
    let held = crate::support::hash_tree(&q);
    let refused = quarantine::empty(
        &w.data,
        &[run.clone()],
        &FolderTrash(w.root.join("trash"), false),
        now(),
    )
    .unwrap();
    assert!(refused.emptied.is_empty());
    assert!(refused.kept[0].reason.contains("the trash is full"), "{refused:?}");
    assert_eq!(crate::support::hash_tree(&q), held, "kept as it was");
    assert_eq!(quarantine::quarantine(&w.data).unwrap()[0].emptied_at, None);

    let report =
        quarantine::empty(&w.data, &[run.clone()], &FolderTrash(w.root.join("trash"), true), now())
            .unwrap();
    assert_eq!(report.emptied, [run.clone()]);
    assert!(report.bytes > 0);
    assert!(!q.exists());
    assert_eq!(
        crate::support::hash_tree(&w.root.join("trash").join(&run)),
        held,
        "all of it is in the trash"
    );
    assert!(quarantine::quarantine(&w.data).unwrap()[0].emptied_at.is_some());
    let undone = runs::undo(&target(&w), &run, now()).unwrap();
    assert!(
        undone.not_undone.iter().all(|n| n.reason.contains("emptied into the system's trash")),
        "{undone:?}"
    );
    // Emptying twice is refused, not an error of the whole call.
    let again = quarantine::empty(&w.data, &[run], &FolderTrash(w.root.join("trash"), true), now())
        .unwrap();
    assert!(again.kept[0].reason.contains("emptied already"));
}

#[test]
fn automatic_emptying_takes_only_runs_older_than_its_age() {
    let w = World::new();
    full_session(&w, 1);
    let run = delete(&w, &request(&[sid(1)]), &nobody()).run_id.unwrap();
    let trash = FolderTrash(w.root.join("trash"), true);
    // The run was made at `now()`: 29 days on it stays, 30 days on it goes.
    let early = now() + chrono::Duration::days(29);
    let kept = quarantine::empty_older_than(&w.data, 30, &trash, early).unwrap();
    assert!(kept.emptied.is_empty() && kept.kept.is_empty(), "{kept:?}");
    assert!(runs::quarantine_dir(&w.data, &run).exists());
    let late = now() + chrono::Duration::days(30);
    let gone = quarantine::empty_older_than(&w.data, 30, &trash, late).unwrap();
    assert_eq!(gone.emptied, [run.clone()]);
    assert!(w.root.join("trash").join(&run).is_dir());
    // Once emptied it is never taken again.
    assert!(quarantine::empty_older_than(&w.data, 30, &trash, late).unwrap().emptied.is_empty());
}

#[test]
fn herdctl_s_names_go_with_the_session_and_undo_sets_them_back() {
    let w = World::new();
    full_session(&w, 1);
    full_session(&w, 2);
    let store = corral_engine::metadata::MetadataStore::new(&w.state);
    store.set_custom_name("alpha", &sid(1), Some("Release notes")).unwrap();
    store.set_custom_name("adhoc", &sid(1), Some("Old name")).unwrap();
    store.set_custom_name("alpha", &sid(2), Some("Keep me")).unwrap();
    let plan = quarantine::plan_delete(
        &w.catalog(),
        &request(&[sid(1)]),
        &OccupancySnapshot::nobody(),
        now(),
    )
    .unwrap();
    let names: Vec<(&str, &str)> =
        plan.sessions[0].names.iter().map(|n| (n.agent_key.as_str(), n.name.as_str())).collect();
    assert_eq!(names, [("adhoc", "Old name"), ("alpha", "Release notes")]);
    assert!(plan.not_removed.iter().all(|n| !n.contains("herdctl")), "{:?}", plan.not_removed);

    // Renamed between the preview and the delete: the name as it is then is what undo restores.
    store.set_custom_name("alpha", &sid(1), Some("Release notes v2")).unwrap();
    let run = delete(&w, &request(&[sid(1)]), &nobody()).run_id.unwrap();
    assert_eq!(store.custom_name("alpha", &sid(1)).unwrap(), None);
    assert_eq!(store.custom_name("adhoc", &sid(1)).unwrap(), None);
    assert_eq!(store.custom_name("alpha", &sid(2)).unwrap().as_deref(), Some("Keep me"));

    let undone = runs::undo(&target(&w), &run, now()).unwrap();
    assert!(undone.not_undone.is_empty(), "{undone:?}");
    assert_eq!(store.custom_name("alpha", &sid(1)).unwrap().as_deref(), Some("Release notes v2"));
    assert_eq!(store.custom_name("adhoc", &sid(1)).unwrap().as_deref(), Some("Old name"));
    assert_eq!(
        w.catalog().session(&sid(1)).unwrap().custom_name.as_deref(),
        Some("Release notes v2")
    );
}

#[test]
fn the_desktop_app_s_sidebar_entries_go_only_while_it_is_closed() {
    let w = World::new();
    full_session(&w, 1);
    full_session(&w, 2);
    let store = w.root.join("desktop-store");
    let org = store
        .join("0000aaaa-0000-4000-a000-000000000001")
        .join("0000bbbb-0000-4000-a000-000000000002");
    fs::create_dir_all(&org).unwrap();
    let entry_of = |n: u32| {
        let path = org.join(format!("local_1111111{n}-0000-4000-a000-000000000001.json"));
        let body = format!(
            r#"{{"sessionId":"local_x{n}","cliSessionId":"{}","title":"Chat {n}","cwd":"{ALPHA_WD}"}}"#,
            sid(n)
        );
        fs::write(&path, body).unwrap();
        path
    };
    let (entry, other) = (entry_of(1), entry_of(2));
    let before = fs::read(&entry).unwrap();
    let req = DeleteRequest { desktop_store: Some(store.clone()), ..request(&[sid(1)]) };

    // The app is running: the entry stays, and the preview says so.
    let app = ProcessInfo {
        pid: 77,
        name: "claude-desktop".into(),
        cmd: vec!["/usr/lib/claude-desktop/claude-desktop".into()],
        cwd: None,
        exe: Some("/usr/lib/claude-desktop/claude-desktop".into()),
        exited: false,
        parent: None,
    };
    let running = FixedProcesses(Ok(vec![app]));
    let plan = quarantine::plan_delete_in(&w.catalog(), &req, &running, now()).unwrap();
    let s = &plan.sessions[0];
    assert!(s.items.iter().all(|i| i.kind != Leftover::DesktopEntry), "{s:?}");
    assert!(s.notes.iter().any(|n| n.contains("the app is running")), "{:?}", s.notes);

    // Closed: it goes with the session (the other session's stays), and undo puts it back.
    let plan = quarantine::plan_delete_in(&w.catalog(), &req, &nobody(), now()).unwrap();
    assert_eq!(plan.sessions[0].items.last().unwrap().kind, Leftover::DesktopEntry);
    let run = delete(&w, &req, &nobody()).run_id.unwrap();
    assert!(!entry.exists());
    assert!(other.exists());
    let undone =
        quarantine::restore_in(&w.catalog(), Some(store.clone()), &run, None, now()).unwrap();
    assert!(undone.not_undone.is_empty(), "{undone:?}");
    assert_eq!(fs::read(&entry).unwrap(), before);

    // An undo pointed at no store (or another one) leaves the entry in the quarantine.
    let run = delete(&w, &req, &nobody()).run_id.unwrap();
    let undone = quarantine::restore_in(&w.catalog(), None, &run, None, now()).unwrap();
    assert_eq!(undone.not_undone.len(), 1, "{undone:?}");
    assert!(undone.not_undone[0].reason.contains("no desktop app store"), "{undone:?}");
    assert!(!entry.exists());
    assert!(w.catalog().session(&sid(1)).is_ok(), "the session itself is back");
}

#[test]
fn one_session_of_a_run_is_restored_alone() {
    let w = World::new();
    full_session(&w, 1);
    full_session(&w, 2);
    let before = w.user_tree();
    let run = delete(&w, &request(&[sid(1), sid(2)]), &nobody()).run_id.unwrap();
    let report = runs::undo_of(&target(&w), &run, Some(&sid(2)), now()).unwrap();
    assert!(report.not_undone.is_empty() && !report.undone.is_empty());
    assert!(report.undone.iter().all(|u| u.session_id.as_deref() == Some(sid(2).as_str())));
    assert!(w.catalog().session(&sid(2)).is_ok());
    assert!(w.catalog().session(&sid(1)).is_err());
    let [held] = &quarantine::quarantine(&w.data).unwrap()[..] else { panic!() };
    assert_eq!((held.sessions[0].restored, held.sessions[1].restored), (false, true));
    assert_eq!(runs::runs(&w.data).unwrap()[0].undo_state, runs::UndoState::NotUndone);
    runs::undo_of(&target(&w), &run, Some(&sid(1)), now()).unwrap();
    assert_eq!(w.user_tree(), before);
    assert_eq!(runs::runs(&w.data).unwrap()[0].undo_state, runs::UndoState::Undone);
}

#[test]
fn a_fifo_among_the_leftovers_refuses_the_session_before_anything_moves() {
    use std::os::unix::fs::FileTypeExt;
    let w = World::new();
    full_session(&w, 1);
    let fifo = w.home.join("session-env").join(sid(1)).join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let transcript = w.alpha_folder().join(format!("{}.jsonl", sid(1)));
    let bytes = fs::read(&transcript).unwrap();
    let report = delete(&w, &request(&[sid(1)]), &nobody());
    assert_eq!(report.run_id, None);
    assert!(report.refused[0].reason.contains("is not a file, folder or link"), "{report:?}");
    // (The test's tree walk would block on the FIFO: what matters is looked at one by one.)
    assert_eq!(fs::read(&transcript).unwrap(), bytes);
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(w.home.join("file-history").join(sid(1)).join("3f1c@v2").is_file());
}

#[test]
fn a_quarantine_on_another_filesystem_is_copied_checked_and_undone() {
    let shm = Path::new("/dev/shm");
    let w = World::new();
    use std::os::unix::fs::MetadataExt;
    let other_fs = fs::metadata(shm).is_ok_and(|m| m.dev() != fs::metadata(&w.root).unwrap().dev());
    if !other_fs {
        println!("skipped: no second filesystem (/dev/shm) to put the quarantine on");
        return;
    }
    let data = tempfile::tempdir_in(shm).unwrap();
    full_session(&w, 1);
    let before = w.user_tree();
    let catalog = corral_engine::Catalog::open(corral_engine::CatalogConfig {
        claude_home: w.home.clone(),
        fleet_file: Some(w.fleet_file.clone()),
        state_dir: None,
        data_dir: data.path().to_path_buf(),
    })
    .unwrap();
    let cancel = AtomicBool::new(false);
    let report = quarantine::delete_in(
        &catalog,
        &request(&[sid(1)]),
        &nobody(),
        now(),
        &mut |_| {},
        &cancel,
    )
    .unwrap();
    assert_eq!(report.deleted, [sid(1)]);
    assert!(w.user_tree().keys().all(|k| !k.contains(&sid(1))));
    let undone = runs::undo(&UndoTarget::of(&catalog), &report.run_id.unwrap(), now()).unwrap();
    assert!(undone.not_undone.is_empty(), "{undone:?}");
    assert_eq!(w.user_tree(), before);
}

#[test]
fn cancel_stops_between_sessions_and_leaves_an_undoable_run() {
    let w = World::new();
    full_session(&w, 1);
    full_session(&w, 2);
    let before = w.user_tree();
    let cancel = AtomicBool::new(false);
    let report = quarantine::delete_in(
        &w.catalog(),
        &request(&[sid(1), sid(2)]),
        &nobody(),
        now(),
        &mut |p| {
            if p.done == 1 {
                cancel.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        },
        &cancel,
    )
    .unwrap();
    assert!(report.cancelled);
    assert_eq!(report.deleted, [sid(1)]);
    assert!(w.catalog().session(&sid(2)).is_ok());
    runs::undo(&target(&w), &report.run_id.unwrap(), now()).unwrap();
    assert_eq!(w.user_tree(), before);
}
