//! The reliability faults that only show through the `corral-cli` process (see the engine's
//! `tests/engine/reliability.rs` for the rest and `docs/reliability.md` for all).

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::world::{World, sid, transcript};

/// `corral-cli ARGS --claude-home HOME --data-dir DATA [--fleet FLEET]`, never the real home.
fn cli(args: &[&str], home: &Path, data: &Path, fleet: Option<&Path>) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_corral-cli"));
    c.args(args).arg("--claude-home").arg(home).arg("--data-dir").arg(data);
    if let Some(f) = fleet {
        c.arg("--fleet").arg(f);
    }
    c.env("HOME", "/nonexistent").env_remove("CLAUDE_CONFIG_DIR").output().unwrap()
}

/// `corral-cli ARGS` on `w`'s home and fleet with data dir `data`, its files limited to
/// `blocks` × 512 bytes (a write past that fails as on a full disk; SIGXFSZ ignored).
fn cli_within(blocks: u64, args: &[&str], w: &World, data: &Path) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_corral-cli"))
        .args(args)
        .arg("--claude-home")
        .arg(&w.home)
        .arg("--data-dir")
        .arg(data)
        .arg("--fleet")
        .arg(&w.fleet_file)
        .env("HOME", "/nonexistent")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap()
}

// ---- 1: renames from several processes ----

#[test]
fn renames_from_four_processes_all_land() {
    let w = World::new();
    let ids: Vec<String> = (1..=100).map(sid).collect();
    for id in &ids {
        w.session(&w.folder_of("/home/u/scratch"), id, "/home/u/scratch", false);
    }
    let children: Vec<_> = ids
        .chunks(25)
        .map(|chunk| {
            let (home, fleet, data) = (w.home.clone(), w.fleet_file.clone(), w.data.clone());
            let chunk = chunk.to_vec();
            std::thread::spawn(move || {
                for id in chunk {
                    let name = format!("Name of {id}");
                    let out = cli(&["rename", &id, &name], &home, &data, Some(&fleet));
                    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                }
            })
        })
        .collect();
    for c in children {
        c.join().unwrap();
    }
    let names = corral_engine::metadata::MetadataStore::new(&w.state).custom_names();
    let adhoc = names.get("adhoc").cloned().unwrap_or_default();
    let missing: Vec<_> = ids.iter().filter(|id| !adhoc.contains_key(*id)).collect();
    assert!(missing.is_empty(), "{} of 100 names were lost: {missing:?}", missing.len());
}

#[test]
fn a_run_made_with_relative_paths_is_undone_from_another_folder() {
    let w = World::new();
    w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let cli = env!("CARGO_BIN_EXE_corral-cli");
    let run = |cwd: &Path, args: &[&str]| {
        let out = Command::new(cli)
            .current_dir(cwd)
            .args(args)
            .env("HOME", "/nonexistent")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let rel = ["--claude-home", "claude", "--data-dir", "data", "--fleet", "fleet/herdctl.yaml"];
    let mut args = vec!["--json", "import", "--claude-home-target"];
    args.extend(rel);
    args.push("export");
    let report = run(&w.root, &args);
    let run_id = report["runId"].as_str().unwrap().to_owned();
    let placed = w.folder_of("/home/u/scratch").join(format!("{}.jsonl", sid(1)));
    assert!(placed.is_file());
    let journal = fs::read_to_string(w.data.join("runs").join(&run_id).join("run.json")).unwrap();
    let j: serde_json::Value = serde_json::from_str(&journal).unwrap();
    for e in j["entries"].as_array().unwrap() {
        assert!(Path::new(e["path"].as_str().unwrap()).is_absolute(), "{e}");
    }
    // Undo from another folder, with absolute paths this time.
    let abs: Vec<String> = [
        "--claude-home",
        &w.home.display().to_string(),
        "--data-dir",
        &w.data.display().to_string(),
        "--fleet",
        &w.fleet_file.display().to_string(),
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let mut args = vec!["--json", "undo", &run_id];
    args.extend(abs.iter().map(String::as_str));
    let u = run(Path::new("/"), &args);
    assert!(u["notUndone"].as_array().unwrap().is_empty(), "{u}");
    assert!(!placed.exists(), "undo did not remove the placed file");
}

// ---- 11: terminal escapes ----

#[test]
fn table_output_escapes_control_characters_from_transcripts() {
    let w = World::new();
    let id = sid(1);
    let evil = "\u{1b}]52;c;ZWNobyBwd25lZA==\u{7}\u{1b}]0;owned\u{7}\rfake\u{202e}txt";
    let dir = w.folder_of("/home/u/scratch");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join(format!("{id}.jsonl")), transcript(&id, "/home/u/scratch", evil, false))
        .unwrap();
    for args in [vec!["sessions"], vec!["show", id.as_str()]] {
        let out = cli(&args, &w.home, &w.data, None);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            !text.contains('\u{1b}') && !text.contains('\r') && !text.contains('\u{7}'),
            "{args:?}: {text:?}"
        );
        assert!(!text.contains('\u{202e}'), "{args:?}");
        assert!(text.contains("\\x1b]52"), "{args:?}: the escape is shown, not dropped: {text}");
    }
    // JSON stays exact (serde escapes control characters itself).
    let out = cli(&["--json", "show", &id], &w.home, &w.data, None);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["messages"][0]["content"], evil);
}

