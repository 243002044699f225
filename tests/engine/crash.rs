//! Crash safety: an import runs in a child process that is SIGKILLed at the n-th fault point in
//! `apply`, for every n until the import completes. After each crash every source transcript's
//! bytes still exist (at the source, the destination or in the backup), and undo returns the
//! tree to its pre-run state byte for byte.
//!
//! Needs the `fault-points` feature (`cargo test --features fault-points` or `--all-features`);
//! without it the fault points compile to nothing and this module is left out.
#![cfg(all(unix, feature = "fault-points"))]

use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

use corral_engine::import::{ApplyOptions, ImportPlan, ImportTarget, apply_with};
use corral_engine::placement::{PlacementFs, PlacementMode, RealFs, SimulatedCrossDevice};
use corral_engine::renames;
use corral_engine::runs::{self, UndoTarget};
use corral_engine::{Catalog, CatalogConfig};
use serde::{Deserialize, Serialize};

use crate::import::{Node, World, alpha, now, sid, tree};

#[derive(Serialize, Deserialize)]
struct Spec {
    home: PathBuf,
    fleet: PathBuf,
    data: PathBuf,
    plan: ImportPlan,
    cross_device: bool,
}

/// The child: applies the plan named by `CORRAL_CRASH_SPEC` (and aborts at `CORRAL_FAULT_AT`).
/// Ignored in normal runs; without the variable it does nothing.
#[test]
#[ignore = "run by crash_at_every_fault_point_then_undo in a child process"]
fn crash_child() {
    let Ok(spec_path) = std::env::var("CORRAL_CRASH_SPEC") else { return };
    let spec: Spec = serde_json::from_slice(&fs::read(spec_path).unwrap()).unwrap();
    let catalog = Catalog::open(CatalogConfig {
        claude_home: spec.home,
        fleet_file: Some(spec.fleet),
        state_dir: None,
        data_dir: spec.data,
    })
    .unwrap();
    let fs_ops: &dyn PlacementFs = if spec.cross_device { &SimulatedCrossDevice } else { &RealFs };
    let opts = ApplyOptions { fs: fs_ops, ..ApplyOptions::default() };
    let report = apply_with(&catalog, &spec.plan, now(), &opts, &mut |_| true).unwrap();
    assert!(report.run_id.is_some());
}

/// Every file's bytes anywhere under these roots.
fn all_contents(roots: &[PathBuf]) -> HashSet<Vec<u8>> {
    let mut out = HashSet::new();
    for r in roots {
        for (_, node) in tree(r) {
            if let Node::File(b) = node {
                out.insert(b);
            }
        }
    }
    out
}

/// Runs the ignored test `child` in a child process told to die at fault point `k`; true when it
/// finished instead (a failure that is not the kill fails the test).
fn run_child(
    child: &str,
    (var, value): (&str, &dyn AsRef<std::ffi::OsStr>),
    k: u32,
    ctx: &str,
) -> bool {
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", child, "--ignored", "--nocapture", "--test-threads=1"])
        .env(var, value)
        .env("CORRAL_FAULT_AT", k.to_string())
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    if status.status.success() {
        return true;
    }
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        status.status.signal(),
        Some(9),
        "{ctx}: the child failed instead of being killed: {}",
        String::from_utf8_lossy(&status.stdout)
    );
    false
}

