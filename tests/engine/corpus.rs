//! Conformance against the shared corpus of real transcripts (../shared/corpus).

use std::path::{Path, PathBuf};

use corral_engine::transcript::{facts, messages};

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            jsonl_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

fn facts_of(root: &Path, rel: &str) -> facts::TranscriptFacts {
    facts::scan_file(&root.join(rel), None).unwrap().scanner.facts()
}

const CCL: &str = "claude-code-log/projects";

/// Every `.jsonl` in the corpus is read without panicking, by every entry point, and the pages
/// read backwards concatenate to the whole transcript.
#[test]
fn every_corpus_file_reads_and_pages_consistently() {
    let Some(root) = crate::support::corpus() else { return };
    let mut files = Vec::new();
    jsonl_files(&root, &mut files);
    files.sort();
    assert!(files.len() >= 60, "corpus has {} jsonl files", files.len());
    for p in &files {
        let scan = facts::scan_file(p, None).unwrap();
        let len = std::fs::metadata(p).unwrap().len();
        assert!(scan.offset <= len);
        let whole = messages::read_transcript(p, "s", "/w").unwrap();
        for limit in [1, 7, 40] {
            let paged = crate::transcript::all_pages(p, limit);
            let first_diff = paged.iter().zip(&whole.messages).position(|(a, b)| a != b);
            assert!(
                first_diff.is_none() && paged.len() == whole.messages.len(),
                "{} limit {limit}: {} vs {} messages, first difference at {first_diff:?}: {:?} vs {:?}",
                p.display(),
                paged.len(),
                whole.messages.len(),
                first_diff.map(|i| (
                    &paged[i].uuid,
                    paged[i].offset,
                    paged[i].content.chars().take(80).collect::<String>(),
                    paged[i].tool_call.as_ref().map(|c| (&c.tool_name, c.pending))
                )),
                first_diff.map(|i| (
                    &whole.messages[i].uuid,
                    whole.messages[i].offset,
                    whole.messages[i].content.chars().take(80).collect::<String>(),
                    whole.messages[i].tool_call.as_ref().map(|c| (&c.tool_name, c.pending))
                )),
            );
        }
        // Streamed in small pieces (as `show` streams a huge file), the same messages, usage
        // and skipped count come out.
        for piece in [1, 4096] {
            let mut streamed = Vec::new();
            let summary = messages::stream_transcript(p, piece, &messages::Lines::All, &mut |m| {
                streamed.extend(m);
                Ok(())
            })
            .unwrap();
            let first_diff = streamed.iter().zip(&whole.messages).position(|(a, b)| a != b);
            assert!(
                first_diff.is_none() && streamed.len() == whole.messages.len(),
                "{} pieces of {piece}: {} vs {} messages, first difference at {first_diff:?}",
                p.display(),
                streamed.len(),
                whole.messages.len()
            );
            assert_eq!(summary.usage, whole.usage, "{} pieces of {piece}", p.display());
            assert_eq!(summary.skipped_lines, whole.skipped_lines, "{}", p.display());
        }
        let f = scan.scanner.facts();
        assert_eq!(f.usage, whole.usage, "{}", p.display());
        assert_eq!(f.tokens, crate::transcript::panel_tokens(p), "{}", p.display());
        // REAL files carry no damage: nothing is skipped outside derived-edge-cases/herdctl.
        let rel = p.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        if !rel.starts_with("derived-edge-cases") && !rel.starts_with("herdctl-synthetic") {
            assert_eq!(f.skipped_lines, 0, "{rel}");
            assert_eq!(whole.skipped_lines, 0, "{rel}");
        }
    }
}

