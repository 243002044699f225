//! Restoring desktop-app sidebar entries as a run, and undoing it: the whole store is backed up
//! first, the running app blocks every write (checked twice), each entry is journaled before it
//! is written, and undo trusts the store, the target folder and the backup — not the journal.

use std::cell::Cell;
use std::fs;
use std::path::{Path, PathBuf};

use corral_engine::ErrorKind;
use corral_engine::desktop::{
    self, MissingStatus, RestorePlan, RestoreReport, RestoreRequest, RestoreRun, Signals,
};
use corral_engine::occupancy::{FixedProcesses, ProcessInfo, ProcessSource, TableUnreadable};
use corral_engine::runs::{self, UndoAction, UndoTarget};

use crate::desktop::{A, A1, A2, B, B1, Fixture, cli, local};
use crate::support::hash_tree;

fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::Utc::now()
}

fn process(exe: &str) -> ProcessInfo {
    ProcessInfo {
        pid: 4242,
        name: "Claude".into(),
        cmd: vec![exe.into()],
        cwd: None,
        exe: Some(exe.into()),
        exited: false,
        parent: None,
    }
}

pub(crate) fn nobody() -> FixedProcesses {
    FixedProcesses(Ok(vec![process("/usr/bin/bash")]))
}

pub(crate) struct Restore {
    pub(crate) f: Fixture,
    pub(crate) data: PathBuf,
}

