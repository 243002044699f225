use std::io::Write;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tauri::Listener;

use super::support::*;
use crate::events::{LISTING_PROGRESS, SESSIONS_CHANGED};

/// Collects `sessions-changed` payloads.
fn listen(h: &Harness) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    h.app.listen_any(SESSIONS_CHANGED, move |event| {
        let _ = tx.send(serde_json::from_str::<Value>(event.payload()).unwrap());
    });
    rx
}

/// The `folders` of a `sessions-changed` payload.
fn folders_of(ev: &Value) -> Vec<String> {
    ev["folders"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().to_owned()).collect()
}

/// Waits for an event whose folders satisfy `pred`.
fn wait_for(rx: &mpsc::Receiver<Value>, pred: impl Fn(&[String]) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ev = rx.recv_timeout(left).expect("no matching sessions-changed event within 10 s");
        if pred(&folders_of(&ev)) {
            return ev;
        }
    }
}

/// Repeats `act` about once a second until an event whose folders satisfy `pred` arrives (at most
/// 20 s): a watcher that is being re-armed on another thread may miss the first change, and a
/// loaded CI machine may be slow to deliver it.
fn act_until(
    rx: &mpsc::Receiver<Value>,
    act: impl Fn(),
    pred: impl Fn(&[String]) -> bool,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        act();
        let round = Instant::now() + Duration::from_secs(1);
        while let Some(left) = round.checked_duration_since(Instant::now()) {
            let Ok(ev) = rx.recv_timeout(left) else { break };
            if pred(&folders_of(&ev)) {
                return ev;
            }
        }
        assert!(Instant::now() < deadline, "no matching sessions-changed event within 20 s");
    }
}

fn append_line(path: &std::path::Path, line: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

#[test]
fn appending_to_a_transcript_emits_its_folder_and_refreshes_the_listing() {
    let h = harness(true);
    assert!(h.state.is_watching());
    let rx = listen(&h);
    let before = h.ok("session_messages", json!({"sessionId": CART, "before": null, "limit": 500}));
    let folder = h.home().join("projects/-home-dev-webshop");
    let line = json!({"parentUuid": null, "isSidechain": false, "userType": "external",
        "cwd": "/home/dev/webshop", "sessionId": CART, "version": "2.1.114", "type": "user",
        "message": {"role": "user", "content": "One more thing: dark mode"},
        "uuid": "b2b2b2b2-live-0000-4000-8000-000000000099", "timestamp": "2026-11-20T10:30:00.000Z"});
    append_line(&folder.join(format!("{CART}.jsonl")), &line.to_string());
    let expected = folder.display().to_string();
    let ev = wait_for(&rx, |f| f.contains(&expected));
    // Only the folder that changed is reported.
    assert_eq!(ev["folders"], json!([expected]), "{ev}");
    let after = h.ok("session_messages", json!({"sessionId": CART, "before": null, "limit": 500}));
    assert!(after["sizeBytes"].as_u64() > before["sizeBytes"].as_u64());
    let last = after["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["content"], json!("One more thing: dark mode"));
}

#[test]
fn a_rename_reports_the_state_dir() {
    let h = harness(true);
    let rx = listen(&h);
    h.ok("rename_session", json!({"sessionId": ALPHA_JOB, "name": "Renamed"}));
    let state_dir = h.fleet_dir().join(".herdctl").display().to_string();
    wait_for(&rx, |f| f.contains(&state_dir));
}

#[test]
fn reads_do_not_trigger_events() {
    let h = harness(true);
    let rx = listen(&h);
    for _ in 0..3 {
        h.ok("list_sessions", json!({"includeTemp": true}));
        h.ok("session_info", json!({"sessionId": CART}));
    }
    assert!(rx.recv_timeout(Duration::from_millis(800)).is_err(), "reading caused an event");
}

#[test]
fn a_projects_folder_created_after_start_is_picked_up() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("late/claude");
    let env = crate::settings::LaunchEnv {
        claude_config_dir: Some(home.clone()),
        corral_data_dir: Some(tmp.path().join("data")),
        corral_fleet: None,
        home_dir: Some(tmp.path().join("home")),
        platform_data_dir: None,
        settings_file: None,
        xdg_config_home: None,
        appdata: None,
        path: None,
        no_session_bus: false,
    };
    let h = harness_with(tmp, env);
    assert_eq!(h.ok("get_settings", json!({}))["claudeHomeExists"], json!(false));
    let rx = listen(&h);
    // The home appears, then its projects folder, then a transcript: each step re-arms.
    std::fs::create_dir_all(&home).unwrap();
    std::thread::sleep(Duration::from_millis(600));
    std::fs::create_dir_all(home.join("projects")).unwrap();
    std::thread::sleep(Duration::from_millis(600));
    // The events of the steps so far are in: the one awaited below is the transcript's (the
    // background indexer lists sessions after each event, so an earlier event's listing may
    // already be cached).
    while rx.try_recv().is_ok() {}
    let folder = home.join("projects/-home-dev-late");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        fixture_root().join(format!("claude/projects/-home-dev-webshop/{CART}.jsonl")),
        folder.join(format!("{CART}.jsonl")),
    )
    .unwrap();
    let expected = folder.display().to_string();
    // The folder itself, or (when the watcher re-armed after it appeared) the projects folder,
    // which means "anything below may have changed".
    let projects = home.join("projects").display().to_string();
    let transcript = folder.join(format!("{CART}.jsonl"));
    act_until(
        &rx,
        || append_line(&transcript, &json!({"type": "last-prompt", "lastPrompt": "x"}).to_string()),
        |f| f.contains(&expected) || f.contains(&projects),
    );
    let listing = h.ok("list_sessions", json!({"includeTemp": false}));
    assert_eq!(listing_ids(&listing), vec![CART.to_owned()]);
}

