//! A session's own folder (`<sid>/subagents/…`, tool results) travels with its transcript in
//! every placement mode, journaled and undone like the transcript itself.

use std::fs;
use std::path::{Path, PathBuf};

use corral_engine::placement::{PlacementFs, PlacementMode, RealFs, SimulatedCrossDevice};
use corral_engine::runs::{UndoTarget, undo};
use serde_json::json;

use crate::import::{ALPHA_WD, World, alpha, now, sid, tree};

const AGENT: &str = "a36efb2a1231c41e2";

/// The companion files of session `n` under `<dir>/<sid>/`, with their bytes.
fn companions(n: u32) -> Vec<(&'static str, Vec<u8>)> {
    let id = sid(n);
    let sub = json!({"parentUuid": null, "isSidechain": true, "userType": "external",
        "cwd": "/home/u/scratch", "sessionId": id, "version": "2.1.114", "agentId": AGENT,
        "type": "user", "message": {"role": "user", "content": "Find the flaky test"},
        "uuid": "s1", "timestamp": "2026-11-20T10:01:00.000Z"});
    vec![
        ("subagents/agent-a36efb2a1231c41e2.jsonl", format!("{sub}\n").into_bytes()),
        (
            "subagents/agent-a36efb2a1231c41e2.meta.json",
            br#"{"agentType":"Explore","description":"Find the flaky test"}"#.to_vec(),
        ),
        ("tool-results/toolu_01.txt", b"a long tool result\n".to_vec()),
    ]
}

/// A session with its own folder in `dir`; returns the transcript.
fn session_with_folder(w: &World, dir: &Path, n: u32) -> PathBuf {
    let t = w.session(dir, &sid(n), "/home/u/scratch", false);
    for (rel, bytes) in companions(n) {
        let p = dir.join(sid(n)).join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }
    t
}

fn target(w: &World) -> UndoTarget {
    UndoTarget::of(&w.catalog())
}

#[test]
fn a_sessions_folder_travels_with_it_in_every_mode_and_undo_restores_the_tree() {
    let cross: [&dyn PlacementFs; 2] = [&RealFs, &SimulatedCrossDevice];
    for mode in [PlacementMode::Copy, PlacementMode::Link, PlacementMode::Move] {
        for (ci, fs_ops) in cross.iter().enumerate() {
            let ctx = format!("{mode:?} cross={ci}");
            let w = World::new();
            let src = session_with_folder(&w, &w.export, 1);
            let before = w.user_tree();
            let plan = w.plan(&alpha(), &[w.export.clone()], mode);
            assert_eq!(plan.placements.len(), 1, "{ctx}: {:?}", plan.skipped);
            // The folder is not offered as sessions of its own (no sidechain skip rows).
            assert!(plan.skipped.is_empty(), "{ctx}: {:?}", plan.skipped);
            assert_eq!(
                plan.placements[0].companions,
                vec![
                    "subagents/agent-a36efb2a1231c41e2.jsonl",
                    "subagents/agent-a36efb2a1231c41e2.meta.json",
                    "tool-results/toolu_01.txt",
                ],
                "{ctx}"
            );
            let report = w.apply(&plan, *fs_ops);
            assert_eq!(report.placed.len(), 1, "{ctx}: {:?}", report.skipped);
            assert_eq!(report.placed[0].companions, 3, "{ctx}: {:?}", report.placed[0].warning);
            assert_eq!(report.placed[0].warning, None, "{ctx}");
            let dest = w.alpha_folder().join(sid(1));
            for (rel, bytes) in companions(1) {
                assert_eq!(fs::read(dest.join(rel)).unwrap(), bytes, "{ctx}: {rel}");
                let left = src.parent().unwrap().join(sid(1)).join(rel);
                assert_eq!(left.exists(), mode != PlacementMode::Move, "{ctx}: source {rel}");
            }
            if mode == PlacementMode::Move {
                // Each moved file has a backup.
                let backups = tree(&w.data.join("runs"));
                for (rel, _) in companions(1) {
                    assert!(
                        backups.keys().any(|k| k.ends_with(&format!("{}/{rel}", sid(1)))),
                        "{ctx}: no backup of {rel} in {:?}",
                        backups.keys().collect::<Vec<_>>()
                    );
                }
            }
            // The viewer finds the subagent run at the new place.
            let details = w.catalog().session_details(&sid(1)).unwrap();
            assert_eq!(details.subagents.len(), 1, "{ctx}");
            assert!(details.subagents[0].transcript_path.starts_with(&dest.display().to_string()));

            let run = report.run_id.unwrap();
            let u = undo(&target(&w), &run, now()).unwrap();
            assert!(u.not_undone.is_empty(), "{ctx}: {:?}", u.not_undone);
            assert_eq!(w.user_tree(), before, "{ctx}: undo did not restore the tree");
        }
    }
}

