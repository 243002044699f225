//! Adoption: the adoptable list, adopt (record only, idempotent, refused when outranked),
//! release, round trips that leave transcripts untouched, and interop with herdctl's schema.

use std::fs;
use std::time::{Duration, SystemTime};

use corral_engine::adopt::{adopt, adoptable, release};
use corral_engine::attribution::{AttributionIndex, JobCache};
use corral_engine::model::Origin;
use corral_engine::placement::{PlacementMode, RealFs};
use corral_engine::runs::{self, UndoAction, UndoState};
use corral_engine::{Error, ListOptions};

use crate::import::{ALPHA_WD, World, alpha, now, sid, tree};

fn set_mtime(p: &std::path::Path, secs: u64) {
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
    fs::File::options().write(true).open(p).unwrap().set_modified(t).unwrap();
}

/// alpha's folder: 1 (older) and 2 (newer) unattributed, 3 sidechain, 4 alpha's job, 5 adopted
/// by beta, 6 empty. `/home/u/scratch`: 7 unattributed.
fn world() -> World {
    let w = World::new();
    let af = w.alpha_folder();
    set_mtime(&w.session(&af, &sid(1), ALPHA_WD, false), 1_700_000_000);
    set_mtime(&w.session(&af, &sid(2), ALPHA_WD, false), 1_700_000_500);
    w.session(&af, &sid(3), ALPHA_WD, true);
    w.session(&af, &sid(4), ALPHA_WD, false);
    w.job("aaaaaa", "alpha", "schedule", &sid(4));
    w.session(&af, &sid(5), ALPHA_WD, false);
    w.adoption_record(&sid(5), "beta");
    fs::write(af.join(format!("{}.jsonl", sid(6))), "").unwrap();
    set_mtime(
        &w.session(&w.folder_of("/home/u/scratch"), &sid(7), "/home/u/scratch", false),
        1_700_000_900,
    );
    w
}

fn ids(v: &[corral_engine::adopt::AdoptableSession]) -> Vec<String> {
    v.iter().map(|s| s.session_id.clone()).collect()
}

#[test]
fn adoptable_lists_unattributed_sessions_newest_first() {
    let w = world();
    let before = tree(&w.root);
    let cat = w.catalog();
    let list = adoptable(&cat, "alpha", None, false).unwrap();
    assert_eq!(ids(&list), vec![sid(2), sid(1)]);
    let s = &list[0];
    assert_eq!(s.source_cwd.as_deref(), Some(ALPHA_WD));
    assert_eq!(s.preview.as_deref(), Some(format!("Prompt of {}", sid(2)).as_str()));
    assert_eq!(s.auto_name.as_deref(), Some(format!("Prompt of {}", sid(2)).as_str()));
    assert_eq!(s.size_bytes, fs::metadata(&s.transcript_path).unwrap().len());
    assert_eq!(s.mtime, "2023-11-14T22:21:40.000Z");
    let all = adoptable(&cat, "alpha", None, true).unwrap();
    assert_eq!(ids(&all), vec![sid(7), sid(2), sid(1)]);
    let from =
        adoptable(&cat, "alpha", Some(std::path::Path::new("/home/u/scratch")), false).unwrap();
    assert_eq!(ids(&from), vec![sid(7)]);
    // A projects folder may be named directly too.
    let direct = adoptable(&cat, "beta", Some(&w.folder_of("/home/u/scratch")), false).unwrap();
    assert_eq!(ids(&direct), vec![sid(7)]);
    assert!(matches!(adoptable(&cat, "nobody", None, false), Err(Error::UnknownAgent(_))));
    assert_eq!(tree(&w.root), before, "listing adoptable sessions writes nothing");
}

#[test]
fn adopt_writes_a_herdctl_record_and_is_idempotent() {
    let w = world();
    let cat = w.catalog();
    let r = adopt(&cat, "alpha", &sid(1), now()).unwrap();
    assert!(!r.already_adopted);
    let path = w.state.join("adopted-sessions").join(format!("{}.yaml", sid(1)));
    assert_eq!(r.record_path, path.display().to_string());
    let bytes = fs::read(&path).unwrap();
    let again = adopt(&cat, "alpha", &sid(1), now() + chrono::Duration::hours(1)).unwrap();
    assert!(again.already_adopted);
    assert_eq!(again.adopted_at, r.adopted_at);
    assert_eq!(fs::read(&path).unwrap(), bytes, "an idempotent adopt rewrites nothing");
    // It now belongs to alpha and is no longer offered.
    assert_eq!(ids(&adoptable(&cat, "alpha", None, false).unwrap()), vec![sid(2)]);
}