fn scenario(mode: PlacementMode, cross_device: bool, target: &ImportTarget) -> usize {
    let mut crashes = 0;
    for k in 1..400u32 {
        let w = World::new();
        let mut sources = Vec::new();
        for n in 1..=3 {
            sources
                .push(fs::read(w.session(&w.export, &sid(n), "/home/u/scratch", false)).unwrap());
        }
        // Session 1 has its own folder (a subagent run), which travels with it.
        let sub = w.export.join(sid(1)).join("subagents");
        fs::create_dir_all(&sub).unwrap();
        for (name, bytes) in [
            ("agent-a1b2c3.jsonl", &b"{\"type\":\"user\",\"isSidechain\":true}\n"[..]),
            ("agent-a1b2c3.meta.json", &b"{\"agentType\":\"Explore\"}"[..]),
        ] {
            fs::write(sub.join(name), bytes).unwrap();
            sources.push(bytes.to_vec());
        }
        let plan = w.plan(target, &[w.export.clone()], mode);
        assert_eq!(plan.placements.len(), 3, "{:?}", plan.skipped);
        assert_eq!(plan.placements[0].companions.len(), 2);
        // beta adopts session 2 meanwhile: the run replaces that record (and backs it up).
        w.adoption_record(&sid(2), "beta");
        let before = w.user_tree();
        let spec = Spec {
            home: w.home.clone(),
            fleet: w.fleet_file.clone(),
            data: w.data.clone(),
            plan,
            cross_device,
        };
        let spec_path = w.root.join("spec.json");
        fs::write(&spec_path, serde_json::to_vec(&spec).unwrap()).unwrap();
        let ctx = format!("{target:?} {mode:?} cross={cross_device} crash at point {k}");
        let finished = run_child("crash::crash_child", ("CORRAL_CRASH_SPEC", &spec_path), k, &ctx);
        crashes += usize::from(!finished);
        // 1. No source transcript's bytes are lost.
        let present = all_contents(&[w.export.clone(), w.home.clone(), w.data.clone()]);
        for (i, bytes) in sources.iter().enumerate() {
            assert!(present.contains(bytes), "{ctx}: the bytes of source {} are gone", i + 1);
        }
        // 2. Undo returns the tree to its pre-run state, byte for byte.
        let listed = runs::runs(&w.data).unwrap();
        assert!(listed.len() <= 1, "{ctx}");
        if let Some(run) = listed.first() {
            assert_eq!(run.finished, finished, "{ctx}");
            let target = UndoTarget::of(&w.catalog());
            let report = runs::undo(&target, &run.run_id, now()).unwrap();
            assert!(report.not_undone.is_empty(), "{ctx}: {:?}", report.not_undone);
            let after = w.user_tree();
            if after != before {
                let changed: Vec<&String> = before
                    .keys()
                    .chain(after.keys())
                    .filter(|k| before.get(*k) != after.get(*k))
                    .collect();
                panic!("{ctx}: undo left a different tree: {changed:?}");
            }
            // And undo again changes nothing.
            runs::undo(&target, &run.run_id, now()).unwrap();
            assert_eq!(w.user_tree(), before, "{ctx}");
        } else {
            assert!(!finished, "{ctx}: a finished run must be listed");
            assert_eq!(w.user_tree(), before, "{ctx}: a crash before the run began changed files");
        }
        if finished {
            return crashes;
        }
    }
    panic!("{target:?} {mode:?} cross={cross_device}: the import never finished");
}

/// The child of the desktop-sidebar scenario: restores every missing entry of the store in
/// `CORRAL_DESKTOP_CRASH` (`<store>\n<data dir>`) into A/A2.
#[test]
#[ignore = "run by a_sidebar_restore_crashed_at_every_fault_point_is_undone in a child process"]
fn desktop_crash_child() {
    let Ok(spec) = std::env::var("CORRAL_DESKTOP_CRASH") else { return };
    let (store, data) = spec.split_once('\n').unwrap();
    let req = crate::desktop_restore::all();
    let plan = corral_engine::desktop::plan_restore(
        &corral_engine::desktop::Store::read(std::path::Path::new(store)),
        crate::desktop::A,
        crate::desktop::A2,
        &req,
    )
    .unwrap();
    let run = corral_engine::desktop::RestoreRun {
        data_dir: std::path::Path::new(data),
        processes: &crate::desktop_restore::nobody(),
        now: now(),
        clock: chrono::Utc::now,
    };
    let report =
        corral_engine::desktop::restore(std::path::Path::new(store), &plan, &run, &mut |_| true)
            .unwrap();
    assert_eq!(report.restored.len(), 2);
}

