//! Streaming JSONL reading with bounded memory that never panics.
//!
//! CONTRACT (owned by the transcript developer):
//! - [`LineReader`] splits a byte stream on `\n` only (never on U+2028), from a start offset,
//!   yielding complete lines with their byte offsets. Bytes after the last `\n` are *pending*
//!   (not yielded; [`LineReader::complete_offset`] stays before them) — the writer may be mid-line.
//!   Lines longer than [`MAX_LINE_BYTES`] are skipped (consumed without being held) and counted.
//! - [`parse_line`] turns one line into a JSON value, tolerating a BOM, a trailing `\r`, NUL runs,
//!   invalid UTF-8 (replaced) and lone-surrogate escapes (replaced by U+FFFD); returns `None` for
//!   blank, non-object or unparseable lines.
//!
//! Typed readers use [`parse_line_with`], which applies the same repairs but deserializes into a
//! caller-chosen (usually borrowed) type, and [`quick_shape`], a byte-level check that classifies
//! a line as blank / object-like / malformed without parsing it (to count skipped lines cheaply).

use std::borrow::Cow;
use std::io::{self, BufRead};

use serde::Deserialize;

/// Lines longer than this are skipped rather than held in memory.
pub const MAX_LINE_BYTES: usize = 256 * 1024 * 1024;

/// One complete line.
#[derive(Debug)]
pub struct Line<'a> {
    /// Byte offset of the first byte of the line in the file.
    pub offset: u64,
    /// The line without its trailing `\n`.
    pub bytes: &'a [u8],
}

/// Reads complete `\n`-terminated lines from `inner`, starting at `start_offset`.
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// Offset of the next byte `inner` will yield.
    pos: u64,
    /// Offset just past the last complete line (returned or skipped as oversized).
    complete: u64,
    oversized: u64,
    max_line: usize,
    /// `buf` holds the start of a line whose `\n` has not been read yet (at `partial_start`).
    partial: bool,
    partial_start: u64,
    partial_skipping: bool,
}

impl<R: BufRead> LineReader<R> {
    /// `inner` must already be positioned at `start_offset` (offsets are reported relative to it).
    pub fn new(inner: R, start_offset: u64) -> Self {
        Self::with_max_line(inner, start_offset, MAX_LINE_BYTES)
    }

    /// Like [`LineReader::new`] with a custom over-long line cap (tests use small caps).
    pub fn with_max_line(inner: R, start_offset: u64, max_line: usize) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            pos: start_offset,
            complete: start_offset,
            oversized: 0,
            max_line,
            partial: false,
            partial_start: start_offset,
            partial_skipping: false,
        }
    }

    /// The next complete line, or `None` at end of input (a trailing partial line is not returned).
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        loop {
            let (start, mut skipping) = if self.partial {
                self.partial = false;
                (self.partial_start, self.partial_skipping)
            } else {
                self.buf.clear();
                (self.pos, false)
            };
            loop {
                let available = match self.inner.fill_buf() {
                    Ok(b) => b,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                if available.is_empty() {
                    // End of input: whatever was read since `start` is pending (kept, so a later
                    // call continues the line if the input grows); `complete` stays before it.
                    self.partial = self.pos > start;
                    self.partial_start = start;
                    self.partial_skipping = skipping;
                    return Ok(None);
                }
                let (take, newline) = match memchr::memchr(b'\n', available) {
                    Some(i) => (i, true),
                    None => (available.len(), false),
                };
                if !skipping {
                    if self.buf.len().saturating_add(take) > self.max_line {
                        skipping = true;
                        self.buf = Vec::new();
                    } else if let Some(part) = available.get(..take) {
                        self.buf.extend_from_slice(part);
                    }
                }
                let consumed = if newline { take + 1 } else { take };
                self.inner.consume(consumed);
                self.pos = self.pos.saturating_add(consumed as u64);
                if newline {
                    self.complete = self.pos;
                    break;
                }
            }
            if skipping {
                self.oversized += 1;
                continue;
            }
            return Ok(Some(Line { offset: start, bytes: &self.buf }));
        }
    }

    /// Offset just past the last complete line returned (where an incremental reader resumes).
    pub fn complete_offset(&self) -> u64 {
        self.complete
    }

    /// The bytes of an unterminated last line seen at end of input (empty when none, or when that
    /// line is over-long). Callers may try to parse it once the file has stopped growing.
    pub fn pending(&self) -> &[u8] {
        if self.partial && !self.partial_skipping { &self.buf } else { &[] }
    }

    /// Number of over-long lines skipped.
    pub fn oversized_lines(&self) -> u64 {
        self.oversized
    }
}

