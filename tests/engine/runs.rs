//! Runs and undo: round trips back to the identical tree, idempotence, the guards (undo trusts
//! the filesystem and the backup, not run.json), the run list.

use std::fs;
use std::path::PathBuf;

use corral_engine::Error;
use corral_engine::import::ImportTarget;
use corral_engine::placement::{PlacementFs, PlacementMode, RealFs, SimulatedCrossDevice};
use corral_engine::runs::{self, UndoAction, UndoState, UndoTarget, plan_undo, undo};

use crate::import::{ALPHA_WD, World, alpha, now, sid, tree};

fn target(w: &World) -> UndoTarget {
    UndoTarget::of(&w.catalog())
}

/// A world with three sessions in an export folder, one already adopted by beta (replaced by
/// the run in a race), and one in a bucket of the Claude home.
fn populated() -> World {
    let w = World::new();
    for n in 1..=3 {
        w.session(&w.export, &sid(n), "/home/u/scratch", false);
    }
    w.session(&w.folder_of("/home/u/legacy"), &sid(4), "/home/u/legacy", false);
    w
}

#[test]
fn import_then_undo_returns_the_identical_tree_for_every_mode_and_target() {
    let cross: [&dyn PlacementFs; 2] = [&RealFs, &SimulatedCrossDevice];
    for mode in [PlacementMode::Copy, PlacementMode::Link, PlacementMode::Move] {
        for (ci, fs_ops) in cross.iter().enumerate() {
            for tgt in [alpha(), ImportTarget::ClaudeHome] {
                let w = populated();
                let before = w.user_tree();
                let sources = vec![w.export.clone(), w.folder_of("/home/u/legacy")];
                let plan = w.plan(&tgt, &sources, mode);
                let ctx = format!("{mode:?} cross={ci} {tgt:?}");
                assert!(!plan.placements.is_empty(), "{ctx}: {:?}", plan.skipped);
                let report = w.apply(&plan, *fs_ops);
                assert_eq!(
                    report.placed.len(),
                    plan.placements.len(),
                    "{ctx}: {:?}",
                    report.skipped
                );
                assert_ne!(w.user_tree(), before, "{ctx}: the import changed nothing");
                let run = report.run_id.clone().unwrap();
                let u = undo(&target(&w), &run, now()).unwrap();
                assert!(u.not_undone.is_empty(), "{ctx}: {:?}", u.not_undone);
                assert_eq!(w.user_tree(), before, "{ctx}: undo did not restore the tree");
                // Idempotent: a second undo finds everything already undone.
                let again = undo(&target(&w), &run, now()).unwrap();
                assert!(again.not_undone.is_empty(), "{ctx}: {:?}", again.not_undone);
                assert!(
                    again.undone.iter().all(|i| i.action == UndoAction::AlreadyGone),
                    "{ctx}: {:?}",
                    again.undone
                );
                assert_eq!(w.user_tree(), before, "{ctx}");
                let listed = runs::runs(&w.data).unwrap();
                assert_eq!(listed[0].undo_state, UndoState::Undone, "{ctx}");
            }
        }
    }
}

#[test]
fn undo_restores_an_adoption_record_the_run_replaced() {
    let w = populated();
    let plan = w.plan(&alpha(), &[w.export.clone()], PlacementMode::Copy);
    w.adoption_record(&sid(1), "beta");
    let before = w.user_tree();
    let report = w.apply(&plan, &RealFs);
    assert_eq!(report.placed.len(), 3, "{:?}", report.skipped);
    let rec = w.state.join("adopted-sessions").join(format!("{}.yaml", sid(1)));
    assert!(fs::read_to_string(&rec).unwrap().contains("agentName: alpha"));
    let u = undo(&target(&w), report.run_id.as_deref().unwrap(), now()).unwrap();
    assert!(u.not_undone.is_empty(), "{:?}", u.not_undone);
    assert!(u.undone.iter().any(|i| i.action == UndoAction::RecordRestored));
    assert_eq!(w.user_tree(), before);
}

#[test]
fn undo_keeps_a_placed_transcript_that_changed_since_the_run() {
    let w = populated();
    let plan = w.plan(&alpha(), &[w.export.clone()], PlacementMode::Copy);
    let report = w.apply(&plan, &RealFs);
    let dest = PathBuf::from(&report.placed[0].to);
    // The agent resumed it: new messages were appended.
    let mut bytes = fs::read(&dest).unwrap();
    bytes.extend_from_slice(
        b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"more\"}}\n",
    );
    fs::write(&dest, &bytes).unwrap();
    let u = undo(&target(&w), report.run_id.as_deref().unwrap(), now()).unwrap();
    assert_eq!(u.not_undone.len(), 1, "{u:?}");
    assert_eq!(u.not_undone[0].path, dest.display().to_string());
    assert!(u.not_undone[0].reason.contains("changed"), "{}", u.not_undone[0].reason);
    assert_eq!(fs::read(&dest).unwrap(), bytes, "the changed transcript is kept");
    assert_eq!(runs::runs(&w.data).unwrap()[0].undo_state, UndoState::PartlyUndone);
}

