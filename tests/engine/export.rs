//! Exports (Markdown, HTML, JSON), each checked by parsing it back.

use std::fs;
use std::path::{Path, PathBuf};

use corral_engine::catalog::Catalog;
use corral_engine::export::{self, ExportFormat, ExportRequest, ExportedTranscript};
use corral_engine::model::Role;

use crate::world::World;

const REWOUND_SID: &str = "7a1f3c5e-2b4d-4e6f-8a0b-1c3d5e7f9a2b";
const PROJECT_SID: &str = "6e7f8a9b-0c1d-4e2f-8a3b-4c5d6e7f8a9b";
const HOSTILE_SID: &str = "0bad0bad-1111-4222-8333-444455556666";
const TOOLS_SID: &str = "f7f7f7f7-0000-4000-8000-000000000001";

fn fx(name: &str) -> PathBuf {
    crate::support::fixture("transcripts").join(name)
}

/// A home with the rewound fixture, the project fixture (with subagents) and a transcript whose
/// text tries to run script in an HTML export.
fn home() -> (World, Catalog) {
    let w = World::new();
    let ideas = w.folder_of("/home/dev/ideas");
    fs::create_dir_all(&ideas).unwrap();
    fs::copy(fx("rewound-2.1.jsonl"), ideas.join(format!("{REWOUND_SID}.jsonl"))).unwrap();
    let shop = w.folder_of("/home/dev/shop");
    crate::support::copy_tree(&fx("project"), &shop);
    let hostile = w.folder_of("/home/dev/evil");
    fs::create_dir_all(&hostile).unwrap();
    let lines = [
        serde_json::json!({"type":"user","uuid":"h1","parentUuid":null,"sessionId":HOSTILE_SID,
            "cwd":"/home/dev/evil","timestamp":"2026-05-01T10:00:00.000Z",
            "message":{"role":"user","content":"<script>alert('prompt')</script>\n    indented ``` fence\n& <b>bold?</b>"}}),
        serde_json::json!({"type":"assistant","uuid":"h2","parentUuid":"h1","sessionId":HOSTILE_SID,
            "timestamp":"2026-05-01T10:00:05.000Z",
            "message":{"id":"msg_h2","model":"claude-opus-4-6","role":"assistant","content":[{"type":"text",
            "text":"Here: <img src=x onerror=alert(1)> [click](javascript:alert(2)) [docs](https://example.com/d) ![pic](https://evil.example/p.png)\n\n<script>alert(3)</script>\n\n```js\nlet a = '</pre>';\n```"}]}}),
        serde_json::json!({"type":"assistant","uuid":"h3","parentUuid":"h2","sessionId":HOSTILE_SID,
            "timestamp":"2026-05-01T10:00:06.000Z",
            "message":{"id":"msg_h3","model":"claude-opus-4-6","role":"assistant","content":[{"type":"tool_use",
            "id":"toolu_h3","name":"Bash","input":{"command":"echo '<script>x</script>' && printf '\\x1b[31mred\\x1b[0m'"}}]}}),
        serde_json::json!({"type":"user","uuid":"h4","parentUuid":"h3","sessionId":HOSTILE_SID,
            "timestamp":"2026-05-01T10:00:07.000Z",
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_h3",
            "content":"<script>x</script>\n\u{1b}[31mred\u{1b}[0m ````"}]}}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(hostile.join(format!("{HOSTILE_SID}.jsonl")), body).unwrap();
    let c = w.catalog();
    (w, c)
}

/// [`home`] and an empty folder to export into.
fn home_with_out() -> (World, Catalog, PathBuf) {
    let (w, c) = home();
    let out = w.root.join("out");
    fs::create_dir_all(&out).unwrap();
    (w, c, out)
}

fn export_string(c: &Catalog, sid: &str, format: ExportFormat, subagents: bool) -> String {
    let mut out = Vec::new();
    let summary = export::export(c, sid, ExportRequest { format, subagents }, &mut out).unwrap();
    assert_eq!(summary.bytes, out.len() as u64);
    String::from_utf8(out).unwrap()
}

