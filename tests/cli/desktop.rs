//! `corral-cli desktop report` as a process: the JSON contract, the exit code of a store that
//! yields nothing, uuid-shaped flags, and hostile folder names escaped on a terminal.

use std::path::Path;
use std::process::Output;

use crate::commands::cli_command as cli;
use crate::home::Home;

const A: &str = "a0000000-0000-4000-8000-00000000000a";
const A1: &str = "a1000000-0000-4000-8000-0000000000a1";
const A2: &str = "a2000000-0000-4000-8000-0000000000a2";

fn entry(store: &Path, account: &str, org: &str, n: u32, extra: &str) {
    let dir = store.join(account).join(org);
    std::fs::create_dir_all(&dir).unwrap();
    let json = format!(
        r#"{{"sessionId":"local_{n:08}-1111-4000-8000-000000000000","cliSessionId":"c{n:07}-0000-4000-8000-000000000000","cwd":"/w/{n}","title":"Talk {n}","isArchived":false,"lastActivityAt":1780000000000{extra}}}"#
    );
    std::fs::write(dir.join(format!("local_{n:08}-1111-4000-8000-000000000000.json")), json)
        .unwrap();
}

fn report(home: &Home, store: &Path, args: &[&str]) -> Output {
    let mut all = vec!["--desktop-store", store.to_str().unwrap(), "desktop", "report"];
    all.extend_from_slice(args);
    cli(home, &all).output().unwrap()
}