/// The class "escaping that misses fields": hostile text (ESC/OSC, BEL, `\r`, a bidi override,
/// a line break) in the session's name (Claude Code's own `custom-title` line), its prompt, a
/// tool's name and input, and a subagent's description. Every table line (`sessions`, `search`)
/// and every export to stdout (Markdown, HTML) holds no raw control character but line feeds
/// and tabs, and the name's line break forges no line of its own. Before: tables printed a name's
/// line break as a new line, and exports wrote ESC, BEL and `\r` from names, tool names and
/// captions as they were.
#[test]
fn no_printed_field_carries_a_control_character_or_forges_a_line() {
    let w = World::new();
    let id = sid(2);
    let evil = "zonkword \u{1b}]0;owned\u{7}\rX\u{202e}Y\u{9b}31m\nForged line";
    let dir = w.folder_of("/home/u/scratch");
    fs::create_dir_all(&dir).unwrap();
    let mut text = transcript(&id, "/home/u/scratch", evil, false);
    for line in [
        serde_json::json!({"type":"custom-title","customTitle":evil,"sessionId":id}),
        serde_json::json!({"type":"assistant","uuid":"t1","parentUuid":null,"sessionId":id,
            "timestamp":"2026-03-04T10:00:09.000Z","message":{"id":"m-t1","role":"assistant",
            "model":"claude-opus-4-5","content":[{"type":"tool_use","id":"toolu_1","name":evil,
            "input":{"description":evil,"command":evil}},
            {"type":"tool_use","id":"toolu_2","name":"Task",
            "input":{"description":evil,"subagent_type":evil,"prompt":evil}}]}}),
        // Kinds of line no client wrote: the format survey names them.
        serde_json::json!({"type":evil,"sessionId":id}),
        serde_json::json!({"type":"attachment","attachment":{"type":evil},"sessionId":id}),
    ] {
        text.push_str(&format!("{line}\n"));
    }
    fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
    let clean = |what: &str, out: &std::process::Output| -> String {
        assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout.clone()).unwrap();
        let bad: Vec<char> =
            text.chars().filter(|c| corral_engine::printable::is_unsafe(*c)).collect();
        assert!(bad.is_empty(), "{what}: {bad:?} in {text}");
        text
    };
    for args in [vec!["sessions"], vec!["search", "zonkword"], vec!["formats"]] {
        let text = clean(&format!("{args:?}"), &cli(&args, &w.home, &w.data, None));
        assert!(text.contains("zonkword"), "{args:?}: {text}");
        let forged = text.lines().filter(|l| l.trim_start().starts_with("Forged line")).count();
        assert_eq!(forged, 0, "{args:?}: a name's line break printed as a line:\n{text}");
    }
    for format in ["md", "html"] {
        let out = cli(&["export", &id, "--format", format], &w.home, &w.data, None);
        let text = clean(format, &out);
        assert!(text.contains("zonkword") && text.contains("Forged line"), "{format}: {text}");
        if format == "md" {
            for heading in text.lines().filter(|l| l.starts_with('#')) {
                assert!(!heading.ends_with("zonkword"), "{format}: a heading cut in two: {text}");
            }
        }
    }
}

// ---- a full disk under a rename ----

