use serde_json::{Value, json};

use super::support::*;

const HOSTILE_IDS: &[&str] = &[
    "../../etc/passwd",
    "..",
    "",
    "a/b",
    "a\\b",
    "a1a1a1a1-0000-4000-8000-000000000001.jsonl",
    "%2e%2e%2fetc",
    "id\u{0}",
];

#[test]
fn get_settings_reports_the_launch_environment() {
    let h = harness(true);
    let s = h.ok("get_settings", json!({}));
    assert_eq!(s["claudeHome"], json!(h.home().display().to_string()));
    assert_eq!(s["claudeHomeExists"], json!(true));
    assert_eq!(s["fleetFile"], json!(h.fleet_dir().join("herdctl.yaml").display().to_string()));
    assert_eq!(s["stateDir"], json!(h.fleet_dir().join(".herdctl").display().to_string()));
    assert_eq!(s["dataDir"], json!(h.data_dir().display().to_string()));
    assert_eq!(s["homeDir"], json!(h.tmp.path().join("home").display().to_string()));
    // Nothing is written just by starting.
    assert!(!h.settings_file().exists());
    // A session bus: nothing to say about notifications.
    assert_eq!(s.get("notificationsNote"), None, "{s}");
}

#[test]
fn without_a_session_bus_settings_say_that_notifications_cannot_be_raised() {
    let tmp = tempfile::tempdir().unwrap();
    let env = crate::LaunchEnv { no_session_bus: true, ..fixture_env(tmp.path(), true) };
    let without = harness_with(tmp, env);
    let s = without.ok("get_settings", json!({}));
    let note = s["notificationsNote"].as_str().unwrap_or_default();
    assert!(note.contains("session bus") && note.contains("notifications"), "{s}");
}

#[test]
fn set_settings_closes_and_reopens_the_fleet_and_saves_atomically() {
    let h = harness(true);
    let fleet = h.fleet_dir().join("herdctl.yaml").display().to_string();
    // Absent fields are unchanged.
    let s = h.ok("set_settings", json!({"patch": {}}));
    assert_eq!(s["fleetFile"], json!(fleet));
    // null closes the fleet.
    let s = h.ok("set_settings", json!({"patch": {"fleetFile": null}}));
    assert_eq!(s["fleetFile"], Value::Null);
    assert_eq!(s["claudeHome"], json!(h.home().display().to_string()));
    assert_eq!(h.ok("list_agents", json!({})), json!([]));
    let saved: Value = serde_json::from_slice(&std::fs::read(h.settings_file()).unwrap()).unwrap();
    assert_eq!(saved["fleetFile"], Value::Null);
    // Reopen it.
    let s = h.ok("set_settings", json!({"patch": {"fleetFile": fleet}}));
    assert_eq!(s["fleetFile"], json!(fleet));
    let saved: Value = serde_json::from_slice(&std::fs::read(h.settings_file()).unwrap()).unwrap();
    assert_eq!(saved["fleetFile"], json!(fleet));
    // No temp files are left next to the settings file.
    let names: Vec<_> = std::fs::read_dir(h.settings_file().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("settings.json")]);
}

#[test]
fn set_settings_claude_home_changes_and_reports_a_missing_home() {
    let h = harness(false);
    let elsewhere = h.tmp.path().join("no-such-home");
    let s = h.ok("set_settings", json!({"patch": {"claudeHome": elsewhere.display().to_string()}}));
    assert_eq!(s["claudeHome"], json!(elsewhere.display().to_string()));
    assert_eq!(s["claudeHomeExists"], json!(false));
    assert!(h.state.is_watching(), "the watcher restarts even when the home is missing");
    // null goes back to the default: $CLAUDE_CONFIG_DIR of the launch environment.
    let s = h.ok("set_settings", json!({"patch": {"claudeHome": null}}));
    assert_eq!(s["claudeHome"], json!(h.home().display().to_string()));
}