#[test]
fn known_facts_from_sources_md() {
    let Some(root) = crate::support::corpus() else { return };
    let sample = format!("{CCL}/-Users-dain-workspace-claude-code-log-sample");

    // 1.0.24, starts with summary lines.
    let f = facts_of(&root, &format!("{sample}/fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl"));
    assert_eq!(f.version.as_deref(), Some("1.0.24"));
    assert!(f.has_messages && !f.is_sidechain);
    assert!(f.summary.is_some());

    // 1.0.43: ~1 MB line, no gitBranch, timestamps not monotonic (min/max, not first/last).
    let f = facts_of(&root, &format!("{sample}/0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"));
    assert_eq!(f.version.as_deref(), Some("1.0.43"));
    assert_eq!(f.git_branch, None);
    assert_eq!(f.skipped_lines, 0);
    assert!(f.first_message_at.as_deref().unwrap() < f.last_message_at.as_deref().unwrap());

    // Summary-only (117 bytes) and 0-byte files.
    let f = facts_of(&root, &format!("{sample}/4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl"));
    assert!(!f.has_messages);
    assert!(f.summary.is_some());
    let f = facts_of(&root, &format!("{sample}/4fe49c7c-ff82-4ac7-b3f2-79c22036bd58.jsonl"));
    assert_eq!(f, facts::TranscriptFacts::default());

    // Snapshot/bookkeeping only.
    let f = facts_of(
        &root,
        &format!("{CCL}/-experiments-ideas/a95fea4a-b88a-4e49-ac07-4cc323d8700c.jsonl"),
    );
    assert!(!f.has_messages);

    // 2.1.42: first line file-history-snapshot; gitBranch "HEAD".
    let f = facts_of(
        &root,
        &format!("{CCL}/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"),
    );
    assert_eq!(f.version.as_deref(), Some("2.1.42"));
    assert_eq!(f.git_branch.as_deref(), Some("HEAD"));
    assert!(!f.is_sidechain);

    // Flat warmup sidechains: a single assistant line.
    for rel in [
        "-Users-dain-workspace-JSSoundRecorder/agent-3430b97e.jsonl",
        "-Users-dain-workspace-JSSoundRecorder/agent-388fb764.jsonl",
        "-src-deep-manifest/agent-c8d9b115.jsonl",
        "-Users-dain-workspace-claude-code-log-sample/agent-3be551df.jsonl",
    ] {
        let f = facts_of(&root, &format!("{CCL}/{rel}"));
        assert!(f.is_sidechain, "{rel}");
        assert!(f.has_messages, "{rel}");
    }

    // 2.0.37 Task sidechain: one message.id over 7 lines (text + 6 tool_use) → one message.
    let p = root
        .join(format!("{CCL}/-Users-dain-workspace-coderabbit-review-helper/agent-ea02459f.jsonl"));
    let t = messages::read_transcript(&p, "s", "/w").unwrap();
    let tools_after_first_assistant = t
        .messages
        .iter()
        .skip_while(|m| m.role != corral_engine::model::Role::Assistant)
        .skip(1)
        .take_while(|m| m.role == corral_engine::model::Role::Tool)
        .count();
    assert_eq!(tools_after_first_assistant, 6);

    // 2.0.42: queue-operation enqueue (array content) + dequeue; thinking merged with text.
    let p = root.join(format!(
        "{CCL}/-Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"
    ));
    let f = facts::scan_file(&p, None).unwrap().scanner.facts();
    assert_eq!(f.version.as_deref(), Some("2.0.42"));
    assert!(f.preview.as_deref().unwrap().starts_with("OK, so this was just so you know"));
    let t = messages::read_transcript(&p, "s", "/w").unwrap();
    assert!(t.messages.iter().all(|m| m.content != "/init"), "dequeued enqueue not repeated");
    let first =
        t.messages.iter().find(|m| m.role == corral_engine::model::Role::Assistant).unwrap();
    assert!(first.thinking.as_deref().is_some_and(|x| !x.is_empty()));
    assert!(first.content.starts_with("I'll analyze this codebase"));

    // 2.1.114: first line permission-mode; Agent result links a subagent; subagents listed.
    let main = root
        .join(format!("{CCL}/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"));
    let f = facts::scan_file(&main, None).unwrap().scanner.facts();
    assert_eq!(f.version.as_deref(), Some("2.1.114"));
    assert!(!f.is_sidechain);
    assert_eq!(f.usage.model.as_deref(), Some("claude-opus-4-7"));
    let t = messages::read_transcript(&main, "ef958aa1-0e93-49f0-bb71-150f63befcd1", "/w").unwrap();
    assert!(
        t.messages
            .iter()
            .filter_map(|m| m.tool_call.as_ref())
            .any(|c| c.subagent_id.as_deref() == Some("ab1e6e141221a29ab"))
    );
    let sub: Vec<_> =
        t.subagents.iter().map(|s| (s.agent_id.as_str(), s.agent_type.as_deref())).collect();
    assert!(sub.contains(&("a4ca7529859c158c2", Some("general-purpose"))));
    assert!(sub.contains(&("a36efb2a1231c41e2", Some("general-purpose"))));
    // Redacted thinking is kept as "".
    assert!(t.messages.iter().any(|m| m.thinking.as_deref() == Some("")));

    // 2.1.17 `claude -p` session with a nested subagent (7-char id).
    let main = root.join(format!(
        "{CCL}/-src-experiments-claude_p/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl"
    ));
    let subs = corral_engine::transcript::subagents::list_subagents(
        &main,
        "29ccd257-68b1-427f-ae5f-6524b7cb6f20",
    );
    assert_eq!(subs.iter().map(|s| s.agent_id.as_str()).collect::<Vec<_>>(), vec!["a2271d1"]);

    // 2.0.x flat subagent files carry the parent's sessionId.
    let main = root.join(format!(
        "{CCL}/-Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"
    ));
    let subs = corral_engine::transcript::subagents::list_subagents(
        &main,
        "7acd37a8-2745-4b58-a8a9-46164b22ad9e",
    );
    let ids: Vec<&str> = subs.iter().map(|s| s.agent_id.as_str()).collect();
    assert!(ids.contains(&"3430b97e"), "{ids:?}");

    // 1.0.108: sidechain lines written inline from line 16 are excluded.
    let p = root.join(
        "claude-code-viewer/projects/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    );
    let f = facts::scan_file(&p, None).unwrap().scanner.facts();
    assert_eq!(f.version.as_deref(), Some("1.0.108"));
    assert!(!f.is_sidechain);
    let inline_side = std::fs::read_to_string(&p)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"isSidechain\":true"))
        .count();
    assert_eq!(inline_side, 22);
    assert!(f.message_count < 25 + 28 - 22);
    // Command-only start: the command is the preview fallback.
    assert!(f.preview.as_deref().unwrap().starts_with("/orchestrator"));

    // 2.1.39: 1333 progress lines; compaction summary tagged; subagents incl. acompact.
    let main = root.join("spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    let f = facts::scan_file(&main, None).unwrap().scanner.facts();
    assert_eq!(f.version.as_deref(), Some("2.1.39"));
    assert_eq!(f.skipped_lines, 0);
    let t = messages::read_transcript(&main, "258c7280-ae70-4798-800f-63464d01a85d", "/w").unwrap();
    assert!(t.messages.iter().any(|m| m.origin_kind.as_deref() == Some("compact-summary")));
    let ids: Vec<&str> = t.subagents.iter().map(|s| s.agent_id.as_str()).collect();
    assert_eq!(ids, vec!["a881341", "acompact-fffbd0"]);
    let acompact = facts_of(
        &root,
        "spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl",
    );
    assert!(acompact.is_sidechain);
}

