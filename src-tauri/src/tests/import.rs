use serde_json::{Value, json};

use super::support::*;

#[test]
fn adopt_and_release_round_trip_through_ipc() {
    let h = harness(true);
    let candidates = h.ok("adoptable", json!({"agent": "alpha", "from": null, "allFolders": true}));
    let ids: Vec<&str> =
        candidates.as_array().unwrap().iter().map(|c| c["sessionId"].as_str().unwrap()).collect();
    assert!(ids.contains(&CART), "{candidates}");
    let adopted = h.ok("adopt", json!({"agent": "alpha", "sessionId": CART}));
    assert_eq!(adopted["agentName"], json!("alpha"));
    let record = h.fleet_dir().join(format!(".herdctl/adopted-sessions/{CART}.yaml"));
    assert!(record.is_file());
    let alpha = h.ok("agent_sessions", json!({"agent": "alpha"}));
    assert!(alpha.as_array().unwrap().iter().any(|s| s["sessionId"] == CART), "{alpha}");
    let released = h.ok("release", json!({"agent": "alpha", "sessionId": CART}));
    assert_eq!(released["released"], json!(true), "{released}");
    assert!(!record.exists());
    // The release is a run History lists; its undo puts the record back.
    let run = released["runId"].as_str().unwrap().to_owned();
    let runs = h.ok("list_runs", json!({}));
    let listed = runs.as_array().unwrap().iter().find(|r| r["runId"] == run.as_str()).unwrap();
    assert_eq!(listed["release"]["agentName"], json!("alpha"), "{listed}");
    let again = h.ok("release", json!({"agent": "alpha", "sessionId": CART}));
    assert_eq!(again["released"], json!(false), "{again}");
    assert_eq!(again["runId"], Value::Null);
    h.ok("undo_run", json!({"runId": run}));
    assert!(record.is_file(), "undo puts the released record back");
}

#[test]
fn adoption_commands_validate_their_input() {
    let h = harness(true);
    for id in ["../../etc/passwd", "", "a/b"] {
        assert_eq!(
            h.err_kind("adopt", json!({"agent": "alpha", "sessionId": id})),
            "invalid-input"
        );
        assert_eq!(
            h.err_kind("release", json!({"agent": "alpha", "sessionId": id})),
            "invalid-input"
        );
    }
    assert_eq!(h.err_kind("adopt", json!({"agent": "nobody", "sessionId": CART})), "not-found");
    assert_eq!(
        h.err_kind("adoptable", json!({"agent": "alpha", "from": "relative", "allFolders": false})),
        "invalid-input"
    );
    assert!(!h.fleet_dir().join(".herdctl/adopted-sessions").exists());
    let nofleet = harness(false);
    assert_eq!(nofleet.err_kind("adopt", json!({"agent": "alpha", "sessionId": CART})), "config");
}

#[test]
fn import_apply_list_and_undo_through_ipc() {
    let h = harness(false);
    // A transcript from elsewhere, not yet in the Claude home.
    let outside = h.tmp.path().join("downloads");
    std::fs::create_dir_all(&outside).unwrap();
    let sid = "e5e5e5e5-0000-4000-8000-000000000001";
    let src = fixture_root()
        .join("claude/projects/-home-dev-notes/c3c3c3c3-0000-4000-8000-000000000001.jsonl");
    let text =
        std::fs::read_to_string(src).unwrap().replace("c3c3c3c3-0000-4000-8000-000000000001", sid);
    std::fs::write(outside.join(format!("{sid}.jsonl")), text).unwrap();

    let plan = h.ok(
        "plan_import",
        json!({"target": {"kind": "claudeHome"}, "sources": [outside.display().to_string()], "mode": "copy"}),
    );
    assert_eq!(plan["placements"].as_array().unwrap().len(), 1, "{plan}");
    let report = h.ok("apply_import", json!({"plan": plan, "onProgress": "__CHANNEL__:7"}));
    let run_id = report["runId"].as_str().unwrap_or_else(|| panic!("{report}")).to_owned();
    assert_eq!(report["placed"].as_array().unwrap().len(), 1, "{report}");
    let placed = h.home().join(format!("projects/-home-dev-notes/{sid}.jsonl"));
    assert!(placed.is_file());

    let runs = h.ok("list_runs", json!({}));
    assert_eq!(runs.as_array().unwrap().len(), 1, "{runs}");
    assert_eq!(runs[0]["runId"], json!(run_id));
    // The run folder may be revealed; it is inside <data dir>/runs.
    h.ok("reveal_path", json!({"path": runs[0]["runDir"]}));

    let undo_plan = h.ok("plan_undo", json!({"runId": run_id}));
    assert!(placed.is_file(), "planning an undo changes nothing");
    assert_ne!(undo_plan, Value::Null);
    h.ok("undo_run", json!({"runId": run_id}));
    assert!(!placed.exists());
}

#[test]
fn import_commands_validate_their_input() {
    let h = harness(true);
    let target = json!({"kind": "claudeHome"});
    for sources in [json!([]), json!(["relative/file.jsonl"]), json!([""])] {
        assert_eq!(
            h.err_kind(
                "plan_import",
                json!({"target": target, "sources": sources, "mode": "copy"})
            ),
            "invalid-input",
            "{sources}"
        );
    }
    assert!(
        h.invoke("plan_import", json!({"target": target, "sources": ["/x"], "mode": "teleport"}))
            .is_err()
    );
    for id in ["../../etc", "", "run/1"] {
        assert_eq!(h.err_kind("plan_undo", json!({"runId": id})), "invalid-input", "{id:?}");
        assert_eq!(h.err_kind("undo_run", json!({"runId": id})), "invalid-input", "{id:?}");
    }
    assert_eq!(h.ok("list_runs", json!({})), json!([]));
    h.ok("cancel_run", json!({}));
}
