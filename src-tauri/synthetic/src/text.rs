//! Text: the filler words, and writing JSON values, numbers and timestamps straight into a
//! line's buffer.

#[allow(clippy::wildcard_imports, reason = "the crate's shared imports and items")]
use super::*;

pub(crate) const WORDS: &[&str] = &[
    "the",
    "a",
    "to",
    "of",
    "and",
    "in",
    "is",
    "it",
    "that",
    "for",
    "on",
    "with",
    "this",
    "we",
    "function",
    "return",
    "config",
    "parser",
    "index",
    "session",
    "transcript",
    "error",
    "value",
    "let",
    "mut",
    "fn",
    "impl",
    "struct",
    "pub",
    "async",
    "await",
    "const",
    "type",
    "match",
    "test",
    "build",
    "cargo",
    "npm",
    "install",
    "src/main.rs",
    "lib/index.ts",
    "README.md",
    "refactor",
    "rename",
    "update",
    "fix",
    "bug",
    "feature",
    "branch",
    "commit",
    "merge",
    "diff",
    "please",
    "could",
    "you",
    "check",
    "why",
    "fails",
    "when",
    "after",
    "before",
    "again",
    "tokens",
    "cache",
    "offset",
    "bytes",
    "line",
    "lines",
    "file",
    "files",
    "path",
    "folder",
    "user",
    "assistant",
    "tool",
    "result",
    "output",
    "input",
    "stream",
    "chunk",
    "message",
    "database",
    "query",
    "schema",
    "migration",
    "endpoint",
    "request",
    "response",
    "header",
    "café",
    "naïve",
    "résumé",
    "日本語",
    "🚀",
    "✅",
    "über",
    "señor",
    "Zürich",
    "Ω",
    "(x)",
    "[1]",
    "{ok}",
    "a.b",
    "x_y",
    "i-j",
    "#42",
    "50%",
    "3.14",
    "->",
    "=>",
    "::",
    "&&",
    "\\n",
    "\\t",
    "\\\"quoted\\\"",
    "\\\\path",
    "<div>",
    "</div>",
    "self.items",
    "Vec<u8>",
    "Option<String>",
    "Result<()>",
    "HashMap",
    "BTreeMap",
    "rayon",
    "serde",
    "tokio",
    "axum",
];

/// Pre-generated filler: slices are taken at space boundaries, so they are always valid UTF-8
/// and valid JSON string contents (escapes are whole words).
pub(crate) struct Filler {
    pub(crate) text: Vec<u8>,
    pub(crate) base64: Vec<u8>,
}

impl Filler {
    pub(crate) fn new(seed: u64) -> Self {
        let mut rng = Rng::new(seed ^ 0xF11E_F11E);
        let mut text = Vec::with_capacity(MIB as usize + 64);
        let mut sentence = 0usize;
        while text.len() < MIB as usize {
            let w = rng.pick_str(WORDS);
            if sentence == 0 {
                let mut chars = w.chars();
                if let Some(first) = chars.next() {
                    text.extend(first.to_uppercase().to_string().bytes());
                    text.extend_from_slice(chars.as_str().as_bytes());
                }
            } else {
                text.extend_from_slice(w.as_bytes());
            }
            sentence += 1;
            if sentence > 4 && rng.chance(12) {
                text.push(b'.');
                sentence = 0;
            } else if rng.chance(4) {
                text.push(b',');
            }
            text.push(b' ');
        }
        const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let base64 =
            (0..64 * KIB).map(|_| B64.get(rng.below_usize(64)).copied().unwrap_or(b'A')).collect();
        Self { text, base64 }
    }

    /// About `len` bytes of text (never starting or ending inside a word).
    pub(crate) fn slice(&self, rng: &mut Rng, len: usize) -> &[u8] {
        let n = self.text.len();
        let len = len.clamp(1, n / 2);
        let start = rng.below_usize(n - len);
        let s = self
            .text
            .get(start..)
            .and_then(|t| memchr::memchr(b' ', t))
            .map_or(0, |p| start + p + 1);
        let want = (s + len).min(n);
        let e = self.text.get(want..).and_then(|t| memchr::memchr(b' ', t)).map_or(n, |p| want + p);
        self.text.get(s..e.max(s)).unwrap_or(&[])
    }
}

pub(crate) fn push_u64(buf: &mut Vec<u8>, mut n: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        if let Some(slot) = tmp.get_mut(i) {
            *slot = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || i == 0 {
            break;
        }
    }
    buf.extend_from_slice(tmp.get(i..).unwrap_or(&[]));
}

/// Pushes a JSON string literal (with quotes), escaping what JSON requires.
pub(crate) fn push_json_str(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    for &b in s.as_bytes() {
        match b {
            b'"' => buf.extend_from_slice(b"\\\""),
            b'\\' => buf.extend_from_slice(b"\\\\"),
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            0..=0x1F => {
                buf.extend_from_slice(b"\\u00");
                buf.push(hex_digit(b >> 4));
                buf.push(hex_digit(b & 0xF));
            }
            _ => buf.push(b),
        }
    }
    buf.push(b'"');
}

pub(crate) fn push_kv_str(buf: &mut Vec<u8>, key: &str, value: &str) {
    buf.push(b'"');
    buf.extend_from_slice(key.as_bytes());
    buf.extend_from_slice(b"\":");
    push_json_str(buf, value);
    buf.push(b',');
}

pub(crate) fn push_kv_u64(buf: &mut Vec<u8>, key: &str, value: u64) {
    buf.push(b'"');
    buf.extend_from_slice(key.as_bytes());
    buf.extend_from_slice(b"\":");
    push_u64(buf, value);
    buf.push(b',');
}

/// Days since 1970-01-01 → (year, month, day) (Howard Hinnant's civil_from_days).
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub(crate) fn push_2(buf: &mut Vec<u8>, n: u32) {
    buf.push(b'0' + (n / 10 % 10) as u8);
    buf.push(b'0' + (n % 10) as u8);
}

/// `2026-02-10T21:11:56.906Z` (without quotes).
pub(crate) fn push_iso(buf: &mut Vec<u8>, ms: i64) {
    let secs = ms.div_euclid(1000);
    let milli = ms.rem_euclid(1000) as u32;
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400) as u32;
    push_u64(buf, y.max(0) as u64);
    buf.push(b'-');
    push_2(buf, m);
    buf.push(b'-');
    push_2(buf, d);
    buf.push(b'T');
    push_2(buf, sod / 3600);
    buf.push(b':');
    push_2(buf, sod / 60 % 60);
    buf.push(b':');
    push_2(buf, sod % 60);
    buf.push(b'.');
    buf.push(b'0' + (milli / 100) as u8);
    push_2(buf, milli % 100);
    buf.push(b'Z');
}

pub(crate) fn iso(ms: i64) -> String {
    let mut b = Vec::with_capacity(24);
    push_iso(&mut b, ms);
    String::from_utf8_lossy(&b).into_owned()
}

pub(crate) fn system_time(ms: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64)
}
