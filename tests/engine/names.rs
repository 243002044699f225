//! herdctl interop of custom names (see the engine's `names` module): a name written by herdctl
//! under any key it uses shows in Corral, and a name Corral writes lands, byte for byte, where
//! both herdctl views (the agent's own list and All Chats) read it.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use corral_engine::Catalog;
use corral_engine::renames;

use crate::import::{ALPHA_WD, BETA_WD, World, sid};

/// A metadata file exactly as herdctl writes it: `JSON.stringify(data, null, 2) + "\n"`.
fn herdctl_file(agent: &str, names: &[(&str, &str)]) -> String {
    let mut out =
        format!("{{\n  \"version\": 1,\n  \"agentName\": \"{agent}\",\n  \"sessions\": {{");
    for (i, (id, name)) in names.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        out.push_str(&format!("    \"{id}\": {{\n      \"customName\": \"{name}\"\n    }}"));
    }
    out.push_str(if names.is_empty() { "}\n}\n" } else { "\n  }\n}\n" });
    out
}

fn metadata(w: &World, key: &str) -> PathBuf {
    w.state.join("session-metadata").join(format!("{key}.json"))
}

fn write_metadata(w: &World, key: &str, names: &[(&str, &str)]) {
    let p = metadata(w, key);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, herdctl_file(key, names)).unwrap();
}

fn read(p: &Path) -> Option<String> {
    fs::read_to_string(p).ok()
}

fn name_in(c: &Catalog, id: &str) -> Option<String> {
    c.session(id).unwrap().custom_name
}

/// Four sessions: unattributed in alpha's folder (1), adopted by alpha in its folder (2),
/// unattributed elsewhere (3), adopted by alpha outside its folder (4), adopted by alpha in
/// beta's folder (5).
fn world() -> World {
    let w = World::new();
    w.session(&w.alpha_folder(), &sid(1), ALPHA_WD, false);
    w.session(&w.alpha_folder(), &sid(2), ALPHA_WD, false);
    w.session(&w.folder_of("/home/u/scratch"), &sid(3), "/home/u/scratch", false);
    w.session(&w.folder_of("/home/u/scratch"), &sid(4), "/home/u/scratch", false);
    w.session(&w.folder_of(BETA_WD), &sid(5), BETA_WD, false);
    for n in [2, 4, 5] {
        w.adoption_record(&sid(n), "alpha");
    }
    w
}

#[test]
fn names_herdctl_wrote_under_any_of_its_keys_show_in_corral() {
    let w = world();
    // herdctl's All Chats rename of row 1 writes under the folder's agent; its agent view's
    // rename of 2 and 4 under the owner; its All Chats rename of 3 under adhoc, and of 5 under
    // the folder's agent (beta).
    write_metadata(
        &w,
        "alpha",
        &[(&sid(1), "From All Chats"), (&sid(2), "Owned"), (&sid(4), "Away")],
    );
    write_metadata(&w, "adhoc", &[(&sid(3), "Scratch")]);
    write_metadata(&w, "beta", &[(&sid(5), "In beta's folder")]);
    let c = w.catalog();
    assert_eq!(name_in(&c, &sid(1)).as_deref(), Some("From All Chats"));
    assert_eq!(name_in(&c, &sid(2)).as_deref(), Some("Owned"));
    assert_eq!(name_in(&c, &sid(3)).as_deref(), Some("Scratch"));
    assert_eq!(name_in(&c, &sid(4)).as_deref(), Some("Away"));
    assert_eq!(name_in(&c, &sid(5)).as_deref(), Some("In beta's folder"));
}

#[test]
fn the_owner_outranks_the_folder_agent_which_outranks_adhoc() {
    let w = world();
    write_metadata(&w, "alpha", &[(&sid(5), "Owner's")]);
    write_metadata(&w, "beta", &[(&sid(5), "Folder's"), (&sid(1), "Stale beta")]);
    write_metadata(
        &w,
        "adhoc",
        &[(&sid(5), "Ad hoc"), (&sid(1), "Old adhoc"), (&sid(4), "Adhoc only")],
    );
    let c = w.catalog();
    assert_eq!(name_in(&c, &sid(5)).as_deref(), Some("Owner's"));
    // Session 1 is nobody's and sits in alpha's folder: beta's key is not one of its keys.
    assert_eq!(name_in(&c, &sid(1)).as_deref(), Some("Old adhoc"));
    assert_eq!(name_in(&c, &sid(4)).as_deref(), Some("Adhoc only"));
}