#[test]
fn a_sidebar_restore_crashed_at_every_fault_point_is_undone() {
    let mut crashes = 0;
    for k in 1..400u32 {
        let r = crate::desktop_restore::Restore::new();
        let before = crate::support::hash_tree(&r.f.root);
        let sources = all_contents(&[r.f.root.clone()]);
        let ctx = format!("sidebar restore, crash at point {k}");
        let spec = format!("{}\n{}", r.f.root.display(), r.data.display());
        let finished =
            run_child("crash::desktop_crash_child", ("CORRAL_DESKTOP_CRASH", &spec), k, &ctx);
        crashes += usize::from(!finished);
        // No entry's bytes are lost, and undo returns the store to what it was, byte for byte.
        let present = all_contents(&[r.f.root.clone(), r.data.clone()]);
        assert!(sources.is_subset(&present), "{ctx}: bytes of the store are gone");
        let listed = runs::runs(&r.data).unwrap();
        assert!(listed.len() <= 1, "{ctx}");
        if let Some(run) = listed.first() {
            assert_eq!(run.finished, finished, "{ctx}");
            let report = runs::undo(&r.undo_target(), &run.run_id, now()).unwrap();
            assert!(report.not_undone.is_empty(), "{ctx}: {:?}", report.not_undone);
            assert_eq!(crate::support::hash_tree(&r.f.root), before, "{ctx}");
            runs::undo(&r.undo_target(), &run.run_id, now()).unwrap();
            assert_eq!(crate::support::hash_tree(&r.f.root), before, "{ctx}");
        } else {
            assert!(!finished, "{ctx}: a finished run must be listed");
            assert_eq!(crate::support::hash_tree(&r.f.root), before, "{ctx}");
        }
        if finished {
            println!("sidebar restore: crashed and undone at {crashes} fault points");
            assert!(crashes >= 10, "only {crashes} fault points were reached");
            return;
        }
    }
    panic!("the sidebar restore never finished");
}

#[test]
fn crash_at_every_fault_point_then_undo() {
    for (mode, cross, target) in [
        (PlacementMode::Move, false, alpha()),
        (PlacementMode::Move, true, alpha()),
        (PlacementMode::Copy, false, alpha()),
        (PlacementMode::Link, true, alpha()),
        (PlacementMode::Move, true, ImportTarget::ClaudeHome),
    ] {
        let crashes = scenario(mode, cross, &target);
        println!("{target:?} {mode:?} cross={cross}: crashed and undone at {crashes} fault points");
        // Three transcripts and a replaced record pass through many points.
        assert!(crashes >= 15, "{mode:?} cross={cross}: only {crashes} fault points were reached");
    }
}

/// The catalog a child is given as `<home>\n<fleet>\n<data dir>`.
fn catalog_of(spec: &str) -> Catalog {
    let mut parts = spec.split('\n');
    let (home, fleet, data) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
    Catalog::open(CatalogConfig {
        claude_home: home.into(),
        fleet_file: Some(fleet.into()),
        state_dir: None,
        data_dir: data.into(),
    })
    .unwrap()
}

/// The child of the rename scenario: renames session 1 of the world in `CORRAL_RENAME_CRASH`
/// (`<home>\n<fleet>\n<data dir>`).
#[test]
#[ignore = "run by a_rename_killed_at_any_step_leaves_no_partial_line in a child process"]
fn rename_crash_child() {
    let Ok(spec) = std::env::var("CORRAL_RENAME_CRASH") else { return };
    let catalog = catalog_of(&spec);
    renames::rename(&catalog, &sid(1), Some("Killed \u{2014} or not")).unwrap();
}

/// A rename SIGKILLed at any step: the transcript is what it was, or that plus the one whole
/// `custom-title` line (never part of one), and every line of it still parses; herdctl's record
/// is absent or complete; and the run it left is undone completely. Until the rename finishes
/// unkilled.
#[test]
fn a_rename_killed_at_any_step_leaves_no_partial_line() {
    for k in 1..50u32 {
        let w = World::new();
        let t = w.session(&w.alpha_folder(), &sid(1), crate::import::ALPHA_WD, false);
        let before = fs::read(&t).unwrap();
        let spec =
            format!("{}\n{}\n{}", w.home.display(), w.fleet_file.display(), w.data.display());
        let ctx = format!("rename, crash at point {k}");
        let finished =
            run_child("crash::rename_crash_child", ("CORRAL_RENAME_CRASH", &spec), k, &ctx);
        let after = fs::read(&t).unwrap();
        let line =
            corral_engine::claude_titles::custom_title_line(&sid(1), "Killed \u{2014} or not");
        let whole = [before.clone(), line.as_bytes().to_vec()].concat();
        assert!(after == before || after == whole, "{ctx}: {}", String::from_utf8_lossy(&after));
        for l in String::from_utf8(after.clone()).unwrap().lines() {
            assert!(serde_json::from_str::<serde_json::Value>(l).is_ok(), "{ctx}: {l}");
        }
        let metadata = w.state.join("session-metadata").join("alpha.json");
        if let Ok(text) = fs::read_to_string(&metadata) {
            assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok(), "{ctx}: {text}");
        }
        if finished {
            assert_eq!(after, whole, "{ctx}");
            assert!(k > 2, "the rename passes its fault points");
        }
        // Whatever step it was killed at, its run's undo brings the picker's title back to none
        // (the session had no custom title), by appending — never by cutting the transcript.
        let listed = runs::runs(&w.data).unwrap();
        assert!(listed.len() <= 1, "{ctx}");
        if let Some(run) = listed.first() {
            let catalog = w.catalog();
            let report = runs::undo_in(&catalog, None, &run.run_id, chrono::Utc::now()).unwrap();
            assert!(report.not_undone.is_empty(), "{ctx}: {report:?}");
            let undone = fs::read(&t).unwrap();
            assert_eq!(&undone[..after.len()], &after[..], "{ctx}: only appended to");
            assert_eq!(
                corral_engine::claude_titles::picker_title(&t, &sid(1)).unwrap(),
                None,
                "{ctx}"
            );
            assert_eq!(catalog.session(&sid(1)).unwrap().custom_name, None, "{ctx}");
        }
        if finished {
            return;
        }
    }
    panic!("the rename never finished");
}

