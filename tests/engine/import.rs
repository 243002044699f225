//! Import: plan (pure) and apply (journaled), every mode × destination state × dry/real, the
//! race, ownership re-checks, cancel, one bad file. Also hosts the test world other areas use.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use corral_engine::import::{
    self, ApplyOptions, ImportPlan, ImportTarget, SkipReason, apply_with, plan_import,
};
use corral_engine::occupancy::{FixedProcesses, OccupancySnapshot, ProcessInfo};
use corral_engine::placement::{
    PlacedAs, PlacementFs, PlacementMode, RealFs, SimulatedCrossDevice,
};
use corral_engine::{Catalog, CatalogConfig, Error};
use serde_json::json;

pub use crate::world::*;

// ------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DestState {
    Fresh,
    Existing,
    DanglingSymlink,
    CrossDevice,
}

const MODES: [PlacementMode; 3] = [PlacementMode::Copy, PlacementMode::Link, PlacementMode::Move];
const STATES: [DestState; 4] =
    [DestState::Fresh, DestState::Existing, DestState::DanglingSymlink, DestState::CrossDevice];

#[cfg(unix)]
/// Every mode × destination state × {dry run, real}: nothing is ever overwritten, a dry run
/// writes nothing at all, and the placed bytes equal the source.
#[test]
fn every_mode_every_destination_state_dry_and_real() {
    for mode in MODES {
        for state in STATES {
            for dry in [true, false] {
                let w = World::new();
                let id = sid(1);
                let src = w.session(&w.export, &id, "/home/u/scratch", false);
                let original = fs::read(&src).unwrap();
                let dest = w.alpha_folder().join(format!("{id}.jsonl"));
                fs::create_dir_all(w.alpha_folder()).unwrap();
                match state {
                    DestState::Existing => fs::write(&dest, b"someone else's bytes\n").unwrap(),
                    DestState::DanglingSymlink => {
                        std::os::unix::fs::symlink(w.root.join("nowhere"), &dest).unwrap();
                    }
                    _ => {}
                }
                let before_all = tree(&w.root);
                let before_user = w.user_tree();
                let plan = w.plan(&alpha(), std::slice::from_ref(&src), mode);
                let ctx = format!("{mode:?} {state:?} dry={dry}");
                if dry {
                    assert_eq!(tree(&w.root), before_all, "{ctx}: planning wrote something");
                    continue;
                }
                let fs_ops: &dyn PlacementFs =
                    if state == DestState::CrossDevice { &SimulatedCrossDevice } else { &RealFs };
                let report = w.apply(&plan, fs_ops);
                match state {
                    DestState::Existing | DestState::DanglingSymlink => {
                        assert_eq!(
                            reasons(&report.skipped),
                            vec![(id.clone(), SkipReason::DestinationExists)],
                            "{ctx}"
                        );
                        assert!(report.placed.is_empty(), "{ctx}");
                        assert_eq!(
                            report.run_id, None,
                            "{ctx}: a run that places nothing leaves no run"
                        );
                        assert!(!w.data.exists(), "{ctx}: no run, no data dir");
                        assert_eq!(w.user_tree(), before_user, "{ctx}: something changed");
                    }
                    DestState::Fresh | DestState::CrossDevice => {
                        assert_eq!(report.placed.len(), 1, "{ctx}: {:?}", report.skipped);
                        let how = report.placed[0].placed_as.unwrap();
                        let expected = match (mode, state) {
                            (PlacementMode::Copy, _) => PlacedAs::Copied,
                            (PlacementMode::Link, DestState::Fresh) => PlacedAs::HardLinked,
                            (PlacementMode::Link, _) => PlacedAs::Symlinked,
                            (PlacementMode::Move, DestState::Fresh) => PlacedAs::Moved,
                            (PlacementMode::Move, _) => PlacedAs::MovedByCopy,
                        };
                        assert_eq!(how, expected, "{ctx}");
                        assert_eq!(fs::read(&dest).unwrap(), original, "{ctx}");
                        assert_eq!(src.exists(), mode != PlacementMode::Move, "{ctx}");
                        let run = report.run_id.clone().expect("a run id");
                        let backup = w.data.join("runs").join(&run).join("backup");
                        let backups = backup_files(&backup);
                        if mode == PlacementMode::Move {
                            assert_eq!(backups.len(), 1, "{ctx}: a move backs up its source");
                            assert_eq!(backups[0].0, format!("00000/{id}.jsonl"), "{ctx}");
                            assert_eq!(backups[0].1, original, "{ctx}");
                        } else {
                            assert!(backups.is_empty(), "{ctx}: copy/link destroy nothing");
                        }
                        // No temp file is left next to the destination.
                        let names: Vec<String> = fs::read_dir(w.alpha_folder())
                            .unwrap()
                            .flatten()
                            .map(|e| e.file_name().to_string_lossy().into_owned())
                            .collect();
                        assert_eq!(names, vec![format!("{id}.jsonl")], "{ctx}");
                    }
                }
            }
        }
    }
}

