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

/// Lines longer than this are skipped rather than held in memory (the viewer and `show`; the
/// listing uses [`LISTING_MAX_LINE_BYTES`]). A reader's buffer never grows past its cap plus one
/// read chunk, so memory stays bounded whatever a file holds.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// The listing's cap: it scans on every core, so each scanning thread holds at most this much of
/// one line (a pasted image or a huge tool result beyond it is skipped and counted).
pub const LISTING_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// One complete line.
#[derive(Debug)]
pub struct Line<'a> {
    /// Byte offset of the first byte of the line in the file.
    pub offset: u64,
    /// The line without its trailing `\n`.
    pub bytes: &'a [u8],
}

/// Bytes a reader asks its source for at once once a file proves large (reads start smaller so
/// that short heads and small files do not pay for a big buffer).
const READ_CHUNK: usize = 256 * 1024;
/// First buffer size.
const FIRST_CHUNK: usize = 64 * 1024;

/// Reads complete `\n`-terminated lines from `inner`, starting at `start_offset`.
///
/// Reads large blocks into one reusable buffer and yields lines as slices of it (no per-line
/// copy); only an incomplete line at the end of a block is moved to the front before the next read.
pub struct LineReader<R> {
    inner: R,
    /// Read buffer; `buf[start..end]` holds data not yet returned.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// `buf[start..scan]` is known to hold no `\n`.
    scan: usize,
    /// Offset of `buf[start]` in the file.
    start_offset: u64,
    /// Offset just past the last complete line (returned or skipped as oversized).
    complete: u64,
    oversized: u64,
    max_line: usize,
    /// The current line is over-long: its bytes are dropped until its `\n`.
    skipping: bool,
    /// The last read filled the whole free space (the source has more: grow the buffer).
    last_read_full: bool,
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
            start: 0,
            end: 0,
            scan: 0,
            start_offset,
            complete: start_offset,
            oversized: 0,
            max_line,
            skipping: false,
            last_read_full: false,
        }
    }

    /// The next complete line, or `None` at end of input (a trailing partial line is not returned).
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        loop {
            let found = self
                .buf
                .get(self.scan..self.end)
                .and_then(|rest| memchr::memchr(b'\n', rest))
                .map(|i| self.scan + i);
            if let Some(nl) = found {
                let (start, offset) = (self.start, self.start_offset);
                let len = nl - start;
                self.start = nl + 1;
                self.scan = self.start;
                self.start_offset = offset.saturating_add(len as u64 + 1);
                self.complete = self.start_offset;
                if self.skipping || len > self.max_line {
                    self.skipping = false;
                    self.oversized += 1;
                    continue;
                }
                let bytes = self.buf.get(start..nl).unwrap_or_default();
                return Ok(Some(Line { offset, bytes }));
            }
            self.scan = self.end;
            if !self.skipping && self.end - self.start > self.max_line {
                self.skipping = true;
            }
            if self.skipping {
                // Drop what was read of the over-long line.
                self.start_offset =
                    self.start_offset.saturating_add((self.end - self.start) as u64);
                self.start = self.end;
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Reads more input after `buf[..end]` (moving the unread tail to the front first). False at
    /// end of input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.scan -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() || (self.last_read_full && self.buf.len() < READ_CHUNK) {
            // Never past the cap plus one chunk: an unread tail longer than the cap is dropped
            // (skipping) before the next fill, so that much room always leaves a chunk free.
            let most = self.max_line.saturating_add(READ_CHUNK).max(FIRST_CHUNK);
            let grown = (self.buf.len() * 2).max(FIRST_CHUNK).min(most);
            if grown > self.buf.len() {
                self.buf.reserve_exact(grown - self.buf.len());
                self.buf.resize(grown, 0);
            }
        }
        let want = self.buf.len() - self.end;
        loop {
            let Some(free) = self.buf.get_mut(self.end..) else { return Ok(false) };
            match self.inner.read(free) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.end += n;
                    self.last_read_full = n == want;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Offset just past the last complete line returned (where an incremental reader resumes).
    pub fn complete_offset(&self) -> u64 {
        self.complete
    }

    /// The reader it read from.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The bytes of an unterminated last line seen at end of input (empty when none, or when that
    /// line is over-long). Callers may try to parse it once the file has stopped growing.
    pub fn pending(&self) -> &[u8] {
        if self.skipping { &[] } else { self.buf.get(self.start..self.end).unwrap_or_default() }
    }

    /// Bytes the reader's buffer holds (its memory; bounded by the line cap plus one chunk).
    pub fn buffer_capacity(&self) -> usize {
        self.buf.capacity()
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
    /// The line is empty or whitespace.
    Blank,
    /// The line parsed into the type.
    Value(T),
    /// The line is not valid JSON of the type.
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
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"type\""));
    let finder: &memchr::memmem::Finder<'static> = &FINDER;
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

const LOW: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Lanes (top bit) of `w` holding a quote, a backslash or a byte below 0x20; the lowest flagged
/// lane is exact (higher ones may be false positives after a true one).
#[inline(always)]
fn specials(w: u64) -> u64 {
    let q = w ^ (LOW * u64::from(b'"'));
    let s = w ^ (LOW * u64::from(b'\\'));
    ((w.wrapping_sub(LOW * 0x20) & !w) | (q.wrapping_sub(LOW) & !q) | (s.wrapping_sub(LOW) & !s))
        & HIGH
}

#[inline(always)]
fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(b);
    u64::from_le_bytes(w)
}