#[test]
fn markdown_has_a_heading_per_turn_and_the_resumed_branch_only() {
    let (_w, c) = home();
    let md = export_string(&c, REWOUND_SID, ExportFormat::Markdown, false);
    let t = c.transcript(REWOUND_SID).unwrap();
    let turns: Vec<&str> = md.lines().filter(|l| l.starts_with("## ")).collect();
    let said: Vec<_> = t.messages.iter().filter(|m| m.role != Role::Tool).collect();
    assert_eq!(turns.len(), said.len(), "{md}");
    for (h, m) in turns.iter().zip(&said) {
        let who = if m.role == Role::User { "## You" } else { "## Claude" };
        assert!(h.starts_with(who), "{h}");
        assert!(h.contains(m.timestamp.as_deref().unwrap()), "{h}");
    }
    assert!(md.starts_with("# Is a dev-docs/ vs work/ split a good idea for this repo?\n"));
    assert!(md.contains("I actually don't like this idea much."));
    assert!(!md.contains("five strengths"), "rewound prompts are not exported");
    assert!(md.contains("2 prompts on rewound branches are left out"));
    assert!(md.contains("Nothing was removed or redacted"));
}

#[test]
fn markdown_fences_hold_whatever_the_text_contains() {
    let (_w, c) = home();
    let md = export_string(&c, HOSTILE_SID, ExportFormat::Markdown, false);
    // The tool output holds a run of four backticks: its fence is five long.
    assert!(md.contains("`````text\n<script>x</script>"), "{md}");
    // The prompt is fenced as typed (indentation and a ``` run kept).
    assert!(
        md.contains("````text\n<script>alert('prompt')</script>\n    indented ``` fence\n"),
        "{md}"
    );
    assert_eq!(md.lines().filter(|l| l.starts_with("### Tool: Bash")).count(), 1);
    // Colour codes are formatting: left out, their text kept.
    assert!(!md.contains('\u{1b}') && !md.contains('\u{fffd}'), "{md}");
    assert!(md.contains("\nred ````"), "{md}");
}