#[test]
fn undo_keeps_a_copy_whose_source_is_gone() {
    let w = populated();
    let src = w.export.join(format!("{}.jsonl", sid(1)));
    let report =
        w.apply(&w.plan(&alpha(), std::slice::from_ref(&src), PlacementMode::Copy), &RealFs);
    fs::remove_file(&src).unwrap();
    let dest = PathBuf::from(&report.placed[0].to);
    let u = undo(&target(&w), report.run_id.as_deref().unwrap(), now()).unwrap();
    assert_eq!(u.not_undone.len(), 1, "{u:?}");
    assert!(u.not_undone[0].reason.contains("only copy"), "{}", u.not_undone[0].reason);
    assert!(dest.is_file());
}

#[test]
fn undo_does_not_trust_a_tampered_journal() {
    let w = populated();
    let report = w.apply(&w.plan(&alpha(), &[w.export.clone()], PlacementMode::Copy), &RealFs);
    let run = report.run_id.unwrap();
    let journal_path = w.data.join("runs").join(&run).join("run.json");
    let mut j: serde_json::Value =
        serde_json::from_slice(&fs::read(&journal_path).unwrap()).unwrap();
    // Point entries at files the run did not create: the sources themselves, a file outside
    // the projects folders, and a pre-existing transcript in another bucket.
    let legacy = w.folder_of("/home/u/legacy").join(format!("{}.jsonl", sid(4)));
    let outside = w.root.join("precious.jsonl");
    fs::write(&outside, b"precious").unwrap();
    let entries = j["entries"].as_array_mut().unwrap();
    let files: Vec<usize> = (0..entries.len()).filter(|&i| entries[i]["kind"] == "file").collect();
    entries[files[0]]["path"] = serde_json::json!(legacy.display().to_string());
    entries[files[0]]["sessionId"] = serde_json::json!(sid(4));
    entries[files[0]]["from"] = serde_json::json!(legacy.display().to_string());
    entries[files[1]]["path"] = serde_json::json!(outside.display().to_string());
    entries[files[2]]["sessionId"] = serde_json::json!("../../x");
    fs::write(&journal_path, serde_json::to_vec(&j).unwrap()).unwrap();
    let legacy_before = fs::read(&legacy).unwrap();
    let u = undo(&target(&w), &run, now()).unwrap();
    assert_eq!(
        fs::read(&legacy).unwrap(),
        legacy_before,
        "a transcript from before the run was removed"
    );
    assert_eq!(fs::read(&outside).unwrap(), b"precious");
    assert!(u.not_undone.len() >= 3, "{u:?}");
}

#[cfg(unix)]
#[test]
fn a_dangling_or_foreign_symlink_at_a_destination_is_not_removed() {
    let w = populated();
    let report = w.apply(&w.plan(&alpha(), &[w.export.clone()], PlacementMode::Copy), &RealFs);
    let dest = PathBuf::from(&report.placed[0].to);
    fs::remove_file(&dest).unwrap();
    std::os::unix::fs::symlink(w.root.join("elsewhere"), &dest).unwrap();
    let u = undo(&target(&w), report.run_id.as_deref().unwrap(), now()).unwrap();
    assert!(u.not_undone.iter().any(|n| n.path == dest.display().to_string()), "{u:?}");
    assert!(fs::symlink_metadata(&dest).is_ok());
}

#[test]
fn plan_undo_changes_nothing_and_predicts_undo() {
    let w = populated();
    let report = w.apply(&w.plan(&alpha(), &[w.export.clone()], PlacementMode::Move), &RealFs);
    let run = report.run_id.unwrap();
    let before = tree(&w.root);
    let plan = plan_undo(&target(&w), &run).unwrap();
    assert_eq!(tree(&w.root), before);
    assert!(plan.not_undone.is_empty());
    assert_eq!(plan.steps.iter().filter(|s| s.action == UndoAction::RestoredSource).count(), 3);
    assert_eq!(plan.steps.iter().filter(|s| s.action == UndoAction::RecordRemoved).count(), 3);
    let u = undo(&target(&w), &run, now()).unwrap();
    let mut predicted: Vec<_> =
        plan.steps.iter().map(|s| format!("{} {:?}", s.path, s.action)).collect();
    let mut done: Vec<_> = u.undone.iter().map(|s| format!("{} {:?}", s.path, s.action)).collect();
    predicted.sort();
    done.sort();
    assert_eq!(predicted, done);
}