impl Restore {
    /// A store whose sidebar A/A2 misses two conversations of A/A1: one new there, one archived
    /// there (replaced without a flag), plus an entry of its own and a conversation only in
    /// another account.
    pub(crate) fn new() -> Self {
        let f = Fixture::new();
        f.entry(A, A1, &local(2), &cli(2), r#","lastActivityAt":1780000000000"#);
        f.entry(A, A1, &local(5), &cli(5), r#","lastActivityAt":1780000000000"#);
        f.entry(A, A2, &local(5), &cli(5), r#","isArchived":true,"lastActivityAt":1770000000000"#);
        f.entry(A, A2, &local(9), &cli(9), "");
        f.entry(B, B1, &local(7), &cli(7), r#","isArchived":true"#);
        let data = f._tmp.path().join("corral-data");
        Self { f, data }
    }

    fn plan(&self, req: &RestoreRequest) -> RestorePlan {
        desktop::plan_restore(&self.f.store(), A, A2, req).unwrap()
    }

    fn run_with(
        &self,
        plan: &RestorePlan,
        processes: &dyn ProcessSource,
    ) -> corral_engine::Result<RestoreReport> {
        let run =
            RestoreRun { data_dir: &self.data, processes, now: now(), clock: chrono::Utc::now };
        desktop::restore(&self.f.root, plan, &run, &mut |_| true)
    }

    pub(crate) fn undo_target(&self) -> UndoTarget {
        UndoTarget {
            claude_home: self.f._tmp.path().join("no-claude-home"),
            state_dir: self.f._tmp.path().join("no-state"),
            data_dir: self.data.clone(),
            desktop_store: Some(self.f.root.clone()),
        }
    }

    fn target(&self, file: &str) -> PathBuf {
        self.f.root.join(A).join(A2).join(file)
    }
}

pub(crate) fn all() -> RestoreRequest {
    RestoreRequest { all: true, ..RestoreRequest::default() }
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_restore_copies_entries_unchanged_and_undo_is_byte_identical() {
    let r = Restore::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(r.target(&local(5)), fs::Permissions::from_mode(0o640)).unwrap();
    }
    let before = hash_tree(&r.f.root);
    let plan = r.plan(&all());
    assert_eq!(plan.items.len(), 2, "{plan:?}");
    // What the app's preview shows: the same plan, and the app closed.
    let preview = desktop::RestorePreview::of(&r.f.store(), (A, A2), &all(), &nobody()).unwrap();
    assert_eq!((preview.plan, preview.app), (plan.clone(), desktop::AppState::Closed));
    let mut seen = Vec::new();
    let run =
        RestoreRun { data_dir: &r.data, processes: &nobody(), now: now(), clock: chrono::Utc::now };
    let report = desktop::restore(&r.f.root, &plan, &run, &mut |p| {
        seen.push((p.done, p.total));
        true
    })
    .unwrap();
    assert_eq!(seen, vec![(0, 2), (1, 2)], "progress before each entry");
    let run_id = report.run_id.clone().expect("a run");
    assert_eq!(report.restored.len(), 2, "{report:?}");
    assert!(report.refused.is_empty(), "{report:?}");
    let replaced: Vec<bool> = report.restored.iter().map(|x| x.replaced).collect();
    assert_eq!(replaced, vec![false, true]);
    // The files are the sources' bytes, unchanged; the replaced one keeps its permissions.
    for n in [2, 5] {
        assert_eq!(
            fs::read(r.target(&local(n))).unwrap(),
            fs::read(r.f.root.join(A).join(A1).join(local(n))).unwrap()
        );
    }
    #[cfg(unix)]
    assert_eq!(mode(&r.target(&local(5))), 0o640);
    // Nothing is missing any more, and the run is in History with the whole store backed up.
    let rep = desktop::report(&r.f.store(), Some((A, A2)), Signals::default());
    assert!(rep.missing.is_empty(), "{:?}", rep.missing);
    let listed = runs::runs(&r.data).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].placed, 2);
    let sidebar = listed[0].sidebar.clone().expect("a sidebar run");
    assert_eq!((sidebar.account.as_str(), sidebar.org.as_str()), (A, A2));
    let backup = PathBuf::from(&listed[0].backup_dir).join("store");
    assert_eq!(hash_tree(&backup), before, "the backup is the whole store as it was");

    // Undo: the preview first, then the real thing, byte for byte; a second undo does nothing.
    let target = r.undo_target();
    let preview = runs::plan_undo(&target, &run_id).unwrap();
    let actions: Vec<UndoAction> = preview.steps.iter().map(|s| s.action).collect();
    assert_eq!(actions, vec![UndoAction::EntryRestored, UndoAction::Removed], "{preview:?}");
    let undone = runs::undo(&target, &run_id, now()).unwrap();
    assert!(undone.not_undone.is_empty(), "{undone:?}");
    assert_eq!(hash_tree(&r.f.root), before);
    #[cfg(unix)]
    assert_eq!(mode(&r.target(&local(5))), 0o640);
    runs::undo(&target, &run_id, now()).unwrap();
    assert_eq!(hash_tree(&r.f.root), before);
    assert_eq!(runs::runs(&r.data).unwrap()[0].undo_state, runs::UndoState::Undone);
}

#[test]
fn the_running_app_blocks_every_write() {
    let r = Restore::new();
    let before = hash_tree(&r.f.root);
    let plan = r.plan(&all());
    for exe in [
        "/Applications/Claude.app/Contents/MacOS/Claude",
        "/Applications/Claude.app/Contents/Frameworks/Claude Helper.app/Contents/MacOS/Claude Helper",
        r"C:\Users\a\AppData\Local\AnthropicClaude\app-0.9.3\claude.exe",
        "/usr/lib/claude-desktop/claude-desktop",
    ] {
        let table = FixedProcesses(Ok(vec![process("/usr/bin/bash"), process(exe)]));
        let e = r.run_with(&plan, &table).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::AppRunning, "{exe}: {e}");
        assert!(e.to_string().contains("quit it first"), "{e}");
    }
    // The CLI's own `claude.app` and the native-messaging host are not the app.
    for exe in [
        "/Users/a/.local/share/claude/versions/2.1.114/claude.app/Contents/MacOS/claude",
        "/Applications/Claude.app/Contents/Helpers/chrome-native-host",
    ] {
        let table = FixedProcesses(Ok(vec![process(exe)]));
        let report = r.run_with(&r.plan(&all()), &table).unwrap();
        let undone = runs::undo(&r.undo_target(), &report.run_id.unwrap(), now()).unwrap();
        assert!(undone.not_undone.is_empty(), "{undone:?}");
    }
    assert_eq!(hash_tree(&r.f.root), before);
    // An unreadable table counts as running.
    let unknown = FixedProcesses(Err(TableUnreadable("no /proc".into())));
    let e = r.run_with(&plan, &unknown).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AppRunning);