#[test]
fn corral_writes_a_name_where_every_herdctl_view_reads_it() {
    let w = world();
    let c = w.catalog();
    // 1: unattributed in alpha's folder → alpha.json only (All Chats reads the folder's agent).
    renames::rename(&c, &sid(1), Some("One")).unwrap();
    assert_eq!(read(&metadata(&w, "alpha")), Some(herdctl_file("alpha", &[(&sid(1), "One")])));
    assert!(!metadata(&w, "adhoc").exists());
    // 3: nobody's, in no agent's folder → adhoc.json.
    renames::rename(&c, &sid(3), Some("Three")).unwrap();
    assert_eq!(read(&metadata(&w, "adhoc")), Some(herdctl_file("adhoc", &[(&sid(3), "Three")])));
    // 4: alpha's, outside any agent folder → alpha.json (agent view) and adhoc.json (All Chats).
    renames::rename(&c, &sid(4), Some("Four")).unwrap();
    assert_eq!(
        read(&metadata(&w, "alpha")),
        Some(herdctl_file("alpha", &[(&sid(1), "One"), (&sid(4), "Four")]))
    );
    assert_eq!(
        read(&metadata(&w, "adhoc")),
        Some(herdctl_file("adhoc", &[(&sid(3), "Three"), (&sid(4), "Four")]))
    );
    // 5: alpha's, in beta's folder → alpha.json and beta.json.
    renames::rename(&c, &sid(5), Some("Five")).unwrap();
    assert_eq!(read(&metadata(&w, "beta")), Some(herdctl_file("beta", &[(&sid(5), "Five")])));
    assert!(read(&metadata(&w, "alpha")).unwrap().contains("\"Five\""));
    for n in [1, 3, 4, 5] {
        let expected = ["One", "", "Three", "Four", "Five"][n - 1];
        assert_eq!(name_in(&w.catalog(), &sid(n as u32)).as_deref(), Some(expected));
    }
}

#[test]
fn a_rename_replaces_a_stale_copy_under_another_key() {
    let w = world();
    // An older Corral named session 1 in adhoc.json; herdctl never reads it there.
    write_metadata(&w, "adhoc", &[(&sid(1), "Old"), (&sid(3), "Keep")]);
    renames::rename(&w.catalog(), &sid(1), Some("New")).unwrap();
    assert_eq!(read(&metadata(&w, "alpha")), Some(herdctl_file("alpha", &[(&sid(1), "New")])));
    assert_eq!(read(&metadata(&w, "adhoc")), Some(herdctl_file("adhoc", &[(&sid(3), "Keep")])));
}

#[test]
fn clearing_removes_the_name_from_every_key() {
    let w = world();
    write_metadata(&w, "alpha", &[(&sid(1), "a"), (&sid(4), "b"), (&sid(5), "c")]);
    write_metadata(&w, "adhoc", &[(&sid(1), "d"), (&sid(4), "e"), (&sid(3), "keep")]);
    write_metadata(&w, "beta", &[(&sid(5), "f")]);
    let c = w.catalog();
    for n in [1, 4, 5] {
        let s = renames::rename(&c, &sid(n), None).unwrap();
        assert_eq!(s.custom_name, None, "session {n}");
    }
    // herdctl's `removeCustomName`: the key goes, the empty entry goes, the file stays.
    assert_eq!(read(&metadata(&w, "alpha")), Some(herdctl_file("alpha", &[])));
    assert_eq!(read(&metadata(&w, "beta")), Some(herdctl_file("beta", &[])));
    assert_eq!(read(&metadata(&w, "adhoc")), Some(herdctl_file("adhoc", &[(&sid(3), "keep")])));
}