#[test]
fn derived_edge_cases_match_the_intact_file() {
    let Some(root) = crate::support::corpus() else { return };
    let base = facts_of(&root, "spotter/short.jsonl");
    let base_view =
        messages::read_transcript(&root.join("spotter/short.jsonl"), "s", "/w").unwrap().messages;
    assert_eq!(base.message_count, 3);
    for name in [
        "bom",
        "crlf",
        "nul-padding",
        "blank-lines-no-final-newline",
        "unknown-type-and-fields",
        "invalid-utf8",
        "lone-surrogate",
        "u2028-raw",
        "non-object-lines",
        "concatenated-stub",
    ] {
        let f = facts_of(&root, &format!("derived-edge-cases/{name}.jsonl"));
        assert_eq!(f.message_count, base.message_count, "{name}");
        assert_eq!(f.usage, base.usage, "{name}");
        assert_eq!(f.version, base.version, "{name}");
        let expected_skipped = if name == "non-object-lines" { 4 } else { 0 };
        assert_eq!(f.skipped_lines, expected_skipped, "{name}");
        let view = messages::read_transcript(
            &root.join(format!("derived-edge-cases/{name}.jsonl")),
            "s",
            "/w",
        )
        .unwrap();
        assert_eq!(view.messages.len(), base_view.len(), "{name}");
    }
    let lone = facts_of(&root, "derived-edge-cases/lone-surrogate.jsonl");
    assert!(lone.preview.unwrap().contains('\u{FFFD}'));
    let bad = facts_of(&root, "derived-edge-cases/invalid-utf8.jsonl");
    assert!(bad.preview.unwrap().contains('\u{FFFD}'));
    // Truncated last line: pending, not an error; the resume offset stays before it.
    let p = root.join("derived-edge-cases/truncated-last-line.jsonl");
    let out = facts::scan_file(&p, None).unwrap();
    assert_eq!(out.scanner.facts().skipped_lines, 0);
    let bytes = std::fs::read(&p).unwrap();
    assert_eq!(out.offset as usize, bytes.iter().rposition(|b| *b == b'\n').unwrap() + 1);
    assert!(out.offset < bytes.len() as u64);
}