#[test]
fn set_settings_rejects_bad_input_and_changes_nothing() {
    let h = harness(true);
    let before = h.ok("get_settings", json!({}));
    assert_eq!(
        h.err_kind("set_settings", json!({"patch": {"claudeHome": "relative/path"}})),
        "invalid-input"
    );
    assert_eq!(h.err_kind("set_settings", json!({"patch": {"claudeHome": ""}})), "invalid-input");
    assert_eq!(h.err_kind("set_settings", json!({"patch": {"claudeHome": 42}})), "invalid-input");
    assert_eq!(h.err_kind("set_settings", json!({"patch": {"fleetFile": ["x"]}})), "invalid-input");
    let missing = h.tmp.path().join("missing/herdctl.yaml").display().to_string();
    assert_eq!(h.err_kind("set_settings", json!({"patch": {"fleetFile": missing}})), "config");
    assert_eq!(h.ok("get_settings", json!({})), before);
    assert!(!h.settings_file().exists());
}

#[test]
fn terminal_and_notification_preferences_are_checked_saved_and_keep_the_catalog() {
    let h = harness(true);
    let s = h.ok("get_settings", json!({}));
    assert_eq!(s["terminal"], Value::Null, "automatic by default");
    assert_eq!(s["notifyWaiting"], json!(false), "off by default");
    let first = corral_engine::resume::known_terminals()[0];
    assert_eq!(s["terminals"], json!([first]), "the known terminals on $PATH: {s}");
    let listing = h.ok("list_sessions", json!({"includeTemp": false}));
    let s = h.ok(
        "set_settings",
        json!({"patch": {"terminal": " foot -D {cwd} {command} ", "notifyWaiting": true}}),
    );
    assert_eq!(s["terminal"], json!("foot -D {cwd} {command}"));
    assert_eq!(s["notifyWaiting"], json!(true));
    let saved: Value = serde_json::from_slice(&std::fs::read(h.settings_file()).unwrap()).unwrap();
    assert_eq!(saved["terminal"], json!("foot -D {cwd} {command}"));
    assert_eq!(saved["notifyWaiting"], json!(true));
    assert_eq!(saved["fleetFile"], Value::Null, "a preference saves no path: {saved}");
    assert_eq!(h.ok("list_sessions", json!({"includeTemp": false})), listing);
    // A terminal that cannot work is refused when chosen, and changes nothing.
    for bad in [json!("alacritty -e"), json!("{command}"), json!(""), json!(7)] {
        assert_eq!(
            h.err_kind("set_settings", json!({"patch": {"terminal": bad}})),
            "invalid-input",
            "{bad}"
        );
    }
    assert_eq!(h.ok("get_settings", json!({}))["terminal"], json!("foot -D {cwd} {command}"));
    let s = h.ok("set_settings", json!({"patch": {"terminal": null}}));
    assert_eq!(s["terminal"], Value::Null);
    assert_eq!(s["notifyWaiting"], json!(true), "absent is unchanged");
}

#[test]
fn automatic_emptying_of_the_quarantine_is_off_until_set_and_checked() {
    let h = harness(true);
    assert_eq!(h.ok("get_settings", json!({}))["emptyQuarantineAfterDays"], Value::Null);
    for bad in [json!(0), json!(3651), json!(-1), json!("30")] {
        assert_eq!(
            h.err_kind("set_settings", json!({"patch": {"emptyQuarantineAfterDays": bad}})),
            "invalid-input",
            "{bad}"
        );
    }
    let s = h.ok("set_settings", json!({"patch": {"emptyQuarantineAfterDays": 30}}));
    assert_eq!(s["emptyQuarantineAfterDays"], json!(30));
    let saved: Value = serde_json::from_slice(&std::fs::read(h.settings_file()).unwrap()).unwrap();
    assert_eq!(saved["emptyQuarantineAfterDays"], json!(30));
    let s = h.ok("set_settings", json!({"patch": {"notifyWaiting": true}}));
    assert_eq!(s["emptyQuarantineAfterDays"], json!(30), "absent is unchanged");
    let s = h.ok("set_settings", json!({"patch": {"emptyQuarantineAfterDays": null}}));
    assert_eq!(s["emptyQuarantineAfterDays"], Value::Null);
}