/// A rename writes Claude Code's own records too (the real client's picker reads them; see
/// `tests/conformance`): one `custom-title` line appended after everything that was there, the
/// sidecar with the client's mode; the same name again appends nothing; a clear appends an empty
/// title and empties the sidecar. The transcript is never rewritten: every earlier byte stays.
#[test]
fn a_rename_appends_claude_code_s_title_line_and_writes_its_sidecar() {
    let w = world();
    let t = w.alpha_folder().join(format!("{}.jsonl", sid(1)));
    let before = fs::read(&t).unwrap();
    let c = w.catalog();
    let at = chrono::DateTime::parse_from_rfc3339("2026-12-06T09:30:00Z").unwrap().to_utc();
    let s = renames::rename_at(&c, &sid(1), Some("Plan \u{2014} v2"), at).unwrap();
    assert_eq!(s.auto_name.as_deref(), Some("Plan \u{2014} v2"), "Claude Code's title reads back");
    let after = fs::read(&t).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "every earlier byte stays");
    let added = String::from_utf8(after[before.len()..].to_vec()).unwrap();
    assert_eq!(
        added,
        format!(
            "{{\"type\":\"custom-title\",\"customTitle\":\"Plan \u{2014} v2\",\"sessionId\":\"{}\"}}\n",
            sid(1)
        )
    );
    let sidecar = w.alpha_folder().join(sid(1)).join("custom-title.json");
    assert_eq!(
        fs::read_to_string(&sidecar).unwrap(),
        "{\"customTitle\":\"Plan \u{2014} v2\",\"by\":\"user\",\"at\":\"2026-12-06T09:30:00.000Z\"}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(fs::metadata(&sidecar).unwrap().permissions().mode() & 0o777, 0o600);
    }

    renames::rename_at(&c, &sid(1), Some("Plan \u{2014} v2"), at).unwrap();
    assert_eq!(fs::read(&t).unwrap(), after, "the same title again appends nothing");

    let s = renames::rename_at(&c, &sid(1), None, at).unwrap();
    assert_eq!(s.custom_name, None);
    assert_ne!(s.auto_name.as_deref(), Some("Plan \u{2014} v2"), "the automatic title is back");
    let cleared = fs::read_to_string(&t).unwrap();
    assert!(cleared.ends_with(&format!(
        "{{\"type\":\"custom-title\",\"customTitle\":\"\",\"sessionId\":\"{}\"}}\n",
        sid(1)
    )));
    assert!(fs::read_to_string(&sidecar).unwrap().starts_with("{\"customTitle\":\"\","));
}

/// A transcript another process is writing a line into (no final newline) is not appended to:
/// the rename waits briefly, then is refused with a clear message, and nothing is written
/// anywhere — not the transcript, not herdctl's records.
#[test]
fn a_rename_never_appends_into_a_line_another_writer_has_not_finished() {
    let w = world();
    let t = w.alpha_folder().join(format!("{}.jsonl", sid(1)));
    let mut f = fs::OpenOptions::new().append(true).open(&t).unwrap();
    std::io::Write::write_all(&mut f, b"{\"type\":\"assistant\",\"uuid\":\"half").unwrap();
    let before = fs::read(&t).unwrap();
    let e = renames::rename(&w.catalog(), &sid(1), Some("Mid-line")).unwrap_err();
    assert_eq!(e.kind(), corral_engine::ErrorKind::Refused, "{e}");
    assert!(e.to_string().contains("is being written"), "{e}");
    assert_eq!(fs::read(&t).unwrap(), before);
    assert!(!metadata(&w, "alpha").exists(), "herdctl's records untouched");
}

