//! `corral-cli` end to end on the fixture home, and the no-Tauri guard.

use std::process::{Command, Output};

use crate::home::{Home, sid};

/// `corral-cli ARGS` on the fixture home, its fleet and its own data dir.
pub fn cli_command(home: &Home, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_corral-cli"));
    c.args(args)
        .arg("--claude-home")
        .arg(home.claude())
        .arg("--fleet")
        .arg(home.root.join("fleet/herdctl.yaml"))
        .arg("--data-dir")
        .arg(&home.data)
        // Never fall back to the real home.
        .env("HOME", home.root.join("no-home"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CORRAL_DATA_DIR")
        // Nor to the real desktop app's store, nor to a desktop session's own entry.
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("APPDATA")
        .env_remove("CLAUDE_CODE_HOST_SESSION_ID");
    c
}

fn cli(home: &Home, args: &[&str]) -> Output {
    cli_command(home, args).output().unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

const SESSION_KEYS: [&str; 15] = [
    "sessionId",
    "workingDirectory",
    "mtime",
    "origin",
    "agentName",
    "resumable",
    "customName",
    "autoName",
    "preview",
    "gitBranch",
    "claudeCodeVersion",
    "firstMessageAt",
    "lastMessageAt",
    "messageCount",
    "sizeBytes",
];

/// Each agent's tokens are its sessions' together, in JSON and in the table.
#[test]
fn agents_carry_the_tokens_of_their_sessions() {
    let home = Home::new();
    let sessions = json(&cli(&home, &["sessions", "--json"]));
    let mut output_by_agent = std::collections::HashMap::<String, u64>::new();
    for g in sessions["groups"].as_array().unwrap() {
        for s in g["sessions"].as_array().unwrap() {
            if let Some(agent) = s["agentName"].as_str() {
                *output_by_agent.entry(agent.to_owned()).or_default() +=
                    s["tokens"]["outputTokens"].as_u64().unwrap();
            }
        }
    }
    let agents = json(&cli(&home, &["agents", "--json"]));
    let agents = agents["agents"].as_array().unwrap();
    for a in agents {
        let name = a["name"].as_str().unwrap();
        let want = output_by_agent.get(name).copied().unwrap_or(0);
        assert_eq!(a["tokens"]["outputTokens"].as_u64().unwrap(), want, "{name}");
    }
    assert!(output_by_agent.values().any(|n| *n > 0));
    let table = String::from_utf8(cli(&home, &["agents"]).stdout).unwrap();
    assert!(table.lines().all(|l| l.contains(" tokens  ")), "{table}");
}

#[test]
fn sessions_json_grouped() {
    let home = Home::new();
    let v = json(&cli(&home, &["sessions", "--json"]));
    let groups = v["groups"].as_array().unwrap();
    assert!(!groups.is_empty());
    for g in groups {
        for k in ["workingDirectory", "encodedPath", "agentName", "sessionCount", "sessions"] {
            assert!(g.get(k).is_some(), "group key {k}");
        }
        for s in g["sessions"].as_array().unwrap() {
            for k in SESSION_KEYS {
                assert!(s.get(k).is_some(), "session key {k} in {s}");
            }
            let origin = s["origin"].as_str().unwrap();
            assert!(["web", "discord", "slack", "schedule", "native", "adopted"].contains(&origin));
            assert!(s["mtime"].as_str().unwrap().ends_with('Z'));
        }
    }
    let alpha = groups.iter().find(|g| g["workingDirectory"] == "/home/u/projects/alpha").unwrap();
    assert_eq!(alpha["agentName"], "alpha");
    assert_eq!(alpha["sessionCount"], 5);
}

#[test]
fn sessions_json_for_an_agent_with_limit() {
    let home = Home::new();
    // Global flags are accepted after the subcommand too.
    let v = json(&cli(&home, &["sessions", "--agent", "alpha", "--limit", "2", "--json"]));
    let s = v["sessions"].as_array().unwrap();
    assert_eq!(s.len(), 2);
    assert_eq!(s[0]["sessionId"], sid("a2"));
    assert_eq!(s[0]["origin"], "web");
    assert_eq!(s[1]["customName"], "Nightly report (renamed)");
    assert_eq!(s[1]["gitBranch"], "main");
}

#[test]
fn show_json() {
    let home = Home::new();
    let v = json(&cli(&home, &["show", &sid("a1"), "--json"]));
    assert_eq!(v["sessionId"], sid("a1"));
    assert_eq!(v["workingDirectory"], "/home/u/projects/alpha");
    let msgs = v["messages"].as_array().unwrap();
    assert!(
        msgs.iter().all(|m| ["user", "assistant", "tool"].contains(&m["role"].as_str().unwrap()))
    );
    let tool = msgs.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["toolCall"]["toolName"], "Bash");
    assert_eq!(tool["toolCall"]["inputSummary"], "make report");
    assert_eq!(tool["toolCall"]["pending"], false);
    assert_eq!(tool["toolCall"]["durationMs"], 4000);
    for k in ["inputTokens", "outputTokens", "turnCount"] {
        assert!(v["usage"].get(k).is_some());
    }
    assert_eq!(v["usage"]["turnCount"], 2);
    // The nested subagent and the flat 2.0.x agent file that carries a1's session id.
    assert_eq!(v["subagents"].as_array().unwrap().len(), 2);
}

#[test]
fn export_to_stdout_and_to_a_file_never_replacing_one_unasked() {
    let home = Home::new();
    let md = cli(&home, &["export", &sid("a1"), "--format", "md"]);
    assert!(md.status.success(), "{}", String::from_utf8_lossy(&md.stderr));
    let text = String::from_utf8(md.stdout).unwrap();
    assert!(text.starts_with("# "), "{text}");
    assert!(text.contains("\n## You"), "{text}");
    assert!(text.contains("### Tool: Bash — make report"), "{text}");
    let out = home.root.join("chat.json");
    let path = out.to_str().unwrap();
    let v = json(&cli(
        &home,
        &["export", &sid("a1"), "--format", "json", "--subagents", "--out", path, "--json"],
    ));
    assert_eq!(v["path"], path);
    assert_eq!(v["subagents"], 2);
    let back: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(back["session"]["sessionId"], sid("a1"));
    assert_eq!(back["subagents"].as_array().unwrap().len(), 2);
    let again = cli(&home, &["export", &sid("a1"), "--format", "html", "--out", path]);
    assert_eq!(again.status.code(), Some(2), "an existing file is refused");
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    assert_eq!(std::fs::read(&out).unwrap().first(), Some(&b'{'), "and left as it was");
    let replaced =
        cli(&home, &["export", &sid("a1"), "--format", "html", "--out", path, "--replace"]);
    assert!(replaced.status.success());
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("<!DOCTYPE html>"));
    let bad = cli(&home, &["export", &sid("a1"), "--format", "pdf"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn rename_and_clear() {
    let home = Home::new();
    let v = json(&cli(&home, &["rename", &sid("d1"), "Bash arrays", "--json"]));
    assert_eq!(v["customName"], "Bash arrays");
    let meta = home.state().join("session-metadata/adhoc.json");
    assert!(std::fs::read_to_string(&meta).unwrap().contains("Bash arrays"));
    let v = json(&cli(&home, &["rename", &sid("d1"), "--clear", "--json"]));
    assert!(v["customName"].is_null());
}

/// A rename from the command line says how to undo it; `runs` lists it with the names before
/// and after; `undo` brings the earlier name back (in herdctl's records and Claude Code's).
#[test]
fn a_rename_is_listed_and_undone_from_the_command_line() {
    let home = Home::new();
    json(&cli(&home, &["rename", &sid("d1"), "First", "--json"]));
    let out = cli(&home, &["rename", &sid("d1"), "Second \u{202e}"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text.lines().find_map(|l| l.strip_prefix("run ")).unwrap();
    let id = id.split(';').next().unwrap().to_owned();
    assert!(text.contains(&format!("undo with: corral-cli undo {id}")), "{text}");
    let listed = String::from_utf8_lossy(&cli(&home, &["runs"]).stdout).into_owned();
    let first = listed.lines().next().unwrap();
    assert!(
        first.starts_with(&format!(
            "{id}  rename {}  \"First\" -> \"Second \\\\u{{202e}}\"",
            sid("d1")
        )),
        "{listed}"
    );
    let undo = String::from_utf8_lossy(&cli(&home, &["undo", &id]).stdout).into_owned();
    assert!(undo.contains("title-appended") && undo.contains("name-restored"), "{undo}");
    let meta = std::fs::read_to_string(home.state().join("session-metadata/adhoc.json")).unwrap();
    assert!(meta.contains("\"First\"") && !meta.contains("Second"), "{meta}");
    let listed = String::from_utf8_lossy(&cli(&home, &["runs"]).stdout).into_owned();
    assert!(listed.lines().next().unwrap().contains("  undone  "), "{listed}");
}

/// A release from the command line says how to undo it; `runs` lists it; `undo` puts the
/// adoption record back.
#[test]
fn a_release_is_listed_and_undone_from_the_command_line() {
    let home = Home::new();
    let id = sid("d1");
    json(&cli(&home, &["adopt", "alpha", &id, "--json"]));
    let record = home.state().join(format!("adopted-sessions/{id}.yaml"));
    let adopted = std::fs::read(&record).unwrap();
    let out = cli(&home, &["release", "alpha", &id]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.starts_with(&format!("released {id} from alpha")), "{text}");
    let run = text.trim().rsplit(' ').next().unwrap().to_owned();
    assert!(!record.exists());
    let listed = String::from_utf8_lossy(&cli(&home, &["runs"]).stdout).into_owned();
    assert!(
        listed.lines().next().unwrap().starts_with(&format!("{run}  release {id} from alpha")),
        "{listed}"
    );
    let undo = String::from_utf8_lossy(&cli(&home, &["undo", &run]).stdout).into_owned();
    assert!(undo.contains("record-put-back"), "{undo}");
    assert_eq!(std::fs::read(&record).unwrap(), adopted);
    let again = cli(&home, &["release", "beta", &id]);
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(text.contains("has no adoption record by beta; nothing changed"), "{text}");
}

#[test]
fn bad_input_exits_non_zero_with_one_clear_line() {
    let home = Home::new();
    for args in [
        vec!["show", "../../etc/passwd"],
        vec!["rename", "../../etc/passwd", "x"],
        vec!["show", "00000099-0000-4000-8000-000000000099"],
    ] {
        let out = cli(&home, &args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.starts_with("corral-cli: "), "{err}");
        assert!(out.stdout.is_empty());
    }
    // An unreadable fleet file.
    let out = Command::new(env!("CARGO_BIN_EXE_corral-cli"))
        .args(["sessions", "--json", "--fleet"])
        .arg(home.root.join("missing.yaml"))
        .arg("--claude-home")
        .arg(home.claude())
        .arg("--data-dir")
        .arg(&home.data)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("missing.yaml"), "{err}");
}

#[test]
fn claude_home_comes_from_the_environment() {
    let home = Home::new();
    let out = Command::new(env!("CARGO_BIN_EXE_corral-cli"))
        .args(["sessions", "--json", "--data-dir"])
        .arg(&home.data)
        .env("CLAUDE_CONFIG_DIR", home.claude())
        .env("HOME", home.root.join("no-home"))
        .output()
        .unwrap();
    let v = json(&out);
    assert!(!v["groups"].as_array().unwrap().is_empty());
}

/// `generate` writes a home and a fleet of the asked size, lists as many sessions, and never
/// writes over an earlier corpus.
#[test]
fn generate_writes_a_home_and_a_fleet_and_never_overwrites() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("corpus");
    let generate = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_corral-cli"))
            .arg("generate")
            .args(args)
            .env("HOME", tmp.path().join("no-home"))
            .output()
            .unwrap()
    };
    let out_arg = out.to_str().unwrap();
    let args = [
        "--out",
        out_arg,
        "--sessions",
        "12",
        "--size",
        "1M",
        "--seed",
        "7",
        "--with-fleet",
        "--jobs",
        "9",
    ];
    let v = json(&generate(&args));
    assert_eq!(v["sessions"], 12);
    assert_eq!(v["jobFiles"], 9);
    assert!(v["try"].as_str().unwrap().contains("--fleet"));
    assert!(out.join("fleet/herdctl.yaml").is_file());
    // 12 main transcripts (subagent files aside) in the generated home.
    let mut count = 0;
    for folder in std::fs::read_dir(out.join("claude/projects")).unwrap() {
        for f in std::fs::read_dir(folder.unwrap().path()).unwrap() {
            let name = f.unwrap().file_name().to_string_lossy().into_owned();
            count += usize::from(name.ends_with(".jsonl") && !name.starts_with("agent-"));
        }
    }
    assert_eq!(count, 12);
    // Again: refused (exit 1), nothing overwritten; a bad size is invalid input (exit 2).
    let again = generate(&args);
    assert_eq!(again.status.code(), Some(1), "{}", String::from_utf8_lossy(&again.stderr));
    let bad = generate(&["--out", "x", "--size", "lots"]);
    assert_eq!(bad.status.code(), Some(2), "{}", String::from_utf8_lossy(&bad.stderr));
}

/// `formats` counts every kind of line in the fixture home, each with what Corral does with it,
/// and names a kind no reader knows with where it was first seen.
#[test]
fn formats_counts_every_kind_and_names_the_unknown_ones() {
    let home = Home::new();
    let before = json(&cli(&home, &["formats", "--json"]));
    let count = |v: &serde_json::Value, name: &str| {
        v["lineTypes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"] == name)
            .map(|k| k["count"].as_u64().unwrap())
    };
    assert!(count(&before, "user").unwrap() > 0 && count(&before, "assistant").unwrap() > 0);
    assert!(before["files"].as_u64().unwrap() > 3);
    let path = home.claude().join("projects/-home-u-newtype");
    std::fs::create_dir_all(&path).unwrap();
    let file = path.join(format!("{}.jsonl", sid("77")));
    let line = serde_json::json!({"type":"user","sessionId":sid("77"),"uuid":"u","parentUuid":null,
        "cwd":"/home/u/newtype","message":{"role":"user","content":"hi"}});
    std::fs::write(&file, format!("{line}\n{{\"type\":\"hologram-state\"}}\n")).unwrap();
    let after = json(&cli(&home, &["formats", "--json"]));
    let unknown: Vec<&serde_json::Value> =
        after["lineTypes"].as_array().unwrap().iter().filter(|k| k["reading"].is_null()).collect();
    assert_eq!(unknown.len(), 1, "{after}");
    assert_eq!(unknown[0]["name"], "hologram-state");
    assert_eq!(unknown[0]["example"], format!("{}:2", file.display()));
    assert_eq!(count(&after, "user"), count(&before, "user").map(|n| n + 1));
    let table = String::from_utf8(cli(&home, &["formats"]).stdout).unwrap();
    assert!(table.contains("hologram-state") && table.contains("UNKNOWN"), "{table}");
    assert!(table.contains("1 kinds Corral does not know by name: hologram-state"), "{table}");
}

/// `cost`: rows most expensive first that add up to the total, labelled as list prices with
/// their source; a day that is no day is refused with a usage error.
#[test]
fn cost_rolls_up_what_sessions_cost_and_says_what_the_figures_are() {
    let home = Home::new();
    let report = json(&cli(&home, &["cost", "--by", "agent", "--json"]));
    let rows = report["rows"].as_array().unwrap();
    assert!(rows.len() >= 2, "{report}");
    let usd: Vec<f64> = rows.iter().map(|r| r["usd"].as_f64().unwrap()).collect();
    assert!(usd.windows(2).all(|w| w[0] >= w[1]), "{usd:?}");
    assert!((usd.iter().sum::<f64>() - report["totalUsd"].as_f64().unwrap()).abs() < 1e-9);
    assert!(rows.iter().any(|r| r["key"] == "alpha"), "{report}");
    // The fixture's transcripts are older than Claude Code's cost-state lines: table-priced.
    assert!(rows.iter().all(|r| r["source"] == "table"), "{report}");

    let out = cli(&home, &["cost", "--by", "day", "--since", "2026-11-20"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("total") && text.contains("List-price equivalents"), "{text}");
    assert!(text.contains("Prices: genai-prices"), "{text}");
    assert!(!text.contains("2026-11-17"), "before --since: {text}");

    let bad = cli(&home, &["cost", "--since", "yesterday"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a day"));
}