    // Started while the store was being backed up: the second look refuses, and the run that
    // only took a backup leaves nothing behind.
    struct StartsLater(Cell<u32>);
    impl ProcessSource for StartsLater {
        fn processes(&self) -> Result<Vec<ProcessInfo>, TableUnreadable> {
            self.0.set(self.0.get() + 1);
            let exe = if self.0.get() == 1 { "/usr/bin/bash" } else { "/opt/Claude/claude" };
            Ok(vec![process(exe)])
        }
    }
    let later = StartsLater(Cell::new(0));
    let runs_before = runs::runs(&r.data).unwrap().len();
    let e = r.run_with(&plan, &later).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AppRunning);
    assert!(e.to_string().contains("started while"), "{e}");
    assert_eq!(later.0.get(), 2, "checked before the backup and before the first copy");
    assert_eq!(runs::runs(&r.data).unwrap().len(), runs_before);
    assert_eq!(hash_tree(&r.f.root), before);
}

#[test]
fn what_changed_since_the_preview_is_refused_and_the_backup_root_must_be_outside() {
    let r = Restore::new();
    let plan = r.plan(&all());
    // Another conversation takes local(2)'s name here after the preview.
    r.f.entry(A, A2, &local(2), &cli(20), "");
    let before = hash_tree(&r.f.root);
    let report = r.run_with(&plan, &nobody()).unwrap();
    assert_eq!(report.restored.len(), 1, "{report:?}");
    assert_eq!(report.refused.len(), 1, "{report:?}");
    assert_eq!(report.refused[0].cli_session_id, cli(2));
    assert!(report.refused[0].reason.starts_with("not restored"), "{report:?}");
    runs::undo(&r.undo_target(), &report.run_id.unwrap(), now()).unwrap();
    assert_eq!(hash_tree(&r.f.root), before);

    // A plan for another store, and a data dir inside the store, are refused before anything.
    let mut other = plan.clone();
    other.store = "/elsewhere".into();
    assert_eq!(r.run_with(&other, &nobody()).unwrap_err().kind(), ErrorKind::InvalidInput);
    let inside = Restore { f: Fixture::new(), data: PathBuf::new() };
    inside.f.entry(A, A1, &local(2), &cli(2), "");
    inside.f.sidebar(A, A2);
    let data = inside.f.root.join("corral");
    let run =
        RestoreRun { data_dir: &data, processes: &nobody(), now: now(), clock: chrono::Utc::now };
    let e =
        desktop::restore(&inside.f.root, &inside.plan(&all()), &run, &mut |_| true).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Refused, "{e}");
    assert!(!data.exists());
}

/// Adds an entry to a run's journal, as a hostile or broken writer might.
fn tamper(run_dir: &Path, entry: serde_json::Value) {
    let path = run_dir.join("run.json");
    let mut j: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    j["entries"].as_array_mut().unwrap().push(entry);
    fs::write(path, serde_json::to_vec(&j).unwrap()).unwrap();
}

fn sidebar_entry(path: &Path, from: &Path) -> serde_json::Value {
    serde_json::json!({
        "kind": "sidebar-entry", "sessionId": cli(1), "path": path, "from": from, "state": "done",
    })
}