#[test]
fn a_file_already_at_the_destination_is_kept_and_reported() {
    let w = World::new();
    session_with_folder(&w, &w.export, 2);
    let theirs = w.alpha_folder().join(sid(2)).join("subagents/agent-a36efb2a1231c41e2.jsonl");
    fs::create_dir_all(theirs.parent().unwrap()).unwrap();
    fs::write(&theirs, b"someone else's bytes\n").unwrap();
    let before = w.user_tree();
    let report = w.apply(&w.plan(&alpha(), &[w.export.clone()], PlacementMode::Copy), &RealFs);
    assert_eq!(report.placed.len(), 1, "{:?}", report.skipped);
    assert_eq!(report.placed[0].companions, 2);
    let warning = report.placed[0].warning.clone().unwrap();
    assert!(warning.contains("1 of 3 files") && warning.contains("already at the destination"));
    assert_eq!(fs::read(&theirs).unwrap(), b"someone else's bytes\n");
    let u = undo(&target(&w), &report.run_id.unwrap(), now()).unwrap();
    assert!(u.not_undone.is_empty(), "{:?}", u.not_undone);
    assert_eq!(w.user_tree(), before, "undo touched the file that was there before");
}

#[test]
fn a_plan_naming_paths_outside_the_sessions_folder_writes_nothing_there() {
    let w = World::new();
    session_with_folder(&w, &w.export, 3);
    fs::write(w.export.join("secret.txt"), b"not to be copied").unwrap();
    let mut plan =
        w.plan(&alpha(), &[w.export.join(format!("{}.jsonl", sid(3)))], PlacementMode::Move);
    plan.placements[0].companions = vec![
        "../secret.txt".into(),
        "subagents/../../secret.txt".into(),
        "/etc/passwd".into(),
        "".into(),
        "subagents\\..\\..\\secret.txt".into(),
    ];
    let report = w.apply(&plan, &RealFs);
    assert_eq!(report.placed.len(), 1, "{:?}", report.skipped);
    assert_eq!(report.placed[0].companions, 0);
    assert!(report.placed[0].warning.as_deref().unwrap().contains("5 of 5 files"));
    // Nothing left the export folder, and nothing but the transcript arrived.
    assert_eq!(fs::read(w.export.join("secret.txt")).unwrap(), b"not to be copied");
    let arrived: Vec<String> = tree(&w.alpha_folder()).into_keys().collect();
    assert_eq!(arrived, vec![format!("{}.jsonl", sid(3))]);
    assert!(!w.root.join("secret.txt").exists());
}

#[test]
fn undo_does_not_trust_a_companion_entry_pointing_elsewhere() {
    let w = World::new();
    session_with_folder(&w, &w.export, 4);
    let report = w.apply(&w.plan(&alpha(), &[w.export.clone()], PlacementMode::Copy), &RealFs);
    let run = report.run_id.unwrap();
    let journal = w.data.join("runs").join(&run).join("run.json");
    let mut j: serde_json::Value = serde_json::from_slice(&fs::read(&journal).unwrap()).unwrap();
    // A file outside any session folder, with identical bytes so only the path guard can save it.
    let outside = w.home.join("projects").join("precious.json");
    let (rel, bytes) = &companions(4)[1];
    fs::write(&outside, bytes).unwrap();
    let escape = w.alpha_folder().join(sid(4)).join("..").join("..").join("precious.json");
    let entries = j["entries"].as_array_mut().unwrap();
    let idx = entries
        .iter()
        .position(|e| e["kind"] == "companion" && e["path"].as_str().unwrap().ends_with(rel))
        .unwrap();
    entries[idx]["path"] = json!(escape.display().to_string());
    fs::write(&journal, serde_json::to_vec(&j).unwrap()).unwrap();
    let u = undo(&target(&w), &run, now()).unwrap();
    assert_eq!(
        fs::read(&outside).unwrap(),
        *bytes,
        "undo removed a file outside the session folder"
    );
    assert_eq!(u.not_undone.len(), 1, "{u:?}");
    let _ = ALPHA_WD;
}

/// A projects folder that is a symbolic link to a folder elsewhere: one rule for plan, listing
/// and undo — Corral places nothing through it (the preview says why) and does not list it (the
/// listing warns), so undo never meets a file it cannot account for.
#[cfg(unix)]
#[test]
fn a_linked_projects_folder_is_refused_by_the_plan_and_named_by_the_listing() {
    let w = World::new();
    session_with_folder(&w, &w.export, 5);
    let elsewhere = w.root.join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::create_dir_all(w.alpha_folder().parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&elsewhere, w.alpha_folder()).unwrap();
    for mode in [PlacementMode::Copy, PlacementMode::Move, PlacementMode::Link] {
        let plan = w.plan(&alpha(), &[w.export.clone()], mode);
        assert!(plan.placements.is_empty(), "{mode:?}: {:?}", plan.placements);
        assert_eq!(plan.skipped.len(), 1, "{:?}", plan.skipped);
        assert!(plan.skipped[0].detail.contains("symbolic link"), "{:?}", plan.skipped[0]);
        let report = w.apply(&plan, &RealFs);
        assert!(report.placed.is_empty() && report.run_id.is_none(), "{report:?}");
    }
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0, "nothing went through the link");
    let listing = w.catalog().all_sessions(Default::default()).unwrap();
    assert!(
        listing.warnings.iter().any(|x| x.message.contains("symbolic link to a folder")),
        "{:?}",
        listing.warnings
    );
}