/// Index of the first byte at or after `j` that is a quote, a backslash or below 0x20, sixteen
/// bytes at a time. (SIMD `memchr2` for long runs measured slower: runs between quotes and
/// escapes are mostly short, and it cannot check for control bytes.)
#[inline]
fn next_special(b: &[u8], mut j: usize) -> Option<usize> {
    while let Some(chunk) = b.get(j..j + 16) {
        let (lo, hi) = chunk.split_at(8);
        let m = specials(word(lo));
        if m != 0 {
            return Some(j + (m.trailing_zeros() / 8) as usize);
        }
        let m = specials(word(hi));
        if m != 0 {
            return Some(j + 8 + (m.trailing_zeros() / 8) as usize);
        }
        j += 16;
    }
    let rest = b.get(j..)?;
    rest.iter().position(|&c| c < 0x20 || c == b'"' || c == b'\\').map(|k| j + k)
}

/// Length of the escape sequence starting with the backslash at `at`; `None` when it is invalid
/// or a surrogate escape (those lines take the repairing path).
#[inline]
fn escape_len(b: &[u8], at: usize) -> Option<usize> {
    match b.get(at + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => {
            let code = strict_hex4(b.get(at + 2..at + 6)?)?;
            (!(0xD800..0xE000).contains(&code)).then_some(6)
        }
        _ => None,
    }
}

/// A validating, allocation-free JSON reader over one line, for callers that need a few fields
/// of a large record: values nobody reads are checked for well-formedness and skipped without
/// being decoded. It accepts a subset of what `serde_json` accepts (it gives up on anything
/// unusual: escaped keys, surrogate escapes, deep nesting). It does not check UTF-8: callers
/// decode (and so check) the strings they use. Every method returns `None` on input it does not
/// accept; callers then fall back to a full parse.
pub(crate) struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
    depth: u32,
}

/// Four hex digits (no sign, unlike `from_str_radix`).
fn strict_hex4(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |acc, &c| Some(acc * 16 + char::from(c).to_digit(16)?))
}

/// Nesting a [`Cursor`] follows before giving up (serde_json's own limit is 128).
const CURSOR_DEPTH: u32 = 64;