#[test]
fn planning_writes_nothing_for_any_kind_of_source() {
    let w = World::new();
    // A whole exported projects/ tree with a bucket, a subagent folder, and junk.
    let bucket = w.export.join("projects").join("-home-u-scratch");
    w.session(&bucket, &sid(1), "/home/u/scratch", false);
    w.session(&bucket.join(sid(1)).join("subagents"), "agent-abc", "/home/u/scratch", true);
    w.session(&bucket, &sid(2), "/home/u/scratch", true);
    fs::write(bucket.join("notes.txt"), "hello").unwrap();
    fs::write(bucket.join(".DS_Store"), "x").unwrap();
    fs::create_dir_all(w.export.join(".git/objects")).unwrap();
    fs::write(w.export.join(".git/objects/ab"), "x").unwrap();
    fs::write(w.export.join(".git/HEAD"), "x").unwrap();
    let single = w.session(&w.root.join("loose"), &sid(3), "/home/u/elsewhere", false);
    let before = tree(&w.root);
    for target in [alpha(), ImportTarget::ClaudeHome] {
        for mode in MODES {
            let plan = w.plan(&target, &[w.export.clone(), single.clone()], mode);
            assert_eq!(plan.placements.len(), 2, "{target:?} {mode:?}: {:?}", plan.skipped);
            let r = reasons(&plan.skipped);
            assert!(r.contains(&(sid(2), SkipReason::Sidechain)), "{r:?}");
            assert!(r.contains(&("notes.txt".into(), SkipReason::NotATranscript)), "{r:?}");
            assert!(r.contains(&(".DS_Store".into(), SkipReason::NotATranscript)), "{r:?}");
            assert!(r.contains(&(".git".into(), SkipReason::NotATranscript)), "{r:?}");
            assert!(!r.iter().any(|(s, _)| s == "HEAD" || s == "ab"), "{r:?}");
            // The subagent folder of a session is part of that session, not a candidate.
            assert!(!r.iter().any(|(s, _)| s.starts_with("agent-")), "{r:?}");
        }
    }
    assert_eq!(tree(&w.root), before, "planning must write nothing at all");
}

#[test]
fn claude_home_target_uses_the_transcripts_own_cwd_and_writes_no_record() {
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/a-b/c", false);
    let plan = w.plan(&ImportTarget::ClaudeHome, &[src], PlacementMode::Copy);
    let report = w.apply(&plan, &RealFs);
    assert_eq!(report.placed.len(), 1, "{:?}", report.skipped);
    let dest = w.folder_of("/home/u/a-b/c").join(format!("{}.jsonl", sid(1)));
    assert_eq!(report.placed[0].to, dest.display().to_string());
    assert!(dest.is_file());
    assert!(report.placed[0].record.is_none());
    assert!(!w.state.join("adopted-sessions").exists());
}

#[test]
fn agent_target_writes_a_record_with_the_source_cwd() {
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let plan = w.plan(&alpha(), &[src], PlacementMode::Copy);
    // The preview names the session by what people call it (here its first prompt).
    assert_eq!(plan.placements[0].name.as_deref(), Some(format!("Prompt of {}", sid(1)).as_str()));
    let report = w.apply(&plan, &RealFs);
    assert_eq!(report.placed.len(), 1, "{:?}", report.skipped);
    let rec = fs::read_to_string(w.state.join("adopted-sessions").join(format!("{}.yaml", sid(1))))
        .unwrap();
    assert!(rec.contains("agentName: alpha"), "{rec}");
    assert!(rec.contains("sourceCwd: /home/u/scratch"), "{rec}");
    assert!(rec.contains("adoptedAt: 2026-11-29T20:00:00.000Z"), "{rec}");
}