/// After a `/rename` in Claude Code, Claude Code's title is the name (as in its picker), though
/// herdctl's records still hold an older name: its sidecar says it was set after the metadata file
/// was last written. Where no time says so — no sidecar, a sidecar naming another title, or one
/// older than the metadata file — herdctl's name still comes first.
#[test]
fn a_title_set_in_claude_code_after_herdctl_s_name_is_the_name() {
    let w = world();
    write_metadata(&w, "alpha", &[(&sid(1), "Old in herdctl")]);
    let file = fs::File::options().append(true).open(metadata(&w, "alpha")).unwrap();
    let written = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    file.set_modified(written).unwrap();
    let t = w.alpha_folder().join(format!("{}.jsonl", sid(1)));
    let line = format!(
        "{{\"type\":\"custom-title\",\"customTitle\":\"New in Claude\",\"sessionId\":\"{}\"}}\n",
        sid(1)
    );
    fs::OpenOptions::new().append(true).open(&t).unwrap().write_all(line.as_bytes()).unwrap();
    let sidecar = w.alpha_folder().join(sid(1)).join("custom-title.json");
    fs::create_dir_all(sidecar.parent().unwrap()).unwrap();
    let names = |w: &World| {
        let s = w.catalog().session(&sid(1)).unwrap();
        (s.custom_name, s.auto_name)
    };

    assert_eq!(
        names(&w),
        (Some("Old in herdctl".into()), Some("New in Claude".into())),
        "no sidecar"
    );
    let at = |t: std::time::SystemTime| corral_engine::time::iso_system(t);
    let side = |title: &str, when: &str| {
        fs::write(
            &sidecar,
            format!("{{\"customTitle\":\"{title}\",\"by\":\"user\",\"at\":\"{when}\"}}"),
        )
        .unwrap();
    };
    side("New in Claude", &at(written - std::time::Duration::from_secs(60)));
    assert_eq!(names(&w).0.as_deref(), Some("Old in herdctl"), "set before herdctl's");
    side("Another", &at(std::time::SystemTime::now()));
    assert_eq!(names(&w).0.as_deref(), Some("Old in herdctl"), "names another title");
    side("New in Claude", &at(std::time::SystemTime::now()));
    assert_eq!(
        names(&w),
        (None, Some("New in Claude".into())),
        "set after herdctl's: Claude Code's"
    );
}

/// What `claude --resume`'s picker shows for session `n` of the world.
fn picker(w: &World, n: u32) -> Option<String> {
    let t = w.alpha_folder().join(format!("{}.jsonl", sid(n)));
    corral_engine::claude_titles::picker_title(&t, &sid(n)).unwrap()
}

/// Every rename is a run History lists (the session, its name before and after), and its undo
/// puts back every record it wrote — the picker's title by appending the earlier one (the
/// transcript only grows), the sidecar from the run's backup, herdctl's name under each key —
/// but only while the record still says what that rename wrote: a rename undone out of order
/// leaves the newer name alone. A second undo changes nothing.
#[test]
fn a_rename_is_a_run_and_its_undo_brings_the_earlier_name_back_everywhere() {
    use corral_engine::runs::{self, UndoAction, UndoTarget};
    let w = world();
    let c = w.catalog();
    let t = w.alpha_folder().join(format!("{}.jsonl", sid(1)));
    let sidecar = w.alpha_folder().join(sid(1)).join("custom-title.json");
    let t1 = chrono::DateTime::parse_from_rfc3339("2026-12-06T09:30:00Z").unwrap().to_utc();
    let t2 = t1 + chrono::Duration::seconds(5);
    let first = renames::renamed_at(&c, &sid(1), Some("First"), t1).unwrap();
    let first_sidecar = fs::read(&sidecar).unwrap();
    let second = renames::renamed_at(&c, &sid(1), Some("Second"), t2).unwrap();
    let (first, second) = (first.run_id.unwrap(), second.run_id.unwrap());
    let none = renames::renamed_at(&c, &sid(1), Some("Second"), t2).unwrap();
    assert_eq!(none.run_id, None, "a rename that changes nothing records no run");

    let listed = runs::runs(c.data_dir()).unwrap();
    let renamed: Vec<_> = listed
        .iter()
        .map(|r| {
            let r = r.rename.as_ref().unwrap();
            (r.session_id.as_str(), r.from.as_deref(), r.to.as_deref())
        })
        .collect();
    assert_eq!(
        renamed,
        [(sid(1).as_str(), Some("First"), Some("Second")), (sid(1).as_str(), None, Some("First"))]
    );

    let target = UndoTarget::of(&c);
    let before = fs::read(&t).unwrap();
    let early = runs::undo(&target, &first, t2).unwrap();
    assert!(early.undone.iter().all(|i| i.action == UndoAction::AlreadyGone), "{early:?}");
    assert_eq!(early.not_undone.len(), 3, "title, sidecar, herdctl's key: {early:?}");
    assert!(early.not_undone[0].reason.contains("renamed again since"), "{early:?}");
    assert_eq!(fs::read(&t).unwrap(), before, "nothing written");
    assert_eq!(picker(&w, 1).as_deref(), Some("Second"));

    let report = runs::undo_in(&c, None, &second, t2).unwrap();
    assert!(report.not_undone.is_empty(), "{report:?}");
    let actions: Vec<_> = report.undone.iter().map(|i| i.action).collect();
    assert_eq!(
        actions,
        [UndoAction::NameRestored, UndoAction::SidecarRestored, UndoAction::TitleAppended]
    );
    let after = fs::read(&t).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "the transcript only grew");
    assert_eq!(picker(&w, 1).as_deref(), Some("First"));
    assert_eq!(fs::read(&sidecar).unwrap(), first_sidecar, "the sidecar from the backup");
    assert_eq!(read(&metadata(&w, "alpha")), Some(herdctl_file("alpha", &[(&sid(1), "First")])));
    assert_eq!(name_in(&c, &sid(1)).as_deref(), Some("First"));

    // The first rename, undone now, takes the session back to no custom name at all.
    let report = runs::undo(&target, &first, t2).unwrap();
    assert!(report.not_undone.is_empty(), "{report:?}");
    assert_eq!(picker(&w, 1), None);
    assert!(!sidecar.exists(), "the sidecar the first rename created is gone");
    assert_eq!(read(&metadata(&w, "alpha")), Some(herdctl_file("alpha", &[])));
    let c = w.catalog();
    assert_eq!(name_in(&c, &sid(1)), None);
    let done = fs::read(&t).unwrap();
    let again = runs::undo(&target, &first, t2).unwrap();
    assert!(again.undone.is_empty() && again.not_undone.is_empty(), "{again:?}");
    assert_eq!(fs::read(&t).unwrap(), done);
    let states: Vec<_> = runs::runs(c.data_dir()).unwrap().iter().map(|r| r.undo_state).collect();
    assert_eq!(states, [runs::UndoState::Undone, runs::UndoState::Undone]);
}

