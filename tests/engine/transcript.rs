//! Transcript reading: facts, viewer messages, pages, tools, subagents (fixtures/transcripts).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use corral_engine::model::{Role, TranscriptMessage};
use corral_engine::transcript::facts::{self, FactsScanner, TranscriptFacts};
use corral_engine::transcript::{messages, subagents};

const PROJECT_SID: &str = "6e7f8a9b-0c1d-4e2f-8a3b-4c5d6e7f8a9b";

pub fn fx(name: &str) -> PathBuf {
    crate::support::fixture("transcripts").join(name)
}

fn facts_of(path: &Path) -> TranscriptFacts {
    facts::scan_file(path, None).unwrap().scanner.facts()
}

/// The tokens the viewer's usage panel adds up for `path`, over the branch it shows.
pub fn panel_tokens(path: &Path) -> corral_engine::model::TokenTotals {
    use corral_engine::transcript::{branches, usage};
    let (_, b) = branches::scan(path).unwrap();
    let lines = if b.rewinds.is_empty() {
        messages::Lines::All
    } else {
        messages::Lines::Except(b.hidden.clone())
    };
    usage::totals(path, &lines).unwrap()
}

fn read(path: &Path) -> Vec<TranscriptMessage> {
    messages::read_transcript(path, "sid", "/w").unwrap().messages
}

/// Writes `bytes` to a temp file and returns (dir guard, path).
pub fn temp_file(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("5b7e1c2d-0000-4000-8000-000000000001.jsonl");
    fs::write(&path, bytes).unwrap();
    (dir, path)
}

/// The `uuid` of the fixture line holding tool_use `tool_id`.
fn tool_use_line_uuid(path: &Path, tool_id: &str) -> String {
    let text = fs::read_to_string(path).unwrap();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let blocks = v.pointer("/message/content").and_then(|c| c.as_array()).cloned();
        for b in blocks.unwrap_or_default() {
            if b["type"] == "tool_use" && b["id"] == tool_id {
                return v["uuid"].as_str().unwrap().to_owned();
            }
        }
    }
    panic!("no tool_use {tool_id}");
}

/// All pages from the end backwards, concatenated in file order.
pub fn all_pages(path: &Path, limit: usize) -> Vec<TranscriptMessage> {
    let mut pages = Vec::new();
    let mut before = None;
    for _ in 0..100_000 {
        let page = messages::read_page(path, before, limit).unwrap();
        let cursor = page.earlier_cursor;
        pages.push(page.messages);
        match cursor {
            Some(c) => {
                assert!(before.is_none_or(|b| c < b), "cursor must move backwards");
                before = Some(c);
            }
            None => break,
        }
    }
    pages.into_iter().rev().flatten().collect()
}

// ---------------------------------------------------------------- facts

#[test]
fn facts_of_a_streamed_2_1_session() {
    let f = facts_of(&fx("streamed-2.1.jsonl"));
    assert!(f.has_messages);
    assert!(!f.is_sidechain, "first line is permission-mode; the first message decides");
    assert_eq!(f.cwd.as_deref(), Some("/home/dev/shop"));
    assert_eq!(f.git_branch.as_deref(), Some("main"));
    assert_eq!(f.version.as_deref(), Some("2.1.76"));
    // The isMeta caveat and the <synthetic> line (10 minutes later) are not activity.
    assert_eq!(f.first_message_at.as_deref(), Some("2026-03-04T10:00:01.037Z"));
    assert_eq!(f.last_message_at.as_deref(), Some("2026-03-04T10:00:56.072Z"));
    // 4 user lines with text (prompt, /model command, its stdout, 2nd prompt) + 4 responses.
    assert_eq!(f.message_count, 8);
    assert_eq!(f.preview.as_deref(), Some("Add a retry to the fetch helper"));
    assert_eq!(f.custom_title.as_deref(), Some("Fetch retry work"));
    assert_eq!(f.ai_title.as_deref(), Some("Retry for fetch helper"));
    assert_eq!(f.summary, None);
    assert_eq!(f.auto_name().as_deref(), Some("Fetch retry work"));
    // Usage: once per (message.id, requestId) from its last line: 60 + 45 + 25 + 70.
    assert_eq!(f.usage.output_tokens, 200);
    assert_eq!(f.usage.turn_count, 4);
    // Last response: 30 input + 0 cache creation + 2700 cache read.
    assert_eq!(f.usage.input_tokens, 2730);
    assert_eq!(f.usage.model.as_deref(), Some("claude-opus-4-7"), "synthetic model ignored");
    assert_eq!(f.skipped_lines, 0);
}

#[test]
fn facts_of_a_1_0_file_with_inline_sidechain_lines() {
    let f = facts_of(&fx("inline-sidechain-1.0.jsonl"));
    assert!(!f.is_sidechain);
    assert_eq!(f.version.as_deref(), Some("1.0.108"));
    assert_eq!(f.git_branch, None, "no gitBranch field at all");
    // 1 prompt + 2 main responses; the 4 inline sidechain lines do not count.
    assert_eq!(f.message_count, 3);
    assert_eq!(f.usage.turn_count, 2);
    assert_eq!(f.usage.output_tokens, 30 + 18);
    assert_eq!(f.usage.model.as_deref(), Some("claude-opus-4-20250514"));
    assert_eq!(f.summary.as_deref(), Some("Notes search and cleanup"), "last summary wins");
    assert_eq!(f.preview.as_deref(), Some("Find every TODO in the notes and list them"));
}

#[test]
fn facts_of_subagent_files_describe_their_own_sidechain_lines() {
    let nested = fx("project").join(PROJECT_SID).join("subagents/agent-a1b2c3d4e5f6a7b8c.jsonl");
    let f = facts_of(&nested);
    assert!(f.is_sidechain);
    assert_eq!(f.message_count, 2);
    assert_eq!(f.preview.as_deref(), Some("Compare lru-cache options"));

    // 2.0.x warmup file: a single assistant line.
    let flat = facts_of(&fx("project/agent-3f2e1d0c.jsonl"));
    assert!(flat.is_sidechain);
    assert!(flat.has_messages);
    assert_eq!(flat.message_count, 1);
    assert_eq!(flat.preview, None);
    assert_eq!(flat.usage.input_tokens, 1003);
}

#[test]
fn titles_by_type_last_wins_and_custom_empty_clears() {
    let f = facts_of(&fx("titles.jsonl"));
    assert_eq!(f.custom_title.as_deref(), Some("Second custom"), "a `title` field is not a title");
    assert_eq!(f.ai_title.as_deref(), Some("AI title two"));
    assert_eq!(f.summary.as_deref(), Some("Summary title"), "task-summary is not a summary");
    assert_eq!(f.auto_name().as_deref(), Some("Second custom"));

    let cleared = facts_of(&fx("titles-cleared.jsonl"));
    assert_eq!(cleared.custom_title, None);
    assert_eq!(cleared.auto_name().as_deref(), Some("AI title two"));
}

#[test]
fn preview_skips_meta_commands_tags_interrupts_notifications_and_compaction() {
    // herdctl makes `<command-name>/clear</command-name>` the preview; Corral must not.
    let f = facts_of(&fx("meta-commands.jsonl"));
    let expected_text = "Please fix the flaky login test ".to_owned()
        + &"and explain the root cause in detail ".repeat(4);
    let collapsed = expected_text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut expected: String = collapsed.chars().take(100).collect();
    expected.push('…');
    assert_eq!(f.preview.as_deref(), Some(expected.as_str()));
    assert!(!f.preview.as_deref().unwrap().starts_with('<'));
}

#[test]
fn files_without_conversation() {
    let empty = facts_of(&fx("empty.jsonl"));
    assert_eq!(empty, TranscriptFacts::default());

    let summary = facts_of(&fx("summary-only.jsonl"));
    assert!(!summary.has_messages);
    assert_eq!(summary.summary.as_deref(), Some("Fixing the build"));

    let books = facts_of(&fx("bookkeeping-only.jsonl"));
    assert!(!books.has_messages);
    assert_eq!(books.message_count, 0);
    assert_eq!(books.auto_name(), None);
    assert_eq!(books.skipped_lines, 0);

    for name in ["empty.jsonl", "summary-only.jsonl"] {
        assert!(read(&fx(name)).is_empty(), "{name}");
    }
    // No conversation, so no session in the listing; opened anyway, its one slash command shows.
    let shown: Vec<String> =
        read(&fx("bookkeeping-only.jsonl")).into_iter().map(|m| m.content).collect();
    assert_eq!(shown, ["<command-name>/doctor</command-name>"]);
}

#[test]
fn usage_counts_each_response_once_and_takes_max_of_flat_and_nested_cache_creation() {
    let line = |id: &str, out: u64, flat: u64, nested: u64| {
        format!(
            r#"{{"type":"assistant","isSidechain":false,"uuid":"u-{id}-{out}","timestamp":"2026-01-01T00:00:0{out}.000Z","requestId":"req_{id}","message":{{"id":"{id}","model":"claude-opus-4-7","role":"assistant","content":[{{"type":"text","text":"t{out}"}}],"usage":{{"input_tokens":5,"cache_creation_input_tokens":{flat},"cache_read_input_tokens":100,"output_tokens":{out},"cache_creation":{{"ephemeral_5m_input_tokens":{nested},"ephemeral_1h_input_tokens":1}}}}}}}}"#
        )
    };
    // 2.0.x style: every chunk repeats the final usage; then a 2.1.15x style response.
    let text =
        [line("m1", 7, 10, 0), line("m1", 7, 10, 0), line("m1", 7, 10, 0), line("m2", 3, 0, 300)]
            .join("\n")
            + "\n";
    let (_d, path) = temp_file(text.as_bytes());
    let f = facts_of(&path);
    assert_eq!(f.usage.turn_count, 2);
    assert_eq!(f.usage.output_tokens, 10);
    assert_eq!(f.usage.input_tokens, 5 + 301 + 100);
    assert_eq!(f.message_count, 2);
    let t = messages::read_transcript(&path, "s", "/w").unwrap();
    assert_eq!(t.usage, f.usage);
    assert_eq!(t.messages.len(), 2);
    assert_eq!(t.messages[0].content, "t7\n\nt7\n\nt7");
}

