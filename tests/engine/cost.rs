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
fn a_session_resumed_by_a_version_that_writes_cost_state_adds_what_came_before() {
    use corral_engine::costs::{CostBy, report};
    let home = Home::new();
    let e = sid(11);
    let at = "2026-12-01T10:00:00.000Z";
    let versioned =
        |line: String, v: &str| line.replacen('{', &format!(r#"{{"version":"{v}","#), 1);
    let old = chunk(&e, "msg_o", "claude-opus-5-5", at, &usage(1000, 1000, 1000, 1000, 2000));
    let new = chunk(&e, "msg_n", "claude-opus-5-5", at, &usage(1000, 1000, 1000, 1000, 2000));
    write(
        &home,
        11,
        &[
            versioned(user(&e, CWD, "u-1", "begun in 2.1.100"), "2.1.100"),
            versioned(old, "2.1.100"),
            versioned(user(&e, CWD, "u-2", "resumed in 2.1.300"), "2.1.300"),
            versioned(new, "2.1.300"),
            cost_state(&e, 0.05, false),
        ],
    );
    let (sessions, _) = all(&home, &home.data);
    // Claude Code's figure covers the resumed run only; the table prices the run before it.
    let cost = cost_of(&sessions, 11).unwrap();
    assert!(close(Some(cost), 0.05 + 0.0452), "{cost:?}");
    assert_eq!(cost.source, CostSource::Mixed);
    let by_session = report(&home.catalog(), CostBy::Session, None).unwrap();
    let r = row(&by_session, &e);
    assert!((r.usd - (0.05 + 0.0452)).abs() < 1e-9, "{r:?}");
    assert_eq!(r.source, CostSource::Mixed);
}

#[test]
fn a_1_0_transcripts_inline_subagent_run_is_paid_for_but_not_the_conversations_tokens() {
    use corral_engine::costs::{CostBy, report};
    let home = Home::new();
    let f = sid(12);
    let at = "2026-12-01T10:00:00.000Z";
    let inline = chunk(&f, "msg_s", "claude-sonnet-5-5", at, &usage(1000, 1000, 0, 0, 0))
        .replace(r#""isSidechain":false"#, r#""isSidechain":true"#);
    write(
        &home,
        12,
        &[
            user(&f, CWD, "u-1", "delegate inline"),
            chunk(&f, "msg_m", "claude-opus-5-5", at, &usage(1000, 1000, 1000, 1000, 2000)),
            inline,
        ],
    );
    let (sessions, _) = all(&home, &home.data);
    let s = sessions.iter().find(|s| s.session_id == f).unwrap();
    // The main response and the inline run's: + 1000×2 + 1000×10 per million.
    assert!(close(s.cost, 0.0452 + 0.012), "{:?}", s.cost);
    assert_eq!(s.tokens.output_tokens, 1000, "the conversation's tokens are its own");
    let by_session = report(&home.catalog(), CostBy::Session, None).unwrap();
    assert!((row(&by_session, &f).usd - (0.0452 + 0.012)).abs() < 1e-9, "the report agrees");
}

#[test]
fn a_session_whose_only_usage_is_a_subagent_runs_costs_that_run() {
    use corral_engine::costs::{CostBy, report};
    let home = Home::new();
    let g = sid(13);
    let main = write(&home, 13, &[user(&g, CWD, "u-1", "only delegate")]);
    let runs = main.with_extension("").join("subagents");
    std::fs::create_dir_all(&runs).unwrap();
    let run = run_line(&g, "b1", "msg_r", "2026-12-01T10:00:00.000Z", 3000);
    std::fs::write(runs.join("agent-b1.jsonl"), run + "\n").unwrap();
    let (sessions, _) = all(&home, &home.data);
    // 3000×2 per million, from the run alone; the conversation used no tokens of its own.
    let s = sessions.iter().find(|s| s.session_id == g).unwrap();
    assert!(close(s.cost, 0.006), "{:?}", s.cost);
    assert_eq!(s.tokens.output_tokens + s.tokens.input_tokens, 0);
    let by_session = report(&home.catalog(), CostBy::Session, None).unwrap();
    assert!((row(&by_session, &g).usd - 0.006).abs() < 1e-9, "the report agrees");
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

/// `three_sessions`, with session 2's second response a day later, and a fourth session (no
/// cost-state) whose subagent run answered on 2026-12-02.
fn report_home() -> Home {
    let home = Home::new();
    three_sessions(&home);
    let (b, d) = (sid(2), sid(4));
    let (day1, day2) = ("2026-12-01T10:00:00.000Z", "2026-12-02T10:00:00.000Z");
    write(
        &home,
        2,
        &[
            user(&b, CWD, "u-2", "priced by the client"),
            chunk(&b, "msg_3", "claude-opus-5-5", day1, &usage(1000, 1000, 1000, 1000, 2000)),
            cost_state(&b, 0.25, false),
            chunk(&b, "msg_4", "claude-opus-5-5", day2, &usage(1000, 1000, 1000, 1000, 2000)),
            cost_state(&b, 0.5, false),
        ],
    );
    let main = write(
        &home,
        4,
        &[
            user(&d, CWD, "u-4", "delegate"),
            chunk(&d, "msg_6", "claude-opus-5-5", day1, &usage(1000, 1000, 1000, 1000, 2000)),
        ],
    );
    let runs = main.with_extension("").join("subagents");
    std::fs::create_dir_all(&runs).unwrap();
    let run = chunk(&d, "msg_7", "claude-sonnet-5-5", day2, &usage(1000, 1000, 0, 0, 0))
        .replace(r#""isSidechain":false"#, r#""isSidechain":true,"agentId":"a1""#);
    std::fs::write(runs.join("agent-a1.jsonl"), run + "\n").unwrap();
    home
}

/// A subagent run's response of `input` uncached tokens to Sonnet 5.5 (as Claude Code writes a
/// run's lines: sidechain, with the agent's id).
fn run_line(session: &str, agent: &str, id: &str, at: &str, input: u64) -> String {
    chunk(session, id, "claude-sonnet-5-5", at, &usage(input, 0, 0, 0, 0))
        .replace(r#""isSidechain":false"#, &format!(r#""isSidechain":true,"agentId":"{agent}""#))
}

#[test]
fn the_listing_counts_each_subagent_run_once_and_reads_a_run_again_only_when_it_changed() {
    let home = report_home();
    let (listed, _) = all(&home, &home.data);
    // The main transcript's response and its run's, as the report itemises them.
    assert!(close(cost_of(&listed, 4), 0.0452 + 0.012), "{:?}", cost_of(&listed, 4));
    assert_eq!(cost_of(&listed, 4).unwrap().source, CostSource::Table);

    // A 2.0.x flat run (beside the transcripts, naming its session) counts too, and a session
    // growing re-reads only what changed: the nested run was rewritten larger meanwhile.
    let (d, dir) = (sid(4), home.claude().join("projects").join("-home-u-costs"));
    let flat = run_line(&d, "f1", "msg_8", "2026-12-02T11:00:00.000Z", 2000);
    std::fs::write(dir.join("agent-f1.jsonl"), flat + "\n").unwrap();
    let nested = dir.join(&d).join("subagents").join("agent-a1.jsonl");
    let second = run_line(&d, "a1", "msg_9", "2026-12-02T12:00:00.000Z", 1000);
    append(&nested, &[second]);
    let (unchanged, _) = all(&home, &home.data);
    assert_eq!(cost_of(&unchanged, 4), cost_of(&listed, 4), "runs are read with their session");
    let main = dir.join(format!("{d}.jsonl"));
    append(&main, &[user(&d, CWD, "u-5", "thanks")]);
    let (grown, _) = all(&home, &home.data);
    // + 2000×2 (flat) + 1000×2 (the nested run's new response) per million.
    let want = 0.0452 + 0.012 + 0.004 + 0.002;
    assert!(close(cost_of(&grown, 4), want), "{:?}", cost_of(&grown, 4));
    let fresh = tempfile::tempdir().unwrap();
    let (cold, _) = all(&home, fresh.path());
    assert_eq!(cost_of(&cold, 4), cost_of(&grown, 4), "read whole, the same figure");

    // A fork run starts with a copy of the conversation so far (each copied line names the line
    // it copies): the copy is the main transcript's, counted there once; its own answer counts.
    let copy = chunk(&d, "msg_6", "claude-opus-5-5", "2026-12-01T10:00:00.000Z", &usage(1000, 1000, 1000, 1000, 2000))
        .replace(
            r#""isSidechain":false"#,
            &format!(r#""isSidechain":true,"agentId":"k1","forkedFrom":{{"sessionId":"{d}","messageUuid":"a"}}"#),
        );
    let own = run_line(&d, "k1", "msg_10", "2026-12-02T13:00:00.000Z", 500);
    std::fs::write(nested.with_file_name("agent-k1.jsonl"), format!("{copy}\n{own}\n")).unwrap();
    append(&main, &[user(&d, CWD, "u-6", "and the fork?")]);
    let (forked, _) = all(&home, &home.data);
    // + 500×2 per million.
    assert!(close(cost_of(&forked, 4), want + 0.001), "{:?}", cost_of(&forked, 4));
    let report =
        corral_engine::costs::report(&home.catalog(), corral_engine::costs::CostBy::Session, None)
            .unwrap();
    assert!((row(&report, &d).usd - (want + 0.001)).abs() < 1e-9, "the report agrees: {report:?}");

    // Claude Code's own figure covers the runs: they are not added to it.
    append(&main, &[cost_state(&d, 3.0, false)]);
    let (recorded, _) = all(&home, &home.data);
    assert!(close(cost_of(&recorded, 4), 3.0), "{:?}", cost_of(&recorded, 4));
}

fn row<'r>(
    r: &'r corral_engine::costs::CostReport,
    key: &str,
) -> &'r corral_engine::costs::CostRow {
    r.rows.iter().find(|x| x.key.as_deref() == Some(key)).unwrap_or_else(|| panic!("{key}: {r:?}"))
}

#[test]
fn a_report_itemises_sessions_by_model_and_day_subagent_runs_included() {
    use corral_engine::costs::{CostBy, report};
    let home = report_home();
    let catalog = home.catalog();

    let by_session = report(&catalog, CostBy::Session, None).unwrap();
    // The main transcript's response and the subagent run's (1000×2 + 1000×10 per million).
    let delegated = row(&by_session, &sid(4));
    assert!((delegated.usd - (0.0452 + 0.012)).abs() < 1e-9, "{delegated:?}");
    assert_eq!(delegated.source, CostSource::Table);
    assert!((row(&by_session, &sid(2)).usd - 0.5).abs() < 1e-9);
    assert!(by_session.rows.iter().all(|r| r.key != Some(sid(3))), "no request, no row");
    assert!(by_session.note.contains("List-price"), "{}", by_session.note);
    assert!(by_session.prices.starts_with("genai-prices"), "{}", by_session.prices);

    // Claude Code's cumulative figures are split by what each cost-state line added (the
    // fixture's own sessions spent before December).
    let by_day = report(&catalog, CostBy::Day, Some("2026-12-01")).unwrap();
    let keys: Vec<_> = by_day.rows.iter().map(|r| r.key.clone().unwrap()).collect();
    assert_eq!(keys, ["2026-12-01", "2026-12-02"]);
    let (d1, d2) = (row(&by_day, "2026-12-01"), row(&by_day, "2026-12-02"));
    assert!((d1.usd - (0.0452 + 0.25 + 0.0452)).abs() < 1e-9, "{d1:?}");
    assert!((d2.usd - (0.25 + 0.012)).abs() < 1e-9, "{d2:?}");
    assert_eq!((d1.sessions, d2.sessions, d2.source), (3, 2, CostSource::Mixed));
    let since_dec = report(&catalog, CostBy::Session, Some("2026-12-01")).unwrap();
    assert!((by_day.total_usd - since_dec.total_usd).abs() < 1e-9);

    let since = report(&catalog, CostBy::Model, Some("2026-12-02")).unwrap();
    assert!((row(&since, "claude-sonnet-5-5").usd - 0.012).abs() < 1e-9);
    assert!((row(&since, "claude-opus-5-5").usd - 0.25).abs() < 1e-9);
    assert_eq!(since.rows.len(), 2, "{since:?}");

    let by_model = report(&catalog, CostBy::Model, None).unwrap();
    let weird = row(&by_model, "claude-weird-9");
    assert_eq!((weird.usd, weird.unpriced), (0.0, 1), "price unknown, never $0 as a price");
}

#[test]
fn a_job_row_shows_the_jobs_own_figure_beside_corrals() {
    use corral_engine::costs::{CostBy, report};
    let home = Home::new();
    let job = home.state().join("jobs").join("job-2026-11-20-aaaaaa.yaml");
    let text = std::fs::read_to_string(&job).unwrap();
    std::fs::write(&job, text + "usage:\n  num_turns: 2\n  total_cost_usd: 0.42\n").unwrap();
    let catalog = home.catalog();
    let by_session = report(&catalog, CostBy::Session, None).unwrap();
    let session = row(&by_session, &crate::home::sid("a1"));

    let by_job = report(&catalog, CostBy::Job, None).unwrap();
    let row = row(&by_job, "job-2026-11-20-aaaaaa");
    assert_eq!(row.name.as_deref(), Some("alpha"));
    assert_eq!(row.job_usd, Some(0.42));
    // Corral's figure for the job's session (its subagent run included) beside the job's own.
    assert!(session.usd > 0.0 && (row.usd - session.usd).abs() < 1e-9, "{row:?} vs {session:?}");
    // Sessions no job claims have no row; a job without a figure has none to show.
    assert!(by_job.rows.iter().all(|r| r.key.as_deref().is_some_and(|k| k.starts_with("job-"))));
    assert!(by_job.rows.iter().filter(|r| r.key != row.key).all(|r| r.job_usd.is_none()));
}