#[test]
fn list_agents_lists_the_fleet() {
    let h = harness(true);
    let agents = h.ok("list_agents", json!({}));
    let names: Vec<&str> =
        agents.as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2, "{agents}");
    assert!(names.contains(&"alpha") && names.contains(&"beta"), "{agents}");
    let alpha = agents.as_array().unwrap().iter().find(|a| a["name"] == "alpha").unwrap();
    assert_eq!(alpha["workingDirectory"], json!("/srv/herd/alpha"));
    assert!(alpha["sessionCount"].as_u64().unwrap() >= 1, "{alpha}");
}

#[test]
fn list_agents_without_fleet_is_empty() {
    let h = harness(false);
    assert_eq!(h.ok("list_agents", json!({})), json!([]));
}

#[test]
fn a_broken_fleet_keeps_all_chats_working_and_reports_through_list_agents() {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&fixture_root(), &tmp.path().join("e2e"));
    let broken = tmp.path().join("e2e/fleet/herdctl.yaml");
    std::fs::write(&broken, "agents: [ {path: ").unwrap();
    let env = crate::settings::LaunchEnv {
        claude_config_dir: Some(tmp.path().join("e2e/claude")),
        corral_data_dir: Some(tmp.path().join("data")),
        corral_fleet: Some(broken),
        home_dir: Some(tmp.path().join("home")),
        platform_data_dir: None,
        settings_file: None,
        xdg_config_home: None,
        appdata: None,
        path: None,
        no_session_bus: false,
    };
    let h = harness_with(tmp, env);
    assert_eq!(h.err_kind("list_agents", json!({})), "config");
    assert_eq!(h.err_kind("agent_sessions", json!({"agent": "alpha"})), "config");
    let listing = h.ok("list_sessions", json!({"includeTemp": false}));
    assert!(listing_ids(&listing).contains(&CART.to_owned()), "{listing}");
}