fn every_fixture() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![crate::support::fixture("transcripts")];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 12);
    out
}

#[test]
fn incremental_scan_equals_one_shot_at_every_split_point() {
    for path in every_fixture() {
        let bytes = fs::read(&path).unwrap();
        let whole = facts_of(&path);
        let dir = tempfile::tempdir().unwrap();
        let grow = dir.path().join(path.file_name().unwrap());
        // Every byte position is a split point (mid-line splits leave a pending partial line).
        let step = (bytes.len() / 97).max(1);
        let mut cut = 0;
        while cut <= bytes.len() {
            fs::write(&grow, &bytes[..cut]).unwrap();
            let first = facts::scan_file(&grow, None).unwrap();
            assert!(first.offset <= cut as u64);
            assert!(first.offset == 0 || bytes[first.offset as usize - 1] == b'\n');
            // Persist and restore the scanner as the catalog does.
            let saved = serde_json::to_string(&first.scanner).unwrap();
            let restored: FactsScanner = serde_json::from_str(&saved).unwrap();
            assert_eq!(restored, first.scanner);
            let mut f = fs::OpenOptions::new().append(true).open(&grow).unwrap();
            f.write_all(&bytes[cut..]).unwrap();
            drop(f);
            let second = facts::scan_file(&grow, Some((first.offset, restored))).unwrap();
            assert_eq!(second.scanner.facts(), whole, "{} split at {cut}", path.display());
            assert_eq!(second.offset, bytes.len() as u64);
            cut += step;
        }
    }
}

#[test]
fn scanner_state_stays_small_on_a_long_file() {
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&format!(
            r#"{{"type":"user","isSidechain":false,"uuid":"u{i}","timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"prompt {i}"}}}}"#
        ));
        text.push('\n');
        text.push_str(&format!(
            r#"{{"type":"assistant","isSidechain":false,"uuid":"a{i}","timestamp":"2026-01-01T00:00:01.000Z","requestId":"r{i}","message":{{"id":"msg_{i}","model":"m","role":"assistant","content":[{{"type":"text","text":"answer"}}],"usage":{{"input_tokens":1,"output_tokens":2}}}}}}"#
        ));
        text.push('\n');
    }
    let (_d, path) = temp_file(text.as_bytes());
    let out = facts::scan_file(&path, None).unwrap();
    let f = out.scanner.facts();
    assert_eq!(f.message_count, 6000);
    assert_eq!(f.usage.output_tokens, 6000);
    let state = serde_json::to_string(&out.scanner).unwrap();
    assert!(state.len() < 2048, "scanner state is {} bytes", state.len());
}

#[test]
fn resume_offset_beyond_a_shrunk_file_rescans_from_the_start() {
    let path = fx("streamed-2.1.jsonl");
    let mut bogus = FactsScanner::new();
    bogus.add_skipped(99);
    let out = facts::scan_file(&path, Some((10_000_000, bogus))).unwrap();
    assert_eq!(out.scanner.facts(), facts_of(&path));
}

// ---------------------------------------------------------------- messages

#[test]
fn streamed_chunks_are_merged_and_tools_paired_in_place() {
    let path = fx("streamed-2.1.jsonl");
    let t =
        messages::read_transcript(&path, "5b7e1c2d-8a9f-4e3b-9c1d-2f4a6b8c0d1e", "/home/dev/shop")
            .unwrap();
    let m = &t.messages;
    let shape: Vec<(Role, &str)> = m
        .iter()
        .map(|m| {
            let label = match &m.tool_call {
                Some(c) => c.tool_name.as_str(),
                None => m.content.as_str(),
            };
            (m.role, label)
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            (Role::User, "Add a retry to the fetch helper"),
            (Role::Assistant, "I'll look at the helper first."),
            (Role::Tool, "Read"),
            (Role::Tool, "Bash"),
            (Role::Assistant, "Tests pass. Adding the retry now."),
            (Role::Tool, "Edit"),
            (Role::Assistant, "Done — `fetchJson` now retries 3 times."),
            (
                Role::User,
                "<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>opus</command-args>"
            ),
            (Role::User, "<local-command-stdout>Set model to opus</local-command-stdout>"),
            (Role::User, "Now write a test for it"),
            (Role::Assistant, "Writing the test."),
            (Role::Tool, "Write"),
        ]
    );
    // Redacted thinking is kept as an empty string on the merged message.
    assert_eq!(m[1].thinking.as_deref(), Some(""));
    // The Read result arrived between chunks 3 and 4 of the same message.id.
    let read = m[2].tool_call.as_ref().unwrap();
    assert!(!read.pending);
    assert!(read.output.starts_with("export async function fetchJson"));
    assert_eq!(read.input_summary.as_deref(), Some("/home/dev/shop/src/fetch.ts"));
    assert_eq!(read.emoji, "📄");
    assert_eq!(read.duration_ms, Some(2074));
    // An empty-string result still resolves the call (herdctl leaves it pending).
    let bash = m[3].tool_call.as_ref().unwrap();
    assert!(!bash.pending);
    assert_eq!(bash.output, "");
    assert_eq!(bash.input_summary.as_deref(), Some("npm test -- fetch"));
    // Unanswered tool stays pending.
    let write = m[11].tool_call.as_ref().unwrap();
    assert!(write.pending);
    assert_eq!(write.duration_ms, None);
    assert!(write.input.as_deref().unwrap().contains("fetch.test.ts"));
    // Tool messages are keyed by their tool_use line's uuid.
    assert_eq!(m[2].uuid.as_deref(), Some(tool_use_line_uuid(&path, "toolu_01R").as_str()));
    assert_eq!(m[3].uuid.as_deref(), Some(tool_use_line_uuid(&path, "toolu_01B").as_str()));
    assert_eq!(m[11].uuid.as_deref(), Some(tool_use_line_uuid(&path, "toolu_01W").as_str()));
    // Offsets point at the source lines, in file order.
    let bytes = fs::read(&path).unwrap();
    for w in m.windows(2) {
        assert!(w[0].offset <= w[1].offset || w[1].role == Role::Assistant);
    }
    for msg in m {
        assert!(msg.offset == 0 || bytes[msg.offset as usize - 1] == b'\n');
    }
    // Usage agrees with the facts scanner.
    assert_eq!(t.usage, facts_of(&path).usage);
    assert_eq!(t.skipped_lines, 0);
    // uuids are unique and stable across reads.
    let uuids: Vec<_> = m.iter().filter_map(|x| x.uuid.clone()).collect();
    let mut dedup = uuids.clone();
    dedup.sort();
    dedup.dedup();
    assert_eq!(dedup.len(), uuids.len());
    assert_eq!(self::read(&path), t.messages);
}

#[test]
fn inline_sidechain_lines_are_not_shown_in_the_main_transcript() {
    let m = read(&fx("inline-sidechain-1.0.jsonl"));
    assert_eq!(m.len(), 4);
    assert!(m.iter().all(|x| !x.content.contains("Found 2 TODOs.")));
    assert!(m.iter().all(|x| x.content != "Search all notes for TODO markers"));
    let task = m[2].tool_call.as_ref().unwrap();
    assert_eq!(task.tool_name, "Task");
    assert_eq!(task.emoji, "🤖");
    assert_eq!(task.input_summary.as_deref(), Some("Search TODOs"));
    assert_eq!(task.output, "Found 2 TODOs: a.md:3, b.md:9");
}

/// Claude Code 2.1.332 marks a prompt the person typed `origin: {kind: "human"}` (the
/// conformance run's interactive session). It is theirs, not an injection; a task notification
/// beside it still is. Before: "human" was shown as "Added by Claude Code, not typed".
#[test]
fn a_prompt_marked_human_is_the_person_s_own() {
    let typed = r#"{"type":"user","uuid":"u1","parentUuid":null,"origin":{"kind":"human"},"promptSource":"typed","entrypoint":"cli","message":{"role":"user","content":"hello idleword"}}"#;
    let note = r#"{"type":"user","uuid":"u2","parentUuid":"u1","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>done</task-notification>"}}"#;
    let (_dir, path) = temp_file(format!("{typed}\n{note}\n").as_bytes());
    let messages = read(&path);
    let kinds: Vec<(&str, Option<&str>)> =
        messages.iter().map(|m| (m.content.as_str(), m.origin_kind.as_deref())).collect();
    assert_eq!(
        kinds,
        [
            ("hello idleword", None),
            ("<task-notification>done</task-notification>", Some("task-notification"))
        ]
    );
}