#[test]
fn a_source_already_in_the_agent_folder_gets_only_a_record() {
    let w = World::new();
    let src = w.session(&w.alpha_folder(), &sid(1), ALPHA_WD, false);
    let bytes = fs::read(&src).unwrap();
    let plan = w.plan(&alpha(), std::slice::from_ref(&src), PlacementMode::Move);
    assert_eq!(plan.placements.len(), 1, "{:?}", plan.skipped);
    assert!(plan.placements[0].record_only);
    let report = w.apply(&plan, &RealFs);
    assert_eq!(report.placed[0].placed_as, Some(PlacedAs::RecordOnly));
    assert_eq!(fs::read(&src).unwrap(), bytes, "the transcript is not touched");
    assert!(w.state.join("adopted-sessions").join(format!("{}.yaml", sid(1))).is_file());
}

#[test]
fn owned_adopted_and_unreadable_sources_are_skipped_with_reasons() {
    let w = World::new();
    let owned = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let adopted = w.session(&w.export, &sid(2), "/home/u/scratch", false);
    w.job("aaaaaa", "beta", "web", &sid(1));
    w.adoption_record(&sid(2), "beta");
    fs::write(w.export.join("not-a-session.jsonl"), "").unwrap();
    fs::write(
        w.export.join(format!("{}.jsonl", sid(4))),
        "{\"type\":\"summary\",\"summary\":\"x\"}\n",
    )
    .unwrap();
    let missing = w.root.join("missing").join(format!("{}.jsonl", sid(5)));
    let plan = w.plan(&alpha(), &[w.export.clone(), missing], PlacementMode::Copy);
    assert!(plan.placements.is_empty(), "{:?}", plan.placements);
    let by_id: BTreeMap<String, &import::ImportSkip> =
        plan.skipped.iter().map(|s| (s.session_id.clone(), s)).collect();
    let s1 = by_id[&sid(1)];
    assert_eq!(s1.reason, SkipReason::AttributedToRun, "{s1:?}");
    assert_eq!(s1.owned_by.as_deref(), Some("beta"));
    let s2 = by_id[&sid(2)];
    assert_eq!(s2.reason, SkipReason::AlreadyAdopted, "{s2:?}");
    assert_eq!(s2.owned_by.as_deref(), Some("beta"));
    assert_eq!(by_id["not-a-session"].reason, SkipReason::NotATranscript);
    assert_eq!(by_id[&sid(4)].reason, SkipReason::NotATranscript);
    assert_eq!(by_id[&format!("{}.jsonl", sid(5))].reason, SkipReason::Unreadable);
    let _ = (owned, adopted);
}

#[test]
fn move_skips_occupied_sessions_and_copy_only_warns() {
    let w = World::new();
    let held = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let free = w.session(&w.export, &sid(2), "/home/u/other", false);
    let table = FixedProcesses(Ok(vec![ProcessInfo {
        pid: 4242,
        name: "claude".into(),
        cmd: vec!["claude".into(), "--resume".into(), sid(1)],
        cwd: Some("/home/u/scratch".into()),
        exe: None,
        exited: false,
        parent: None,
    }]));
    let occ = OccupancySnapshot::capture(&table);
    let cat = w.catalog();
    let plan =
        plan_import(&cat, &alpha(), &[held.clone(), free.clone()], PlacementMode::Move, &occ)
            .unwrap();
    assert_eq!(reasons(&plan.skipped), vec![(sid(1), SkipReason::Occupied)]);
    assert!(plan.skipped[0].detail.contains("4242"), "{:?}", plan.skipped[0]);
    assert_eq!(plan.placements.len(), 1);
    let plan = plan_import(&cat, &alpha(), &[held, free], PlacementMode::Copy, &occ).unwrap();
    assert_eq!(plan.placements.len(), 2);
    assert!(plan.placements[0].warning.as_deref().unwrap_or("").contains("4242"));
    assert!(plan.placements[1].warning.is_none());
    // Unknown = occupied.
    let unknown = OccupancySnapshot::capture(&FixedProcesses(Err("no /proc".into())));
    let plan =
        plan_import(&cat, &alpha(), &[w.export.clone()], PlacementMode::Move, &unknown).unwrap();
    assert!(plan.placements.is_empty());
    assert!(
        plan.skipped
            .iter()
            .all(|s| s.reason == SkipReason::Occupied && s.detail.contains("no /proc"))
    );
    assert_eq!(plan.occupancy_unknown.as_deref(), Some("no /proc"));
}