#[test]
fn adopt_is_refused_when_a_job_outranks_it_and_names_the_owner() {
    let w = world();
    let cat = w.catalog();
    let err = adopt(&cat, "beta", &sid(4), now()).unwrap_err();
    match &err {
        Error::AdoptionRefused { owner, origin, .. } => {
            assert_eq!(owner, "alpha");
            assert_eq!(*origin, Origin::Schedule);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(err.to_string().contains("alpha"), "{err}");
    assert!(!w.state.join("adopted-sessions").join(format!("{}.yaml", sid(4))).exists());
    // Another agent's mere adoption does not outrank: alpha takes 5 over from beta.
    let r = adopt(&cat, "alpha", &sid(5), now()).unwrap();
    assert_eq!(r.previous_owner.as_deref(), Some("beta"));
}

#[test]
fn hostile_ids_are_rejected_before_any_io() {
    let w = World::new();
    let cat = w.catalog();
    for bad in ["../../etc/passwd", "a/b", "", "x.yaml", "..", "a b"] {
        assert!(
            matches!(adopt(&cat, "alpha", bad, now()), Err(Error::InvalidSessionId(_))),
            "{bad:?}"
        );
        assert!(
            matches!(release(&cat, "alpha", bad, now()), Err(Error::InvalidSessionId(_))),
            "{bad:?}"
        );
    }
    assert!(!w.state.join("adopted-sessions").exists(), "the store folder must not be created");
    assert!(matches!(adopt(&cat, "alpha", &sid(99), now()), Err(Error::SessionNotFound(_))));
    assert!(matches!(adopt(&cat, "nobody", &sid(1), now()), Err(Error::UnknownAgent(_))));
}

#[test]
fn release_removes_only_this_agents_record_and_keeps_the_transcript() {
    let w = world();
    let cat = w.catalog();
    adopt(&cat, "alpha", &sid(1), now()).unwrap();
    let transcripts = tree(&w.home);
    let by_beta = release(&cat, "beta", &sid(1), now()).unwrap();
    assert!(!by_beta.released && by_beta.run_id.is_none(), "{by_beta:?}");
    assert!(w.state.join("adopted-sessions").join(format!("{}.yaml", sid(1))).exists());
    assert!(release(&cat, "alpha", &sid(1), now()).unwrap().released);
    assert!(!w.state.join("adopted-sessions").join(format!("{}.yaml", sid(1))).exists());
    let again = release(&cat, "alpha", &sid(1), now()).unwrap();
    assert!(!again.released && again.run_id.is_none(), "nothing to release leaves no run");
    assert_eq!(runs::runs(&w.data).unwrap().len(), 1, "one release, one run");
    assert_eq!(tree(&w.home), transcripts);
}

/// A release is a run: the record is copied into its backup first (same bytes, same mode),
/// History lists it with the adoption it ended, and its undo puts the very record back.
#[test]
fn a_release_is_journaled_and_its_undo_puts_the_record_back() {
    let w = world();
    let cat = w.catalog();
    let record = w.state.join("adopted-sessions").join(format!("{}.yaml", sid(5)));
    let original = fs::read(&record).unwrap();
    #[cfg(unix)]
    fs::set_permissions(&record, std::os::unix::fs::PermissionsExt::from_mode(0o640)).unwrap();
    let done = release(&cat, "beta", &sid(5), now()).unwrap();
    let run = done.run_id.clone().unwrap();
    assert!(done.released && !record.exists(), "{done:?}");
    let backup = w.data.join("runs").join(&run).join("backup");
    assert_eq!(
        crate::import::backup_files(&backup).into_iter().map(|(_, b)| b).collect::<Vec<_>>(),
        vec![original.clone()]
    );
    let listed = runs::runs(&w.data).unwrap();
    let r = listed.iter().find(|r| r.run_id == run).unwrap();
    let ended = r.release.as_ref().unwrap();
    assert_eq!((ended.session_id.as_str(), ended.agent_name.as_str()), (sid(5).as_str(), "beta"));
    assert_eq!(ended.adopted_at, "2026-11-01T10:00:00.000Z");
    assert_eq!(ended.name, Some(format!("Prompt of {}", sid(5))), "the name it was shown by");
    assert!(r.finished && r.undo_state == UndoState::NotUndone, "{r:?}");
    let plan = runs::plan_undo_in(&cat, None, &run).unwrap();
    assert_eq!(
        plan.steps.iter().map(|s| s.action).collect::<Vec<_>>(),
        vec![UndoAction::RecordPutBack]
    );
    assert!(!record.exists(), "planning changes nothing");
    let undone = runs::undo_in(&cat, None, &run, now()).unwrap();
    assert!(undone.not_undone.is_empty(), "{undone:?}");
    assert_eq!(fs::read(&record).unwrap(), original, "the very record is back");
    #[cfg(unix)]
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&fs::metadata(&record).unwrap().permissions())
            & 0o777,
        0o640,
        "with its permissions"
    );
    let owner = cat.session(&sid(5)).unwrap();
    assert_eq!(owner.agent_name.as_deref(), Some("beta"));
    assert_eq!(owner.origin, Origin::Adopted);
    // Undone is undone: a second undo touches nothing.
    assert!(runs::undo_in(&cat, None, &run, now()).unwrap().undone.is_empty());
}

