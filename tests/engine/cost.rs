//! What sessions cost at list price (#45): Claude Code's own figure when a `cost-state` line
//! gives it, else the bundled table's price of each response once (streamed chunks are one
//! response), by the day it was made; roll-ups by folder and agent; kept in the index and
//! carried on as a transcript grows.

use std::io::Write;
use std::path::{Path, PathBuf};

use corral_engine::ListOptions;
use corral_engine::model::{Cost, CostSource, SessionSummary};

use crate::home::Home;
use crate::search::user;

const ALL: ListOptions = ListOptions { limit: None, include_temp: true };
const CWD: &str = "/home/u/costs";

fn sid(n: u32) -> String {
    format!("c0570000-0000-4000-8000-{n:012x}")
}

/// An assistant line as Claude Code writes one chunk of a streamed response.
fn chunk(session: &str, id: &str, model: &str, at: &str, usage: &serde_json::Value) -> String {
    serde_json::json!({
        "type": "assistant", "uuid": format!("a-{id}-{}", usage["output_tokens"]),
        "sessionId": session, "cwd": CWD, "isSidechain": false, "timestamp": at,
        "requestId": format!("req-{id}"),
        "message": {"id": id, "model": model, "role": "assistant",
                    "content": [{"type": "text", "text": "answer"}], "usage": usage}
    })
    .to_string()
}

fn usage(input: u64, output: u64, read: u64, five: u64, hour: u64) -> serde_json::Value {
    serde_json::json!({
        "input_tokens": input, "output_tokens": output, "cache_read_input_tokens": read,
        "cache_creation_input_tokens": five + hour,
        "cache_creation": {"ephemeral_5m_input_tokens": five, "ephemeral_1h_input_tokens": hour},
        "server_tool_use": {"web_search_requests": 0}
    })
}

/// Claude Code's `cost-state` line (cumulative over the session).
fn cost_state(session: &str, usd: f64, unknown: bool) -> String {
    serde_json::json!({
        "type": "cost-state", "sessionId": session, "totalCostUSD": usd,
        "modelUsage": {"claude-opus-5-5": {"outputTokens": 1, "costUSD": usd}},
        "hasUnknownModelCost": unknown
    })
    .to_string()
}

fn write(home: &Home, n: u32, lines: &[String]) -> PathBuf {
    let dir = home.claude().join("projects").join("-home-u-costs");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.jsonl", sid(n)));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn append(path: &Path, lines: &[String]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all((lines.join("\n") + "\n").as_bytes()).unwrap();
}

fn cost_of(sessions: &[SessionSummary], n: u32) -> Option<Cost> {
    sessions.iter().find(|s| s.session_id == sid(n)).unwrap().cost
}

fn all(home: &Home, data: &Path) -> (Vec<SessionSummary>, Option<Cost>) {
    let listing = home.catalog_with_data(data).all_sessions(ALL).unwrap();
    let group = listing.groups.iter().find(|g| g.working_directory == CWD).unwrap();
    let sessions = listing.groups.iter().flat_map(|g| g.sessions.clone()).collect();
    (sessions, group.cost)
}

fn close(c: Option<Cost>, usd: f64) -> bool {
    c.is_some_and(|c| (c.usd - usd).abs() < 1e-9)
}

/// Three sessions in one folder: one priced by the table (a response streamed in two chunks,
/// and one of a model no table prices), one Claude Code priced, and one with no request.
fn three_sessions(home: &Home) -> PathBuf {
    let (a, b, c) = (sid(1), sid(2), sid(3));
    let at = "2026-12-01T10:00:00.000Z";
    let table = write(
        home,
        1,
        &[
            user(&a, CWD, "u-1", "price me"),
            // The first chunk's output count is a placeholder; the last one's is the response's.
            chunk(&a, "msg_1", "claude-opus-5-5", at, &usage(1000, 1, 1000, 1000, 2000)),
            chunk(&a, "msg_1", "claude-opus-5-5", at, &usage(1000, 1000, 1000, 1000, 2000)),
            chunk(&a, "msg_2", "claude-weird-9", at, &usage(10, 10, 0, 0, 0)),
        ],
    );
    write(
        home,
        2,
        &[
            user(&b, CWD, "u-2", "priced by the client"),
            chunk(&b, "msg_3", "claude-opus-5-5", at, &usage(1000, 1000, 1000, 1000, 2000)),
            cost_state(&b, 0.25, false),
            chunk(&b, "msg_4", "claude-opus-5-5", at, &usage(1000, 1000, 1000, 1000, 2000)),
            cost_state(&b, 0.5, false),
        ],
    );
    write(home, 3, &[user(&c, CWD, "u-3", "never answered")]);
    table
}