impl<'a> Cursor<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Self {
        Self { b, i: 0, depth: 0 }
    }

    /// Skips spaces and returns the next byte (not consumed).
    pub(crate) fn peek(&mut self) -> Option<u8> {
        while let Some(&c) = self.b.get(self.i) {
            if !matches!(c, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(c);
            }
            self.i += 1;
        }
        None
    }

    /// Consumes `c` (after spaces) when it is next.
    pub(crate) fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// True when only spaces remain.
    pub(crate) fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// The bytes from `from` to the current position.
    pub(crate) fn since(&self, from: usize) -> &'a [u8] {
        self.b.get(from..self.i).unwrap_or_default()
    }

    pub(crate) fn pos(&self) -> usize {
        self.i
    }

    /// A string at the current position: its body (between the quotes) and whether it holds
    /// escapes. Escapes and the absence of control characters are checked as serde does.
    pub(crate) fn string(&mut self) -> Option<(&'a [u8], bool)> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.i;
        let mut j = start;
        let mut escaped = false;
        loop {
            j = next_special(self.b, j)?;
            match self.b.get(j)? {
                b'"' => {
                    self.i = j + 1;
                    return Some((self.b.get(start..j)?, escaped));
                }
                b'\\' => {
                    escaped = true;
                    j += escape_len(self.b, j)?;
                }
                _ => return None,
            }
        }
    }

    /// A number at the current position (JSON grammar), as its bytes.
    pub(crate) fn number(&mut self) -> Option<&'a [u8]> {
        self.peek()?;
        let start = self.i;
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.b.get(self.i)? {
            b'0' => self.i += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if !self.b.get(self.i)?.is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !self.b.get(self.i)?.is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        self.b.get(start..self.i)
    }

    fn digits(&mut self) {
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
    }

    /// `true`, `false` or `null` at the current position.
    pub(crate) fn literal(&mut self) -> Option<Option<bool>> {
        let rest = self.b.get(self.i..)?;
        let (v, n) = if rest.starts_with(b"true") {
            (Some(true), 4)
        } else if rest.starts_with(b"false") {
            (Some(false), 5)
        } else if rest.starts_with(b"null") {
            (None, 4)
        } else {
            return None;
        };
        self.i += n;
        Some(v)
    }

    /// Enters an object or array (`open` is `{` or `[`), counting nesting.
    pub(crate) fn enter(&mut self, open: u8) -> Option<()> {
        if !self.eat(open) || self.depth >= CURSOR_DEPTH {
            return None;
        }
        self.depth += 1;
        Some(())
    }

    /// After [`Cursor::enter`]`(b'{')`: the next key (escape-free), or `None` inside `Some` at
    /// the closing `}`. `first` tracks whether a comma is expected.
    pub(crate) fn next_key(&mut self, first: &mut bool) -> Option<Option<&'a [u8]>> {
        if self.eat(b'}') {
            self.depth -= 1;
            return Some(None);
        }
        if !std::mem::take(first) && !self.eat(b',') {
            return None;
        }
        let (key, escaped) = self.string()?;
        if escaped || !self.eat(b':') {
            return None;
        }
        Some(Some(key))
    }

    /// After [`Cursor::enter`]`(b'[')`: true when another element follows, false at the `]`.
    pub(crate) fn next_element(&mut self, first: &mut bool) -> Option<bool> {
        if self.eat(b']') {
            self.depth -= 1;
            return Some(false);
        }
        if !std::mem::take(first) && !self.eat(b',') {
            return None;
        }
        Some(true)
    }

    /// Checks and skips one value of any kind.
    pub(crate) fn skip(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => {
                self.enter(b'{')?;
                let mut first = true;
                while self.next_key(&mut first)?.is_some() {
                    self.skip()?;
                }
                Some(())
            }
            b'[' => {
                self.enter(b'[')?;
                let mut first = true;
                while self.next_element(&mut first)? {
                    self.skip()?;
                }
                Some(())
            }
            b't' | b'f' | b'n' => self.literal().map(drop),
            _ => self.number().map(drop),
        }
    }
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