#[test]
fn the_report_keeps_its_contract() {
    let home = Home::new();
    let store = home.root.join("Claude").join("claude-code-sessions");
    entry(&store, A, A1, 1, "");
    entry(&store, A, A1, 2, r#","isArchived":true"#);
    std::fs::create_dir_all(store.join(A).join(A2)).unwrap();
    let out = report(&home, &store, &["--account", A, "--org", A2, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["store", "current", "sidebars", "missing", "leftOut", "warnings"] {
        assert!(v.get(key).is_some(), "{key}: {v}");
    }
    assert_eq!(v["current"]["account"], A);
    assert_eq!(v["current"]["org"], A2);
    assert_eq!(v["current"]["rule"], "given");
    let sidebars = v["sidebars"].as_array().unwrap();
    assert_eq!(sidebars.len(), 2, "a sidebar with no entries is listed: {v}");
    for key in ["account", "org", "entries", "live", "newestActivity"] {
        assert!(sidebars[0].get(key).is_some(), "{key}: {v}");
    }
    let m = &v["missing"][0];
    for key in ["cliSessionId", "title", "cwd", "status", "source", "alsoIn", "note"] {
        assert!(m.get(key).is_some(), "{key}: {m}");
    }
    assert_eq!(m["status"], "restorable");
    assert_eq!(m["source"]["account"], A);
    assert_eq!(m["source"]["org"], A1);
    assert_eq!(m["source"]["file"], "local_00000001-1111-4000-8000-000000000000.json");
    assert_eq!(v["missing"].as_array().unwrap().len(), 1);
    assert_eq!(v["leftOut"]["archived"], 1);
    assert_eq!(v["leftOut"]["alreadyHere"], 0);
}

#[test]
fn an_empty_store_exits_1_and_flags_must_be_uuids() {
    let home = Home::new();
    let store = home.root.join("store");
    std::fs::create_dir_all(store.join(A).join(A1)).unwrap();
    let out = report(&home, &store, &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["finding"].as_str().unwrap().contains("could not read the store"), "{v}");

    let out = report(&home, &store, &["--account", "../x", "--org", A1]);
    assert_eq!(out.status.code(), Some(2));
    let out = report(&home, &store, &["--account", A]);
    assert_eq!(out.status.code(), Some(2), "--account needs --org");

    // No store at all: no desktop app here, exit 0.
    let out = report(&home, &home.root.join("absent"), &[]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("no desktop app here"));
}

#[test]
fn hostile_folder_names_are_escaped_on_a_terminal() {
    let home = Home::new();
    let store = home.root.join("store");
    entry(&store, "evil\u{1b}]0;pwned\u{7}", A1, 1, r#","title":"x\u001b[2Jy""#);
    entry(&store, A, A2, 2, "");
    let out = report(&home, &store, &["--account", A, "--org", A2]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "{text:?}");
    assert!(text.contains("\\x1b]0;pwned"), "{text}");
    assert!(text.contains("never a target"), "{text}");
}

#[test]
fn restore_dry_run_shows_the_plan_and_writes_nothing() {
    let home = Home::new();
    let store = home.root.join("store");
    entry(&store, A, A1, 1, "");
    entry(&store, A, A1, 2, r#","isArchived":true"#);
    std::fs::create_dir_all(store.join(A).join(A2)).unwrap();
    let mut args = vec!["--desktop-store", store.to_str().unwrap(), "--json", "desktop", "restore"];
    args.extend_from_slice(&["--account", A, "--org", A2, "--all", "--dry-run"]);
    let out = cli(&home, &args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["runId"], serde_json::Value::Null);
    assert_eq!(v["restored"][0]["cliSessionId"], "c0000001-0000-4000-8000-000000000000");
    assert_eq!(v["restored"][0]["replaced"], false);
    assert!(v["restored"][0]["file"].as_str().unwrap().contains(A2));
    assert_eq!(v["refused"].as_array().unwrap().len(), 0);
    assert_eq!(std::fs::read_dir(store.join(A).join(A2)).unwrap().count(), 0, "a dry run");
}

#[test]
fn restore_runs_and_undo_puts_the_store_back_byte_for_byte() {
    let home = Home::new();
    let store = home.root.join("store");
    entry(&store, A, A1, 1, "");
    entry(&store, A, A2, 3, "");
    let before = crate::support::hash_tree(&store);
    let s = store.to_str().unwrap();
    // (This machine's real process table is read: no desktop app runs where tests run.)
    let out = cli(&home, &["--desktop-store", s, "--json", "desktop", "restore"])
        .args(["--account", A, "--org", A2, "c0000001"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let run_id = v["runId"].as_str().expect("a run").to_owned();
    assert_eq!(v["dryRun"], false);
    assert_eq!(v["app"]["state"], "closed");
    let file = v["restored"][0]["file"].as_str().unwrap();
    assert_eq!(
        std::fs::read(file).unwrap(),
        std::fs::read(
            store.join(A).join(A1).join("local_00000001-1111-4000-8000-000000000000.json")
        )
        .unwrap()
    );
    let out = cli(&home, &["--json", "runs"]).output().unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(runs[0]["sidebar"]["org"], A2, "{runs}");
    // Undo acts only on the store it is given.
    let out = cli(&home, &["--desktop-store", s, "--json", "undo", &run_id]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let u: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(u["notUndone"].as_array().unwrap().len(), 0, "{u}");
    assert_eq!(crate::support::hash_tree(&store), before);
}

#[test]
fn questions_lists_a_question_the_app_rejected() {
    let home = Home::new();
    let folder = home.claude().join("projects").join("-w-quit");
    std::fs::create_dir_all(&folder).unwrap();
    let id = "00000099-0000-4000-8000-000000000099";
    let lines = [
        format!(
            r#"{{"type":"user","uuid":"q-u","sessionId":"{id}","cwd":"/w/quit","timestamp":"2026-09-16T20:00:00.000Z","message":{{"role":"user","content":"set it up"}}}}"#
        ),
        format!(
            r#"{{"type":"assistant","uuid":"q-a","sessionId":"{id}","cwd":"/w/quit","timestamp":"2026-09-16T20:00:01.000Z","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"toolu_q","name":"AskUserQuestion","input":{{"questions":[{{"question":"Which port?","header":"Port","options":[]}}]}}}}]}}}}"#
        ),
        format!(
            r#"{{"type":"user","uuid":"q-r","sessionId":"{id}","cwd":"/w/quit","timestamp":"2026-09-16T22:52:10.000Z","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_q","is_error":true,"content":"The user doesn't want to proceed with this tool use. STOP what you are doing and wait for the user to tell you how to proceed."}}]}}}}"#
        ),
    ];
    std::fs::write(folder.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    let out = cli(&home, &["--json", "desktop", "questions"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let q = &v[0];
    assert_eq!(q["sessionId"], id);
    assert_eq!(q["question"], "Which port?");
    assert_eq!(q["likelyQuit"], true, "nothing from the owner since: {v}");
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
}

#[test]
fn restore_without_a_sidebar_takes_this_sessions_own_entry_or_refuses() {
    let home = Home::new();
    let store = home.root.join("store");
    entry(&store, A, A1, 1, "");
    entry(&store, A, A2, 3, "");
    let s = store.to_str().unwrap();
    let args = ["--desktop-store", s, "--json", "desktop", "restore", "--all", "--dry-run"];
    // No sidebar given and no desktop-app session: refused, never guessed.
    let out = cli(&home, &args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give --account and --org"));
    // Inside the desktop app: its own entry names the sidebar.
    let out = cli(&home, &args)
        .env("CLAUDE_CODE_HOST_SESSION_ID", "local_00000003-1111-4000-8000-000000000000")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["restored"][0]["file"].as_str().unwrap().contains(&format!("{A}/{A2}/")), "{v}");
}

/// Runs `cmd` to its end and returns its output and its peak resident memory in bytes (the
/// kernel's high-water mark, read until the process exits).
#[cfg(target_os = "linux")]
fn peak_memory(mut cmd: std::process::Command) -> (Output, u64) {
    use std::process::Stdio;
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let status = format!("/proc/{}/status", child.id());
    let (tx, rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let out = child.wait_with_output().unwrap();
        tx.send(()).unwrap();
        out
    });
    let mut peak = 0;
    while rx.try_recv().is_err() {
        let hwm = std::fs::read_to_string(&status).ok().and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_owned();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        });
        peak = peak.max(hwm.unwrap_or(0) * 1024);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    (waiter.join().unwrap(), peak)
}

/// Entries of the largest size read, whose values take many times their bytes once parsed:
/// the report keeps a few hundred bytes of each, so its memory stays that of one entry at a
/// time, not of all of them.
#[test]
#[cfg(target_os = "linux")]
fn a_report_of_large_entries_keeps_little_of_each() {
    let home = Home::new();
    let store = home.root.join("Claude").join("claude-code-sessions");
    let pad = format!(r#","pad":[{}0]"#, "0,".repeat(2_000_000));
    let title = format!(r#","title":"{}""#, "t".repeat(10_000));
    for n in 0..24 {
        entry(&store, A, A1, n, &format!("{pad}{title}"));
    }
    std::fs::create_dir_all(store.join(A).join(A2)).unwrap();
    let mut cmd = cli(&home, &["--desktop-store", store.to_str().unwrap(), "desktop", "report"]);
    cmd.args(["--account", A, "--org", A2, "--json"]);
    let (out, peak) = peak_memory(cmd);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["missing"].as_array().map(Vec::len), Some(24), "every entry is read");
    let title = v["missing"][0]["title"].as_str().unwrap();
    assert!(title.len() <= 4096 + 3 && title.ends_with('…'), "{}", title.len());
    assert!(peak > 0 && peak < 400 << 20, "peak {} MB", peak >> 20);
}
