//! `corral-cli search` and `index` as processes: the JSON contract, the index built on the first
//! call and updated by later ones, malformed queries, and two processes building at once.

use std::io::Write;
use std::process::Output;

use crate::commands::cli_command as cli;
use crate::home::{Home, sid};

fn run(home: &Home, args: &[&str]) -> Output {
    cli(home, args).output().unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn search_json_keeps_its_contract_and_later_calls_see_new_words() {
    let home = Home::new();
    let first = run(&home, &["--json", "search", "bash", "arrays"]);
    let v = json(&first);
    assert!(
        String::from_utf8_lossy(&first.stderr).contains("indexing"),
        "the first call builds the index with progress on stderr"
    );
    assert_eq!(v["query"], "bash arrays");
    assert_eq!(v["totalSessions"], 1);
    let s = &v["sessions"][0];
    for key in ["sessionId", "workingDirectory", "agentName", "customName", "autoName", "hits"] {
        assert!(s.get(key).is_some(), "session key {key}: {s}");
    }
    assert_eq!(s["sessionId"], sid("d1"));
    let hit = &s["hits"][0];
    for key in ["uuid", "role", "timestamp", "toolName", "agentId", "snippet"] {
        assert!(hit.get(key).is_some(), "hit key {key}: {hit}");
    }
    assert_eq!(hit["uuid"], "000000d1-0001-4000-8000-000000000001");
    assert_eq!(hit["role"], "user");
    assert!(hit["snippet"].as_str().unwrap().contains("bash arrays"));

    // --limit counts sessions; filters combine with text.
    let v = json(&run(&home, &["--json", "search", "origin:schedule", "--limit", "1"]));
    assert_eq!(v["sessions"].as_array().unwrap().len(), 1);
    assert!(v["totalSessions"].as_u64().unwrap() >= 2, "{v}");

    // An appended message is found by the next call, which reads only the new bytes.
    let path = home.transcript("-home-u-scratch", "d1");
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    writeln!(f, r#"{{"type":"user","uuid":"late-1","sessionId":"{}","cwd":"/home/u/scratch","message":{{"role":"user","content":"a late wombatword"}}}}"#, sid("d1")).unwrap();
    drop(f);
    let v = json(&run(&home, &["--json", "index"]));
    assert_eq!(
        (v["filesAppended"].as_u64(), v["filesIndexed"].as_u64()),
        (Some(1), Some(0)),
        "{v}"
    );
    let v = json(&run(&home, &["--json", "search", "wombatword"]));
    assert_eq!(v["sessions"][0]["hits"][0]["uuid"], "late-1");

    // The table names the session and marks the words.
    let out = run(&home, &["search", "wombatword"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("[wombatword]") && text.contains(&sid("d1")),
        "{text}"
    );

    // `-word` leaves a word out, wherever it stands and whatever follows it.
    for args in [
        &["--json", "search", "wombatword", "-late"][..],
        &["search", "-late", "wombatword", "--json", "--limit", "5"],
        &["--json", "search", "wombatword", "-late", "--limit", "5"],
    ] {
        let v = json(&run(&home, args));
        let late = v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["hits"].as_array().unwrap().iter().any(|h| h["uuid"] == "late-1"));
        assert!(!late, "{args:?}: {v}");
    }
    let v = json(&run(&home, &["--json", "search", "wombatword", "late"]));
    assert_eq!(v["sessions"][0]["hits"][0]["uuid"], "late-1", "without the minus it is found");

    // A malformed query: one clear line, exit code 2.
    let out = run(&home, &["search", "role:robot"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a role") && err.lines().count() == 1, "{err}");
}

#[test]
fn two_processes_building_at_once_leave_one_good_index() {
    let home = Home::new();
    let children: Vec<_> = (0..2)
        .map(|_| {
            cli(&home, &["--json", "index", "--rebuild"])
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        let v = json(&out);
        // One built it; the other either waited and found nothing to do, or was told it was busy.
        assert!(v["busy"].is_boolean(), "{v}");
    }
    let v = json(&run(&home, &["--json", "search", "bash", "arrays"]));
    assert_eq!(v["totalSessions"], 1, "{v}");
    let v = json(&run(&home, &["--json", "index"]));
    assert_eq!((v["filesIndexed"].as_u64(), v["busy"].as_bool()), (Some(0), Some(false)), "{v}");
}