/// Parses `html` as XML (so it is well formed) and returns every element name and attribute.
fn elements(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(html);
    reader.config_mut().check_end_names = true;
    let mut found = Vec::new();
    let mut depth = 0i32;
    loop {
        match reader.read_event().unwrap_or_else(|e| panic!("not well formed: {e}\n{html}")) {
            Event::Start(e) | Event::Empty(e) => {
                let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
                let attrs = e
                    .attributes()
                    .map(|a| {
                        let a = a.unwrap();
                        let k = String::from_utf8(a.key.as_ref().to_vec()).unwrap();
                        (k, a.unescape_value().unwrap().into_owned())
                    })
                    .collect();
                if !matches!(name.as_str(), "meta" | "br" | "hr" | "img" | "input") {
                    depth += 1;
                }
                found.push((name, attrs));
            }
            Event::End(_) => depth -= 1,
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(depth, 0, "unbalanced elements");
    found
}

#[test]
fn html_is_well_formed_self_contained_and_runs_nothing() {
    let (_w, c) = home();
    let html = export_string(&c, HOSTILE_SID, ExportFormat::Html, false);
    let els = elements(&html);
    for (name, attrs) in &els {
        assert_ne!(name, "script");
        assert_ne!(name, "img", "images are shown as their alt text, never loaded");
        assert_ne!(name, "link");
        assert_ne!(name, "iframe");
        for (k, v) in attrs {
            assert!(!k.starts_with("on"), "event attribute {k} on {name}");
            assert!(k != "src", "{name} loads {v}");
            if k == "href" {
                assert!(v.starts_with("https://") || v.starts_with('#'), "href {v}");
            }
        }
    }
    let csp = els
        .iter()
        .find(|(n, a)| {
            n == "meta"
                && a.iter().any(|(k, v)| k == "http-equiv" && v == "Content-Security-Policy")
        })
        .expect("a CSP");
    assert!(csp.1.iter().any(|(k, v)| k == "content" && v.starts_with("default-src 'none'")));
    assert!(html.contains("@media (prefers-color-scheme:dark)"));
    // The words are all there, as text.
    assert!(html.contains("&lt;script&gt;alert(&#39;prompt&#39;)&lt;/script&gt;"));
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(html.contains("<a href=\"https://example.com/d\">docs</a>"));
    assert!(html.contains(" click "), "an unsafe link keeps its text, not its link");
    assert!(html.contains("pic"), "an image's alt text stays");
    assert_eq!(els.iter().filter(|(n, _)| n == "details").count(), 1, "one folded tool call");
    assert!(!html.contains('\u{1b}') && !html.contains('\u{fffd}'), "no escape sequences");
    assert!(html.contains("\nred ````"), "the coloured text stays");
}

#[test]
fn json_round_trips_and_can_carry_the_subagent_runs() {
    let (_w, c) = home();
    let json = export_string(&c, REWOUND_SID, ExportFormat::Json, false);
    let back: ExportedTranscript = serde_json::from_str(&json).unwrap();
    assert_eq!(back.format, "corral-transcript");
    assert_eq!(back.session, c.session(REWOUND_SID).unwrap());
    assert_eq!(back.messages, c.transcript(REWOUND_SID).unwrap().messages);
    assert!(back.subagents.is_empty());
    let again = serde_json::to_string(&back).unwrap();
    assert_eq!(serde_json::from_str::<ExportedTranscript>(&again).unwrap(), back);

    let with = export_string(&c, PROJECT_SID, ExportFormat::Json, true);
    let back: ExportedTranscript = serde_json::from_str(&with).unwrap();
    let details = c.session_details(PROJECT_SID).unwrap();
    assert!(!details.subagents.is_empty());
    assert_eq!(back.subagents.len(), details.subagents.len());
    for (s, d) in back.subagents.iter().zip(&details.subagents) {
        assert_eq!(s.agent_id, d.agent_id);
        let page = c.subagent_page(PROJECT_SID, &d.agent_id, None, 5_000).unwrap();
        assert_eq!(s.messages, page.messages);
    }
    let md = export_string(&c, PROJECT_SID, ExportFormat::Markdown, true);
    assert_eq!(md.matches("\n# Subagent run ").count(), details.subagents.len());
}

#[test]
fn an_export_file_is_written_whole_and_never_replaces_one_unasked() {
    let (_w, c, out) = home_with_out();
    let target = out.join("chat.html");
    let req = ExportRequest { format: ExportFormat::Html, subagents: false };
    let s = export::export_to_file(&c, REWOUND_SID, req, &target, false).unwrap();
    assert_eq!(s.path.as_deref(), Some(target.display().to_string().as_str()));
    assert_eq!(fs::metadata(&target).unwrap().len(), s.bytes);
    fs::write(&target, "mine").unwrap();
    let err = export::export_to_file(&c, REWOUND_SID, req, &target, false).unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    assert_eq!(fs::read_to_string(&target).unwrap(), "mine");
    export::export_to_file(&c, REWOUND_SID, req, &target, true).unwrap();
    assert!(fs::read_to_string(&target).unwrap().starts_with("<!DOCTYPE html>"));
    assert_eq!(only_names(&out), vec!["chat.html"], "no temporary file is left behind");
    // A session that does not exist writes nothing.
    let missing = out.join("missing.md");
    let req = ExportRequest { format: ExportFormat::Markdown, subagents: false };
    assert!(
        export::export_to_file(&c, "00000000-0000-4000-8000-000000000000", req, &missing, false)
            .is_err()
    );
    assert_eq!(only_names(&out), vec!["chat.html"]);
}

/// A pipe, a link or a folder where the export should go is never replaced (a write into a
/// pipe would hang, a link would be swapped for a file), and a replaced file keeps its mode.
#[cfg(unix)]
#[test]
fn an_export_replaces_only_a_plain_file_and_keeps_its_permissions() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let (_w, c, out) = home_with_out();
    let req = ExportRequest { format: ExportFormat::Markdown, subagents: false };
    let fifo = out.join("pipe.md");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let link = out.join("link.md");
    fs::write(out.join("real.md"), "kept").unwrap();
    std::os::unix::fs::symlink(out.join("real.md"), &link).unwrap();
    let folder = out.join("folder.md");
    fs::create_dir(&folder).unwrap();
    for target in [&fifo, &link, &folder] {
        for replace in [false, true] {
            let err = export::export_to_file(&c, REWOUND_SID, req, target, replace).unwrap_err();
            let text = err.to_string();
            assert!(text.contains("already exists") || text.contains("not a plain file"), "{text}");
        }
    }
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(fs::read_to_string(out.join("real.md")).unwrap(), "kept");
    let plain = out.join("plain.md");
    fs::write(&plain, "old").unwrap();
    fs::set_permissions(&plain, fs::Permissions::from_mode(0o640)).unwrap();
    export::export_to_file(&c, REWOUND_SID, req, &plain, true).unwrap();
    assert!(fs::read_to_string(&plain).unwrap().starts_with("# "));
    assert_eq!(fs::metadata(&plain).unwrap().permissions().mode() & 0o777, 0o640);
    assert_eq!(only_names(&out), vec!["folder.md", "link.md", "pipe.md", "plain.md", "real.md"]);
}

/// An export of a private (0600) transcript is private too, and is private while it is written; a
/// destination name as long as a file name may be still gets its temp file; and what a killed
/// export left (its temp file, which no export holds locked) is removed by the next export to the
/// same name, while the temp of an export still running and a file of another shape stay.
/// Before: exports were 0644 whatever the transcript's mode, a 250-byte name failed with "File
/// name too long", and a killed export's hidden partial file stayed forever.
#[cfg(unix)]
#[test]
fn an_export_is_no_more_readable_than_its_transcript_and_a_killed_one_leaves_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let (w, c, out) = home_with_out();
    let req = ExportRequest { format: ExportFormat::Markdown, subagents: false };
    let transcript = w.folder_of("/home/dev/ideas").join(format!("{REWOUND_SID}.jsonl"));
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    fs::set_permissions(&transcript, fs::Permissions::from_mode(0o600)).unwrap();
    let private = out.join("private.md");
    export::export_to_file(&c, REWOUND_SID, req, &private, false).unwrap();
    assert_eq!(mode(&private), 0o600);
    // A replaced file keeps its own bits, less those the transcript lacks.
    fs::set_permissions(&private, fs::Permissions::from_mode(0o644)).unwrap();
    export::export_to_file(&c, REWOUND_SID, req, &private, true).unwrap();
    assert_eq!(mode(&private), 0o600);

    let long = out.join(format!("{}.md", "é".repeat(124)));
    assert_eq!(long.file_name().unwrap().len(), 251);
    export::export_to_file(&c, REWOUND_SID, req, &long, false).unwrap();
    assert!(fs::read_to_string(&long).unwrap().starts_with("# "));

    let target = out.join("chat.md");
    // Both left a while ago (a temp file just created is not locked yet, so it is never taken).
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let dead = out.join(".chat.md.tmp.4242.0.123456789");
    fs::write(&dead, "half an export").unwrap();
    fs::File::options().write(true).open(&dead).unwrap().set_modified(long_ago).unwrap();
    let alive = out.join(".chat.md.tmp.4243.0.987654321");
    fs::write(&alive, "being written").unwrap();
    fs::File::options().write(true).open(&alive).unwrap().set_modified(long_ago).unwrap();
    let fresh = out.join(".chat.md.tmp.4244.0.555555555");
    fs::write(&fresh, "just created, not locked yet").unwrap();
    let held = fs::File::open(&alive).unwrap();
    held.lock().unwrap();
    let theirs = out.join(".chat.md.tmp.notes");
    fs::write(&theirs, "mine").unwrap();
    export::export_to_file(&c, REWOUND_SID, req, &target, false).unwrap();
    assert!(!dead.exists(), "a dead export's temp is removed");
    assert!(alive.exists(), "a running export's temp stays");
    assert!(fresh.exists(), "a temp too new to be locked yet stays");
    fs::remove_file(&fresh).unwrap();
    assert_eq!(fs::read_to_string(&theirs).unwrap(), "mine");
    drop(held);
    assert_eq!(
        only_names(&out),
        vec![
            ".chat.md.tmp.4243.0.987654321",
            ".chat.md.tmp.notes",
            "chat.md",
            "private.md",
            long.file_name().unwrap().to_str().unwrap()
        ]
    );
}