#[test]
fn undo_trusts_the_store_the_folder_and_the_backup_not_the_journal() {
    let r = Restore::new();
    let report = r
        .run_with(
            &r.plan(&RestoreRequest { ids: vec![cli(2)], ..RestoreRequest::default() }),
            &nobody(),
        )
        .unwrap();
    let run_id = report.run_id.unwrap();
    let run_dir = PathBuf::from(report.run_dir.unwrap());
    let source = r.f.root.join(A).join(A1).join(local(2));
    // An entry that was there before the run (it is in the backup), one in another sidebar, one
    // not named local_*.json, one reached through a link, and one outside the store.
    let before_run = r.target(&local(9));
    let other_sidebar = r.f.root.join(A).join(A1).join(local(5));
    fs::write(r.target("notes.json"), b"mine").unwrap();
    let linked = r.f.root.join(A).join("a9000000-0000-4000-8000-0000000000a9");
    #[cfg(unix)]
    std::os::unix::fs::symlink(r.f.root.join(A).join(A2), &linked).unwrap();
    let outside = r.f._tmp.path().join(A).join(A2).join(local(9));
    fs::create_dir_all(outside.parent().unwrap()).unwrap();
    fs::write(&outside, b"{}").unwrap();
    for path in [
        before_run.clone(),
        other_sidebar.clone(),
        r.target("notes.json"),
        linked.join(local(2)),
        outside.clone(),
    ] {
        tamper(&run_dir, sidebar_entry(&path, &source));
    }
    // The restored entry changed since (the app wrote to it): kept.
    let restored = r.target(&local(2));
    let kept = fs::read(&restored).unwrap();
    fs::write(&restored, b"{\"cliSessionId\":\"changed by the app\"}").unwrap();
    let protected = hash_tree(&r.f.root);
    let undone = runs::undo(&r.undo_target(), &run_id, now()).unwrap();
    assert!(undone.undone.iter().all(|u| u.action == UndoAction::AlreadyGone), "{undone:?}");
    let reasons: Vec<String> =
        undone.not_undone.iter().map(|n| format!("{}: {}", n.path, n.reason)).collect();
    assert_eq!(reasons.len(), 6, "{reasons:#?}");
    let why = |p: &Path| {
        undone.not_undone.iter().find(|n| Path::new(&n.path) == p).map_or_else(
            || panic!("{} not refused: {reasons:#?}", p.display()),
            |n| n.reason.clone(),
        )
    };
    assert!(why(&before_run).contains("before the run"), "{reasons:#?}");
    assert!(why(&other_sidebar).contains("not in the sidebar the run restored into"));
    assert!(why(&r.target("notes.json")).contains("not a sidebar entry"));
    #[cfg(unix)]
    assert!(why(&linked.join(local(2))).contains("not in the sidebar"), "{reasons:#?}");
    assert!(why(&outside).contains("does not lie in"), "{reasons:#?}");
    assert!(why(&restored).contains("changed since the run"), "{reasons:#?}");
    assert_eq!(hash_tree(&r.f.root), protected);
    assert!(outside.exists());

    // Put back as the run wrote it: undo removes it — but only in the store it is pointed at.
    fs::write(&restored, &kept).unwrap();
    let no_store = UndoTarget { desktop_store: None, ..r.undo_target() };
    let refused = runs::undo(&no_store, &run_id, now()).unwrap();
    assert!(
        refused.not_undone.iter().any(|n| n.reason.contains("not given the desktop app's store"))
    );
    assert!(restored.exists());
    let undone = runs::undo(&r.undo_target(), &run_id, now()).unwrap();
    assert!(undone.undone.iter().any(|u| u.action == UndoAction::Removed), "{undone:?}");
    assert!(!restored.exists());
    assert!(before_run.exists() && other_sidebar.exists() && r.target("notes.json").exists());
    let rep = desktop::report(&r.f.store(), Some((A, A2)), Signals::default());
    assert!(
        rep.missing
            .iter()
            .any(|m| m.cli_session_id == cli(2) && m.status == MissingStatus::Restorable)
    );
}