/// 2.1.x writes a slash command and its output as `system`/`local_command` lines (the real
/// client's `/rename`, `tests/conformance`): shown as the person's, where they were written, as
/// the user lines older versions wrote are; other `system` lines are not shown; pages agree.
#[test]
fn slash_commands_written_as_system_lines_are_shown() {
    let lines = [
        r#"{"type":"user","isSidechain":false,"uuid":"u1","parentUuid":null,"origin":{"kind":"human"},"message":{"role":"user","content":"hello"}}"#,
        r#"{"type":"assistant","isSidechain":false,"uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"hi"}]}}"#,
        r#"{"type":"system","isSidechain":false,"subtype":"turn_duration","durationMs":12,"uuid":"s0","parentUuid":"a1","isMeta":false}"#,
        r#"{"type":"system","isSidechain":false,"subtype":"local_command","content":"<command-name>/rename</command-name>\n<command-message>rename</command-message>\n<command-args>Sprint notes</command-args>","uuid":"s1","parentUuid":"s0","timestamp":"2026-12-06T10:00:00.000Z","isMeta":false}"#,
        r#"{"type":"system","isSidechain":false,"subtype":"local_command","content":"<local-command-stdout>Session renamed to: Sprint notes</local-command-stdout>","uuid":"s2","parentUuid":"s1","isMeta":false}"#,
        r#"{"type":"system","subtype":"local_command","isSidechain":true,"content":"<command-name>/other</command-name>","uuid":"s3","isMeta":false}"#,
        r#"{"type":"user","isSidechain":false,"uuid":"u2","parentUuid":"s2","message":{"role":"user","content":"thanks"}}"#,
    ];
    let (_dir, path) = temp_file((lines.join("\n") + "\n").as_bytes());
    let messages = read(&path);
    let shown: Vec<(Role, &str, Option<&str>)> = messages
        .iter()
        .map(|m| (m.role, m.content.lines().next().unwrap_or(""), m.uuid.as_deref()))
        .collect();
    assert_eq!(
        shown,
        [
            (Role::User, "hello", Some("u1")),
            (Role::Assistant, "hi", Some("a1")),
            (Role::User, "<command-name>/rename</command-name>", Some("s1")),
            (
                Role::User,
                "<local-command-stdout>Session renamed to: Sprint notes</local-command-stdout>",
                Some("s2")
            ),
            (Role::User, "thanks", Some("u2")),
        ]
    );
    assert!(messages.iter().all(|m| m.origin_kind.is_none()), "typed, not injected");
    for limit in 1..=4 {
        assert_eq!(all_pages(&path, limit), messages, "limit {limit}");
    }
}

#[test]
fn meta_task_notifications_and_compaction_summaries() {
    let m = read(&fx("meta-commands.jsonl"));
    assert!(m.iter().all(|x| !x.content.starts_with("Caveat:")), "isMeta lines are skipped");
    assert!(m.iter().all(|x| !x.content.starts_with("Base directory")));
    let tn = m.iter().find(|x| x.content.starts_with("<task-notification>")).unwrap();
    assert_eq!(tn.origin_kind.as_deref(), Some("task-notification"));
    let cs = m.iter().find(|x| x.content.starts_with("This session is being continued")).unwrap();
    assert_eq!(cs.origin_kind.as_deref(), Some("compact-summary"));
    assert_eq!(m.len(), 10);
}

#[test]
fn hook_feedback_is_kept_as_an_injected_line_other_meta_lines_are_not() {
    // Claude Code writes a blocking Stop hook's message as an `isMeta` user line; the reply after
    // it answers the hook, so the viewer keeps it (tagged) where caveats and skill bodies go.
    let m = read(&fx("tool-forms-2.1.jsonl"));
    let at =
        m.iter().position(|x| x.origin_kind.as_deref() == Some("hook")).expect("the hook line");
    assert!(m[at].content.starts_with("Stop hook feedback:\n- [~/.claude/hooks/tests-pass.sh]"));
    assert_eq!(m[at].role, Role::User);
    assert_eq!(m[at].uuid.as_deref(), Some("f7f7f7f7-u15-4000-8000-000000000000"));
    assert!(m[at + 1].content.starts_with("The hook is right"), "{:?}", m.get(at + 1));
    assert_eq!(m.iter().filter(|x| x.origin_kind.as_deref() == Some("hook")).count(), 1);
    // Not a message of the conversation's count: the same file without it counts the same.
    let dir = tempfile::tempdir().unwrap();
    let without = dir.path().join("without-hook.jsonl");
    let text = fs::read_to_string(fx("tool-forms-2.1.jsonl")).unwrap();
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains("Stop hook feedback")).collect();
    fs::write(&without, kept.join("\n") + "\n").unwrap();
    assert_eq!(
        facts_of(&fx("tool-forms-2.1.jsonl")).message_count,
        facts_of(&without).message_count
    );
    assert_eq!(read(&without).len(), m.len() - 1);
    // A hook that hands Claude megabytes is shown clipped like a tool's output.
    let huge = dir.path().join("huge-hook.jsonl");
    let big = "x".repeat(3 * 1024 * 1024);
    let with_big: Vec<String> = text
        .lines()
        .map(|l| {
            if l.contains("Stop hook feedback") {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["message"]["content"] =
                    serde_json::Value::String(format!("Stop hook feedback: {big}"));
                v.to_string()
            } else {
                l.to_owned()
            }
        })
        .collect();
    fs::write(&huge, with_big.join("\n") + "\n").unwrap();
    let h = read(&huge);
    let hook = h.iter().find(|x| x.origin_kind.as_deref() == Some("hook")).unwrap();
    assert!(hook.content.starts_with("Stop hook feedback: xxx"));
    assert!(hook.content.ends_with(" …"), "marked as clipped");
    assert!(hook.content.len() <= corral_engine::transcript::messages::OUTPUT_CLIP_BYTES + 4);
}

#[test]
fn queue_operations_are_deduplicated() {
    let m = read(&fx("queue-operations.jsonl"));
    let users: Vec<(&str, Option<&str>)> = m
        .iter()
        .filter(|x| x.role == Role::User)
        .map(|x| (x.content.as_str(), x.origin_kind.as_deref()))
        .collect();
    assert_eq!(
        users,
        vec![
            // enqueue "/init" → dequeue → the command line: shown once (as the real line).
            (
                "<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>",
                None
            ),
            ("Please analyze this codebase and create a CLAUDE.md file.", None),
            // Never dequeued: shown at its position.
            ("also check the README", Some("queued")),
            // "never mind that" was removed. The trailing enqueue was never consumed.
            ("and commit it", Some("queued")),
        ]
    );
    // Position: the queued prompt sits between the first assistant text and its Glob call.
    let i = m.iter().position(|x| x.content == "also check the README").unwrap();
    assert_eq!(m[i - 1].content, "Analyzing.");
    assert_eq!(m[i + 1].tool_call.as_ref().unwrap().tool_name, "Glob");
}

#[test]
fn enqueue_repeated_by_a_later_user_line_is_shown_once() {
    let text = concat!(
        r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","content":"run the linter"}"#,
        "\n",
        r#"{"type":"assistant","isSidechain":false,"uuid":"a1","timestamp":"2026-01-01T00:00:01.000Z","message":{"id":"m1","model":"x","role":"assistant","content":[{"type":"text","text":"busy"}]}}"#,
        "\n",
        r#"{"type":"user","isSidechain":false,"uuid":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"run the linter"}]}}"#,
        "\n"
    );
    let (_d, path) = temp_file(text.as_bytes());
    let m = read(&path);
    assert_eq!(m.len(), 2);
    assert_eq!(m[1].uuid.as_deref(), Some("u1"));
}

#[test]
fn orphan_results_multi_tool_lines_tool_references_and_clipping() {
    let big = "x".repeat(300 * 1024);
    let last = format!(
        r#"{{"type":"user","isSidechain":false,"uuid":"r2","timestamp":"2026-01-01T00:00:00.500Z","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_b","content":[{{"type":"text","text":"{big}"}}]}}]}}}}"#
    );
    let text = format!(
        "{}\n{}\n{}\n{}\n",
        r#"{"type":"user","isSidechain":false,"uuid":"orphan-line","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_gone","content":"late result","is_error":true}]}}"#,
        r#"{"type":"assistant","isSidechain":false,"uuid":"multi","timestamp":"2026-01-01T00:00:01.000Z","message":{"id":"m1","model":"x","role":"assistant","content":[{"type":"text","text":"Two tools."},{"type":"tool_use","id":"toolu_a","name":"ToolSearch","input":{"query":"github"}},{"type":"tool_use","id":"toolu_b","name":"mcp__github__get_pr","input":{"number":4,"owner":"acme"}}]}}"#,
        r#"{"type":"user","isSidechain":false,"uuid":"r1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":[{"type":"tool_reference","tool_name":"mcp__github__get_pr"},{"type":"tool_reference","tool_name":"mcp__github__list"}]}]}}"#,
        last
    );
    let (_d, path) = temp_file(text.as_bytes());
    let m = read(&path);
    assert_eq!(m.len(), 4);
    let orphan = m[0].tool_call.as_ref().unwrap();
    assert_eq!(m[0].uuid.as_deref(), Some("orphan-line"));
    assert_eq!(orphan.tool_name, "unknown");
    assert!(orphan.is_error);
    assert!(!orphan.pending);
    assert_eq!(m[1].content, "Two tools.");
    assert_eq!(m[1].uuid.as_deref(), Some("multi"));
    assert_eq!(m[2].uuid.as_deref(), Some("multi:toolu_a"));
    assert_eq!(m[3].uuid.as_deref(), Some("multi:toolu_b"));
    let search = m[2].tool_call.as_ref().unwrap();
    assert_eq!(search.output, "Loaded 2 tool schema(s): mcp__github__get_pr, mcp__github__list");
    assert_eq!(search.input_summary.as_deref(), Some("github"));
    let mcp = m[3].tool_call.as_ref().unwrap();
    assert_eq!(mcp.emoji, "🔌");
    assert_eq!(mcp.input_summary.as_deref(), Some("acme"));
    assert!(mcp.output_truncated);
    assert!(mcp.output.len() <= messages::OUTPUT_CLIP_BYTES);
    assert_eq!(mcp.duration_ms, None, "result older than the call: no negative duration");
}

