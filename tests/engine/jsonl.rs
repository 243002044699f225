//! JSONL framing and tolerant line parsing (tricky-cases.md §A), plus never-panic properties.

use std::io::{BufReader, Cursor, Write};

use corral_engine::jsonl::{self, LineReader, LineShape, MAX_LINE_BYTES};
use corral_engine::transcript::{facts, messages};
use proptest::prelude::*;

/// All complete lines as (offset, bytes), the complete offset, oversized count and pending tail.
fn lines_of(input: &[u8], start: u64, cap: usize) -> (Vec<(u64, Vec<u8>)>, u64, u64, Vec<u8>) {
    let mut r =
        LineReader::with_max_line(BufReader::with_capacity(7, Cursor::new(input)), start, cap);
    let mut out = Vec::new();
    while let Some(l) = r.next_line().unwrap() {
        out.push((l.offset, l.bytes.to_vec()));
    }
    (out, r.complete_offset(), r.oversized_lines(), r.pending().to_vec())
}

#[test]
fn splits_on_newline_only_with_offsets_and_a_pending_tail() {
    let input = "{\"a\":1}\n{\"b\":\"x\u{2028}y\u{2029}z\"}\r\n\n{\"c\":".as_bytes();
    let (lines, complete, oversized, pending) = lines_of(input, 100, MAX_LINE_BYTES);
    assert_eq!(lines.len(), 3, "U+2028/U+2029 do not split lines");
    assert_eq!(lines[0], (100, b"{\"a\":1}".to_vec()));
    assert_eq!(lines[1].0, 108);
    assert!(lines[1].1.ends_with(b"}\r"));
    assert_eq!(lines[2], (108 + lines[1].1.len() as u64 + 1, Vec::new()));
    assert_eq!(complete, 100 + input.len() as u64 - 5, "complete offset stays before the tail");
    assert_eq!(oversized, 0);
    assert_eq!(pending, b"{\"c\":");
}

#[test]
fn over_long_lines_are_skipped_counted_and_not_held() {
    let mut input = Vec::new();
    input.extend_from_slice(b"{\"type\":\"user\"}\n");
    input.extend(std::iter::repeat_n(b'x', 1000));
    input.push(b'\n');
    input.extend_from_slice(b"{\"type\":\"ok\"}\n");
    input.extend(std::iter::repeat_n(b'y', 1000)); // over-long AND unterminated
    let (lines, complete, oversized, pending) = lines_of(&input, 0, 64);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1].1, b"{\"type\":\"ok\"}");
    assert_eq!(lines[1].0, 16 + 1001);
    assert_eq!(oversized, 1);
    assert_eq!(complete, (input.len() - 1000) as u64);
    assert!(pending.is_empty(), "an over-long pending tail is not held");
}