/// A title Claude Code no longer sees — its line pushed out of the picker's last 64 KiB by a
/// long continuation, with no sidecar (as older clients left it; the picker does not look for it
/// in the file's first 64 KiB) — is shown again by renaming
/// to the same name: the line is appended once more. With the sidecar there, the picker still
/// shows the name, and the same rename changes nothing.
#[test]
fn renaming_to_the_name_the_picker_lost_appends_it_again() {
    let w = world();
    let t = w.alpha_folder().join(format!("{}.jsonl", sid(1)));
    let title = format!(
        "{{\"type\":\"custom-title\",\"customTitle\":\"Long ago\",\"sessionId\":\"{}\"}}\n",
        sid(1)
    );
    let mut f = fs::OpenOptions::new().append(true).open(&t).unwrap();
    f.write_all(title.as_bytes()).unwrap();
    let filler = format!(
        "{{\"type\":\"system\",\"subtype\":\"note\",\"content\":\"{}\",\"sessionId\":\"{}\"}}\n",
        "x".repeat(1000),
        sid(1)
    );
    for _ in 0..70 {
        f.write_all(filler.as_bytes()).unwrap();
    }
    drop(f);
    let c = w.catalog();
    let shown = c.session(&sid(1)).unwrap().auto_name;
    assert_eq!(shown.as_deref(), Some("Long ago"), "Corral reads the whole file");
    let bytes = fs::read(&t).unwrap();
    let big = format!(
        "{{\"type\":\"system\",\"subtype\":\"note\",\"content\":\"{}\",\"sessionId\":\"{}\"}}\n",
        "y".repeat(70_000),
        sid(1)
    );
    assert_eq!(picker(&w, 1), None, "out of the tail window: the picker shows the automatic title");

    let c = w.catalog();
    let lost = c.session_details(&sid(1)).unwrap().name_out_of_sight;
    assert_eq!(
        lost,
        Some(corral_engine::catalog::NameOutOfSight {
            name: "Long ago".into(),
            picker_title: None
        }),
        "the viewer says the picker does not show it"
    );
    let run = renames::renamed_at(&c, &sid(1), Some("Long ago"), chrono::Utc::now()).unwrap();
    assert!(run.run_id.is_some());
    assert_eq!(c.session_details(&sid(1)).unwrap().name_out_of_sight, None);
    assert_eq!(picker(&w, 1).as_deref(), Some("Long ago"));
    let appended = fs::read(&t).unwrap();
    assert!(appended.ends_with(title.as_bytes()));
    assert_eq!(&appended[..bytes.len()], &bytes[..]);

    // Pushed out again: the sidecar written by the rename keeps the picker's title.
    let mut f = fs::OpenOptions::new().append(true).open(&t).unwrap();
    f.write_all(big.as_bytes()).unwrap();
    drop(f);
    assert_eq!(picker(&w, 1).as_deref(), Some("Long ago"), "from the sidecar");
    let grown = fs::read(&t).unwrap();
    let run =
        renames::renamed_at(&w.catalog(), &sid(1), Some("Long ago"), chrono::Utc::now()).unwrap();
    assert_eq!(run.run_id, None);
    assert_eq!(fs::read(&t).unwrap(), grown);
}