#[test]
fn agent_calls_link_to_their_subagent_and_subagents_are_listed() {
    let main = fx(&format!("project/{PROJECT_SID}.jsonl"));
    let t = messages::read_transcript(&main, PROJECT_SID, "/home/dev/shop").unwrap();
    let agent = t.messages.iter().find_map(|m| m.tool_call.as_ref()).unwrap();
    assert_eq!(agent.tool_name, "Agent");
    assert_eq!(agent.subagent_id.as_deref(), Some("a1b2c3d4e5f6a7b8c"));
    assert_eq!(agent.duration_ms, Some(42_554 - 2_074));

    let ids: Vec<&str> = t.subagents.iter().map(|s| s.agent_id.as_str()).collect();
    assert_eq!(ids, vec!["a1b2c3d4e5f6a7b8c", "aw0rkf10w", "3f2e1d0c"]);
    assert_eq!(t.subagents[0].agent_type.as_deref(), Some("general-purpose"));
    assert_eq!(t.subagents[0].description.as_deref(), Some("Research lru-cache"));
    assert!(t.subagents[0].size_bytes > 0);
    assert_eq!(t.subagents[2].agent_type, None);

    assert!(subagents::subagent_path(&main, PROJECT_SID, "../x").is_none());
    assert!(
        subagents::subagent_path(&main, PROJECT_SID, "9e8d7c6b").is_none(),
        "another session's"
    );
    let p = subagents::subagent_path(&main, PROJECT_SID, "aw0rkf10w").unwrap();
    assert!(p.ends_with("subagents/workflows/run-1/agent-aw0rkf10w.jsonl"));

    let sub = messages::read_subagent(&main, PROJECT_SID, "a1b2c3d4e5f6a7b8c", "/home/dev/shop")
        .unwrap()
        .unwrap();
    let texts: Vec<&str> = sub.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(texts, vec!["Compare lru-cache options", "lru-cache is the better fit."]);
    assert!(messages::read_subagent(&main, PROJECT_SID, "nope", "/w").unwrap().is_none());
    assert!(
        subagents::list_subagents(&main, "../etc")
            .iter()
            .all(|s| s.agent_id != "a1b2c3d4e5f6a7b8c")
    );
}

#[test]
fn unterminated_last_line_is_read_only_when_complete() {
    let good = r#"{"type":"user","isSidechain":false,"uuid":"u1","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"first"}}"#;
    let complete = format!("{good}\n{}", good.replace("u1", "u2").replace("first", "second"));
    let (_d, path) = temp_file(complete.as_bytes());
    let t = messages::read_transcript(&path, "s", "/w").unwrap();
    assert_eq!(t.messages.len(), 2);
    assert_eq!(all_pages(&path, 1), t.messages);
    // The facts scanner treats it as pending (it resumes from before it).
    let out = facts::scan_file(&path, None).unwrap();
    assert_eq!(out.offset, good.len() as u64 + 1);
    assert_eq!(out.scanner.facts().message_count, 1);

    let truncated = format!("{good}\n{}", &good[..good.len() / 2]);
    let (_d2, path2) = temp_file(truncated.as_bytes());
    let t2 = messages::read_transcript(&path2, "s", "/w").unwrap();
    assert_eq!(t2.messages.len(), 1);
    assert_eq!(t2.skipped_lines, 0, "a partial last line is pending, not an error");
}

// ---------------------------------------------------------------- pages

#[test]
fn pages_concatenated_equal_the_whole_transcript() {
    for path in every_fixture() {
        let whole = read(&path);
        for limit in 1..=6 {
            assert_eq!(all_pages(&path, limit), whole, "{} limit {limit}", path.display());
        }
    }
}