/// Undoing a release never replaces an adoption made since: the later record stays, and the
/// undo says why.
#[test]
fn undoing_a_release_keeps_a_later_adoption() {
    let w = world();
    let cat = w.catalog();
    let run = release(&cat, "beta", &sid(5), now()).unwrap().run_id.unwrap();
    adopt(&cat, "alpha", &sid(5), now()).unwrap();
    let record = w.state.join("adopted-sessions").join(format!("{}.yaml", sid(5)));
    let later = fs::read(&record).unwrap();
    let report = runs::undo_in(&cat, None, &run, now()).unwrap();
    assert!(report.undone.is_empty(), "{report:?}");
    assert_eq!(report.not_undone.len(), 1, "{report:?}");
    assert!(report.not_undone[0].reason.contains("alpha's"), "{}", report.not_undone[0].reason);
    assert_eq!(fs::read(&record).unwrap(), later);
    let listed = runs::runs(&w.data).unwrap();
    assert_eq!(listed[0].undo_state, UndoState::PartlyUndone);
}

/// The run that adopted a session reads as released once a release removed its record, and as
/// adopted again once that release is undone.
#[test]
fn an_adoption_run_reads_released_after_its_release_and_not_after_the_undo() {
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let report = w.apply(&w.plan(&alpha(), &[src], PlacementMode::Copy), &RealFs);
    let import_run = report.run_id.unwrap();
    let cat = w.catalog();
    let released = |id: &str| {
        runs::runs(&w.data).unwrap().into_iter().find(|r| r.run_id == id).unwrap().released
    };
    assert_eq!(released(&import_run), 0);
    let release_run = release(&cat, "alpha", &sid(1), now()).unwrap().run_id.unwrap();
    assert_eq!(released(&import_run), 1);
    assert_eq!(released(&release_run), 0);
    runs::undo_in(&cat, None, &release_run, now()).unwrap();
    assert_eq!(released(&import_run), 0, "the release was undone");
}

/// A later adoption is another record: its release does not make an earlier run read released.
#[test]
fn releasing_a_later_adoption_leaves_the_earlier_run_as_it_reads() {
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let import_run = w.apply(&w.plan(&alpha(), &[src], PlacementMode::Copy), &RealFs).run_id;
    let cat = w.catalog();
    let first = release(&cat, "alpha", &sid(1), now()).unwrap().run_id.unwrap();
    runs::undo_in(&cat, None, &first, now()).unwrap();
    fs::remove_file(w.state.join("adopted-sessions").join(format!("{}.yaml", sid(1)))).unwrap();
    adopt(&cat, "alpha", &sid(1), now() + chrono::Duration::hours(1)).unwrap();
    release(&cat, "alpha", &sid(1), now()).unwrap();
    let listed = runs::runs(&w.data).unwrap();
    let import = listed.iter().find(|r| Some(&r.run_id) == import_run.as_ref()).unwrap();
    assert_eq!(import.released, 0, "{import:?}");
}