#[cfg(unix)]
/// A destination that appears between plan and apply is never overwritten.
#[test]
fn race_destination_appears_between_plan_and_apply() {
    for mode in MODES {
        for dangling in [false, true] {
            let w = World::new();
            let a = w.session(&w.export, &sid(1), "/home/u/scratch", false);
            let b = w.session(&w.export, &sid(2), "/home/u/scratch", false);
            let plan = w.plan(&alpha(), &[a.clone(), b.clone()], mode);
            assert_eq!(plan.placements.len(), 2);
            let dest = w.alpha_folder().join(format!("{}.jsonl", sid(1)));
            fs::create_dir_all(w.alpha_folder()).unwrap();
            if dangling {
                std::os::unix::fs::symlink(w.root.join("nowhere"), &dest).unwrap();
            } else {
                fs::write(&dest, b"appeared meanwhile\n").unwrap();
            }
            let report = w.apply(&plan, &RealFs);
            let ctx = format!("{mode:?} dangling={dangling}");
            assert_eq!(
                reasons(&report.skipped),
                vec![(sid(1), SkipReason::DestinationExists)],
                "{ctx}"
            );
            assert_eq!(report.placed.len(), 1, "{ctx}");
            if dangling {
                assert!(fs::symlink_metadata(&dest).unwrap().file_type().is_symlink(), "{ctx}");
                assert!(!w.root.join("nowhere").exists(), "{ctx}: the symlink was followed");
            } else {
                assert_eq!(fs::read(&dest).unwrap(), b"appeared meanwhile\n", "{ctx}");
            }
            assert!(a.is_file(), "{ctx}: the skipped source must stay");
            // No adoption record for the skipped session.
            assert!(
                !w.state.join("adopted-sessions").join(format!("{}.yaml", sid(1))).exists(),
                "{ctx}"
            );
        }
    }
}

#[test]
fn ownership_is_rechecked_before_apply_writes() {
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let plan = w.plan(&alpha(), std::slice::from_ref(&src), PlacementMode::Copy);
    assert_eq!(plan.placements.len(), 1);
    w.job("bbbbbb", "beta", "schedule", &sid(1));
    let report = w.apply(&plan, &RealFs);
    assert!(report.placed.is_empty());
    assert_eq!(reasons(&report.skipped), vec![(sid(1), SkipReason::AttributedToRun)]);
    assert_eq!(report.skipped[0].owned_by.as_deref(), Some("beta"));
    assert!(!w.alpha_folder().join(format!("{}.jsonl", sid(1))).exists());
}

#[test]
fn an_adoption_record_replaced_by_the_run_is_backed_up() {
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let plan = w.plan(&alpha(), std::slice::from_ref(&src), PlacementMode::Copy);
    // beta adopts it meanwhile; adoption never outranks adoption, so alpha's record replaces it.
    w.adoption_record(&sid(1), "beta");
    let old = fs::read(w.state.join("adopted-sessions").join(format!("{}.yaml", sid(1)))).unwrap();
    let report = w.apply(&plan, &RealFs);
    assert_eq!(report.placed.len(), 1, "{:?}", report.skipped);
    let run = report.run_id.unwrap();
    let backups = backup_files(&w.data.join("runs").join(&run).join("backup"));
    assert_eq!(backups.len(), 1);
    assert_eq!(backups[0], (format!("00000/{}.yaml", sid(1)), old));
}

#[test]
fn one_bad_file_never_aborts_the_run() {
    let w = World::new();
    let a = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let b = w.session(&w.export, &sid(2), "/home/u/scratch", false);
    let c = w.session(&w.export, &sid(3), "/home/u/scratch", false);
    let plan = w.plan(&alpha(), &[a, b.clone(), c], PlacementMode::Move);
    fs::remove_file(&b).unwrap();
    let report = w.apply(&plan, &RealFs);
    assert_eq!(report.placed.len(), 2, "{report:?}");
    assert_eq!(report.skipped.len(), 1);
    assert!(matches!(
        report.skipped[0].reason,
        SkipReason::Unreadable | SkipReason::PlacementFailed
    ));
}