#[test]
fn an_incomplete_store_backup_stops_the_whole_undo() {
    let r = Restore::new();
    let report = r.run_with(&r.plan(&all()), &nobody()).unwrap();
    let run_dir = PathBuf::from(report.run_dir.unwrap());
    fs::remove_file(run_dir.join("backup").join("store.complete")).unwrap();
    let after_run = hash_tree(&r.f.root);
    let e = runs::undo(&r.undo_target(), &report.run_id.unwrap(), now()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Refused, "{e}");
    assert!(e.to_string().contains("backup incomplete"), "{e}");
    assert_eq!(hash_tree(&r.f.root), after_run, "nothing was touched");
}

/// The class "undo that trusts what it should verify", for sidebar restores as for imports: every
/// backup copy undo relies on — the replaced entry it puts back and the source copy that says
/// what the run wrote — must still hold the bytes whose size and SHA-256 the journal recorded.
/// Before: a tampered backup of a replaced entry was written into the app's sidebar by undo, and
/// the source copy had no checksum at all.
#[test]
fn undo_puts_back_and_removes_only_against_backups_with_their_journaled_checksums() {
    let r = Restore::new();
    let before = hash_tree(&r.f.root);
    let report = r.run_with(&r.plan(&all()), &nobody()).unwrap();
    let (run_id, run_dir) = (report.run_id.unwrap(), PathBuf::from(report.run_dir.unwrap()));
    let store_copy = run_dir.join("backup").join("store");
    let replaced_copy = store_copy.join(A).join(A2).join(local(5));
    let source_copy = store_copy.join(A).join(A1).join(local(2));
    let (replaced_bytes, source_bytes) =
        (fs::read(&replaced_copy).unwrap(), fs::read(&source_copy).unwrap());
    // Same size, other bytes: only the checksum tells.
    let flip = |b: &[u8]| {
        let mut b = b.to_vec();
        let last = b.len() - 2;
        b[last] ^= 0x20;
        b
    };
    fs::write(&replaced_copy, flip(&replaced_bytes)).unwrap();
    fs::write(&source_copy, flip(&source_bytes)).unwrap();
    let after_run = hash_tree(&r.f.root);
    let undone = runs::undo(&r.undo_target(), &run_id, now()).unwrap();
    assert_eq!(hash_tree(&r.f.root), after_run, "nothing tampered reaches the sidebar");
    let reasons: Vec<&str> = undone.not_undone.iter().map(|n| n.reason.as_str()).collect();
    assert_eq!(reasons.len(), 2, "{reasons:#?}");
    assert!(
        reasons.iter().any(|r| r.contains("the backup of the entry it replaced")),
        "{reasons:#?}"
    );
    assert!(reasons.iter().any(|r| r.contains("the backup of its source")), "{reasons:#?}");
    assert!(reasons.iter().all(|r| r.contains("changed since the run")), "{reasons:#?}");
    // With the backups as they were made, undo gives the store back byte for byte.
    fs::write(&replaced_copy, &replaced_bytes).unwrap();
    fs::write(&source_copy, &source_bytes).unwrap();
    let undone = runs::undo(&r.undo_target(), &run_id, now()).unwrap();
    assert!(undone.not_undone.is_empty(), "{undone:?}");
    assert_eq!(hash_tree(&r.f.root), before);
}