/// A record that is not a plain file (a link someone made) is not removed.
#[cfg(unix)]
#[test]
fn a_linked_record_is_not_released() {
    let w = world();
    let cat = w.catalog();
    let store = w.state.join("adopted-sessions");
    let real = w.root.join("elsewhere.yaml");
    fs::rename(store.join(format!("{}.yaml", sid(5))), &real).unwrap();
    std::os::unix::fs::symlink(&real, store.join(format!("{}.yaml", sid(5)))).unwrap();
    assert!(matches!(release(&cat, "beta", &sid(5), now()), Err(Error::Refused(_))));
    assert!(real.is_file() && store.join(format!("{}.yaml", sid(5))).is_symlink());
    assert!(runs::runs(&w.data).unwrap().is_empty(), "a refused release leaves no run");
}

#[test]
fn import_adopt_release_leaves_every_transcript_untouched() {
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let export_before = tree(&w.export);
    let report = w.apply(&w.plan(&alpha(), &[src], PlacementMode::Copy), &RealFs);
    assert_eq!(report.placed.len(), 1);
    let home_after_import = tree(&w.home);
    let cat = w.catalog();
    let again = adopt(&cat, "alpha", &sid(1), now()).unwrap();
    assert!(again.already_adopted, "the import adopted it already");
    assert!(release(&cat, "alpha", &sid(1), now()).unwrap().released);
    // Release → unattributed again → adoptable again; adopt once more, release again.
    assert_eq!(ids(&adoptable(&cat, "alpha", None, false).unwrap()), vec![sid(1)]);
    adopt(&cat, "alpha", &sid(1), now()).unwrap();
    assert!(release(&cat, "alpha", &sid(1), now()).unwrap().released);
    assert_eq!(tree(&w.home), home_after_import);
    assert_eq!(tree(&w.export), export_before);
}

#[test]
fn records_follow_herdctls_schema_and_attribution_reads_them_as_adopted() {
    let w = world();
    let cat = w.catalog();
    adopt(&cat, "alpha", &sid(7), now()).unwrap();
    let src = w.session(&w.export, &sid(8), "/home/u/elsewhere", false);
    w.apply(&w.plan(&alpha(), &[src], PlacementMode::Move), &RealFs);
    for id in [sid(7), sid(8)] {
        let text = fs::read_to_string(w.state.join("adopted-sessions").join(format!("{id}.yaml")))
            .unwrap();
        // herdctl's AdoptedSessionSchema: version literal 1, sessionId/agentName non-empty
        // strings, adoptedAt an ISO datetime (zod .datetime(): UTC with Z), optional sourceCwd.
        let v: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
        let obj = v.as_object().unwrap();
        let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        for k in &keys {
            assert!(
                ["version", "sessionId", "agentName", "adoptedAt", "sourceCwd"].contains(k),
                "{k}"
            );
        }
        assert_eq!(v["version"], 1, "{text}");
        assert_eq!(v["sessionId"], id.as_str());
        assert_eq!(v["agentName"], "alpha");
        let at = v["adoptedAt"].as_str().unwrap();
        assert!(chrono::DateTime::parse_from_rfc3339(at).is_ok(), "{at}");
        assert!(at.ends_with('Z') && at.len() == "2026-11-29T20:00:00.000Z".len(), "{at}");
        assert!(v["sourceCwd"].is_string(), "{text}");
        let (index, _) = AttributionIndex::build(&w.state, &mut JobCache::default());
        let a = index.get(&id);
        assert_eq!(a.origin, Origin::Adopted);
        assert_eq!(a.agent_name.as_deref(), Some("alpha"));
    }
    let mine: Vec<String> = cat
        .agent_sessions("alpha", ListOptions::default())
        .unwrap()
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert!(mine.contains(&sid(8)), "{mine:?}");
    assert!(mine.contains(&sid(7)), "{mine:?}");
}