#[test]
fn runs_are_listed_newest_first_with_counts() {
    let w = populated();
    assert!(runs::runs(&w.data).unwrap().is_empty());
    let src1 = w.export.join(format!("{}.jsonl", sid(1)));
    let r1 = w.apply(&w.plan(&alpha(), &[src1], PlacementMode::Copy), &RealFs);
    let later = now() + chrono::Duration::seconds(5);
    let plan = w.plan(&ImportTarget::ClaudeHome, &[w.export.clone()], PlacementMode::Move);
    let opts = corral_engine::import::ApplyOptions::default();
    let r2 = corral_engine::import::apply_with(&w.catalog(), &plan, later, &opts, &mut |_| true)
        .unwrap();
    let listed = runs::runs(&w.data).unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(Some(listed[0].run_id.clone()), r2.run_id);
    assert_eq!(Some(listed[1].run_id.clone()), r1.run_id);
    assert_eq!(listed[0].placed, 3);
    assert_eq!(listed[0].records, 0);
    assert_eq!(listed[0].mode, Some(PlacementMode::Move));
    assert!(listed[0].backup_bytes > 0, "a move keeps backups of its sources");
    assert_eq!(listed[1].placed, 1);
    assert_eq!(listed[1].records, 1);
    assert_eq!(listed[1].backup_bytes, 0);
    assert!(
        listed.iter().all(|r| r.finished && !r.cancelled && r.undo_state == UndoState::NotUndone)
    );
    assert!(listed[1].run_id.starts_with("20261129T200000Z-"), "{}", listed[1].run_id);
}

#[test]
fn run_ids_are_validated_and_missing_runs_are_not_found() {
    let w = populated();
    for bad in ["../x", "a/b", "", ".", "..", "a b"] {
        assert!(matches!(undo(&target(&w), bad, now()), Err(Error::InvalidInput(_))), "{bad:?}");
        assert!(matches!(plan_undo(&target(&w), bad), Err(Error::InvalidInput(_))), "{bad:?}");
    }
    assert!(matches!(undo(&target(&w), "20260101T000000Z-1", now()), Err(Error::RunNotFound(_))));
}

#[test]
fn an_incomplete_backup_stops_the_whole_undo() {
    let w = populated();
    let report = w.apply(&w.plan(&alpha(), &[w.export.clone()], PlacementMode::Copy), &RealFs);
    let run = report.run_id.unwrap();
    let dir = w.data.join("runs").join(&run);
    fs::remove_file(dir.join("started")).unwrap();
    let before = tree(&w.root);
    assert!(matches!(undo(&target(&w), &run, now()), Err(Error::Refused(_))));
    assert_eq!(tree(&w.root), before);
}

#[test]
fn a_transcript_that_was_there_before_the_run_is_never_removed() {
    // Same bytes as the source, so only the "not present before the run" guard can save it.
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let dest_dir = w.folder_of(ALPHA_WD);
    fs::create_dir_all(&dest_dir).unwrap();
    let dest = dest_dir.join(format!("{}.jsonl", sid(1)));
    fs::copy(&src, &dest).unwrap();
    // A second source is placed, so the run exists; then its journal is edited to claim `dest`.
    let other = w.session(&w.export, &sid(2), "/home/u/scratch", false);
    let report = w.apply(&w.plan(&alpha(), &[other], PlacementMode::Copy), &RealFs);
    let run = report.run_id.unwrap();
    let jp = w.data.join("runs").join(&run).join("run.json");
    let mut j: serde_json::Value = serde_json::from_slice(&fs::read(&jp).unwrap()).unwrap();
    let entries = j["entries"].as_array_mut().unwrap();
    let mut forged = entries.iter().find(|e| e["kind"] == "file").unwrap().clone();
    forged["sessionId"] = serde_json::json!(sid(1));
    forged["path"] = serde_json::json!(dest.display().to_string());
    forged["from"] = serde_json::json!(fs::canonicalize(&src).unwrap().display().to_string());
    entries.push(forged);
    fs::write(&jp, serde_json::to_vec(&j).unwrap()).unwrap();
    let u = undo(&target(&w), &run, now()).unwrap();
    assert!(dest.is_file(), "a file from before the run was removed: {u:?}");
    assert!(u.not_undone.iter().any(|n| n.reason.contains("before the run")), "{u:?}");
}