/// A linked *account* folder (the org folder inside it real) leads out of the store: refused by
/// the preview, by the restore when it appears after the preview, and by undo — one check
/// (`paths::sidebar_folder`) for all three. Before: only the org folder was checked, so a
/// restore wrote outside the store and undo could not remove it.
#[cfg(unix)]
#[test]
fn a_linked_account_folder_is_no_sidebar_for_restore_or_undo() {
    let r = Restore::new();
    let plan = r.plan(&all());
    // The account folder moved out of the store and linked back in.
    let elsewhere = r.f._tmp.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let moved = elsewhere.join(A);
    fs::rename(r.f.root.join(A), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, r.f.root.join(A)).unwrap();
    let outside_before = hash_tree(&elsewhere);
    let e = desktop::plan_restore(&r.f.store(), A, A2, &all()).unwrap_err();
    assert!(e.to_string().contains("is a link"), "{e}");
    let e = r.run_with(&plan, &nobody()).unwrap_err();
    assert!(e.to_string().contains("is a link"), "{e}");
    assert_eq!(hash_tree(&elsewhere), outside_before, "nothing written outside the store");
    assert!(runs::runs(&r.data).unwrap().is_empty());

    // A run made while the folder was real, then linked: undo touches nothing through the link.
    fs::remove_file(r.f.root.join(A)).unwrap();
    fs::rename(&moved, r.f.root.join(A)).unwrap();
    let report = r.run_with(&plan, &nobody()).unwrap();
    fs::rename(r.f.root.join(A), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, r.f.root.join(A)).unwrap();
    let outside_after_run = hash_tree(&elsewhere);
    let undone = runs::undo(&r.undo_target(), &report.run_id.unwrap(), now()).unwrap();
    assert!(undone.not_undone.iter().all(|n| n.reason.contains("is a link")), "{undone:?}");
    assert_eq!(undone.not_undone.len(), 2, "{undone:?}");
    assert_eq!(hash_tree(&elsewhere), outside_after_run);
}

/// Disk space the files under `dir` take (blocks, not lengths: a sparse copy counts as small).
#[cfg(unix)]
fn disk_bytes(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0;
    for e in fs::read_dir(dir).unwrap().flatten() {
        let m = fs::symlink_metadata(e.path()).unwrap();
        total += if m.is_dir() { disk_bytes(&e.path()) } else { m.blocks() * 512 };
    }
    total
}

/// The whole-store backup is bounded and says what it takes: files too large to be the app's
/// (sparse or not) are left out and listed in the preview, and a store whose backup would pass
/// the total cap is refused before a run folder or an entry is written.
#[test]
#[cfg(unix)]
fn the_store_backup_is_bounded_and_the_preview_says_what_it_takes() {
    let r = Restore::new();
    // Twelve sparse files of 60 MB beside the sidebars (each would be copied dense).
    let junk = r.f.root.join(A).join("cache");
    fs::create_dir_all(&junk).unwrap();
    for i in 0..12 {
        fs::File::create(junk.join(format!("blob-{i}"))).unwrap().set_len(60 << 20).unwrap();
    }
    let plan = r.plan(&all());
    let b = &plan.backup;
    assert_eq!(b.left_out.len(), 12, "{b:?}");
    assert!(b.left_out.iter().all(|l| l.bytes == 60 << 20 && l.path.contains("blob-")), "{b:?}");
    assert_eq!(b.files, 5, "the five entries and nothing else: {b:?}");
    assert!(!b.too_large && b.bytes < 4096, "{b:?}");
    let json = serde_json::to_value(&plan).unwrap();
    assert_eq!(json["backup"]["leftOut"].as_array().map(Vec::len), Some(12), "{json}");
    let report = r.run_with(&plan, &nobody()).unwrap();
    assert_eq!(report.restored.len(), 2, "{report:?}");
    let run_dir = PathBuf::from(report.run_dir.unwrap());
    assert!(disk_bytes(&run_dir) < 1 << 20, "{} bytes", disk_bytes(&run_dir));

    // Files of an allowed size, too many of them: refused whole, before anything is written.
    let r = Restore::new();
    let big = r.f.root.join(B).join("big");
    fs::create_dir_all(&big).unwrap();
    for i in 0..17 {
        fs::File::create(big.join(format!("part-{i}"))).unwrap().set_len(16 << 20).unwrap();
    }
    let before = hash_tree(&r.f.root);
    let plan = r.plan(&all());
    assert!(plan.backup.too_large && plan.backup.left_out.is_empty(), "{:?}", plan.backup);
    assert!(plan.backup.bytes > 256 << 20);
    let err = r.run_with(&plan, &nobody()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused, "{err}");
    assert!(err.to_string().contains("at most 256 MB"), "{err}");
    assert_eq!(hash_tree(&r.f.root), before, "nothing written");
    assert!(!r.data.join("runs").exists() || runs::runs(&r.data).unwrap().is_empty());
}