/// A rename whose append the disk cannot take (here: the file-size limit, which cuts a write
/// short exactly as a full disk does) fails with a clear message and leaves the transcript byte
/// for byte as it was — no partial line, ever — and herdctl's records unwritten; its run is
/// listed, and undoing it finds nothing to change.
#[cfg(unix)]
#[test]
fn a_rename_on_a_full_disk_leaves_no_partial_line() {
    let w = World::new();
    let t = w.session(&w.folder_of("/home/u/scratch"), &sid(1), "/home/u/scratch", false);
    // The transcript ends 20 bytes before the limit: the title line is cut after 20 bytes.
    let limit_blocks = 400u64;
    let limit = limit_blocks * 512;
    let mut bytes = fs::read(&t).unwrap();
    let pad = format!(
        "{{\"type\":\"system\",\"subtype\":\"note\",\"content\":\"{}\"}}\n",
        "x".repeat(usize::try_from(limit).unwrap() - 20 - bytes.len() - 48)
    );
    bytes.extend_from_slice(pad.as_bytes());
    fs::write(&t, &bytes).unwrap();
    assert_eq!(bytes.len() as u64, limit - 20);
    let out = cli_within(
        limit_blocks,
        &["rename", &sid(1), "A name the disk has no room for"],
        &w,
        &w.data,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("disk full"), "{err}");
    let after = fs::read(&t).unwrap();
    assert!(
        after == bytes,
        "the transcript is as it was ({} bytes, was {})",
        after.len(),
        bytes.len()
    );
    let names = corral_engine::metadata::MetadataStore::new(&w.state).custom_names();
    assert!(names.values().all(|m| !m.contains_key(&sid(1))), "{names:?}");
    let runs = cli(&["runs", "--json"], &w.home, &w.data, Some(&w.fleet_file));
    let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).unwrap();
    let id = runs[0]["runId"].as_str().unwrap().to_owned();
    assert_eq!(runs[0]["finished"], false);
    let undo = cli(&["undo", &id, "--json"], &w.home, &w.data, Some(&w.fleet_file));
    let undo: serde_json::Value = serde_json::from_slice(&undo.stdout).unwrap();
    assert_eq!(undo["notUndone"], serde_json::json!([]), "{undo}");
    assert!(undo["undone"].as_array().unwrap().iter().all(|i| i["action"] == "already-gone"));
    assert!(fs::read(&t).unwrap() == bytes, "undo wrote nothing");
}

// ---- a delete into a quarantine whose disk fills up ----

/// The quarantine is on another filesystem (`/dev/shm`) and the disk "fills" (the file-size limit
/// cuts the copy as a full disk does) while the transcript is copied: the session stays whole
/// where it was, no partial copy is left in the quarantine, no run is recorded, and the reason is
/// given.
#[test]
fn a_delete_into_a_full_quarantine_disk_keeps_the_session_whole() {
    use std::os::unix::fs::MetadataExt;
    let w = World::new();
    let Ok(shm) = tempfile::tempdir_in("/dev/shm") else {
        println!("notice: no /dev/shm here: the full-disk delete test is skipped");
        return;
    };
    if fs::metadata(shm.path()).unwrap().dev() == fs::metadata(&w.home).unwrap().dev() {
        println!("notice: /dev/shm is this filesystem: the full-disk delete test is skipped");
        return;
    }
    let data = shm.path().join("data");
    let t = w.session(&w.folder_of("/home/u/scratch"), &sid(1), "/home/u/scratch", false);
    let mut bytes = fs::read(&t).unwrap();
    let pad = format!(
        "{{\"type\":\"system\",\"subtype\":\"note\",\"content\":\"{}\"}}\n",
        "x".repeat(300_000)
    );
    bytes.extend_from_slice(pad.as_bytes());
    fs::write(&t, &bytes).unwrap();
    let out = cli_within(400, &["delete", &sid(1), "--json"], &w, &data);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["runId"], serde_json::Value::Null, "{report}");
    assert_eq!(report["deleted"], serde_json::json!([]), "{report}");
    let reason = report["refused"][0]["reason"].as_str().unwrap();
    assert!(reason.starts_with("not deleted: cannot move"), "{reason}");
    assert!(fs::read(&t).unwrap() == bytes, "the transcript is whole where it was");
    let held: Vec<_> = walkdir(&data.join("quarantine"));
    assert!(held.is_empty(), "left in the quarantine: {held:?}");
}

fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(rd) = fs::read_dir(dir) else { return Vec::new() };
    rd.flatten()
        .flat_map(|e| {
            let p = e.path();
            if p.is_dir() { walkdir(&p) } else { vec![p] }
        })
        .collect()
}