fn long_session(turns: usize) -> String {
    let mut s =
        String::from(r#"{"type":"permission-mode","permissionMode":"default","sessionId":"s"}"#);
    s.push('\n');
    for i in 0..turns {
        s.push_str(&format!(
            r#"{{"type":"user","isSidechain":false,"uuid":"u{i}","timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"prompt {i}"}}}}"#
        ));
        s.push('\n');
        for (k, block) in [
            r#"{"type":"text","text":"working"}"#.to_owned(),
            format!(r#"{{"type":"tool_use","id":"t{i}","name":"Bash","input":{{"command":"echo {i}"}}}}"#),
        ]
        .iter()
        .enumerate()
        {
            s.push_str(&format!(
                r#"{{"type":"assistant","isSidechain":false,"uuid":"a{i}-{k}","timestamp":"2026-01-01T00:00:01.000Z","message":{{"id":"m{i}","model":"x","role":"assistant","content":[{block}]}}}}"#
            ));
            s.push('\n');
            if k == 0 {
                s.push_str(r#"{"type":"progress","isSidechain":false,"data":{"type":"hook_progress"},"uuid":"p","timestamp":"2026-01-01T00:00:01.000Z"}"#);
                s.push('\n');
            }
        }
        s.push_str(&format!(
            r#"{{"type":"user","isSidechain":false,"uuid":"r{i}","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{i}","content":"{i}"}}]}}}}"#
        ));
        s.push('\n');
    }
    s
}

#[test]
fn newest_page_comes_from_the_end_and_cursors_walk_back() {
    let (_d, path) = temp_file(long_session(400).as_bytes());
    let size = fs::metadata(&path).unwrap().len();
    let page = messages::read_page(&path, None, 9).unwrap();
    assert_eq!(page.size_bytes, size);
    let cursor = page.earlier_cursor.unwrap();
    assert!(cursor > size / 2, "the newest page covers only the tail");
    assert!(page.messages.len() >= 9 && page.messages.len() <= 12, "{}", page.messages.len());
    assert_eq!(page.messages.last().unwrap().tool_call.as_ref().unwrap().output, "399");
    assert_eq!(page.messages[0].role, Role::User, "pages start at a prompt");
    for m in &page.messages {
        assert!(m.tool_call.as_ref().is_none_or(|c| !c.pending), "pairs never straddle pages");
    }
    // A cursor that is not on a line start is aligned back to one.
    let odd = messages::read_page(&path, Some(cursor + 5), 9).unwrap();
    let aligned = messages::read_page(&path, Some(cursor), 9).unwrap();
    assert_eq!(odd, aligned);
    let whole = read(&path);
    assert_eq!(whole.len(), 400 * 3);
    assert_eq!(all_pages(&path, 9), whole);
    assert_eq!(all_pages(&path, 50), whole);
}

#[test]
fn a_queued_prompt_delivered_several_pages_later_is_hidden_in_pages_too() {
    let mut s = String::from(
        r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","content":"<task-notification>done</task-notification>"}"#,
    );
    s.push('\n');
    s.push_str(&long_session(30));
    s.push_str(r#"{"type":"user","isSidechain":false,"uuid":"late","timestamp":"2026-01-01T00:09:00.000Z","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>done</task-notification>"}}"#);
    s.push('\n');
    s.push_str(r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-01T00:10:00.000Z","sessionId":"s","content":"never delivered"}"#);
    s.push('\n');
    let (_d, path) = temp_file(s.as_bytes());
    let whole = read(&path);
    let notes: Vec<_> =
        whole.iter().filter(|m| m.content.contains("<task-notification>")).collect();
    assert_eq!(notes.len(), 1, "shown once, as the delivered user line");
    assert_eq!(notes[0].uuid.as_deref(), Some("late"));
    assert_eq!(whole.last().unwrap().content, "never delivered");
    assert_eq!(whole.last().unwrap().origin_kind.as_deref(), Some("queued"));
    for limit in [1, 2, 5] {
        assert_eq!(all_pages(&path, limit), whole, "limit {limit}");
    }
}

#[test]
fn one_endless_turn_is_paged_between_responses() {
    // One prompt, then 300 responses each with two chunks around a tool call and its result.
    let mut s = String::from(
        r#"{"type":"user","isSidechain":false,"uuid":"u0","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"go"}}"#,
    );
    s.push('\n');
    for i in 0..300 {
        s.push_str(&format!(r#"{{"type":"assistant","isSidechain":false,"uuid":"a{i}","timestamp":"2026-01-01T00:00:01.000Z","message":{{"id":"m{i}","model":"x","role":"assistant","content":[{{"type":"tool_use","id":"t{i}","name":"Read","input":{{"file_path":"/f{i}"}}}}]}}}}"#));
        s.push('\n');
        s.push_str(&format!(r#"{{"type":"user","isSidechain":false,"uuid":"r{i}","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{i}","content":"ok {i}"}}]}}}}"#));
        s.push('\n');
        s.push_str(&format!(r#"{{"type":"assistant","isSidechain":false,"uuid":"b{i}","timestamp":"2026-01-01T00:00:03.000Z","message":{{"id":"m{i}","model":"x","role":"assistant","content":[{{"type":"text","text":"read {i}"}}]}}}}"#));
        s.push('\n');
    }
    let (_d, path) = temp_file(s.as_bytes());
    let page = messages::read_page(&path, None, 10).unwrap();
    assert!(page.earlier_cursor.is_some());
    assert!(page.messages.len() < 100, "the page stays small: {}", page.messages.len());
    // Starts at a response's first chunk: the merged response, then its tool call.
    assert_eq!(page.messages[0].role, Role::Assistant);
    assert!(page.messages[0].content.starts_with("read "));
    assert_eq!(
        page.messages[1].tool_call.as_ref().unwrap().output,
        page.messages[0].content.replace("read", "ok")
    );
    let whole = read(&path);
    assert_eq!(whole.len(), 1 + 300 * 2);
    for limit in [1, 10, 33] {
        assert_eq!(all_pages(&path, limit), whole, "limit {limit}");
    }
}

#[test]
fn json_encoded_string_inputs_are_decoded_for_summaries() {
    let text = concat!(
        r#"{"type":"assistant","isSidechain":false,"uuid":"a1","timestamp":"2026-01-01T00:00:00.000Z","message":{"id":"m1","model":"x","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":"{\"command\":\"ls -la\"}"},{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":42}}]}}"#,
        "\n"
    );
    let (_d, path) = temp_file(text.as_bytes());
    let m = read(&path);
    assert_eq!(m.len(), 2);
    let bash = m[0].tool_call.as_ref().unwrap();
    assert_eq!(bash.input_summary.as_deref(), Some("ls -la"));
    assert!(bash.input.as_deref().unwrap().contains("\"command\": \"ls -la\""));
    let read = m[1].tool_call.as_ref().unwrap();
    assert_eq!(read.input_summary, None, "a non-string file_path gives no summary");
}

/// A long transcript: `turns` prompts, each answered (with a tool call every tenth turn).
fn long_transcript(dir: &Path, turns: usize) -> PathBuf {
    let path = dir.join("00000077-0000-4000-8000-000000000077.jsonl");
    let mut f = std::io::BufWriter::new(fs::File::create(&path).unwrap());
    writeln!(f, r#"{{"type":"permission-mode","permissionMode":"default"}}"#).unwrap();
    for i in 0..turns {
        let ts = format!("2026-11-30T09:{:02}:{:02}.000Z", (i / 60) % 60, i % 60);
        writeln!(f, r#"{{"type":"user","uuid":"u{i}","timestamp":"{ts}","message":{{"role":"user","content":"prompt {i}"}}}}"#).unwrap();
        if i % 10 == 0 {
            writeln!(f, r#"{{"type":"assistant","uuid":"t{i}","timestamp":"{ts}","message":{{"id":"m{i}t","content":[{{"type":"tool_use","id":"tool{i}","name":"Bash","input":{{"command":"ls"}}}}]}}}}"#).unwrap();
            writeln!(f, r#"{{"type":"user","uuid":"r{i}","timestamp":"{ts}","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"tool{i}","content":"ok"}}]}}}}"#).unwrap();
        }
        writeln!(f, r#"{{"type":"assistant","uuid":"a{i}","timestamp":"{ts}","message":{{"id":"m{i}","content":[{{"type":"text","text":"answer {i}"}}]}}}}"#).unwrap();
    }
    f.flush().unwrap();
    path
}

fn offset_of(path: &Path, uuid: &str) -> u64 {
    let text = fs::read_to_string(path).unwrap();
    text.find(&format!(r#""uuid":"{uuid}""#))
        .map(|i| text[..i].rfind('\n').map_or(0, |n| n + 1))
        .unwrap() as u64
}

#[test]
fn a_page_around_a_deep_line_starts_at_its_prompt_and_pages_on_to_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = long_transcript(dir.path(), 25_000);
    let whole: Vec<String> = read(&path).iter().filter_map(|m| m.uuid.clone()).collect();
    assert!(whole.len() > 50_000, "{}", whole.len());
    let at = offset_of(&path, "a12345");
    let page = messages::read_page_around(&path, at, 100).unwrap();
    let uuids: Vec<String> = page.messages.iter().filter_map(|m| m.uuid.clone()).collect();
    assert_eq!(
        uuids.first().map(String::as_str),
        Some("u12345"),
        "the page starts at the hit's prompt"
    );
    assert!(uuids.contains(&"a12345".to_owned()));
    assert!((80..=130).contains(&page.messages.len()), "{}", page.messages.len());
    assert!(page.earlier_cursor.is_some() && page.later_cursor.is_some());

    // Later pages continue exactly where the previous one ended, to the end of the file.
    let mut seen = uuids;
    let mut next = page.later_cursor;
    while let Some(after) = next {
        let p = messages::read_page_after(&path, after, 500).unwrap();
        seen.extend(p.messages.iter().filter_map(|m| m.uuid.clone()));
        next = p.later_cursor;
    }
    let from = whole.iter().position(|u| u == "u12345").unwrap();
    assert_eq!(seen, whole[from..], "pages around and after a hit add up to the rest of the file");

    // The earlier cursor meets the backwards pages: nothing lost, nothing twice.
    let before = messages::read_page(&path, page.earlier_cursor, 100).unwrap();
    assert_eq!(before.messages.last().and_then(|m| m.uuid.as_deref()), Some("a12344"));

    // An offset in the middle of a line, past the end, or at 0 still gives a sane page.
    assert!(
        messages::read_page_around(&path, at + 5, 10)
            .unwrap()
            .messages
            .iter()
            .any(|m| m.uuid.as_deref() == Some("a12345"))
    );
    assert!(messages::read_page_around(&path, u64::MAX, 10).unwrap().later_cursor.is_none());
    let first = messages::read_page_around(&path, 0, 10).unwrap();
    assert_eq!((first.earlier_cursor, first.messages[0].uuid.as_deref()), (None, Some("u0")));
}

// ---------------------------------------------------------------------------------------------
// Rewound branches (fixtures/transcripts/rewound-2.1.jsonl: a rewind back to the first turn,
// abandoning two prompts and a tool call; an unknown `atis-latch` line)

const REWOUND_SID: &str = "7a1f3c5e-2b4d-4e6f-8a0b-1c3d5e7f9a2b";

fn rewound() -> PathBuf {
    fx("rewound-2.1.jsonl")
}

fn texts(messages: &[TranscriptMessage]) -> Vec<String> {
    messages.iter().filter(|m| m.role != Role::Tool).map(|m| m.content.clone()).collect()
}

#[test]
fn listing_facts_follow_the_resumed_branch() {
    let f = facts_of(&rewound());
    assert!(f.may_branch);
    assert_eq!(f.rewound_prompts, 2);
    // Resumed: 3 prompts + 3 responses. In file order there are 5 more (2 prompts, 3 responses).
    assert_eq!(f.message_count, 6);
    assert_eq!(
        f.preview.as_deref(),
        Some("Is a dev-docs/ vs work/ split a good idea for this repo?")
    );
    let plain = facts_of(&fx("streamed-2.1.jsonl"));
    assert!(!plain.may_branch && plain.rewound_prompts == 0, "{plain:?}");
}

#[test]
fn a_rewind_whose_first_prompt_was_replaced_takes_its_preview_from_the_resumed_branch() {
    let text = fs::read_to_string(rewound()).unwrap();
    // Rewind to the very start: the replacement prompt hangs from nothing but the session head.
    let first_prompt = "7a1f0001-7a1f-4001-8001-b0a1d0000001";
    let edited = text.replace(
        "\"parentUuid\":\"7a1f0004-7a1f-4004-8004-b0a1d0000004\",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/home/dev/ideas\",\"sessionId\":\"7a1f3c5e-2b4d-4e6f-8a0b-1c3d5e7f9a2b\",\"version\":\"2.1.42\",\"gitBranch\":\"main\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"I actually",
        "\"parentUuid\":null,\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/home/dev/ideas\",\"sessionId\":\"7a1f3c5e-2b4d-4e6f-8a0b-1c3d5e7f9a2b\",\"version\":\"2.1.42\",\"gitBranch\":\"main\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"I actually",
    );
    assert_ne!(edited, text, "the fixture's rewind line changed shape");
    // A null parent makes a separate root, not a rewind: nothing is hidden.
    let (_d, p) = temp_file(edited.as_bytes());
    assert_eq!(facts_of(&p).rewound_prompts, 0);
    // Hanging it from the first prompt's snapshot-less head (its first line) is a rewind of all.
    let mut lines: Vec<serde_json::Value> =
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let head = serde_json::json!({"type":"system","subtype":"informational","uuid":"7a1f00ff-7a1f-40ff-80ff-b0a1d00000ff",
        "parentUuid":null,"isSidechain":false,"content":"session start","timestamp":"2026-05-12T18:46:59.000Z"});
    for l in &mut lines {
        if l["uuid"] == first_prompt {
            l["parentUuid"] = head["uuid"].clone();
        }
        if l["message"]["content"].as_str().is_some_and(|c| c.starts_with("I actually")) {
            l["parentUuid"] = head["uuid"].clone();
        }
    }
    lines.insert(1, head);
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let (_d2, p2) = temp_file(body.as_bytes());
    let f = facts_of(&p2);
    assert_eq!(f.rewound_prompts, 3, "{f:?}");
    assert_eq!(
        f.preview.as_deref(),
        Some("I actually don't like this idea much. List five weak points.")
    );
    assert_eq!(f.message_count, 4);
}

#[test]
fn the_viewer_shows_the_resumed_branch_and_the_rewound_one_on_request() {
    let path = rewound();
    let (_, b) = corral_engine::transcript::branches::scan(&path).unwrap();
    assert_eq!(b.rewinds.len(), 1);
    let r = &b.rewinds[0];
    assert_eq!((r.prompts, r.messages), (2, 5));
    let lines = messages::Lines::Except(b.hidden.clone());
    let page = messages::read_page_in(&path, None, 100, &lines).unwrap();
    let shown = texts(&page.messages);
    assert_eq!(
        shown,
        vec![
            "Is a dev-docs/ vs work/ split a good idea for this repo?",
            "Mostly yes: one idea file, a convention for where notes go.",
            "I actually don't like this idea much. List five weak points.",
            "1. The boundary is often blurry.",
            "Fair enough. Write a balanced opinion.",
            "It works when the boundary is named up front.",
        ]
    );
    assert!(page.messages.iter().all(|m| m.tool_call.is_none()), "the Read was rewound too");
    let replacement = page.messages.iter().find(|m| m.content.starts_with("I actually")).unwrap();
    assert_eq!(replacement.offset, r.at, "the mark sits at the prompt that replaced the branch");
    // Pages of any size concatenate to the same resumed view.
    for limit in [1, 2, 3] {
        let mut all = Vec::new();
        let mut before = None;
        loop {
            let p = messages::read_page_in(&path, before, limit, &lines).unwrap();
            all.splice(0..0, p.messages);
            match p.earlier_cursor {
                Some(c) => before = Some(c),
                None => break,
            }
        }
        assert_eq!(texts(&all), shown, "limit {limit}");
    }
    // The whole read (show, export) follows the same branch.
    let whole = messages::read_transcript_in(&path, REWOUND_SID, "/w", &lines).unwrap();
    assert_eq!(texts(&whole.messages), shown);
    // The abandoned branch, one click away: its prompts, replies and the tool call with output.
    let branch = messages::read_lines(&path, &r.lines, 100).unwrap();
    let abandoned = texts(&branch.messages);
    assert_eq!(abandoned[0], "I very much like this idea. List five strengths.");
    assert_eq!(abandoned[2], "Now write a balanced opinion on it.");
    assert_eq!(abandoned.len(), 4, "2 prompts, 2 replies with text (the third only called Read)");
    let read = branch.messages.iter().find_map(|m| m.tool_call.as_ref()).unwrap();
    assert_eq!(
        (read.tool_name.as_str(), read.output.as_str(), read.pending),
        ("Read", "# dev-docs\n", false)
    );
    // Every line is either shown or on the branch, never both.
    let everything = texts(&read_all_lines(&path));
    assert_eq!(everything.len(), shown.len() + abandoned.len());
}

/// A world whose Claude home holds the rewound fixture: (world, its folder, a catalog).
fn rewound_catalog() -> (crate::world::World, PathBuf, corral_engine::catalog::Catalog) {
    let w = crate::world::World::new();
    let dir = w.folder_of("/home/dev/ideas");
    fs::create_dir_all(&dir).unwrap();
    fs::copy(rewound(), dir.join(format!("{REWOUND_SID}.jsonl"))).unwrap();
    let c = w.catalog();
    (w, dir, c)
}

fn read_all_lines(path: &Path) -> Vec<TranscriptMessage> {
    read(path)
}

#[test]
fn an_unknown_entry_type_changes_no_count_preview_or_message() {
    let text = fs::read_to_string(rewound()).unwrap();
    assert!(text.contains("\"type\":\"atis-latch\""));
    let without: String =
        text.lines().filter(|l| !l.contains("atis-latch")).map(|l| format!("{l}\n")).collect();
    let (_d, p) = temp_file(without.as_bytes());
    let (a, b) = (facts_of(&rewound()), facts_of(&p));
    assert_eq!(
        (a.message_count, &a.preview, a.skipped_lines, a.rewound_prompts),
        (b.message_count, &b.preview, b.skipped_lines, b.rewound_prompts)
    );
    assert_eq!(texts(&read(&rewound())), texts(&read(&p)));
}

#[test]
fn the_catalog_marks_rewinds_in_pages_and_serves_the_abandoned_branch() {
    let (_w, dir, c) = rewound_catalog();
    let s = c.session(REWOUND_SID).unwrap();
    assert_eq!(s.message_count, 6);
    let page = c.messages_page(REWOUND_SID, None, 100).unwrap();
    assert_eq!(page.rewinds.len(), 1);
    let mark = &page.rewinds[0];
    assert_eq!((mark.prompts, mark.messages), (2, 5));
    assert_eq!(
        mark.first_prompt.as_deref(),
        Some("I very much like this idea. List five strengths.")
    );
    assert!(page.messages.iter().any(|m| m.offset == mark.at));
    assert!(!page.messages.iter().any(|m| m.content.contains("five strengths")));
    // A page that ends before the replacement prompt carries no mark.
    let early = c.messages_page(REWOUND_SID, Some(mark.at), 100).unwrap();
    assert!(early.rewinds.is_empty());
    let branch = c.rewound_branch(REWOUND_SID, mark.branch, 100).unwrap();
    assert_eq!(branch.messages[0].content, "I very much like this idea. List five strengths.");
    assert!(c.rewound_branch(REWOUND_SID, mark.branch + 1, 100).is_err());
    let whole = c.transcript(REWOUND_SID).unwrap();
    assert!(!whole.messages.iter().any(|m| m.content.contains("five strengths")));
    // Appending to the resumed branch keeps the mark (the cached scan is continued).
    let mut f =
        fs::OpenOptions::new().append(true).open(dir.join(format!("{REWOUND_SID}.jsonl"))).unwrap();
    writeln!(
        f,
        "{}",
        serde_json::json!({"parentUuid":"7a1f002b-7a1f-402b-802b-b0a1d000002b","isSidechain":false,
            "type":"user","uuid":"7a1f0050-7a1f-4050-8050-b0a1d0000050","sessionId":REWOUND_SID,
            "timestamp":"2026-05-12T19:59:00.000Z","message":{"role":"user","content":"One more thing."}})
    )
    .unwrap();
    drop(f);
    let after = c.messages_page(REWOUND_SID, None, 100).unwrap();
    assert_eq!(after.rewinds.len(), 1);
    assert_eq!(after.messages.last().unwrap().content, "One more thing.");
}

#[test]
fn a_search_hit_on_a_rewound_branch_opens_the_branch_where_it_was_replaced() {
    let (_w, _, c) = rewound_catalog();
    let newest = c.messages_page(REWOUND_SID, None, 100).unwrap();
    let mark = newest.rewinds[0].clone();
    let hit = c.rewound_branch(REWOUND_SID, mark.branch, 100).unwrap().messages[2].offset;
    let page = c.page(REWOUND_SID, None, corral_engine::catalog::PageAt::Around(hit), 100).unwrap();
    assert_eq!(page.open_branch, Some(mark.branch));
    assert!(page.rewinds.iter().any(|r| r.branch == mark.branch));
    assert!(page.messages.iter().any(|m| m.offset == mark.at));
    // A hit on the resumed branch opens as before.
    let plain =
        c.page(REWOUND_SID, None, corral_engine::catalog::PageAt::Around(mark.at), 100).unwrap();
    assert_eq!(plain.open_branch, None);
}

/// A search hit on a rewound branch says so (its session's count includes it; the viewer opens
/// the branch at it), and a hit on the resumed branch does not.
#[test]
fn search_hits_on_a_rewound_branch_are_marked() {
    let (w, _, c) = rewound_catalog();
    let index = corral_engine::search::SearchIndex::open(&w.data).unwrap();
    let opts = corral_engine::search::UpdateOptions {
        wait: std::time::Duration::from_secs(5),
        ..Default::default()
    };
    index.update(&c, opts, &mut |_| {}).unwrap();
    let hits = |q: &str| {
        let r = index.search(&c, q, Default::default()).unwrap();
        r.sessions.into_iter().flat_map(|s| s.hits).collect::<Vec<_>>()
    };
    let rewound = hits("\"five strengths\"");
    assert!(!rewound.is_empty() && rewound.iter().all(|h| h.rewound), "{rewound:?}");
    // Asked twice, once on each branch: only the rewound one is marked.
    let both = hits("\"balanced opinion\"");
    let marks: Vec<(&str, bool)> = both.iter().map(|h| (h.snippet.as_str(), h.rewound)).collect();
    assert_eq!(marks.len(), 2, "{marks:?}");
    assert!(marks.contains(&("Fair enough. Write a balanced opinion.", false)), "{marks:?}");
    assert!(marks.contains(&("Now write a balanced opinion on it.", true)), "{marks:?}");
}

/// One rule for what a subagent run is (a transcript on disk): a call whose run has none says
/// so, wherever the call is read.
#[test]
fn a_subagent_call_whose_run_is_not_on_disk_says_so() {
    let w = crate::world::World::new();
    let shop = w.folder_of("/home/dev/shop");
    crate::support::copy_tree(&fx("project"), &shop);
    let main = shop.join(format!("{PROJECT_SID}.jsonl"));
    let mut f = fs::OpenOptions::new().append(true).open(&main).unwrap();
    for l in [
        serde_json::json!({"type":"assistant","uuid":"gone-1","parentUuid":null,"sessionId":PROJECT_SID,
            "timestamp":"2026-03-04T11:00:00.000Z","message":{"id":"msg_gone","model":"claude-opus-4-6",
            "role":"assistant","content":[{"type":"tool_use","id":"toolu_gone","name":"Agent",
            "input":{"description":"A run whose file was deleted","prompt":"x"}}]}}),
        serde_json::json!({"type":"user","uuid":"gone-2","parentUuid":"gone-1","sessionId":PROJECT_SID,
            "timestamp":"2026-03-04T11:00:09.000Z","toolUseResult":{"status":"completed","agentId":"a0ffffffffffffff0"},
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_gone","content":"done"}]}}),
    ] {
        writeln!(f, "{l}").unwrap();
    }
    drop(f);
    let c = w.catalog();
    let runs: Vec<String> =
        c.session_details(PROJECT_SID).unwrap().subagents.into_iter().map(|s| s.agent_id).collect();
    let check = |messages: &[TranscriptMessage]| {
        let calls: Vec<_> = messages
            .iter()
            .filter_map(|m| m.tool_call.as_ref())
            .filter(|c| c.subagent_id.is_some())
            .collect();
        assert_eq!(calls.len(), 2, "{calls:?}");
        for call in calls {
            let id = call.subagent_id.as_deref().unwrap();
            assert_eq!(call.subagent_missing, !runs.iter().any(|r| r == id), "{id}");
        }
        assert!(messages.iter().filter_map(|m| m.tool_call.as_ref()).any(|c| c.subagent_missing));
    };
    check(&c.messages_page(PROJECT_SID, None, 100).unwrap().messages);
    check(&c.transcript(PROJECT_SID).unwrap().messages);
    let mut streamed = Vec::new();
    c.stream_transcript(PROJECT_SID, &mut |m| {
        streamed.extend(m);
        Ok(())
    })
    .unwrap();
    check(&streamed);
}

#[test]
fn usage_by_model_counts_each_response_once_over_the_resumed_branch() {
    use corral_engine::model::{ModelUsage, TokenTotals};
    use corral_engine::transcript::usage;
    let u = usage::by_model(&fx("streamed-2.1.jsonl"), &messages::Lines::All).unwrap();
    let sonnet = ModelUsage {
        model: "claude-sonnet-4-6".into(),
        responses: 3,
        tokens: TokenTotals {
            input_tokens: 12 + 20 + 5,
            // The last chunk of each response: 60, 45, 25 (not the sum of every chunk).
            output_tokens: 60 + 45 + 25,
            cache_read_tokens: 2000 + 2500 + 2600,
            // The nested 5m/1h split counts when it is larger than the flat field.
            cache_write_tokens: 500 + 100 + 300,
        },
    };
    let opus = ModelUsage {
        model: "claude-opus-4-7".into(),
        responses: 1,
        tokens: TokenTotals {
            input_tokens: 30,
            output_tokens: 70,
            cache_read_tokens: 2700,
            cache_write_tokens: 0,
        },
    };
    assert_eq!(u, vec![sonnet, opus], "<synthetic> is not a model");
    // Over the resumed branch only: the rewound fixture's abandoned responses are left out.
    let (_w, _, c) = rewound_catalog();
    let resumed = c.usage_by_model(REWOUND_SID).unwrap();
    assert_eq!(resumed.len(), 1);
    assert_eq!(resumed[0].responses, 3);
    let all = usage::by_model(&rewound(), &messages::Lines::All).unwrap();
    assert_eq!(all[0].responses, 6);
}

/// ≤ 2.0: a session's title is the summary naming its newest leaf, wherever in the folder it was
/// written; a summary naming another session's leaf is that session's title, not this one's.
#[test]
fn titles_of_2_0_sessions_come_from_the_summary_naming_their_newest_leaf() {
    let w = crate::world::World::new();
    let dir = w.folder_of("/home/dev/notes");
    crate::support::copy_tree(&fx("summaries-2.0"), &dir);
    let names = |c: &corral_engine::Catalog| {
        let (a, b, c2) = (
            "a1a1a1a1-0000-4000-8000-000000000001",
            "b2b2b2b2-0000-4000-8000-000000000002",
            "c3c3c3c3-0000-4000-8000-000000000003",
        );
        let n = |id: &str| c.session(id).ok().map(|s| s.display_name().to_owned());
        (n(a), n(b), n(c2))
    };
    let (a, b, c) = names(&w.catalog());
    assert_eq!(a.as_deref(), Some("Note format design"), "written in the next session's file");
    assert_eq!(b.as_deref(), Some("Tag index for notes"), "written in the one after");
    assert_eq!(c.as_deref(), Some("Search the notes"), "its only summary is b's: the preview");
    // Without the last file, b's own summaries title it — but not the one naming a's leaf.
    fs::remove_file(dir.join("c3c3c3c3-0000-4000-8000-000000000003.jsonl")).unwrap();
    let (a, b, c) = names(&w.catalog());
    assert_eq!(a.as_deref(), Some("Note format design"));
    assert_eq!(b.as_deref(), Some("Gone session title"));
    assert_eq!(c, None);
    // One file alone (adopt, import previews) is never named by a summary of another leaf
    // (here a's title, written at the top of b's file): its own first prompt names it.
    let f = facts_of(&dir.join("b2b2b2b2-0000-4000-8000-000000000002.jsonl"));
    assert_eq!(f.auto_name().as_deref(), Some("Index the notes by tag"), "its preview");
    assert_eq!(f.auto_name(), f.preview);
    assert_eq!(f.leaf_summaries.len(), 2);
}

/// A conversation continued into a new file is linked both ways, by either sign of it: the new
/// file's first line hanging from the old one's newest, or the new file replaying the old one's
/// first line (≤ 1.0 resumes copied the history).
#[test]
fn continuations_are_linked_both_ways() {
    let (a, b) = ("d4d4d4d4-0000-4000-8000-000000000004", "e5e5e5e5-0000-4000-8000-000000000005");
    let w = crate::world::World::new();
    let dir = w.folder_of("/home/dev/notes");
    crate::support::copy_tree(&fx("continued"), &dir);
    let c = w.catalog();
    let (sa, sb) = (c.session(a).unwrap(), c.session(b).unwrap());
    assert_eq!((sa.continued_from.as_deref(), sa.continued_in.as_deref()), (None, Some(b)));
    assert_eq!((sb.continued_from.as_deref(), sb.continued_in.as_deref()), (Some(a), None));
    // A replay: a third file that starts with a's first line, written later.
    let first = fs::read_to_string(dir.join(format!("{a}.jsonl"))).unwrap();
    let replay_id = "f6f6f6f6-0000-4000-8000-000000000006";
    let replay: String = first
        .lines()
        .map(|l| l.replace(a, replay_id).replace("2026-06-01", "2026-06-03"))
        .chain([serde_json::json!({"parentUuid":"d4000002-0000-4000-8000-000000000002","isSidechain":false,
            "type":"user","uuid":"f6000003-0000-4000-8000-000000000003","sessionId":replay_id,
            "timestamp":"2026-06-03T11:00:00.000Z","message":{"role":"user","content":"And a second index"}}).to_string()])
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(dir.join(format!("{replay_id}.jsonl")), replay).unwrap();
    let c = w.catalog();
    let r = c.session(replay_id).unwrap();
    assert_eq!(r.continued_from.as_deref(), Some(a), "{r:?}");
    assert_eq!(c.session(a).unwrap().continued_in.as_deref(), Some(b), "the hung-from link wins");
    // Unrelated sessions are not linked.
    let plain = w.session(&dir, &crate::world::sid(9), "/home/dev/notes", false);
    assert!(plain.exists());
    let p = w.catalog().session(&crate::world::sid(9)).unwrap();
    assert_eq!((p.continued_from, p.continued_in), (None, None));
}

const FORKED_SID: &str = "f0f0f0f0-0000-4000-8000-00000000000f";
/// The fork run whose copies name the lines they copy (`forkedFrom`).
const FORK_NAMED: &str = "af0ca11ed0f0a0001";
/// The fork run whose copies keep the main transcript's uuids, nothing more.
const FORK_SAME_UUIDS: &str = "af0ca11ed0f0b0002";

fn forked_catalog() -> (crate::world::World, corral_engine::catalog::Catalog) {
    let w = crate::world::World::new();
    crate::support::copy_tree(&fx("forked"), &w.folder_of("/home/dev/parser"));
    let c = w.catalog();
    (w, c)
}

/// A fork subagent begins with a copy of the conversation so far: each message is shown,
/// exported and searched once, in the main transcript, and the run says what it left out.
#[test]
fn a_fork_subagent_shows_each_message_of_the_main_conversation_once() {
    use corral_engine::export::{self, ExportFormat, ExportRequest, ExportedTranscript};
    let (w, c) = forked_catalog();
    let details = c.session_details(FORKED_SID).unwrap();
    let runs: Vec<(&str, Option<&str>)> =
        details.subagents.iter().map(|s| (s.agent_id.as_str(), s.agent_type.as_deref())).collect();
    assert_eq!(runs, vec![(FORK_NAMED, Some("fork")), (FORK_SAME_UUIDS, Some("fork"))]);
    let main = c.messages_page(FORKED_SID, None, 100).unwrap();
    assert_eq!(main.inherited, 0);
    assert_eq!(
        main.messages.iter().filter(|m| m.content.contains("drop the last token")).count(),
        1
    );
    for (run, own) in [
        (FORK_NAMED, ["Look for the off-by-one in lexer.rs", "lexer.rs:88 has the same bound"]),
        (FORK_SAME_UUIDS, ["Look for the off-by-one in parser.rs", "parser.rs is fine."]),
    ] {
        let page = c.subagent_page(FORKED_SID, run, None, 100).unwrap();
        let texts: Vec<&str> = page.messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(texts.len(), 2, "{run}: {texts:?}");
        for (text, want) in texts.iter().zip(own) {
            assert!(text.starts_with(want), "{run}: {text:?}");
        }
        assert_eq!(page.inherited, 3, "{run}: the two prompts and the reply before the fork");
        // The engine's whole-run reader agrees with the pages.
        let whole = messages::read_subagent(
            &w.folder_of("/home/dev/parser").join(format!("{FORKED_SID}.jsonl")),
            FORKED_SID,
            run,
            "/home/dev/parser",
        )
        .unwrap()
        .unwrap();
        assert_eq!(whole.messages, page.messages);
    }
    // Exports carry each run's own messages only.
    let mut out = Vec::new();
    let req = ExportRequest { format: ExportFormat::Json, subagents: true };
    export::export(&c, FORKED_SID, req, &mut out).unwrap();
    let parsed: ExportedTranscript = serde_json::from_slice(&out).unwrap();
    assert_eq!(parsed.subagents.len(), 2);
    for s in &parsed.subagents {
        assert_eq!(s.messages.len(), 2, "{}", s.agent_id);
        assert!(!s.messages.iter().any(|m| m.content.contains("drop the last token")));
    }
    // Search finds the first prompt once, in the main transcript.
    let index = corral_engine::search::SearchIndex::open(&w.data).unwrap();
    let opts = corral_engine::search::UpdateOptions {
        wait: std::time::Duration::from_secs(5),
        ..Default::default()
    };
    index.update(&c, opts, &mut |_| {}).unwrap();
    let found = index
        .search(&c, "tokenizer drop", corral_engine::search::SearchOptions::default())
        .unwrap();
    assert_eq!(found.total_matches, 1, "{found:?}");
    assert_eq!(found.sessions[0].hits[0].agent_id, None);
    let own = index.search(&c, "\"off-by-one in parser.rs\"", Default::default()).unwrap();
    let agents: Vec<Option<&str>> =
        own.sessions[0].hits.iter().map(|h| h.agent_id.as_deref()).collect();
    assert!(agents.contains(&Some(FORK_SAME_UUIDS)), "{agents:?}");
}

/// The listing's token totals are what the usage panel adds up: each response once (streamed
/// chunks are one), cache reads and writes apart, the rewound branch left out; and an agent's
/// or a folder's total is the sum of its sessions'.
#[test]
fn token_totals_match_the_usage_panel_and_add_up_per_agent_and_folder() {
    use corral_engine::model::TokenTotals;
    let streamed = facts_of(&fx("streamed-2.1.jsonl"));
    assert_eq!(streamed.tokens, panel_tokens(&fx("streamed-2.1.jsonl")));
    assert!(streamed.tokens.cache_write_tokens > 0 && streamed.tokens.output_tokens > 0);
    let all = panel_tokens(&rewound());
    let rewound_facts = facts_of(&rewound());
    assert_eq!(
        rewound_facts.tokens,
        corral_engine::transcript::usage::totals(&rewound(), &messages::Lines::All)
            .map(|whole| {
                assert!(
                    whole.output_tokens > all.output_tokens,
                    "the rewound branch spent tokens too"
                );
                all
            })
            .unwrap()
    );
    for name in ["titles.jsonl", "meta-commands.jsonl", "inline-sidechain-1.0.jsonl"] {
        assert_eq!(facts_of(&fx(name)).tokens, panel_tokens(&fx(name)), "{name}");
    }
    // Per agent and per folder: the sum of the sessions.
    let home = crate::home::Home::new();
    let c = home.catalog();
    let listing = c.all_sessions(Default::default()).unwrap();
    let mut by_agent: std::collections::HashMap<String, TokenTotals> = Default::default();
    let mut any = false;
    for g in &listing.groups {
        let mut sum = TokenTotals::default();
        for s in &g.sessions {
            sum.add(&s.tokens);
            any |= s.tokens.output_tokens > 0;
            if let Some(a) = &s.agent_name {
                by_agent.entry(a.clone()).or_default().add(&s.tokens);
            }
        }
        assert_eq!(g.tokens, sum, "{}", g.working_directory);
    }
    assert!(any, "the fixture home has sessions that used tokens");
    let agents = c.agents().unwrap();
    for a in &agents {
        assert_eq!(a.tokens, by_agent.get(&a.name).copied().unwrap_or_default(), "{}", a.name);
    }
    assert!(agents.iter().any(|a| a.tokens.output_tokens > 0), "{agents:?}");
}

#[test]
fn tool_calls_carry_the_form_they_are_shown_in_and_rejections_are_not_errors() {
    use corral_engine::model::{LineChange, ToolForm};
    let calls: Vec<_> =
        read(&fx("tool-forms-2.1.jsonl")).into_iter().filter_map(|m| m.tool_call).collect();
    let names: Vec<&str> = calls.iter().map(|c| c.tool_name.as_str()).collect();
    assert_eq!(names, ["TodoWrite", "Edit", "MultiEdit", "Bash", "Write"]);

    let Some(ToolForm::Todos { items }) = &calls[0].form else { panic!("{:?}", calls[0].form) };
    let statuses: Vec<&str> = items.iter().map(|t| t.status.as_str()).collect();
    assert_eq!(statuses, ["completed", "in_progress", "pending"]);

    let Some(ToolForm::Edit { path, edits }) = &calls[1].form else { panic!() };
    assert_eq!(path, "/home/dev/shop/src/discount.ts");
    let changed: Vec<(LineChange, &str)> =
        edits[0].lines.iter().map(|l| (l.change, l.text.as_str())).collect();
    assert_eq!(
        changed,
        [
            (LineChange::Same, "export function discount(p: number) {"),
            (LineChange::Removed, "  return p * 0.9;"),
            (LineChange::Added, "  return Math.round(p * 90) / 100;"),
            (LineChange::Same, "}"),
        ]
    );

    // A failed edit: its error is told without Claude Code's tags, and it is an error.
    let Some(ToolForm::Edit { edits, .. }) = &calls[2].form else { panic!() };
    assert_eq!(edits.len(), 2);
    assert!(calls[2].is_error && !calls[2].rejected);
    assert!(calls[2].output.starts_with("String to replace not found in file."));
    assert!(!calls[2].output.contains("tool_use_error"));

    // Bash keeps its output as recorded (the viewer draws the colours).
    assert!(
        matches!(&calls[3].form, Some(ToolForm::Command { command, .. }) if command == "npm test -- discount")
    );
    assert!(calls[3].output.contains("\u{1b}[31m"));
    assert!(calls[3].is_error && !calls[3].rejected);

    // A call the person declined is rejected, not a failure of the tool.
    let write = &calls[4];
    assert!(write.rejected && write.is_error);
    assert!(
        matches!(&write.form, Some(ToolForm::Write { path, .. }) if path == "/home/dev/shop/NOTES.md")
    );
}

#[test]
fn attachments_are_described_with_each_prompt_and_only_true_images_are_handed_out() {
    use corral_engine::model::AttachmentKind;
    use corral_engine::transcript::attachments;
    let path = fx("attachments-2.1.jsonl");
    let prompts: Vec<TranscriptMessage> =
        read(&path).into_iter().filter(|m| m.role == Role::User).collect();
    assert_eq!(prompts.len(), 3, "an image-only prompt is a message too");
    assert_eq!(prompts[0].content, "Why is the header blue here? [Image #1]");
    let [pasted] = prompts[0].attachments.as_slice() else {
        panic!("{:?}", prompts[0].attachments)
    };
    assert!(pasted.viewable && pasted.kind == AttachmentKind::Image);
    assert_eq!(pasted.media_type.as_deref(), Some("image/png"));
    assert_eq!(pasted.offset, prompts[0].offset);
    let data = attachments::read(&path, pasted.offset, pasted.index).unwrap();
    assert_eq!(data.media_type, "image/png");
    assert!(data.data.starts_with("iVBORw0KGgo"), "the PNG's own base64");

    let [doc, remote, fake] = prompts[1].attachments.as_slice() else { panic!() };
    assert_eq!((doc.kind, doc.title.as_deref()), (AttachmentKind::Document, Some("spec.pdf")));
    assert!(!doc.viewable && doc.bytes.unwrap() > 0);
    assert_eq!(remote.reference.as_deref(), Some("https://example.com/remote.png"));
    assert!(!remote.viewable && remote.bytes.is_none(), "a remote image is never loaded");
    assert!(!fake.viewable, "its bytes are not the PNG it claims to be");
    // Handed out only when the bytes are the image they claim to be.
    for (a, why) in [(doc, "not an image"), (remote, "not an image"), (fake, "claims to be")] {
        let e = attachments::read(&path, a.offset, a.index).unwrap_err().to_string();
        assert!(e.contains(why), "{e}");
    }
    assert!(attachments::read(&path, pasted.offset, 7).is_err());
    assert!(attachments::read(&path, pasted.offset + 1, 0).is_err(), "not a line's start");
    assert!(attachments::read(&path, u64::MAX / 2, 0).is_err());

    assert_eq!(prompts[2].content, "");
    assert_eq!(prompts[2].attachments.len(), 1);
}

/// The class "an image is what its bytes say": every viewable type against bytes of every kind,
/// including GIF and SVG bytes called PNG and a RIFF that is not WebP (a WAV). Described as
/// viewable, and handed out, exactly when the bytes are the type claimed. Before: the
/// description trusted the claimed type, and any RIFF passed as WebP.
#[test]
fn an_image_is_viewable_exactly_when_its_bytes_are_the_type_it_claims() {
    use base64::Engine as _;
    use corral_engine::transcript::attachments;
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let jpeg = b"\xff\xd8\xff\xe0\0\x10JFIF\0".to_vec();
    let gif = b"GIF89a\x01\0\x01\0\0\0\0".to_vec();
    let webp = b"RIFF\x24\0\0\0WEBPVP8 ".to_vec();
    let wav = b"RIFF\x24\0\0\0WAVEfmt ".to_vec();
    let svg = b"<svg xmlns='http://www.w3.org/2000/svg'/>".to_vec();
    let gif8x = b"GIF8xa\x01\0\x01\0".to_vec();
    let kinds: [(&str, &[u8]); 7] = [
        ("png", &png),
        ("jpeg", &jpeg),
        ("gif", &gif),
        ("webp", &webp),
        ("wav", &wav),
        ("svg", &svg),
        ("gif8x", &gif8x),
    ];
    let claims = ["image/png", "image/jpeg", "image/gif", "image/webp"];
    let mut blocks = Vec::new();
    let mut expected = Vec::new();
    for claim in claims {
        for (name, bytes) in kinds {
            blocks.push(serde_json::json!({"type":"image","source":{"type":"base64",
                "media_type":claim,"data":b64(bytes)}}));
            expected.push((claim, name, format!("image/{name}") == claim));
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("images.jsonl");
    let line = serde_json::json!({"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s",
        "cwd":"/w","timestamp":"2026-05-01T10:00:00.000Z",
        "message":{"role":"user","content":blocks}});
    fs::write(&path, format!("{line}\n")).unwrap();
    let prompts = read(&path);
    let described = &prompts[0].attachments;
    assert_eq!(described.len(), expected.len());
    for (a, (claim, name, ok)) in described.iter().zip(&expected) {
        assert_eq!(a.viewable, *ok, "{name} bytes claimed as {claim}");
        let handed = attachments::read(&path, a.offset, a.index);
        assert_eq!(handed.is_ok(), *ok, "{name} bytes claimed as {claim}: {handed:?}");
    }
}

/// The listing index stores a scanner's state without its copy of the facts when the facts
/// it gives stand for that copy: every fixture's and corpus transcript's state comes back whole
/// (rewound branches, slash-command previews, subagents and damaged files included).
#[test]
fn every_scanner_state_comes_back_whole_from_the_listing_index() {
    use corral_engine::index::{FileStamp, IndexEntry};
    fn jsonl(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                jsonl(&p, out);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    jsonl(&crate::support::fixture(""), &mut files);
    if let Some(corpus) = crate::support::corpus() {
        jsonl(&corpus, &mut files);
    }
    assert!(files.len() >= 30, "{} transcripts", files.len());
    let mut rewound = 0;
    for p in &files {
        let scan = facts::scan_file(p, None).unwrap();
        let stamp = FileStamp { size: scan.offset, mtime_ns: 1, inode: 1, ctime_ns: 1 };
        let entry = IndexEntry::new(stamp, scan.offset, &scan.scanner);
        assert_eq!(entry.scanner().as_ref(), Some(&scan.scanner), "{}", p.display());
        assert_eq!(*entry.facts(), scan.scanner.facts(), "{}", p.display());
        rewound += usize::from(scan.scanner.facts().rewound_prompts > 0);
    }
    assert!(rewound > 0, "no transcript with a rewound branch was checked");
}