#[test]
fn herdctl_fixtures_titles_and_bugs_fixed() {
    let Some(root) = crate::support::corpus() else { return };
    let h = |n: &str| facts_of(&root, &format!("herdctl-synthetic/{n}"));
    let t = h("title-session.jsonl");
    assert_eq!(t.custom_title.as_deref(), Some("Token-bucket rate limiter with burst"));
    assert_eq!(t.ai_title.as_deref(), Some("Per-API-key rate limiting"));
    assert_eq!(t.skipped_lines, 1, "the truncated title line");
    assert_eq!(
        h("title-ai-only-session.jsonl").auto_name().as_deref(),
        Some("Shared temp dir causes parallel test flake")
    );
    assert_eq!(
        h("title-custom-last-session.jsonl").auto_name().as_deref(),
        Some("Reversible migrations")
    );
    let wrong = h("title-wrong-field-session.jsonl");
    assert_eq!((wrong.custom_title, wrong.ai_title), (None, None));
    assert!(wrong.summary.is_some());
    assert_eq!(h("malformed-session.jsonl").skipped_lines, 1);
    let tn = h("task-notification-session.jsonl");
    assert_eq!(tn.preview.as_deref(), Some("Investigate the parser"));

    // ToolSearch tool_reference-only results resolve the call (herdctl #410).
    let p = root.join("herdctl-synthetic/toolsearch-session.jsonl");
    let m = messages::read_transcript(&p, "s", "/w").unwrap().messages;
    let call = m.iter().find_map(|x| x.tool_call.as_ref()).unwrap();
    assert!(!call.pending);
    assert!(call.output.starts_with("Loaded 2 tool schema(s)"));

    // Split tool blocks sharing one message.id are all kept.
    let p = root.join("herdctl-synthetic/split-tool-blocks-session.jsonl");
    let m = messages::read_transcript(&p, "s", "/w").unwrap().messages;
    assert!(m.iter().filter(|x| x.tool_call.is_some()).count() >= 2);
    // <synthetic> is dropped from the viewer.
    let p = root.join("herdctl-synthetic/compact-synthetic-session.jsonl");
    let m = messages::read_transcript(&p, "s", "/w").unwrap().messages;
    assert!(m.iter().all(|x| x.content != "No response requested."));
}

/// Manual look at the viewer output: `CORRAL_PEEK=<corpus-relative path> cargo test corpus_peek
/// -- --ignored --nocapture`.
#[test]
#[ignore]
fn corpus_peek() {
    let Some(root) = crate::support::corpus() else { return };
    let Ok(rel) = std::env::var("CORRAL_PEEK") else { return };
    let t = messages::read_transcript(&root.join(rel), "s", "/w").unwrap();
    for m in &t.messages {
        let label = match &m.tool_call {
            Some(c) => format!(
                "{} {} {:?} pending={} err={} out={:?} sub={:?}",
                c.emoji,
                c.tool_name,
                c.input_summary,
                c.pending,
                c.is_error,
                c.output.chars().take(40).collect::<String>(),
                c.subagent_id
            ),
            None => m.content.chars().take(90).collect::<String>().replace('\n', " "),
        };
        println!(
            "{:?} {:?} th={:?} | {label}",
            m.role,
            m.origin_kind,
            m.thinking.as_ref().map(String::len)
        );
    }
}