/// Exports racing for one new file: exactly one wins, the file is one whole export, and no
/// temporary file is left.
#[test]
fn concurrent_exports_to_one_new_file_leave_one_whole_file() {
    let (_w, c, out) = home_with_out();
    let target = out.join("race.json");
    let req = ExportRequest { format: ExportFormat::Json, subagents: true };
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| export::export_to_file(&c, PROJECT_SID, req, &target, false)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let won: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert_eq!(won.len(), 1, "{results:?}");
    for err in results.iter().filter_map(|r| r.as_ref().err()) {
        let text = err.to_string();
        assert!(text.contains("already exists") || text.contains("appeared while"), "{text}");
    }
    let parsed: ExportedTranscript =
        serde_json::from_str(&fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(parsed.session.session_id, PROJECT_SID);
    assert_eq!(fs::metadata(&target).unwrap().len(), won[0].bytes);
    assert_eq!(only_names(&out), vec!["race.json"]);
    // Replacing races too: every export succeeds and the file is one of them, whole.
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| export::export_to_file(&c, PROJECT_SID, req, &target, true).unwrap());
        }
    });
    let again: ExportedTranscript =
        serde_json::from_str(&fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(again.session.session_id, PROJECT_SID);
    assert_eq!(only_names(&out), vec!["race.json"]);
}

