//! The reliability faults that only show through the `corral-cli` process (see the engine's
//! `tests/engine/reliability.rs` for the rest and the README's Reliability table for all).

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