#[test]
fn cancel_between_files_leaves_a_normal_undoable_run() {
    let w = World::new();
    for n in 1..=3 {
        w.session(&w.export, &sid(n), "/home/u/scratch", false);
    }
    let before = w.user_tree();
    let plan = w.plan(&alpha(), &[w.export.clone()], PlacementMode::Move);
    let mut calls = 0;
    let opts = ApplyOptions::default();
    let report = apply_with(&w.catalog(), &plan, now(), &opts, &mut |p| {
        calls += 1;
        assert_eq!(p.total, 3);
        p.done < 1
    })
    .unwrap();
    assert!(report.cancelled);
    assert_eq!(report.placed.len(), 1);
    assert_eq!(calls, 2);
    let run = report.run_id.unwrap();
    let undo =
        corral_engine::runs::undo(&corral_engine::runs::UndoTarget::of(&w.catalog()), &run, now())
            .unwrap();
    assert!(undo.not_undone.is_empty(), "{undo:?}");
    assert_eq!(w.user_tree(), before);
}

#[test]
fn a_backup_root_inside_the_claude_home_or_state_dir_is_refused() {
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    for data in [w.home.join("corral"), w.state.clone(), w.home.clone()] {
        let cat = Catalog::open(CatalogConfig {
            claude_home: w.home.clone(),
            fleet_file: Some(w.fleet_file.clone()),
            state_dir: None,
            data_dir: data.clone(),
        })
        .unwrap();
        let plan = plan_import(
            &cat,
            &alpha(),
            std::slice::from_ref(&src),
            PlacementMode::Copy,
            &OccupancySnapshot::nobody(),
        )
        .unwrap();
        let before = tree(&w.root);
        let err = import::apply(&cat, &plan, now(), &mut |_| true).unwrap_err();
        assert!(matches!(err, Error::Refused(_)), "{data:?}: {err}");
        assert_eq!(tree(&w.root), before, "{data:?}: a refused run writes nothing");
    }
}

#[test]
fn a_plan_from_outside_cannot_place_outside_the_target() {
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let mut plan = w.plan(&alpha(), &[src], PlacementMode::Copy);
    plan.placements[0].to =
        w.root.join("elsewhere").join(format!("{}.jsonl", sid(1))).display().to_string();
    let report = w.apply(&plan, &RealFs);
    assert!(report.placed.is_empty());
    assert_eq!(reasons(&report.skipped), vec![(sid(1), SkipReason::PlacementFailed)]);
    assert!(!w.root.join("elsewhere").exists());
    let mut plan2 = w.plan(&alpha(), &[w.export.clone()], PlacementMode::Copy);
    plan2.placements[0].session_id = "../../etc".into();
    let report = w.apply(&plan2, &RealFs);
    assert!(report.placed.is_empty());
}

#[test]
fn the_plan_and_report_serialize_in_the_documented_shape() {
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    fs::write(w.export.join("readme.md"), "x").unwrap();
    let plan = w.plan(&alpha(), &[w.export.clone()], PlacementMode::Copy);
    let v = serde_json::to_value(&plan).unwrap();
    assert_eq!(v["target"], json!({"kind": "agent", "name": "alpha"}));
    assert_eq!(v["mode"], "copy");
    assert_eq!(v["skipped"][0]["reason"], "not-a-transcript");
    let report = w.apply(&plan, &RealFs);
    let v = serde_json::to_value(&report).unwrap();
    assert!(v["runId"].is_string());
    assert_eq!(v["placed"][0]["sessionId"], sid(1));
    assert_eq!(v["placed"][0]["from"], src.display().to_string());
    assert!(v["placed"][0]["to"].is_string());
    assert!(v["skipped"][0].get("ownedBy").is_some());
    let back: ImportPlan = serde_json::from_value(serde_json::to_value(&plan).unwrap()).unwrap();
    assert_eq!(back, plan);
    let dry = plan.dry_run_report();
    assert_eq!(serde_json::to_value(&dry).unwrap()["runId"], serde_json::Value::Null);
}