/// What a line looks like, decided from its bytes alone (no JSON parse).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineShape {
    /// Empty, whitespace, NUL-only (crash padding) — not a record, not an error.
    Blank,
    /// Starts with `{` and ends with `}` once trimmed: probably a record.
    ObjectLike,
    /// Anything else (a truncated record, a non-object value): counted as skipped.
    Malformed,
}

/// Strips a UTF-8 BOM and surrounding ASCII whitespace / NUL bytes (this covers a trailing `\r`).
pub fn trim_line(bytes: &[u8]) -> &[u8] {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(bytes);
    let is_pad = |c: &u8| c.is_ascii_whitespace() || *c == 0;
    let start = b.iter().position(|c| !is_pad(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !is_pad(c)).map_or(start, |i| i + 1);
    b.get(start..end).unwrap_or_default()
}

/// Classifies a line cheaply (see [`LineShape`]).
pub fn quick_shape(bytes: &[u8]) -> LineShape {
    let t = trim_line(bytes);
    match (t.first(), t.last()) {
        (None, _) => LineShape::Blank,
        (Some(b'{'), Some(b'}')) => LineShape::ObjectLike,
        _ => LineShape::Malformed,
    }
}

/// True when the line is blank in the sense of [`LineShape::Blank`].
pub fn is_blank(bytes: &[u8]) -> bool {
    quick_shape(bytes) == LineShape::Blank
}

/// Outcome of a tolerant typed parse.
#[derive(Debug)]
pub enum Parsed<T> {
    Blank,
    Value(T),
    Invalid,
}

/// Parses one line into `T`, tolerating what [`parse_line`] tolerates: first as-is, then after
/// replacing invalid UTF-8 and lone surrogate escapes, then (for a truncated record glued to the
/// next one) from a later `{"` that starts a complete record. `scratch` holds repaired bytes, so
/// `T` may borrow from either input.
pub fn parse_line_with<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    scratch: &'a mut Vec<u8>,
) -> Parsed<T> {
    let line = trim_line(bytes);
    if line.is_empty() {
        return Parsed::Blank;
    }
    let mut scratch = Some(scratch);
    let mut work: &'a [u8] = line;
    // A lone surrogate inside a field parsed as raw JSON would only fail later (when the raw
    // value is decoded), so a line that may hold one is repaired before the first attempt.
    let suspect = may_have_surrogate_escape(line);
    if suspect
        && let Some(fixed) = repair(line)
        && let Some(s) = scratch.take()
    {
        *s = fixed;
        let s: &'a Vec<u8> = s;
        work = s;
    }
    if let Ok(v) = serde_json::from_slice::<T>(work) {
        return Parsed::Value(v);
    }
    if !suspect
        && let Some(fixed) = repair(line)
        && let Some(s) = scratch.take()
    {
        *s = fixed;
        let s: &'a Vec<u8> = s;
        work = s;
        if let Ok(v) = serde_json::from_slice::<T>(work) {
            return Parsed::Value(v);
        }
    }
    match glued_tail::<T>(work) {
        Some(v) => Parsed::Value(v),
        None => Parsed::Invalid,
    }
}