/// A rename's undo restores Claude Code's sidecar only from a backup that still has the bytes the
/// rename saved, and never through a link put in its place: otherwise the sidecar is reported
/// and left as it is (the title line and herdctl's name still come back).
#[test]
fn a_rename_s_undo_never_restores_a_changed_or_linked_sidecar_backup() {
    use corral_engine::runs::{self, UndoTarget};
    let w = world();
    let c = w.catalog();
    let sidecar = w.alpha_folder().join(sid(1)).join("custom-title.json");
    let t1 = chrono::DateTime::parse_from_rfc3339("2026-12-06T09:30:00Z").unwrap().to_utc();
    renames::renamed_at(&c, &sid(1), Some("First"), t1).unwrap();
    for tamper in ["changed", "linked"] {
        let run = renames::renamed_at(&c, &sid(1), Some(tamper), t1).unwrap().run_id.unwrap();
        let backup = c.data_dir().join("runs").join(&run).join("backup").join("custom-title.json");
        if tamper == "changed" {
            let mut bytes = fs::read(&backup).unwrap();
            bytes[2] ^= 1;
            fs::write(&backup, bytes).unwrap();
        } else {
            let elsewhere = w.home.join("elsewhere.json");
            fs::copy(&backup, &elsewhere).unwrap();
            fs::remove_file(&backup).unwrap();
            #[cfg(unix)]
            std::os::unix::fs::symlink(&elsewhere, &backup).unwrap();
        }
        let before = fs::read(&sidecar).unwrap();
        let report = runs::undo(&UndoTarget::of(&c), &run, t1).unwrap();
        let refused: Vec<_> = report.not_undone.iter().map(|n| n.path.as_str()).collect();
        assert_eq!(refused, [sidecar.to_str().unwrap()], "{tamper}: {report:?}");
        assert_eq!(fs::read(&sidecar).unwrap(), before, "{tamper}: the sidecar is left as it is");
        assert_eq!(picker(&w, 1).as_deref(), Some("First"), "{tamper}: the title came back");
        renames::renamed_at(&w.catalog(), &sid(1), Some("First"), t1).unwrap();
    }
}

/// A link or a FIFO where Claude Code keeps a session's title file is never written through or
/// read from: the rename is refused before anything is written, and the transcript and
/// herdctl's records stay as they were.
#[cfg(unix)]
#[test]
fn a_rename_refuses_a_link_or_fifo_as_the_title_file() {
    let w = world();
    let t = w.alpha_folder().join(format!("{}.jsonl", sid(1)));
    let sidecar = w.alpha_folder().join(sid(1)).join("custom-title.json");
    fs::create_dir_all(sidecar.parent().unwrap()).unwrap();
    let target = w.home.join("not-a-title.json");
    fs::write(&target, "{}").unwrap();
    for what in ["link", "fifo"] {
        let _ = fs::remove_file(&sidecar);
        if what == "link" {
            std::os::unix::fs::symlink(&target, &sidecar).unwrap();
        } else {
            let made = std::process::Command::new("mkfifo").arg(&sidecar).status().unwrap();
            assert!(made.success());
        }
        let before = fs::read(&t).unwrap();
        let e = renames::rename(&w.catalog(), &sid(1), Some("Through it")).unwrap_err();
        assert_eq!(e.kind(), corral_engine::ErrorKind::Refused, "{what}: {e}");
        assert_eq!(fs::read(&t).unwrap(), before, "{what}: the transcript is as it was");
        assert!(!metadata(&w, "alpha").exists(), "{what}: herdctl's records untouched");
        assert_eq!(fs::read_to_string(&target).unwrap(), "{}", "{what}");
    }
}