/// Real transcripts from the shared corpus: every file is either placed or skipped with a
/// reason, and a move into the Claude home is undone to the identical tree.
#[test]
fn corpus_import_move_and_undo_round_trip() {
    let Some(corpus) = crate::support::corpus() else { return };
    let w = World::new();
    let src = w.export.join("corpus");
    crate::support::copy_tree(&corpus, &src);
    // Files inside a session's own folder (`<sid>/subagents/…`) belong to that session and are
    // not candidates; every other file is placed or skipped with a reason.
    let all = tree(&src);
    let companion = |rel: &str| {
        let p = Path::new(rel);
        p.ancestors().skip(1).any(|a| {
            a.file_name().is_some_and(|n| n == "subagents")
                || all.contains_key(&format!("{}.jsonl", a.display()))
        })
    };
    let files = all.iter().filter(|(rel, n)| matches!(n, Node::File(_)) && !companion(rel)).count();
    let before = w.user_tree();
    let plan = w.plan(&ImportTarget::ClaudeHome, std::slice::from_ref(&src), PlacementMode::Move);
    assert_eq!(plan.placements.len() + plan.skipped.len(), files, "{:?}", plan.skipped);
    assert!(!plan.placements.is_empty(), "{:?}", plan.skipped);
    assert!(plan.skipped.iter().any(|s| s.reason == SkipReason::NotATranscript), "SOURCES.md");
    let report = w.apply(&plan, &RealFs);
    assert_eq!(report.placed.len(), plan.placements.len(), "{:?}", report.skipped);
    let run = report.run_id.unwrap();
    let u =
        corral_engine::runs::undo(&corral_engine::runs::UndoTarget::of(&w.catalog()), &run, now())
            .unwrap();
    assert!(u.not_undone.is_empty(), "{:?}", u.not_undone);
    assert_eq!(w.user_tree(), before);
}

#[test]
fn re_adopting_a_session_already_in_place_leaves_no_run() {
    let w = World::new();
    let src = w.session(&w.alpha_folder(), &sid(1), ALPHA_WD, false);
    let plan = w.plan(&alpha(), std::slice::from_ref(&src), PlacementMode::Copy);
    assert!(plan.placements[0].record_only);
    // alpha adopts it meanwhile: the record the run would write is already there.
    corral_engine::adopt::adopt(&w.catalog(), "alpha", &sid(1), now()).unwrap();
    let before = tree(&w.root);
    let report = w.apply(&plan, &RealFs);
    assert_eq!(report.run_id, None, "{report:?}");
    assert_eq!(tree(&w.root), before);
}

#[test]
fn a_run_whose_only_destination_was_taken_meanwhile_leaves_nothing_behind() {
    for mode in MODES {
        let w = World::new();
        let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
        let plan = w.plan(&alpha(), std::slice::from_ref(&src), mode);
        fs::create_dir_all(w.alpha_folder()).unwrap();
        fs::write(w.alpha_folder().join(format!("{}.jsonl", sid(1))), b"theirs").unwrap();
        let before = tree(&w.root);
        let report = w.apply(&plan, &RealFs);
        assert_eq!(report.run_id, None, "{mode:?}");
        assert_eq!(reasons(&report.skipped), vec![(sid(1), SkipReason::DestinationExists)]);
        assert_eq!(tree(&w.root), before, "{mode:?}: no run folder, no data dir, nothing");
    }
}

#[test]
fn backups_and_herdctl_state_are_only_ever_copied_from() {
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let report = w.apply(&w.plan(&ImportTarget::ClaudeHome, &[src], PlacementMode::Move), &RealFs);
    let backup = w.data.join("runs").join(report.run_id.unwrap()).join("backup");
    let docker = w.session(&w.state.join("docker-sessions"), &sid(2), "/home/u/docker", false);
    for mode in [PlacementMode::Move, PlacementMode::Link] {
        let plan = w.plan(&alpha(), &[backup.clone(), docker.clone()], mode);
        assert!(plan.placements.is_empty(), "{mode:?}: {:?}", plan.placements);
        assert!(
            plan.skipped.iter().all(|s| s.reason == SkipReason::PlacementFailed),
            "{:?}",
            plan.skipped
        );
    }
    let plan = w.plan(&alpha(), &[backup.clone(), docker.clone()], PlacementMode::Copy);
    // sid(1) from the backup (under its own id) and sid(2) from the docker folder.
    let mut ids: Vec<String> = plan.placements.iter().map(|p| p.session_id.clone()).collect();
    ids.sort();
    assert_eq!(ids, vec![sid(1), sid(2)], "{:?}", plan.skipped);
    assert_eq!(reasons(&plan.skipped), vec![]);
}

#[test]
fn a_trailing_slash_on_the_agent_working_directory_changes_nothing() {
    let w = World::new();
    fs::write(
        w.fleet_file.parent().unwrap().join("agents/alpha.yaml"),
        format!("name: alpha\nworking_directory: {ALPHA_WD}/\n"),
    )
    .unwrap();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let plan = w.plan(&alpha(), &[src], PlacementMode::Copy);
    assert_eq!(
        plan.placements[0].to,
        w.alpha_folder().join(format!("{}.jsonl", sid(1))).display().to_string()
    );
}