/// A `\uD8..`–`\uDF..` escape somewhere in the line (cheap SIMD search).
fn may_have_surrogate_escape(line: &[u8]) -> bool {
    let mut rest = line;
    while let Some(i) = memchr::memmem::find(rest, b"\\u") {
        let after = rest.get(i + 2..).unwrap_or_default();
        if matches!(after.first(), Some(b'd' | b'D'))
            && matches!(after.get(1), Some(b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'))
        {
            return true;
        }
        rest = after;
    }
    false
}

/// Parses one line tolerantly; `None` for blank, non-object or unparseable lines, and for objects
/// without a string `type`.
pub fn parse_line(bytes: &[u8]) -> Option<serde_json::Value> {
    let mut scratch = Vec::new();
    match parse_line_with::<serde_json::Value>(bytes, &mut scratch) {
        Parsed::Value(v) if v.get("type").is_some_and(serde_json::Value::is_string) => Some(v),
        _ => None,
    }
}

/// How many `{"` positions a glued-record recovery tries before giving up.
const GLUE_ATTEMPTS: usize = 32;

/// Retries from the `{"` positions inside `line` (latest first) that can start a record, i.e. are
/// not in a value position (`:{`, `,{`, `[{`). The first tail that parses completely wins.
fn glued_tail<'a, T: Deserialize<'a>>(line: &'a [u8]) -> Option<T> {
    let finder = memchr::memmem::Finder::new(b"{\"");
    let mut starts: Vec<usize> = finder.find_iter(line).filter(|&i| i > 0).collect();
    starts.retain(|&i| {
        let prev = line.get(..i).and_then(|p| p.iter().rev().find(|c| !c.is_ascii_whitespace()));
        !matches!(prev, Some(b':' | b',' | b'['))
    });
    for &i in starts.iter().rev().take(GLUE_ATTEMPTS) {
        if let Some(tail) = line.get(i..)
            && let Ok(v) = serde_json::from_slice::<T>(tail)
        {
            return Some(v);
        }
    }
    None
}

/// Returns a repaired copy when the line has invalid UTF-8 or unpaired surrogate escapes.
fn repair(line: &[u8]) -> Option<Vec<u8>> {
    let utf8: Cow<'_, [u8]> = match std::str::from_utf8(line) {
        Ok(_) => Cow::Borrowed(line),
        Err(_) => Cow::Owned(String::from_utf8_lossy(line).into_owned().into_bytes()),
    };
    let fixed = fix_surrogates(&utf8);
    match (fixed, utf8) {
        (Some(f), _) => Some(f),
        (None, Cow::Owned(o)) => Some(o),
        (None, Cow::Borrowed(_)) => None,
    }
}

fn hex4(b: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(b.get(..4)?).ok()?;
    u32::from_str_radix(s, 16).ok()
}

/// Rewrites `\uD800`–`\uDFFF` escapes that are not part of a valid pair to `\uFFFD`.
fn fix_surrogates(line: &[u8]) -> Option<Vec<u8>> {
    memchr::memmem::find(line, b"\\u")?;
    let mut out: Vec<u8> = Vec::with_capacity(line.len());
    let mut changed = false;
    let mut i = 0;
    while let Some(&c) = line.get(i) {
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        match line.get(i + 1) {
            Some(b'u') => {}
            Some(&n) => {
                out.push(c);
                out.push(n);
                i += 2;
                continue;
            }
            None => {
                out.push(c);
                i += 1;
                continue;
            }
        }
        let Some(code) = line.get(i + 2..).and_then(hex4) else {
            out.extend_from_slice(b"\\u");
            i += 2;
            continue;
        };
        if (0xD800..0xDC00).contains(&code) {
            let low = match (line.get(i + 6), line.get(i + 7)) {
                (Some(b'\\'), Some(b'u')) => line.get(i + 8..).and_then(hex4),
                _ => None,
            };
            if low.is_some_and(|l| (0xDC00..0xE000).contains(&l)) {
                if let Some(pair) = line.get(i..i + 12) {
                    out.extend_from_slice(pair);
                }
                i += 12;
            } else {
                out.extend_from_slice(b"\\uFFFD");
                changed = true;
                i += 6;
            }
        } else if (0xDC00..0xE000).contains(&code) {
            out.extend_from_slice(b"\\uFFFD");
            changed = true;
            i += 6;
        } else {
            if let Some(esc) = line.get(i..i + 6) {
                out.extend_from_slice(esc);
            }
            i += 6;
        }
    }
    changed.then_some(out)
}

/// True when the line contains `"type"` followed (after optional whitespace and `:`) by one of the
/// given string values. A cheap pre-filter: a `false` means the line's top-level `type` is none of
/// them (nested matches produce harmless `true`s that the real parse then rejects).
pub fn has_type_in(line: &[u8], types: &[&str]) -> bool {
    let finder = memchr::memmem::Finder::new(b"\"type\"");
    for i in finder.find_iter(line) {
        let mut rest = line.get(i + 6..).unwrap_or_default();
        rest = skip_ws(rest);
        let Some(r) = rest.strip_prefix(b":".as_slice()) else { continue };
        let r = skip_ws(r);
        let Some(r) = r.strip_prefix(b"\"".as_slice()) else { continue };
        for t in types {
            if let Some(after) = r.strip_prefix(t.as_bytes())
                && after.first() == Some(&b'"')
            {
                return true;
            }
        }
    }
    false
}

fn skip_ws(b: &[u8]) -> &[u8] {
    let n = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    b.get(n..).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn surrogates() {
        let fixed = fix_surrogates(br#"{"a":"x\ud83d\u2026","b":"\ud83d\ude00","c":"\\ud83d"}"#);
        let s = String::from_utf8(fixed.unwrap()).unwrap();
        assert_eq!(s, r#"{"a":"x\uFFFD\u2026","b":"\ud83d\ude00","c":"\\ud83d"}"#);
        assert!(fix_surrogates(br#"{"b":"\ud83d\ude00"}"#).is_none());
    }

    #[test]
    fn type_filter() {
        assert!(has_type_in(br#"{"type" : "user"}"#, &["assistant", "user"]));
        assert!(!has_type_in(br#"{"type":"users"}"#, &["user"]));
        assert!(!has_type_in(br#"{"type":"progress"}"#, &["user"]));
    }
}