/// The child of the release scenario: releases session 1 from alpha in the world named by
/// `CORRAL_RELEASE_CRASH` (`<home>\n<fleet>\n<data dir>`).
#[test]
#[ignore = "run by a_release_killed_at_any_step_loses_no_record in a child process"]
fn release_crash_child() {
    let Ok(spec) = std::env::var("CORRAL_RELEASE_CRASH") else { return };
    let catalog = catalog_of(&spec);
    assert!(corral_engine::adopt::release(&catalog, "alpha", &sid(1), now()).unwrap().released);
}

/// A release SIGKILLed at any step: the record is where it was, or its complete copy is in the
/// run's backup; and the run's undo puts back exactly the record that was there.
#[test]
fn a_release_killed_at_any_step_loses_no_record() {
    for k in 1..50u32 {
        let w = World::new();
        w.session(&w.alpha_folder(), &sid(1), crate::import::ALPHA_WD, false);
        w.adoption_record(&sid(1), "alpha");
        let record = w.state.join("adopted-sessions").join(format!("{}.yaml", sid(1)));
        let before = fs::read(&record).unwrap();
        let spec =
            format!("{}\n{}\n{}", w.home.display(), w.fleet_file.display(), w.data.display());
        let ctx = format!("release, crash at point {k}");
        let finished =
            run_child("crash::release_crash_child", ("CORRAL_RELEASE_CRASH", &spec), k, &ctx);
        let kept = fs::read(&record).ok();
        let backed_up = all_contents(&[w.data.clone()]).contains(&before);
        assert!(kept.as_ref() == Some(&before) || backed_up, "{ctx}: the record is lost");
        if finished {
            assert!(kept.is_none(), "{ctx}");
            assert!(k > 2, "the release passes its fault points");
        }
        for run in runs::runs(&w.data).unwrap() {
            let report = runs::undo_in(&w.catalog(), None, &run.run_id, chrono::Utc::now());
            let report = report.unwrap();
            assert!(report.not_undone.is_empty(), "{ctx}: {report:?}");
        }
        assert_eq!(fs::read(&record).unwrap(), before, "{ctx}: undo puts the record back");
        if finished {
            return;
        }
    }
    panic!("the release never finished");
}

/// Whether `/dev/shm` is a filesystem of its own (then a quarantine there is across filesystems).
fn shm_is_another_filesystem() -> bool {
    use std::os::unix::fs::MetadataExt;
    let probe = crate::import::World::new();
    fs::metadata("/dev/shm").is_ok_and(|m| m.dev() != fs::metadata(&probe.root).unwrap().dev())
}

/// A world with sessions 1 and 2 of alpha, each with a subagent run and a `file-history/` copy,
/// and the data dir to use: on `/dev/shm` when `across` (the temp dir is returned to keep it).
fn delete_world(across: bool) -> (crate::import::World, Option<tempfile::TempDir>, PathBuf) {
    let w = crate::import::World::new();
    let shm_data = tempfile::tempdir_in("/dev/shm").ok().filter(|_| across);
    let data = shm_data.as_ref().map_or(w.data.clone(), |d| d.path().to_path_buf());
    for n in [1, 2] {
        let t = w.session(&w.alpha_folder(), &sid(n), crate::import::ALPHA_WD, false);
        let sub = t.with_extension("").join("subagents");
        fs::create_dir_all(&sub).unwrap();
        fs::write(sub.join("agent-a1.jsonl"), format!("{{\"n\":{n}}}\n")).unwrap();
        let history = w.home.join("file-history").join(sid(n));
        fs::create_dir_all(&history).unwrap();
        fs::write(history.join("a@v1"), format!("history {n}\n")).unwrap();
    }
    // herdctl's name for session 1 goes with it, journaled first, and comes back by undo.
    corral_engine::metadata::MetadataStore::new(&w.state)
        .set_custom_name("alpha", &sid(1), Some("Named one"))
        .unwrap();
    (w, shm_data, data)
}