#[test]
fn a_15_mb_line_in_a_file_is_read_and_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("9a8b7c6d-0000-4000-8000-000000000015.jsonl");
    let big = "z".repeat(15 * 1024 * 1024);
    let mut f = std::fs::File::create(&path).unwrap();
    writeln!(f, r#"{{"type":"user","isSidechain":false,"uuid":"u1","timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"hello"}}}}"#).unwrap();
    writeln!(f, r#"{{"type":"assistant","isSidechain":false,"uuid":"a1","timestamp":"2026-01-01T00:00:01.000Z","message":{{"id":"m1","model":"x","role":"assistant","content":[{{"type":"tool_use","id":"t1","name":"Task","input":{{"description":"d"}}}}]}}}}"#).unwrap();
    writeln!(f, r#"{{"type":"user","isSidechain":false,"uuid":"r1","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"done"}}]}},"toolUseResult":{{"agentId":"abc1234","context":"{big}"}}}}"#).unwrap();
    writeln!(f, r#"{{"type":"user","isSidechain":false,"uuid":"u2","timestamp":"2026-01-01T00:00:03.000Z","message":{{"role":"user","content":"after"}}}}"#).unwrap();
    drop(f);
    let facts = facts::scan_file(&path, None).unwrap().scanner.facts();
    assert_eq!(facts.message_count, 3);
    assert_eq!(facts.skipped_lines, 0);
    let t = messages::read_transcript(&path, "s", "/w").unwrap();
    assert_eq!(t.messages.len(), 3);
    let call = t.messages[1].tool_call.as_ref().unwrap();
    assert_eq!(call.output, "done");
    assert_eq!(call.subagent_id.as_deref(), Some("abc1234"));
    assert_eq!(t.messages[2].content, "after");
    let page = messages::read_page(&path, None, 1).unwrap();
    assert_eq!(page.messages.last().unwrap().content, "after");

    // With a 1 MB cap the big line is skipped (and counted), the next one still read.
    let file = std::fs::File::open(&path).unwrap();
    let mut r = LineReader::with_max_line(BufReader::new(file), 0, 1024 * 1024);
    let mut n = 0;
    while r.next_line().unwrap().is_some() {
        n += 1;
    }
    assert_eq!((n, r.oversized_lines()), (3, 1));
}

#[test]
fn parse_line_tolerates_bom_crlf_nul_padding_and_whitespace() {
    let rec = br#"{"type":"user","x":1}"#;
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(rec);
    assert!(jsonl::parse_line(&bom).is_some());
    let mut crlf = rec.to_vec();
    crlf.push(b'\r');
    assert!(jsonl::parse_line(&crlf).is_some());
    let nul = vec![0u8; 600];
    assert!(jsonl::parse_line(&nul).is_none());
    assert_eq!(jsonl::quick_shape(&nul), LineShape::Blank);
    assert!(jsonl::is_blank(b" \t\r"));
    let mut padded = vec![0u8; 300];
    padded.extend_from_slice(rec);
    assert!(jsonl::parse_line(&padded).is_some(), "NUL run before a record");
    assert_eq!(jsonl::quick_shape(b"this is not json"), LineShape::Malformed);
    assert_eq!(jsonl::quick_shape(b"{\"type\":\"user\",\"cut"), LineShape::Malformed);
    assert_eq!(jsonl::quick_shape(rec), LineShape::ObjectLike);
}

#[test]
fn parse_line_repairs_invalid_utf8_and_lone_surrogates() {
    let bad_utf8 = b"{\"type\":\"user\",\"t\":\"a\xFFb\"}";
    let v = jsonl::parse_line(bad_utf8).unwrap();
    assert_eq!(v["t"], "a\u{FFFD}b");

    let lone = br#"{"type":"user","t":"cut \ud83d\u2026","ok":"\ud83d\ude00","low":"\udc00x"}"#;
    let v = jsonl::parse_line(lone).unwrap();
    assert_eq!(v["t"], "cut \u{FFFD}\u{2026}");
    assert_eq!(v["ok"], "😀");
    assert_eq!(v["low"], "\u{FFFD}x");

    let escaped_backslash = br#"{"type":"user","t":"\\ud83d literally"}"#;
    assert_eq!(jsonl::parse_line(escaped_backslash).unwrap()["t"], "\\ud83d literally");
}

#[test]
fn parse_line_recovers_a_record_glued_after_a_truncated_stub() {
    let glued = br#"{"type":"pr-link","sessionId":"s1","prNu{"parentUuid":"p","type":"user","message":{"role":"user","content":"kept"},"uuid":"u9"}"#;
    let v = jsonl::parse_line(glued).unwrap();
    assert_eq!(v["uuid"], "u9");
    assert_eq!(v["message"]["content"], "kept");
    // The viewer and the scanner see the recovered record too.
    let (_d, path) = crate::transcript::temp_file(&[glued.as_slice(), b"\n"].concat());
    let m = messages::read_transcript(&path, "s", "/w").unwrap();
    assert_eq!(m.messages.len(), 1);
    assert_eq!(m.skipped_lines, 0);
    // A truncated record with no glued successor is invalid and counted.
    let (_d2, p2) =
        crate::transcript::temp_file(b"{\"type\":\"user\",\"message\":{\"role\":\"user\"}\n");
    assert_eq!(facts::scan_file(&p2, None).unwrap().scanner.facts().skipped_lines, 1);
}

#[test]
fn non_objects_and_typeless_objects_are_not_records() {
    for line in
        [&b"null"[..], b"[1,2,3]", b"\"string\"", b"42", br#"{"no":"type"}"#, br#"{"type":7}"#]
    {
        assert!(jsonl::parse_line(line).is_none(), "{}", String::from_utf8_lossy(line));
    }
    let (_d, path) = crate::transcript::temp_file(b"null\n[1,2,3]\n\"s\"\n42\n{\"sessionId\":\"x\",\"message\":{\"role\":\"user\",\"content\":\"no type\"}}\n\n   \n");
    let f = facts::scan_file(&path, None).unwrap().scanner.facts();
    assert!(!f.has_messages);
    assert_eq!(f.skipped_lines, 4, "the four non-object lines; blank lines are not errors");
    let t = messages::read_transcript(&path, "s", "/w").unwrap();
    assert!(t.messages.is_empty());
    assert_eq!(t.skipped_lines, 4);
}

#[test]
fn type_prefilter_accepts_spaced_json() {
    assert!(jsonl::has_type_in(br#"{"type": "user"}"#, &["user"]));
    assert!(jsonl::has_type_in(br#"{"a":{"type":"text"},"type" :"assistant"}"#, &["assistant"]));
    assert!(!jsonl::has_type_in(br#"{"type":"progress","data":{"kind":"user"}}"#, &["user"]));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Framing invariant: lines + their `\n`s + the tail reproduce the input; offsets are exact.
    #[test]
    fn line_reader_reproduces_its_input(input in proptest::collection::vec(
        prop_oneof![Just(b'\n'), Just(b'{'), Just(b'}'), Just(b'"'), Just(0u8), Just(b'\r'), any::<u8>()], 0..400)) {
        let (lines, complete, oversized, pending) = lines_of(&input, 0, usize::MAX);
        prop_assert_eq!(oversized, 0);
        let mut rebuilt = Vec::new();
        for (offset, bytes) in &lines {
            prop_assert_eq!(*offset, rebuilt.len() as u64);
            rebuilt.extend_from_slice(bytes);
            rebuilt.push(b'\n');
        }
        prop_assert_eq!(complete, rebuilt.len() as u64);
        rebuilt.extend_from_slice(&pending);
        prop_assert_eq!(rebuilt, input);
    }

    #[test]
    fn parsing_and_scanning_never_panic(input in proptest::collection::vec(any::<u8>(), 0..600),
                                        cap in 1usize..64) {
        let _ = lines_of(&input, 3, cap);
        let _ = jsonl::parse_line(&input);
        let mut scanner = facts::FactsScanner::new();
        for line in input.split(|b| *b == b'\n') {
            scanner.feed(line);
        }
        let _ = scanner.facts();
    }

    #[test]
    fn structured_garbage_never_panics(parts in proptest::collection::vec(prop_oneof![
        Just(r#"{"type":"user","isSidechain":false,"uuid":"u","message":{"role":"user","content":"#.to_owned()),
        Just(r#"{"type":"assistant","message":{"id":"m","model":"<synthetic>","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":1}}],"usage":null}}"#.to_owned()),
        Just(r#"[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image"},7,null]}]}}"#.to_owned()),
        Just(r#"{"type":"queue-operation","operation":"remove"}"#.to_owned()),
        Just(r#"{"type":"custom-title","customTitle":""}"#.to_owned()),
        Just("\\ud800\"".to_owned()),
        Just("\n".to_owned()),
        Just("\u{0}".to_owned()),
        ".{0,12}",
    ], 0..30)) {
        let text = parts.concat();
        let (_d, path) = crate::transcript::temp_file(text.as_bytes());
        let _ = facts::scan_file(&path, None).unwrap();
        let whole = messages::read_transcript(&path, "s", "/w").unwrap();
        let page = messages::read_page(&path, None, 3).unwrap();
        prop_assert!(page.messages.len() <= whole.messages.len());
    }
}

/// Manual throughput check: `CORRAL_PERF_FILE=/path cargo test --release -- --ignored perf_scan --nocapture`.
#[test]
#[ignore]
fn perf_scan() {
    let Ok(path) = std::env::var("CORRAL_PERF_FILE") else { return };
    let path = std::path::PathBuf::from(path);
    let t = std::time::Instant::now();
    let file = std::fs::File::open(&path).unwrap();
    let mut r = LineReader::new(BufReader::with_capacity(256 * 1024, file), 0);
    let (mut lines, mut relevant) = (0u64, 0u64);
    while let Some(l) = r.next_line().unwrap() {
        lines += 1;
        if jsonl::quick_shape(l.bytes) == LineShape::ObjectLike
            && jsonl::has_type_in(
                l.bytes,
                &["user", "assistant", "summary", "custom-title", "ai-title"],
            )
        {
            relevant += 1;
        }
    }
    println!("framing + pre-filter {:?}: {lines} lines, {relevant} parsed", t.elapsed());
    let t = std::time::Instant::now();
    let file = std::fs::File::open(&path).unwrap();
    let mut r = LineReader::new(BufReader::with_capacity(256 * 1024, file), 0);
    while let Some(l) = r.next_line().unwrap() {
        if jsonl::quick_shape(l.bytes) == LineShape::ObjectLike
            && jsonl::has_type_in(
                l.bytes,
                &["user", "assistant", "summary", "custom-title", "ai-title"],
            )
        {
            let _ = serde_json::from_slice::<serde::de::IgnoredAny>(l.bytes);
        }
    }
    println!("same + serde IgnoredAny on parsed lines {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let out = facts::scan_file(&path, None).unwrap();
    let scan = t.elapsed();
    let t = std::time::Instant::now();
    let page = messages::read_page(&path, None, 50).unwrap();
    let page_time = t.elapsed();
    let f = out.scanner.facts();
    println!(
        "scan {:?} ({:.0} MB/s), messages {}, newest page {:?} ({} msgs)",
        scan,
        out.offset as f64 / 1e6 / scan.as_secs_f64(),
        f.message_count,
        page_time,
        page.messages.len()
    );
}
