//! `delete`, `quarantine` and `storage` as a person runs them: a dry run changes nothing, a
//! delete is a run `undo` takes back, the quarantine lists it, and the storage report counts it.

use std::process::Output;

use crate::commands::cli_command;
use crate::home::Home;

fn json(home: &Home, args: &[&str]) -> serde_json::Value {
    let out: Output = cli_command(home, &[&["--json"], args].concat()).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn listed(home: &Home, id: &str) -> bool {
    let v = json(home, &["sessions"]);
    let groups = v["groups"].as_array().unwrap();
    groups.iter().flat_map(|g| g["sessions"].as_array().unwrap()).any(|s| s["sessionId"] == id)
}

#[test]
fn storage_delete_quarantine_and_undo_from_the_command_line() {
    let home = Home::new();
    let report = json(&home, &["storage"]);
    let areas = report["areas"].as_array().unwrap();
    let total: u64 = areas.iter().map(|a| a["bytes"].as_u64().unwrap()).sum();
    assert_eq!(report["totalBytes"].as_u64().unwrap(), total);
    assert!(areas.iter().any(|a| a["name"] == "projects"), "{areas:?}");
    let top = &report["largest"][0];
    let id = top["sessionId"].as_str().unwrap().to_owned();
    let bytes = top["bytes"].as_u64().unwrap();
    assert!(listed(&home, &id));

    let plan = json(&home, &["delete", &id, "--dry-run"]);
    assert_eq!(plan["sessions"][0]["sessionId"], id.as_str());
    assert_eq!(plan["bytes"].as_u64().unwrap(), bytes, "{plan}");
    assert!(listed(&home, &id), "a dry run changed something");

    let done = json(&home, &["delete", &id]);
    let run = done["runId"].as_str().unwrap().to_owned();
    assert_eq!(done["deleted"][0], id.as_str());
    assert!(!listed(&home, &id));
    let runs = json(&home, &["quarantine", "list"]);
    assert_eq!(runs[0]["runId"], run.as_str());
    assert_eq!(runs[0]["sessions"][0]["sessionId"], id.as_str());
    assert_eq!(json(&home, &["storage"])["quarantineBytes"].as_u64().unwrap(), bytes);

    json(&home, &["undo", &run]);
    assert!(listed(&home, &id));
    assert_eq!(json(&home, &["storage"])["quarantineBytes"].as_u64().unwrap(), 0);
}

#[test]
fn a_delete_with_nothing_to_pick_is_a_clear_error() {
    let home = Home::new();
    let out = cli_command(&home, &["delete"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("name the sessions to delete"), "{err}");
}