/// The child of the delete scenario: deletes sessions 1 and 2 of the world in
/// `CORRAL_DELETE_CRASH` (`<home>\n<fleet>\n<data dir>`).
#[test]
#[ignore = "run by a_delete_killed_at_any_step_loses_nothing_and_is_undone in a child process"]
fn delete_crash_child() {
    let Ok(spec) = std::env::var("CORRAL_DELETE_CRASH") else { return };
    let catalog = catalog_of(&spec);
    let request = corral_engine::quarantine::DeleteRequest {
        session_ids: vec![sid(1), sid(2)],
        ..corral_engine::quarantine::DeleteRequest::default()
    };
    let nobody = corral_engine::occupancy::FixedProcesses(Ok(Vec::new()));
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let report = corral_engine::quarantine::delete_in(
        &catalog,
        &request,
        &nobody,
        now(),
        &mut |_| {},
        &cancel,
    )
    .unwrap();
    assert_eq!(report.deleted.len(), 2);
}

/// A delete SIGKILLed at every step, into a quarantine on the same filesystem and (where
/// `/dev/shm` is another one) across filesystems: afterwards every byte of every file it was
/// moving is in its place or in the quarantine, and the run's undo puts the tree back byte for
/// byte. Until the delete finishes unkilled.
#[test]
fn a_delete_killed_at_any_step_loses_nothing_and_is_undone() {
    let cross = shm_is_another_filesystem();
    if !cross {
        println!("notice: no second filesystem (/dev/shm): the delete's crash test runs on one");
    }
    for across in [false, true].into_iter().filter(|a| !a || cross) {
        let mut crashes = 0;
        for k in 1..400u32 {
            let (w, _shm_data, data) = delete_world(across);
            w.adoption_record(&sid(2), "alpha");
            let before = w.user_tree();
            // Every file a delete moves; herdctl's metadata is edited in place instead, its name
            // journaled first (undo below must give its bytes back).
            let mut files = all_contents(&[w.home.clone(), w.state.clone()]);
            files.retain(|b| !String::from_utf8_lossy(b).contains("\"customName\""));
            let spec =
                format!("{}\n{}\n{}", w.home.display(), w.fleet_file.display(), data.display());
            let ctx = format!("delete across={across}, crash at point {k}");
            let finished =
                run_child("crash::delete_crash_child", ("CORRAL_DELETE_CRASH", &spec), k, &ctx);
            crashes += usize::from(!finished);
            let present = all_contents(&[w.home.clone(), w.state.clone(), data.clone()]);
            for bytes in &files {
                assert!(
                    present.contains(bytes),
                    "{ctx}: {:?} is gone",
                    String::from_utf8_lossy(bytes)
                );
            }
            let listed = runs::runs(&data).unwrap();
            assert!(listed.len() <= 1, "{ctx}");
            if let Some(run) = listed.first() {
                let target = UndoTarget {
                    claude_home: w.home.clone(),
                    state_dir: w.state.clone(),
                    data_dir: data.clone(),
                    desktop_store: None,
                };
                let report = runs::undo(&target, &run.run_id, chrono::Utc::now()).unwrap();
                assert!(report.not_undone.is_empty(), "{ctx}: {report:?}");
            }
            assert_eq!(w.user_tree(), before, "{ctx}");
            if finished {
                println!("delete across={across}: crashed and undone at {crashes} fault points");
                assert!(crashes >= 10, "only {crashes} fault points were reached");
                break;
            }
            assert!(k < 399, "the delete never finished");
        }
    }
}