/// Real rewinds are found and recording artifacts are not: a rewind in 03eb5929 (2.1.x, a new
/// prompt hanging from the first turn), against parallel tool results (spotter, ef958aa1) and
/// 1.0.x local commands hanging from one caveat line (0d3a8e6f, 71c9afe9).
#[test]
fn rewinds_in_real_transcripts() {
    use corral_engine::transcript::branches;
    let Some(root) = crate::support::corpus() else { return };
    let ideas =
        root.join(CCL).join("-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl");
    let (_, b) = branches::scan(&ideas).unwrap();
    assert_eq!(b.rewinds.len(), 1, "{b:?}");
    assert_eq!(b.rewinds[0].prompts, 3);
    let f = facts::scan_file(&ideas, None).unwrap().scanner.facts();
    assert_eq!(f.rewound_prompts, 3);
    let page =
        messages::read_page_in(&ideas, None, 500, &messages::Lines::Except(b.hidden.clone()))
            .unwrap();
    assert!(page.messages.iter().any(|m| m.content.starts_with("I actually don't like much")));
    assert!(!page.messages.iter().any(|m| m.content.starts_with("I very much like this idea")));
    for rel in [
        "spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
        "claude-code-log/projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
        "claude-code-log/projects/-Users-dain-workspace-claude-code-log-sample/0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl",
        "claude-code-log/projects/-Users-dain-workspace-claude-code-log-sample/71c9afe9-d9cc-4583-86b3-e62ba682b83a.jsonl",
    ] {
        let (_, b) = branches::scan(&root.join(rel)).unwrap();
        assert!(b.rewinds.is_empty() && b.hidden.is_empty(), "{rel}: {b:?}");
    }
    // The cheap flag is set on the files that need the exact scan, and on few others.
    let mut files = Vec::new();
    jsonl_files(&root, &mut files);
    let flagged = files
        .iter()
        .filter(|p| facts::scan_file(p, None).unwrap().scanner.facts().may_branch)
        .count();
    assert!(flagged >= 1 && flagged * 5 < files.len(), "{flagged} of {}", files.len());
}

/// A real ≤ 2.0 folder: b25638d7's title is written at the top of 3680252d, the next session.
#[test]
fn a_real_2_0_title_is_found_in_the_sibling_that_wrote_it() {
    let Some(root) = crate::support::corpus() else { return };
    let w = crate::world::World::new();
    let folder = "-Users-dain-workspace-danieldemmel-me-next";
    crate::support::copy_tree(&root.join(CCL).join(folder), &w.home.join("projects").join(folder));
    let c = w.catalog();
    let named = c.session("b25638d7-b104-4f06-a797-70ac33d069ed").unwrap();
    assert_eq!(
        named.auto_name.as_deref(),
        Some("HTML Ruby Tokenizer Conversion for Better Browser Support")
    );
    let writer = c.session("3680252d-d4e3-4416-bddd-8f5b5b4fdb7f").unwrap();
    assert_ne!(writer.auto_name, named.auto_name, "the summary it wrote is not its own title");
}

/// Every kind of line and attachment in the real transcripts of the corpus is one Corral knows by
/// name; the derived edge case's invented type is the one it does not.
#[test]
fn the_format_survey_knows_every_kind_the_real_corpus_holds() {
    use corral_engine::format_survey::survey_files;
    let Some(root) = crate::support::corpus() else { return };
    let mut files = Vec::new();
    jsonl_files(&root, &mut files);
    files.sort();
    let (edge, real): (Vec<&PathBuf>, Vec<&PathBuf>) =
        files.iter().partition(|p| p.starts_with(root.join("derived-edge-cases")));
    let s = survey_files(real.iter().map(|p| p.as_path()));
    let unknown: Vec<(&str, Option<&str>)> =
        s.unknown().map(|k| (k.name.as_str(), k.example.as_deref())).collect();
    assert!(s.lines > 3000 && s.line_types.len() > 10, "{s:?}");
    assert_eq!(unknown, [], "kinds Corral does not know by name");
    let s = survey_files(edge.iter().map(|p| p.as_path()));
    let unknown: Vec<&str> = s.unknown().map(|k| k.name.as_str()).collect();
    assert_eq!(unknown, ["some-future-type"]);
}

/// 1.0.x kept the `\` typed before Enter for a new line: the prompt is shown with its line breaks
/// only, the pasted block after them as pasted.
#[test]
fn an_old_client_s_typed_line_breaks_are_shown_without_their_backslashes() {
    let Some(root) = crate::support::corpus() else { return };
    let p = root.join(format!(
        "{CCL}/-Users-dain-workspace-danieldemmel-me-next/b25638d7-b104-4f06-a797-70ac33d069ed.jsonl"
    ));
    let t = messages::read_transcript(&p, "s", "/w").unwrap();
    let prompt = t
        .messages
        .iter()
        .find(|m| m.content.starts_with("Oh, I just found out that this is not supported"))
        .expect("the 1.0.128 prompt");
    assert!(
        prompt.content.starts_with(
            "Oh, I just found out that this is not supported by Chrome :(\n\nThis is the relevant CSS:\n\nul#models li span {\n"
        ),
        "{:?}",
        &prompt.content[..120]
    );
    assert!(!prompt.content.contains("\\\n"), "{}", prompt.content);
}