#[test]
fn a_session_costs_claude_codes_own_figure_or_the_tables_price_of_each_response_once() {
    let home = Home::new();
    three_sessions(&home);
    let (sessions, group) = all(&home, &home.data);

    // 1000×4 + 1000×20 + 1000×0.2 + 1000×5 + 2000×8 per million: $0.0452, counted once
    // however many chunks it was streamed in; the unknown model is left out and said.
    let table = cost_of(&sessions, 1).unwrap();
    assert!(close(Some(table), 0.0452), "{table:?}");
    assert_eq!((table.source, table.unpriced), (CostSource::Table, true));

    // The last cost-state line, not the table's price of the same responses added to it.
    let recorded = cost_of(&sessions, 2).unwrap();
    assert!(close(Some(recorded), 0.5), "{recorded:?}");
    assert_eq!((recorded.source, recorded.unpriced), (CostSource::ClaudeCode, false));

    assert_eq!(cost_of(&sessions, 3), None, "no request, no cost");

    let group = group.unwrap();
    assert!(close(Some(group), 0.5452), "{group:?}");
    assert_eq!((group.source, group.unpriced), (CostSource::Mixed, true));
}

#[test]
fn costs_are_kept_in_the_index_and_carried_on_as_a_transcript_grows() {
    let home = Home::new();
    let table = three_sessions(&home);
    let (cold, _) = all(&home, &home.data);
    let (warm, _) = all(&home, &home.data);
    assert_eq!(cost_of(&warm, 1), cost_of(&cold, 1), "the warm listing reads the index");

    // The next response, and a later chunk of it: the listing reads only what was appended.
    let at = "2026-12-01T11:00:00.000Z";
    let a = sid(1);
    append(&table, &[chunk(&a, "msg_5", "claude-sonnet-5-5", at, &usage(1000, 1, 0, 0, 0))]);
    let (grown, _) = all(&home, &home.data);
    // + 1000×2 + 1×10 per million.
    assert!(close(cost_of(&grown, 1), 0.0452 + 0.00201), "{:?}", cost_of(&grown, 1));
    append(&table, &[chunk(&a, "msg_5", "claude-sonnet-5-5", at, &usage(1000, 1000, 0, 0, 0))]);
    let (grown, _) = all(&home, &home.data);
    // The response's last chunk replaces its first: + 1000×2 + 1000×10 per million.
    assert!(close(cost_of(&grown, 1), 0.0452 + 0.012), "{:?}", cost_of(&grown, 1));
    let fresh = tempfile::tempdir().unwrap();
    let (cold_again, _) = all(&home, fresh.path());
    assert_eq!(cost_of(&cold_again, 1), cost_of(&grown, 1), "read whole, the same figure");
}

#[test]
fn a_price_that_changed_is_applied_by_the_day_of_the_response() {
    let home = Home::new();
    let a = sid(9);
    // A 212,000-token prompt to Opus 4.6: a tier until 2026-03-13, one price since.
    let long = usage(150_000, 1000, 60_000, 0, 2000);
    write(
        &home,
        9,
        &[
            user(&a, CWD, "u-9", "a long prompt"),
            chunk(&a, "msg_old", "claude-opus-4-6", "2026-03-12T23:59:59.000Z", &long),
            chunk(&a, "msg_new", "claude-opus-4-6", "2026-03-13T00:00:01.000Z", &long),
        ],
    );
    let (sessions, _) = all(&home, &home.data);
    assert!(close(cost_of(&sessions, 9), 1.6375 + 0.825), "{:?}", cost_of(&sessions, 9));
}

#[test]
fn an_agent_costs_what_its_sessions_cost() {
    let home = Home::new();
    let catalog = home.catalog();
    let before = catalog.agents().unwrap();
    let alpha = before.iter().find(|a| a.name == "alpha").unwrap();
    let mine = catalog.agent_sessions("alpha", ALL).unwrap();
    let one = mine.first().unwrap();
    let without = alpha.cost.map_or(0.0, |c| c.usd);
    append(Path::new(&one.transcript_path), &[cost_state(&one.session_id, 7.25, true)]);

    let after = home.catalog().agents().unwrap();
    let alpha = after.iter().find(|a| a.name == "alpha").unwrap().cost.unwrap();
    let theirs = one.cost.map_or(0.0, |c| c.usd);
    assert!((alpha.usd - (without - theirs + 7.25)).abs() < 1e-9, "{alpha:?}");
    assert!(alpha.unpriced, "Claude Code's unknown-model flag is carried up");
}