fn only_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn formats_parse_by_name() {
    assert_eq!(ExportFormat::parse("MD"), Some(ExportFormat::Markdown));
    assert_eq!(ExportFormat::parse("html"), Some(ExportFormat::Html));
    assert_eq!(ExportFormat::parse("json"), Some(ExportFormat::Json));
    assert_eq!(ExportFormat::parse("pdf"), None);
}

#[test]
#[ignore = "prints an export to look at"]
fn print_exports() {
    let (_w, c) = home();
    println!("{}", export_string(&c, HOSTILE_SID, ExportFormat::Html, false));
    println!("{}", export_string(&c, HOSTILE_SID, ExportFormat::Markdown, false));
}

/// A home holding `fixtures/transcripts/tool-forms-2.1.jsonl` as the session [`TOOLS_SID`].
fn tool_forms_home() -> (World, Catalog) {
    let w = World::new();
    let shop = w.folder_of("/home/dev/shop");
    fs::create_dir_all(&shop).unwrap();
    fs::copy(fx("tool-forms-2.1.jsonl"), shop.join(format!("{TOOLS_SID}.jsonl"))).unwrap();
    let c = w.catalog();
    (w, c)
}

#[test]
fn hook_feedback_is_headed_as_what_it_is_not_as_the_person() {
    let (_w, c) = tool_forms_home();
    let md = export_string(&c, TOOLS_SID, ExportFormat::Markdown, false);
    let hook = md.find("## Hook feedback · 2026-11-22T09:00:27.100Z").expect(&md);
    assert!(md[hook..].contains("1 test still fails: run npm test before you stop"));
    assert!(!md.contains("## You · 2026-11-22T09:00:27.100Z"));
}

#[test]
fn tool_inputs_are_exported_in_the_form_the_viewer_shows() {
    let (_w, c) = tool_forms_home();
    let md = export_string(&c, TOOLS_SID, ExportFormat::Markdown, false);
    // An Edit: a diff under its path, not JSON with "\n" in it.
    assert!(md.contains("`/home/dev/shop/src/discount.ts`\n"), "{md}");
    assert!(
        md.contains("```diff\n export function discount(p: number) {\n-  return p * 0.9;\n+  return Math.round(p * 90) / 100;\n }\n```"),
        "{md}"
    );
    assert!(md.contains("```sh\n$ npm test -- discount\n```"), "{md}");
    assert!(md.contains("[x] "), "the checklist: {md}");
    assert!(!md.contains("\"old_string\""), "no JSON for a tool with a form");
    let html = export_string(&c, TOOLS_SID, ExportFormat::Html, false);
    assert!(
        html.contains("<span class=\"add\">+  return Math.round(p * 90) / 100;</span>"),
        "{html}"
    );
    assert!(html.contains("<span class=\"del\">-  return p * 0.9;</span>"));
    assert!(html.contains("<pre>$ npm test -- discount</pre>"));
}