#[test]
fn list_sessions_groups_by_working_directory_and_hides_temp() {
    let h = harness(true);
    let listing = h.ok("list_sessions", json!({"includeTemp": false}));
    let mut dirs: Vec<&str> = listing["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["workingDirectory"].as_str().unwrap())
        .collect();
    dirs.sort_unstable();
    assert_eq!(dirs, ["/home/dev/notes", "/home/dev/webshop", "/srv/herd/alpha"], "{listing}");
    assert_eq!(listing_ids(&listing).len(), 5);
    let with_temp = h.ok("list_sessions", json!({"includeTemp": true}));
    assert_eq!(with_temp["groups"].as_array().unwrap().len(), 4);
    assert!(h.invoke("list_sessions", json!({})).is_err(), "includeTemp is required");
}

#[test]
fn agent_sessions_returns_the_agents_sessions_and_validates_the_name() {
    let h = harness(true);
    let sessions = h.ok("agent_sessions", json!({"agent": "alpha"}));
    let ids: Vec<&str> =
        sessions.as_array().unwrap().iter().map(|s| s["sessionId"].as_str().unwrap()).collect();
    assert!(ids.contains(&ALPHA_JOB), "{sessions}");
    assert!(!ids.contains(&CART), "{sessions}");
    // The count in list_agents is the same as the list.
    let agents = h.ok("list_agents", json!({}));
    let alpha = agents.as_array().unwrap().iter().find(|a| a["name"] == "alpha").unwrap();
    assert_eq!(alpha["sessionCount"], json!(ids.len()));
    let job = sessions.as_array().unwrap().iter().find(|s| s["sessionId"] == ALPHA_JOB).unwrap();
    assert_eq!(job["origin"], json!("schedule"));
    assert_eq!(h.ok("agent_sessions", json!({"agent": "beta"})), json!([]));
    assert_eq!(h.err_kind("agent_sessions", json!({"agent": "nobody"})), "not-found");
    assert_eq!(h.err_kind("agent_sessions", json!({"agent": ""})), "invalid-input");
    assert_eq!(h.err_kind("agent_sessions", json!({"agent": "a\nb"})), "invalid-input");
}

#[test]
fn session_info_gives_summary_usage_subagents_and_resume_command() {
    let h = harness(true);
    let info = h.ok("session_info", json!({"sessionId": CART}));
    assert_eq!(info["summary"]["sessionId"], json!(CART));
    assert_eq!(info["summary"]["workingDirectory"], json!("/home/dev/webshop"));
    let subs = info["subagents"].as_array().unwrap();
    assert_eq!(subs.len(), 1, "{info}");
    assert_eq!(subs[0]["agentId"], json!(CART_SUBAGENT));
    assert!(info["usage"]["outputTokens"].as_u64().unwrap() > 0, "{info}");
    let resume = info["resumeCommand"].as_str().unwrap();
    assert!(resume.starts_with("cd -- /home/dev/webshop && "), "{resume}");
    assert!(resume.ends_with(&format!("claude --resume {CART}")), "{resume}");
    // The fixture home is not ~/.claude, so the command names it.
    assert!(resume.contains("CLAUDE_CONFIG_DIR="), "{resume}");
}

#[test]
fn session_commands_refuse_hostile_ids_before_touching_the_disk() {
    let h = harness(true);
    for id in HOSTILE_IDS {
        assert_eq!(h.err_kind("session_info", json!({"sessionId": id})), "invalid-input", "{id:?}");
        assert_eq!(
            h.err_kind("session_messages", json!({"sessionId": id, "before": null, "limit": 50})),
            "invalid-input",
            "{id:?}"
        );
        assert_eq!(
            h.err_kind("rename_session", json!({"sessionId": id, "name": "x"})),
            "invalid-input",
            "{id:?}"
        );
        assert_eq!(
            h.err_kind(
                "subagent_messages",
                json!({"sessionId": id, "agentId": CART_SUBAGENT, "before": null, "limit": 5})
            ),
            "invalid-input",
            "{id:?}"
        );
    }
    assert!(!h.fleet_dir().join(".herdctl/session-metadata").exists());
}

#[test]
fn unknown_sessions_are_not_found() {
    let h = harness(true);
    let unknown = "ffffffff-0000-4000-8000-000000000000";
    assert_eq!(h.err_kind("session_info", json!({"sessionId": unknown})), "not-found");
    assert_eq!(
        h.err_kind("session_messages", json!({"sessionId": unknown, "before": null, "limit": 5})),
        "not-found"
    );
    assert_eq!(
        h.err_kind("rename_session", json!({"sessionId": unknown, "name": "x"})),
        "not-found"
    );
}

#[test]
fn session_messages_pages_newest_first_and_validates_the_limit() {
    let h = harness(true);
    let page = h.ok("session_messages", json!({"sessionId": CART, "before": null, "limit": 500}));
    let messages = page["messages"].as_array().unwrap();
    assert!(messages.len() >= 4, "{page}");
    let size = std::fs::metadata(h.home().join(format!("projects/-home-dev-webshop/{CART}.jsonl")))
        .unwrap()
        .len();
    assert_eq!(page["sizeBytes"], json!(size));
    assert!(
        messages.iter().any(|m| m["content"].as_str().unwrap_or("").contains("QuantitySelector"))
    );
    // A small page has an earlier cursor that fetches older messages.
    let last = h.ok("session_messages", json!({"sessionId": CART, "before": null, "limit": 1}));
    let n = last["messages"].as_array().unwrap().len();
    assert!(n >= 1 && n < messages.len(), "{last}");
    let cursor = last["earlierCursor"].as_u64().expect("an earlier page exists");
    let older = h.ok("session_messages", json!({"sessionId": CART, "before": cursor, "limit": 1}));
    assert_ne!(older["messages"], last["messages"]);
    for limit in [0, 100_000] {
        assert_eq!(
            h.err_kind(
                "session_messages",
                json!({"sessionId": CART, "before": null, "limit": limit})
            ),
            "invalid-input",
            "{limit}"
        );
    }
    // Wrongly typed arguments are refused by Tauri's argument decoding.
    for limit in [json!(-1), json!("ten")] {
        let args = json!({"sessionId": CART, "before": null, "limit": limit});
        assert!(h.invoke("session_messages", args).is_err(), "{limit}");
    }
}

#[test]
fn subagent_messages_reads_only_the_sessions_own_subagents() {
    let h = harness(true);
    let page = h.ok(
        "subagent_messages",
        json!({"sessionId": CART, "agentId": CART_SUBAGENT, "before": null, "limit": 50}),
    );
    let text: Vec<&str> =
        page["messages"].as_array().unwrap().iter().filter_map(|m| m["content"].as_str()).collect();
    assert!(text.iter().any(|t| t.contains("cart.ts")), "{page}");
    for bad in ["../agent-x", "a/b", "", "x.jsonl"] {
        assert_eq!(
            h.err_kind(
                "subagent_messages",
                json!({"sessionId": CART, "agentId": bad, "before": null, "limit": 5})
            ),
            "invalid-input",
            "{bad:?}"
        );
    }
    assert_eq!(
        h.err_kind(
            "subagent_messages",
            json!({"sessionId": ALPHA_NATIVE, "agentId": CART_SUBAGENT, "before": null, "limit": 5})
        ),
        "not-found"
    );
}

#[test]
fn rename_session_persists_to_the_owning_agents_metadata_file() {
    let h = harness(true);
    let renamed =
        h.ok("rename_session", json!({"sessionId": ALPHA_JOB, "name": "  Deploy report  "}));
    assert_eq!(renamed["session"]["customName"], json!("Deploy report"));
    // The reply names the run that undoes it, and undo_run does.
    let run = renamed["runId"].as_str().unwrap().to_owned();
    let undone = h.ok("undo_run", json!({"runId": run}));
    assert_eq!(undone["notUndone"], json!([]), "{undone}");
    let renamed =
        h.ok("rename_session", json!({"sessionId": ALPHA_JOB, "name": "  Deploy report  "}));
    assert_ne!(renamed["runId"].as_str(), Some(run.as_str()));
    let file = h.fleet_dir().join(".herdctl/session-metadata/alpha.json");
    let meta: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(meta["sessions"][ALPHA_JOB]["customName"], json!("Deploy report"));
    // A session nobody owns goes to adhoc.json.
    h.ok("rename_session", json!({"sessionId": CART, "name": "Cart work"}));
    let adhoc = h.fleet_dir().join(".herdctl/session-metadata/adhoc.json");
    let meta: Value = serde_json::from_slice(&std::fs::read(&adhoc).unwrap()).unwrap();
    assert_eq!(meta["sessions"][CART]["customName"], json!("Cart work"));
    // The listing shows the new name.
    let listing = h.ok("list_sessions", json!({"includeTemp": false}));
    let names: Vec<&Value> = listing["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["sessions"].as_array().unwrap())
        .map(|s| &s["customName"])
        .collect();
    assert!(names.contains(&&json!("Deploy report")), "{listing}");
    // null and "" clear.
    let cleared = h.ok("rename_session", json!({"sessionId": ALPHA_JOB, "name": null}));
    assert_eq!(cleared["session"]["customName"], Value::Null);
    h.ok("rename_session", json!({"sessionId": CART, "name": "   "}));
    let meta: Value = serde_json::from_slice(&std::fs::read(&adhoc).unwrap()).unwrap();
    assert!(meta["sessions"][CART]["customName"].is_null(), "{meta}");
}

#[test]
fn rename_session_rejects_bad_names() {
    let h = harness(true);
    let long = "x".repeat(corral_engine::names::MAX_NAME_CHARS + 1);
    for name in [long.as_str(), "two\nlines", "bell\u{7}"] {
        assert_eq!(
            h.err_kind("rename_session", json!({"sessionId": CART, "name": name})),
            "invalid-input"
        );
    }
    assert!(!h.fleet_dir().join(".herdctl/session-metadata").exists());
}

#[test]
fn reveal_path_opens_only_folders_inside_the_runs_dir() {
    let h = harness(true);
    let runs = h.data_dir().join("runs");
    // Before any run exists, everything is refused.
    assert_eq!(h.err_kind("reveal_path", json!({"path": "/etc"})), "refused");
    let run = runs.join("run-1");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("journal.json"), "{}").unwrap();
    h.ok("reveal_path", json!({"path": run.display().to_string()}));
    h.ok("reveal_path", json!({"path": run.join("journal.json").display().to_string()}));
    let real_run = std::fs::canonicalize(&run).unwrap();
    assert_eq!(*h.opened.lock().unwrap(), vec![real_run.clone(), real_run]);
    assert_eq!(h.err_kind("reveal_path", json!({"path": "/etc"})), "refused");
    assert_eq!(
        h.err_kind("reveal_path", json!({"path": h.home().display().to_string()})),
        "refused"
    );
    let escape = format!("{}/../../../e2e/claude", run.display());
    assert_eq!(h.err_kind("reveal_path", json!({"path": escape})), "refused");
    assert_eq!(h.err_kind("reveal_path", json!({"path": "runs/run-1"})), "invalid-input");
    assert_eq!(h.err_kind("reveal_path", json!({"path": ""})), "invalid-input");
    assert_eq!(
        h.err_kind("reveal_path", json!({"path": runs.join("nope").display().to_string()})),
        "not-found"
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc", runs.join("link")).unwrap();
        assert_eq!(
            h.err_kind("reveal_path", json!({"path": runs.join("link").display().to_string()})),
            "refused"
        );
    }
    assert_eq!(h.opened.lock().unwrap().len(), 2);
}

#[test]
fn unknown_commands_are_rejected() {
    let h = harness(false);
    assert!(h.invoke("no_such_command", json!({})).is_err());
    // No filesystem plugin is exposed to the UI.
    assert!(h.invoke("plugin:fs|read_text_file", json!({"path": "/etc/passwd"})).is_err());
}

#[test]
fn search_finds_words_once_the_background_index_is_built_and_opens_at_the_hit() {
    let h = harness(true);
    // The app indexes in the background once the window has its first listing; the status says
    // how far it has come.
    h.ok("list_sessions", json!({"includeTemp": false}));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let s = h.ok("search_status", json!({}));
        if s["indexed"].as_u64().unwrap_or(0) > 0 && s["building"] == json!(false) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the index was never built: {s}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let r = h.ok("search", json!({"query": "QuantitySelector", "limit": 10}));
    let sessions = r["sessions"].as_array().unwrap();
    assert_eq!(sessions[0]["sessionId"], json!(CART), "{r}");
    let hit = &sessions[0]["hits"][0];
    let page = h.ok(
        "transcript_page",
        json!({"sessionId": CART, "agentId": null, "at": {"kind": "around", "offset": hit["offset"]}, "limit": 50}),
    );
    let shown = page["messages"].as_array().unwrap();
    assert!(
        shown.iter().any(|m| m["uuid"] == hit["uuid"]
            || (m["toolCall"]["toolUseId"] == hit["toolUseId"] && !hit["toolUseId"].is_null())),
        "the page around the hit shows it: {hit} {page}"
    );
    // Find in the transcript: every match in file order.
    let found = h.ok(
        "find_in_transcript",
        json!({"sessionId": CART, "agentId": null, "query": "QuantitySelector"}),
    );
    assert!(found["total"].as_u64().unwrap() >= 1, "{found}");
    assert!(found["matches"][0]["offset"].is_u64(), "{found}");
    assert_eq!(
        h.err_kind(
            "find_in_transcript",
            json!({"sessionId": CART, "agentId": "../x", "query": "a"})
        ),
        "invalid-input"
    );
    // A malformed query says what is wrong; bad arguments are refused before any work.
    assert_eq!(h.err_kind("search", json!({"query": "\"open", "limit": 10})), "invalid-input");
    assert_eq!(h.err_kind("search", json!({"query": "x", "limit": 0})), "invalid-input");
    let long = "word ".repeat(400);
    assert_eq!(h.err_kind("search", json!({"query": long, "limit": 10})), "invalid-input");
    let hostile = json!({"sessionId": "../x", "agentId": null, "at": {"kind": "after", "offset": 0}, "limit": 5});
    assert_eq!(h.err_kind("transcript_page", hostile), "invalid-input");
    let bad_agent = json!({"sessionId": CART, "agentId": "../../x", "at": {"kind": "after", "offset": 0}, "limit": 5});
    assert_eq!(h.err_kind("transcript_page", bad_agent), "invalid-input");
}

#[test]
fn desktop_report_reads_the_store_in_settings_and_checks_its_arguments() {
    let h = harness(false);
    // Nothing at the default place (under the test's own home): no desktop app here.
    let r = h.ok("desktop_report", json!({"account": null, "org": null}));
    assert_eq!(r["exists"], false, "{r}");
    let store = h.tmp.path().join("store");
    let (a, a1, a2) = (
        "a0000000-0000-4000-8000-00000000000a",
        "a1000000-0000-4000-8000-0000000000a1",
        "a2000000-0000-4000-8000-0000000000a2",
    );
    std::fs::create_dir_all(store.join(a).join(a2)).unwrap();
    std::fs::create_dir_all(store.join(a).join(a1)).unwrap();
    std::fs::write(
        store.join(a).join(a1).join("local_1.json"),
        r#"{"cliSessionId":"c1","title":"Talk","lastActivityAt":1780000000000}"#,
    )
    .unwrap();
    let s = h.ok("set_settings", json!({"patch": {"desktopStore": store.display().to_string()}}));
    assert_eq!(s["desktopStore"], store.display().to_string());
    let r = h.ok("desktop_report", json!({"account": a, "org": a2}));
    assert_eq!(r["current"]["rule"], "given");
    assert_eq!(r["missing"][0]["cliSessionId"], "c1");
    assert_eq!(r["sidebars"].as_array().unwrap().len(), 2);
    assert_eq!(
        h.err_kind("desktop_report", json!({"account": "../x", "org": a2})),
        "invalid-input"
    );
}

#[test]
fn cost_report_rolls_up_by_what_is_asked_and_refuses_a_bad_day() {
    let h = harness(true);
    let by_agent = h.ok("cost_report", json!({"by": "agent", "since": null}));
    assert_eq!(by_agent["by"], json!("agent"));
    let rows = by_agent["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["key"] == "alpha"), "{rows:?}");
    let total: f64 = rows.iter().map(|r| r["usd"].as_f64().unwrap()).sum();
    assert!((by_agent["totalUsd"].as_f64().unwrap() - total).abs() < 1e-9);
    assert!(total > 0.0, "the fixture's sessions made priced requests");
    let future = h.ok("cost_report", json!({"by": "day", "since": "2999-01-01"}));
    assert_eq!(future["rows"], json!([]));
    for bad in ["yesterday", "2026-13-01", "2026-12-01T00:00"] {
        assert_eq!(h.err_kind("cost_report", json!({"by": "day", "since": bad})), "invalid-input");
    }
    assert_eq!(h.err_kind("cost_report", json!({"by": "planet", "since": null})), "invalid-input");
}

#[test]
fn reopen_commands_check_their_arguments_and_answer_from_the_engine() {
    let h = harness(true);
    for days in [0, 367] {
        assert_eq!(
            h.err_kind("recent_work", json!({"days": days, "everySurface": false})),
            "invalid-input"
        );
    }
    // The fixture's folders (/home/dev/…) are not on this machine: left out, none offered.
    let work = h.ok("recent_work", json!({"days": 366, "everySurface": false}));
    assert_eq!(work["days"], json!(366));
    assert_eq!(work["rows"], json!([]));
    let left = work["leftOut"].as_array().unwrap();
    assert!(!left.is_empty() && left.iter().all(|l| l["reason"] == "folder-gone"), "{left:?}");
    assert_eq!(h.err_kind("git_states", json!({"folders": ["relative"]})), "invalid-input");
    let not_repo = h.tmp.path().join("plain");
    std::fs::create_dir_all(&not_repo).unwrap();
    let states = h.ok("git_states", json!({"folders": [not_repo.display().to_string()]}));
    assert_eq!(states.as_array().unwrap().len(), 1);
    assert_eq!(states[0]["kind"], json!("notARepository"), "a temp folder outside any repository");
    let s = h.ok("set_settings", json!({"patch": {"reopenRemoteControl": true}}));
    assert_eq!(s["reopenRemoteControl"], json!(true));
}