#[test]
fn the_watcher_follows_a_new_claude_home() {
    let h = harness(false);
    let other = h.tmp.path().join("other-home");
    copy_tree(&fixture_root().join("claude"), &other);
    h.ok("set_settings", json!({"patch": {"claudeHome": other.display().to_string()}}));
    let rx = listen(&h);
    // The old home is no longer watched.
    append_line(
        &h.home().join(format!("projects/-home-dev-webshop/{CART}.jsonl")),
        &json!({"type": "ai-title", "aiTitle": "old home", "sessionId": CART}).to_string(),
    );
    // The new one is.
    let folder = other.join("projects/-home-dev-webshop");
    let ev = act_until(
        &rx,
        || {
            append_line(
                &folder.join(format!("{CART}.jsonl")),
                &json!({"type": "ai-title", "aiTitle": "new home", "sessionId": CART}).to_string(),
            );
        },
        |f| !f.is_empty(),
    );
    // The new home's folder, or its projects folder when the watcher re-armed as it appeared
    // (and Corral's own state, which changing the settings wrote, may come in the same event);
    // nothing of the old home.
    let folders: Vec<&str> =
        ev["folders"].as_array().into_iter().flatten().filter_map(|f| f.as_str()).collect();
    let projects = other.join("projects");
    assert!(folders.iter().any(|f| Path::new(f) == folder || Path::new(f) == projects), "{ev}");
    assert!(folders.iter().all(|f| !Path::new(f).starts_with(h.home())), "{ev}");
}

#[test]
fn the_settings_say_when_live_updates_poll() {
    let h = harness(true);
    assert!(h.ok("get_settings", json!({})).get("liveUpdatesNote").is_none());
    crate::state::REFUSE_NATIVE.with(|r| r.set(true));
    let polled = harness(true);
    crate::state::REFUSE_NATIVE.with(|r| r.set(false));
    let note = polled.ok("get_settings", json!({}))["liveUpdatesNote"].as_str().unwrap().to_owned();
    assert!(note.contains("every 3 s") && note.contains("max_user_watches"), "{note}");
}

#[test]
fn a_first_listing_with_much_to_read_reports_its_progress_and_answers_so_far() {
    let h = harness(false);
    let (tx, rx) = mpsc::channel();
    h.app.listen_any(LISTING_PROGRESS, move |event| {
        let _ = tx.send(serde_json::from_str::<Value>(event.payload()).unwrap());
    });
    // Another Claude home, never listed: its first listing reads every file.
    let other = h.tmp.path().join("other-home");
    let folder = other.join("projects/-home-dev-many");
    std::fs::create_dir_all(&folder).unwrap();
    for i in 0..80 {
        let id = format!("0000{i:04x}-0000-4000-8000-{i:012x}");
        let line = json!({"type": "user", "uuid": format!("u-{i}"), "sessionId": id,
            "cwd": "/home/dev/many", "timestamp": "2026-11-20T10:30:00.000Z",
            "message": {"role": "user", "content": format!("task {i}")}});
        std::fs::write(folder.join(format!("{id}.jsonl")), format!("{line}\n")).unwrap();
    }
    h.ok("set_settings", json!({"patch": {"claudeHome": other.display().to_string()}}));
    let listing = h.ok("list_sessions", json!({"includeTemp": true}));
    assert_eq!(listing["groups"][0]["sessionCount"], json!(80), "{listing}");

    // The pass told how far it read (the catalog opened for the new home has the observer),
    // up to its last file.
    let mut told = Vec::new();
    while let Ok(p) = rx.recv_timeout(Duration::from_secs(10)) {
        let last = p["read"] == p["toRead"];
        told.push(p);
        if last {
            break;
        }
    }
    assert!(!told.is_empty(), "no listing-progress event within 10 s");
    let (first, last) = (&told[0], &told[told.len() - 1]);
    assert_eq!((&first["read"], &first["toRead"]), (&json!(1), &json!(80)), "{told:?}");
    assert_eq!(last["read"], json!(80), "the last file read is told: {told:?}");
    assert!(last["bytesRead"].as_u64().unwrap() > 0 && last["bytesRead"] == last["bytesToRead"]);
    // The pass is over: nothing so far to show, the listing is complete.
    assert_eq!(h.ok("listing_so_far", json!({"includeTemp": true})), Value::Null);
}