/// The child of the delete-undo scenario: undoes (or, with `CORRAL_EMPTY_FIRST`, empties into
/// a folder trash, then undoes) the only run in the data dir of `CORRAL_UNDELETE_CRASH`.
#[test]
#[ignore = "run by a_delete_s_undo_or_empty_killed_at_any_step_loses_nothing in a child process"]
fn undelete_crash_child() {
    let Ok(spec) = std::env::var("CORRAL_UNDELETE_CRASH") else { return };
    let catalog = catalog_of(&spec);
    let [run] = &runs::runs(catalog.data_dir()).unwrap()[..] else { panic!("one run") };
    if let Ok(trash) = std::env::var("CORRAL_EMPTY_FIRST") {
        struct Folder(PathBuf);
        impl corral_engine::quarantine::Trash for Folder {
            fn put(&self, path: &std::path::Path) -> Result<(), String> {
                fs::create_dir_all(&self.0).unwrap();
                fs::rename(path, self.0.join(path.file_name().unwrap())).map_err(|e| e.to_string())
            }
        }
        let ids = [run.run_id.clone()];
        corral_engine::quarantine::empty(catalog.data_dir(), &ids, &Folder(trash.into()), now())
            .unwrap();
        return;
    }
    runs::undo_in(&catalog, None, &run.run_id, now()).unwrap();
}

/// A delete's undo SIGKILLed at every step (on one filesystem and across two) loses nothing and
/// finishes when run again; an empty killed between marking the journal and the trash leaves the
/// quarantine whole, and its undo still puts the tree back.
#[test]
fn a_delete_s_undo_or_empty_killed_at_any_step_loses_nothing() {
    let cross = shm_is_another_filesystem();
    for (across, empty_first) in [(false, false), (true, false), (false, true)] {
        if across && !cross {
            continue;
        }
        let mut crashes = 0;
        for k in 1..200u32 {
            let (w, _shm_data, data) = delete_world(across);
            let before = w.user_tree();
            let spec =
                format!("{}\n{}\n{}", w.home.display(), w.fleet_file.display(), data.display());
            let catalog = catalog_of(&spec);
            let request = corral_engine::quarantine::DeleteRequest {
                session_ids: vec![sid(1), sid(2)],
                ..corral_engine::quarantine::DeleteRequest::default()
            };
            let nobody = corral_engine::occupancy::FixedProcesses(Ok(Vec::new()));
            let cancel = std::sync::atomic::AtomicBool::new(false);
            corral_engine::quarantine::delete_in(
                &catalog,
                &request,
                &nobody,
                now(),
                &mut |_| {},
                &cancel,
            )
            .unwrap();
            // Every byte of every item, wherever it is (the journal itself changes; it is no item).
            let files = all_contents(&[w.home.clone(), data.join("quarantine")]);
            let ctx = format!("undo across={across} empty={empty_first}, crash at point {k}");
            let trash = w.root.join("trash");
            let child = Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "crash::undelete_crash_child",
                    "--ignored",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env("CORRAL_UNDELETE_CRASH", &spec)
                .env("CORRAL_FAULT_AT", k.to_string())
                .envs(empty_first.then(|| ("CORRAL_EMPTY_FIRST", trash.clone())))
                .output()
                .unwrap();
            let finished = child.status.success();
            crashes += usize::from(!finished);
            if !finished {
                use std::os::unix::process::ExitStatusExt;
                assert_eq!(
                    child.status.signal(),
                    Some(9),
                    "{ctx}: {}",
                    String::from_utf8_lossy(&child.stdout)
                );
            }
            let present = all_contents(&[w.home.clone(), data.clone(), trash.clone()]);
            for bytes in &files {
                assert!(
                    present.contains(bytes),
                    "{ctx}: {:?} is gone",
                    String::from_utf8_lossy(bytes)
                );
            }
            if empty_first && finished {
                // Emptied whole into the trash: every byte is there, and undo says where to look.
                let run = &runs::runs(&data).unwrap()[0];
                let report = runs::undo_in(&catalog, None, &run.run_id, now()).unwrap();
                assert!(
                    report.not_undone.iter().all(|n| n.reason.contains("trash")),
                    "{ctx}: {report:?}"
                );
                println!("empty: crashed and undone at {crashes} fault points");
                assert!(crashes >= 1, "{ctx}: the empty passed no fault point");
                break;
            }
            // Run again (unkilled), the undo finishes and the tree is as it was.
            let run = &runs::runs(&data).unwrap()[0];
            let report = runs::undo_in(&catalog, None, &run.run_id, now()).unwrap();
            assert!(report.not_undone.is_empty(), "{ctx}: {report:?}");
            assert_eq!(w.user_tree(), before, "{ctx}");
            if finished {
                println!(
                    "undo across={across}: crashed and finished again at {crashes} fault points"
                );
                assert!(crashes >= 4, "{ctx}: only {crashes} fault points were reached");
                break;
            }
        }
    }
}
