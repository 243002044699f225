//! Synthetic Claude homes for benchmarks and tests.
//!
//! [`generate`] writes a realistic, deterministic (same seed → same bytes and mtimes) Claude home:
//! N sessions across M project folders with the modern line mix (bookkeeping first lines,
//! streamed assistant chunks sharing `message.id`, tool_use/tool_result pairs with
//! `toolUseResult`, thinking, attachments, progress and system lines, titles at random
//! positions, `isMeta` lines), nested and flat subagent files, a few empty, damaged,
//! sidechain-only and summary-only files, a realistic size distribution with configurable huge
//! files and one multi-megabyte line, and — given a fleet dir — a herdctl fleet with its
//! `.herdctl` state (job files, platform bindings, adoption records).
//!
//! The generator never writes into an existing non-empty Claude home or fleet, and creates every
//! file exclusively (nothing is ever overwritten).

use std::collections::HashSet;
use std::fs::{File, FileTimes, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use serde::Serialize;

use corral_engine::error::{Error, Result};
use corral_engine::paths::encode_path;

/// Bumped whenever the generator's output for a given spec changes (cached corpora are keyed by it).
pub const GENERATOR_VERSION: u32 = 4;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

/// 2026-06-01T00:00:00Z, the default time of the newest generated session.
const DEFAULT_NEWEST_MS: i64 = 1_780_272_000_000;

/// What to generate. Build one with [`SyntheticSpec::new`] and adjust fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntheticSpec {
    pub seed: u64,
    /// Main transcripts (`<encoded-cwd>/<uuid>.jsonl`), special ones included.
    pub sessions: usize,
    /// Project folders under `projects/` (at most `sessions`).
    pub folders: usize,
    /// Approximate total bytes of all transcripts (main, subagent and flat agent files).
    pub target_bytes: u64,
    /// How many sessions are huge, and how big each is.
    pub huge_files: usize,
    pub huge_file_bytes: u64,
    /// One session carries one line of this many bytes (a pasted image); 0 for none.
    pub long_line_bytes: u64,
    /// `job-*.yaml` files written when a fleet dir is given.
    pub jobs: usize,
    /// Percent of sessions in agent folders claimed by jobs.
    pub job_claim_percent: u32,
    /// Special files (counted in `sessions`).
    pub empty_files: usize,
    pub damaged_files: usize,
    pub sidechain_only_files: usize,
    pub summary_only_files: usize,
    /// Percent of modern sessions with subagent files.
    pub subagent_percent: u32,
    /// Time of the newest session (Unix ms), and how far back sessions go.
    pub newest_ms: i64,
    pub span_days: u32,
}

impl SyntheticSpec {
    /// A spec with defaults scaled to the corpus: ~25 sessions per folder, a few huge files
    /// (two of 120 MB at ≥ 1 GB), one 6 MB line at ≥ 100 MB, and half as many jobs as sessions.
    pub fn new(seed: u64, sessions: usize, target_bytes: u64) -> Self {
        let (huge_files, huge_file_bytes) =
            if target_bytes >= 1024 * MIB { (2, 120 * MIB) } else { (0, 0) };
        let long_line_bytes = if target_bytes >= 100 * MIB {
            6 * MIB
        } else if target_bytes >= 4 * MIB {
            256 * KIB
        } else {
            0
        };
        let specials = |per: usize, min: usize| (sessions / per).max(min).min(sessions / 6);
        Self {
            seed,
            sessions,
            folders: (sessions / 25).max(1).min(sessions.max(1)),
            target_bytes,
            huge_files,
            huge_file_bytes,
            long_line_bytes,
            jobs: sessions / 2,
            job_claim_percent: 70,
            empty_files: specials(500, 1),
            damaged_files: specials(400, 2),
            sidechain_only_files: specials(300, 1),
            summary_only_files: specials(500, 1),
            subagent_percent: 20,
            newest_ms: DEFAULT_NEWEST_MS,
            span_days: 180,
        }
    }
}

/// A generated file that is not an ordinary session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpecialFile {
    /// `empty`, `damaged-truncated-tail`, `damaged-garbage-line`, `damaged-invalid-utf8`,
    /// `damaged-nul-run`, `sidechain-only`, `summary-only`, `huge`, `long-line`.
    pub kind: String,
    pub session_id: String,
    pub path: PathBuf,
    pub bytes: u64,
}

impl SpecialFile {
    pub fn is_damaged(&self) -> bool {
        self.kind.starts_with("damaged")
    }
}

/// One generated session (for callers that want to touch it afterwards).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    pub session_id: String,
    pub path: PathBuf,
    pub cwd: String,
    pub bytes: u64,
    pub last_message_ms: i64,
}

/// What [`generate`] wrote.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateReport {
    pub seed: u64,
    pub claude_home: PathBuf,
    pub fleet_file: Option<PathBuf>,
    pub state_dir: Option<PathBuf>,
    /// Main transcripts written (special ones included).
    pub sessions: usize,
    pub folders: usize,
    pub subagent_files: usize,
    pub flat_agent_files: usize,
    /// Bytes of every transcript (main + subagent + flat agent).
    pub transcript_bytes: u64,
    pub largest_file_bytes: u64,
    pub agents: usize,
    pub job_files: usize,
    /// Sessions a job record names.
    pub job_claimed_sessions: usize,
    pub platform_binding_files: usize,
    pub platform_sessions: usize,
    pub adoption_records: usize,
    pub special: Vec<SpecialFile>,
    /// The session with the latest last message.
    pub newest_session: Option<SessionRef>,
    pub elapsed_ms: u64,
}

/// Parses `2G`, `200M`, `512K`, `1.5G`, `123` (bytes; binary multiples).
pub fn parse_size(text: &str) -> Result<u64> {
    let t = text.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let mult = match c.to_ascii_uppercase() {
                'K' => KIB,
                'M' => MIB,
                'G' => 1024 * MIB,
                'T' => 1024 * 1024 * MIB,
                'B' => 1,
                _ => return Err(Error::InvalidInput(format!("unknown size suffix in {text:?}"))),
            };
            (t.get(..i).unwrap_or(""), mult)
        }
        _ => (t, 1),
    };
    let value: f64 = num
        .trim()
        .parse()
        .map_err(|_| Error::InvalidInput(format!("cannot read size {text:?} (try 2G, 200M)")))?;
    if !value.is_finite() || value < 0.0 {
        return Err(Error::InvalidInput(format!("size {text:?} must be positive")));
    }
    Ok((value * mult as f64) as u64)
}

// ---------------------------------------------------------------------------------------------
// PRNG

/// splitmix64: tiny, fast and good enough for test data.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n == 0`).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    fn below_usize(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// Uniform in `lo..hi` (`lo` when empty).
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi.saturating_sub(lo))
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < u64::from(percent)
    }

    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Log-uniform in `lo..hi`.
    fn log_uniform(&mut self, lo: u64, hi: u64) -> u64 {
        let (l, h) = ((lo.max(1) as f64).ln(), (hi.max(lo.max(1) + 1) as f64).ln());
        (l + self.unit() * (h - l)).exp() as u64
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below_usize(items.len()))
    }

    fn pick_str(&mut self, items: &[&'static str]) -> &'static str {
        self.pick(items).copied().unwrap_or("")
    }

    fn fork(&mut self) -> Rng {
        Rng(self.next_u64())
    }

    fn uuid(&mut self) -> [u8; 36] {
        let a = self.next_u64();
        let b = self.next_u64();
        let mut out = [b'-'; 36];
        let mut nibbles = (0..32).map(|i| {
            let word = if i < 16 { a } else { b };
            ((word >> ((i % 16) * 4)) & 0xF) as u8
        });
        for (pos, slot) in out.iter_mut().enumerate() {
            if matches!(pos, 8 | 13 | 18 | 23) {
                continue;
            }
            let mut n = nibbles.next().unwrap_or(0);
            if pos == 14 {
                n = 4;
            } else if pos == 19 {
                n = 8 | (n & 3);
            }
            *slot = hex_digit(n);
        }
        out
    }

    fn uuid_string(&mut self) -> String {
        String::from_utf8_lossy(&self.uuid()).into_owned()
    }

    fn hex(&mut self, len: usize) -> String {
        (0..len).map(|_| char::from(hex_digit(self.below(16) as u8))).collect()
    }

    fn base62(&mut self, len: usize) -> String {
        const A: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        (0..len)
            .map(|_| char::from(A.get(self.below_usize(A.len())).copied().unwrap_or(b'x')))
            .collect()
    }

    fn base36(&mut self, len: usize) -> String {
        const A: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
        (0..len)
            .map(|_| char::from(A.get(self.below_usize(A.len())).copied().unwrap_or(b'x')))
            .collect()
    }
}

fn hex_digit(n: u8) -> u8 {
    match n {
        0..=9 => b'0' + n,
        _ => b'a' + (n.min(15) - 10),
    }
}

// ---------------------------------------------------------------------------------------------
// Text

const WORDS: &[&str] = &[
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
struct Filler {
    text: Vec<u8>,
    base64: Vec<u8>,
}

impl Filler {
    fn new(seed: u64) -> Self {
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
    fn slice(&self, rng: &mut Rng, len: usize) -> &[u8] {
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

fn push_u64(buf: &mut Vec<u8>, mut n: u64) {
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
fn push_json_str(buf: &mut Vec<u8>, s: &str) {
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

fn push_kv_str(buf: &mut Vec<u8>, key: &str, value: &str) {
    buf.push(b'"');
    buf.extend_from_slice(key.as_bytes());
    buf.extend_from_slice(b"\":");
    push_json_str(buf, value);
    buf.push(b',');
}

fn push_kv_u64(buf: &mut Vec<u8>, key: &str, value: u64) {
    buf.push(b'"');
    buf.extend_from_slice(key.as_bytes());
    buf.extend_from_slice(b"\":");
    push_u64(buf, value);
    buf.push(b',');
}

/// Days since 1970-01-01 → (year, month, day) (Howard Hinnant's civil_from_days).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
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

fn push_2(buf: &mut Vec<u8>, n: u32) {
    buf.push(b'0' + (n / 10 % 10) as u8);
    buf.push(b'0' + (n % 10) as u8);
}

/// `2026-02-10T21:11:56.906Z` (without quotes).
fn push_iso(buf: &mut Vec<u8>, ms: i64) {
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

fn iso(ms: i64) -> String {
    let mut b = Vec::with_capacity(24);
    push_iso(&mut b, ms);
    String::from_utf8_lossy(&b).into_owned()
}

fn system_time(ms: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64)
}

// ---------------------------------------------------------------------------------------------
// Session plans

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    /// 1.0.x: summaries at the top, sidechains inline.
    Old,
    /// 2.0.x: flat `agent-<8hex>.jsonl`, queue-operation with array content.
    V20,
    /// 2.1.17–2.1.42: progress lines, file-history-snapshot first.
    Mid,
    /// 2.1.114+: permission-mode first, attachments, entrypoint, ai-title, last-prompt.
    New,
}

impl Era {
    fn versions(self) -> &'static [&'static str] {
        match self {
            Era::Old => &["1.0.24", "1.0.43", "1.0.98"],
            Era::V20 => &["2.0.42", "2.0.55"],
            Era::Mid => &["2.1.17", "2.1.38", "2.1.39"],
            Era::New => &["2.1.114", "2.1.141"],
        }
    }

    fn models(self) -> &'static [&'static str] {
        match self {
            Era::Old => &["claude-sonnet-4-20250514", "claude-opus-4-20250514"],
            Era::V20 => &["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805"],
            Era::Mid => &[
                "claude-opus-4-5-20251101",
                "claude-sonnet-4-5-20250929",
                "claude-haiku-4-5-20251001",
            ],
            Era::New => &["claude-opus-4-6", "claude-opus-4-7", "claude-sonnet-4-6"],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Damage {
    TruncatedTail,
    GarbageLine,
    InvalidUtf8,
    NulRun,
}

impl Damage {
    fn kind(self) -> &'static str {
        match self {
            Damage::TruncatedTail => "damaged-truncated-tail",
            Damage::GarbageLine => "damaged-garbage-line",
            Damage::InvalidUtf8 => "damaged-invalid-utf8",
            Damage::NulRun => "damaged-nul-run",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Normal,
    Empty,
    Damaged(Damage),
    SidechainOnly,
    SummaryOnly,
    Huge,
    LongLine,
}

impl Kind {
    fn special_name(self) -> Option<&'static str> {
        match self {
            Kind::Normal => None,
            Kind::Empty => Some("empty"),
            Kind::Damaged(d) => Some(d.kind()),
            Kind::SidechainOnly => Some("sidechain-only"),
            Kind::SummaryOnly => Some("summary-only"),
            Kind::Huge => Some("huge"),
            Kind::LongLine => Some("long-line"),
        }
    }
}

#[derive(Debug, Clone)]
struct Folder {
    cwds: Vec<String>,
    dir: PathBuf,
}

#[derive(Debug, Clone)]
struct Plan {
    session_id: String,
    folder: usize,
    cwd: String,
    era: Era,
    kind: Kind,
    budget: u64,
    start_ms: i64,
    subagents: bool,
    long_line_bytes: u64,
    seed: u64,
}

const ROOTS: &[&str] =
    &["/home/dev/projects", "/home/dev/work", "/srv/repos", "/home/dev/src/github.com/acme"];
const NAME_A: &[&str] = &[
    "api", "web", "data", "infra", "billing", "search", "auth", "mobile", "docs", "ml", "edge",
    "payments", "notify", "admin", "cli", "sdk", "site", "core", "ops", "etl",
];
const NAME_B: &[&str] = &[
    "gateway",
    "frontend",
    "pipeline",
    "service",
    "worker",
    "tools",
    "app",
    "server",
    "engine",
    "portal",
    "dashboard",
    "scripts",
    "lib",
    "bot",
    "agent",
    "monorepo",
];

fn folder_cwd(rng: &mut Rng, i: usize) -> String {
    let root = rng.pick_str(ROOTS);
    let a = rng.pick_str(NAME_A);
    let b = rng.pick_str(NAME_B);
    match i % 40 {
        7 => format!("{root}/{a}.{b}.example.com"),
        11 => format!("/home/dev/📦-{a}-{b}-{i}"),
        13 => format!("{root}/{a}-{b}-{i}/.claude/worktrees/feature-{}", rng.base36(5)),
        17 => format!("/tmp/claude-scratch-{a}-{i}"),
        19 => format!("{root}/{a}_{b}_{i}"),
        23 => format!("/home/dev/My Projects/{a} {b} {i}"),
        29 => format!("{root}/{a}-{b}-v{}.{}", i % 5, i % 3),
        31 => format!(
            "{root}/{}/{a}-{b}-{i}",
            (0..8).map(|k| format!("very-long-segment-name-{k}")).collect::<Vec<_>>().join("/")
        ),
        _ => format!("{root}/{a}-{b}-{i}"),
    }
}

fn make_folders(rng: &mut Rng, count: usize, projects: &Path) -> Vec<Folder> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(count);
    let mut i = 0usize;
    while out.len() < count {
        let cwd = folder_cwd(rng, i);
        i += 1;
        let enc = encode_path(&cwd);
        if !seen.insert(enc.clone()) {
            continue;
        }
        let mut cwds = vec![cwd.clone()];
        // Lossy encoding: `a-b` and `a_b` share a folder.
        if out.len() % 37 == 5 && cwd.contains('-') {
            let twin = cwd.replacen('-', "_", 1);
            if encode_path(&twin) == enc {
                cwds.push(twin);
            }
        }
        out.push(Folder { cwds, dir: projects.join(enc) });
    }
    out
}

fn make_plans(spec: &SyntheticSpec, rng: &mut Rng, folders: &[Folder]) -> Vec<Plan> {
    let n = spec.sessions;
    // Special kinds go to a deterministic random subset of indices.
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..order.len()).rev() {
        let j = rng.below_usize(i + 1);
        order.swap(i, j);
    }
    let mut kinds = vec![Kind::Normal; n];
    let mut cursor = order.iter();
    let mut assign = |count: usize, kind: &dyn Fn(usize) -> Kind| {
        for k in 0..count {
            if let Some(&idx) = cursor.next()
                && let Some(slot) = kinds.get_mut(idx)
            {
                *slot = kind(k);
            }
        }
    };
    assign(spec.huge_files, &|_| Kind::Huge);
    assign(usize::from(spec.long_line_bytes > 0), &|_| Kind::LongLine);
    assign(spec.empty_files, &|_| Kind::Empty);
    assign(spec.damaged_files, &|k| {
        Kind::Damaged(match k % 4 {
            0 => Damage::TruncatedTail,
            1 => Damage::GarbageLine,
            2 => Damage::InvalidUtf8,
            _ => Damage::NulRun,
        })
    });
    assign(spec.sidechain_only_files, &|_| Kind::SidechainOnly);
    assign(spec.summary_only_files, &|_| Kind::SummaryOnly);

    // Folder popularity: a few busy folders, a long tail; every folder gets one session.
    let weights: Vec<f64> = (0..folders.len()).map(|i| 1.0 / ((i + 1) as f64).powf(0.8)).collect();
    let total_w: f64 = weights.iter().sum();
    let pick_folder = |rng: &mut Rng| -> usize {
        let mut x = rng.unit() * total_w;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        folders.len().saturating_sub(1)
    };

    // Byte budgets: huge files fixed, the long line on top of its session, the rest log-uniform
    // between 10 KB and 2 MB, scaled to what remains of the target.
    let normal_count = kinds.iter().filter(|k| matches!(k, Kind::Normal | Kind::LongLine)).count();
    let fixed = spec.huge_files as u64 * spec.huge_file_bytes + spec.long_line_bytes;
    let remaining = spec.target_bytes.saturating_sub(fixed);
    let raw: Vec<u64> = (0..n).map(|_| rng.log_uniform(10_000, 2_000_000)).collect();
    let raw_sum: u64 = raw
        .iter()
        .zip(&kinds)
        .filter(|(_, k)| matches!(k, Kind::Normal | Kind::LongLine))
        .map(|(r, _)| *r)
        .sum();
    let scale =
        if raw_sum == 0 || normal_count == 0 { 1.0 } else { remaining as f64 / raw_sum as f64 };

    let span_ms = i64::from(spec.span_days.max(1)) * 86_400_000;
    let mut plans = Vec::with_capacity(n);
    for (i, kind) in kinds.iter().enumerate() {
        let folder = if i < folders.len() { i } else { pick_folder(rng) };
        let f = folders.get(folder);
        let cwd = f
            .and_then(|f| {
                if f.cwds.len() > 1 && rng.chance(30) { f.cwds.get(1) } else { f.cwds.first() }
            })
            .cloned()
            .unwrap_or_else(|| "/home/dev".to_owned());
        let era = match rng.below(100) {
            0..8 => Era::Old,
            8..20 => Era::V20,
            20..55 => Era::Mid,
            _ => Era::New,
        };
        let era = match kind {
            Kind::SidechainOnly | Kind::SummaryOnly => Era::Old,
            Kind::Huge | Kind::LongLine => Era::New,
            _ => era,
        };
        let budget = match kind {
            Kind::Huge => spec.huge_file_bytes,
            Kind::Normal | Kind::LongLine => {
                ((raw.get(i).copied().unwrap_or(10_000) as f64 * scale) as u64).max(2_000)
            }
            _ => 20_000,
        };
        // Huge sessions last days; start them earlier so they still end before `newest_ms`.
        let reserve = if matches!(kind, Kind::Huge) { 10 * 86_400_000 } else { 86_400_000 };
        let start_ms = spec.newest_ms - reserve - rng.below(span_ms as u64) as i64;
        plans.push(Plan {
            session_id: rng.uuid_string(),
            folder,
            cwd,
            era,
            kind: *kind,
            budget,
            start_ms,
            subagents: matches!(era, Era::V20 | Era::Mid | Era::New)
                && rng.chance(spec.subagent_percent),
            long_line_bytes: if *kind == Kind::LongLine { spec.long_line_bytes } else { 0 },
            seed: rng.next_u64(),
        });
    }
    plans
}

// ---------------------------------------------------------------------------------------------
// Transcript writing

struct Ctx {
    session_id: String,
    cwd: String,
    era: Era,
    version: &'static str,
    model: &'static str,
    branch: &'static str,
    sidechain: bool,
    agent_id: Option<String>,
    /// Folder holding the main transcript (for flat agent files).
    folder: PathBuf,
    allow_subagents: bool,
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    bytes: u64,
    largest: u64,
    subagent_files: usize,
    flat_agent_files: usize,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.bytes += other.bytes;
        self.largest = self.largest.max(other.largest);
        self.subagent_files += other.subagent_files;
        self.flat_agent_files += other.flat_agent_files;
    }
}

struct TranscriptWriter<'a, W: Write> {
    out: W,
    line: Vec<u8>,
    written: u64,
    rng: Rng,
    filler: &'a Filler,
    ctx: Ctx,
    parent: Option<[u8; 36]>,
    now_ms: i64,
    last_message_ms: i64,
    /// Largest tool output for this transcript.
    max_output: u64,
    children: Tally,
}

const BRANCHES: &[&str] = &["main", "main", "master", "develop", "feature/index", "HEAD", ""];

impl<'a, W: Write> TranscriptWriter<'a, W> {
    fn new(out: W, rng: Rng, filler: &'a Filler, ctx: Ctx, start_ms: i64, max_output: u64) -> Self {
        Self {
            out,
            line: Vec::with_capacity(64 * KIB as usize),
            written: 0,
            rng,
            filler,
            ctx,
            parent: None,
            now_ms: start_ms,
            last_message_ms: start_ms,
            max_output,
            children: Tally::default(),
        }
    }

    fn io(&self, e: std::io::Error) -> Error {
        Error::io(format!("cannot write transcript {}", self.ctx.session_id), e)
    }

    fn flush_line(&mut self) -> Result<()> {
        self.line.push(b'\n');
        self.out.write_all(&self.line).map_err(|e| self.io(e))?;
        self.written += self.line.len() as u64;
        self.line.clear();
        Ok(())
    }

    fn tick(&mut self, lo: u64, hi: u64) -> i64 {
        self.now_ms += self.rng.range(lo, hi) as i64;
        self.now_ms
    }

    /// The envelope of a chained line, up to (not including) the type-specific fields.
    fn envelope(&mut self) {
        let l = &mut self.line;
        l.extend_from_slice(b"{\"parentUuid\":");
        match &self.parent {
            Some(p) => {
                l.push(b'"');
                l.extend_from_slice(p);
                l.push(b'"');
            }
            None => l.extend_from_slice(b"null"),
        }
        l.extend_from_slice(if self.ctx.sidechain {
            b",\"isSidechain\":true,\"userType\":\"external\","
        } else {
            b",\"isSidechain\":false,\"userType\":\"external\","
        });
        if self.ctx.era == Era::New {
            l.extend_from_slice(b"\"entrypoint\":\"cli\",");
        }
        push_kv_str(l, "cwd", &self.ctx.cwd);
        push_kv_str(l, "sessionId", &self.ctx.session_id);
        push_kv_str(l, "version", self.ctx.version);
        if self.ctx.era != Era::Old || !self.ctx.branch.is_empty() {
            push_kv_str(l, "gitBranch", self.ctx.branch);
        }
        if let Some(a) = &self.ctx.agent_id {
            push_kv_str(l, "agentId", a);
        }
    }

    /// Ends a chained line with uuid and timestamp, and writes it.
    fn finish(&mut self, is_message: bool) -> Result<[u8; 36]> {
        let uuid = self.rng.uuid();
        let l = &mut self.line;
        l.extend_from_slice(b"\"uuid\":\"");
        l.extend_from_slice(&uuid);
        // Timestamps are not monotonic in real files (55 of 6281 lines are older than the line
        // before them): now and then a line is stamped a few seconds early.
        let early = self.rng.chance(1);
        let ts = if early { self.now_ms - self.rng.range(1, 5_000) as i64 } else { self.now_ms };
        let l = &mut self.line;
        l.extend_from_slice(b"\",\"timestamp\":\"");
        push_iso(l, ts);
        l.extend_from_slice(b"\"}");
        self.parent = Some(uuid);
        if is_message {
            self.last_message_ms = self.last_message_ms.max(ts);
        }
        self.flush_line()?;
        Ok(uuid)
    }

    fn text(&mut self, len: u64) {
        let s = self.filler.slice(&mut self.rng, len as usize);
        self.line.extend_from_slice(s);
    }

    /// Multi-line text (`\n` escapes) of about `len` bytes.
    fn multiline(&mut self, len: u64) {
        let mut done = 0u64;
        let mut n = 1u64;
        while done < len {
            let w = self.rng.range(20, 110);
            let before = self.line.len();
            push_u64(&mut self.line, n);
            self.line.extend_from_slice(b"\\t");
            self.text(w);
            self.line.extend_from_slice(b"\\n");
            done += (self.line.len() - before) as u64;
            n += 1;
        }
    }

    fn usage(&mut self, output_tokens: u64) {
        let input = self.rng.range(2, 12);
        let create = self.rng.range(0, 20_000);
        let read = self.rng.range(0, 150_000);
        let l = &mut self.line;
        l.extend_from_slice(b"\"usage\":{");
        push_kv_u64(l, "input_tokens", input);
        push_kv_u64(l, "cache_creation_input_tokens", create);
        push_kv_u64(l, "cache_read_input_tokens", read);
        l.extend_from_slice(b"\"cache_creation\":{");
        push_kv_u64(l, "ephemeral_5m_input_tokens", create);
        l.extend_from_slice(b"\"ephemeral_1h_input_tokens\":0},");
        push_kv_u64(l, "output_tokens", output_tokens);
        l.extend_from_slice(b"\"service_tier\":\"standard\"}");
    }

    // --- bookkeeping lines (not chained) ---

    fn permission_mode(&mut self) -> Result<()> {
        let mode = self.rng.pick_str(&["default", "acceptEdits", "bypassPermissions", "plan"]);
        let l = &mut self.line;
        l.extend_from_slice(b"{\"type\":\"permission-mode\",");
        push_kv_str(l, "permissionMode", mode);
        l.extend_from_slice(b"\"sessionId\":");
        push_json_str(l, &self.ctx.session_id);
        l.push(b'}');
        self.flush_line()
    }

    fn file_history_snapshot(&mut self) -> Result<()> {
        let id = self.rng.uuid();
        let l = &mut self.line;
        l.extend_from_slice(b"{\"type\":\"file-history-snapshot\",\"messageId\":\"");
        l.extend_from_slice(&id);
        l.extend_from_slice(b"\",\"snapshot\":{\"messageId\":\"");
        l.extend_from_slice(&id);
        l.extend_from_slice(b"\",\"trackedFileBackups\":{},\"timestamp\":\"");
        push_iso(l, self.now_ms);
        l.extend_from_slice(b"\"},\"isSnapshotUpdate\":false}");
        self.flush_line()
    }

    fn queue_operation(&mut self, operation: &str, content: Option<&str>) -> Result<()> {
        let l = &mut self.line;
        l.extend_from_slice(b"{\"type\":\"queue-operation\",");
        push_kv_str(l, "operation", operation);
        l.extend_from_slice(b"\"timestamp\":\"");
        push_iso(l, self.now_ms);
        l.extend_from_slice(b"\",");
        if let Some(c) = content {
            if self.ctx.era == Era::V20 {
                l.extend_from_slice(b"\"content\":[{\"type\":\"text\",\"text\":");
                push_json_str(l, c);
                l.extend_from_slice(b"}],");
            } else {
                push_kv_str(l, "content", c);
            }
        }
        l.extend_from_slice(b"\"sessionId\":");
        push_json_str(l, &self.ctx.session_id);
        l.push(b'}');
        self.flush_line()
    }

    fn summary_line(&mut self) -> Result<()> {
        let leaf = self.rng.uuid();
        self.line.extend_from_slice(b"{\"type\":\"summary\",\"summary\":\"");
        let len = self.rng.range(20, 60);
        self.text(len);
        self.line.extend_from_slice(b"\",\"leafUuid\":\"");
        self.line.extend_from_slice(&leaf);
        self.line.extend_from_slice(b"\"}");
        self.flush_line()
    }

    fn title(&mut self, kind: &str, key: &str) -> Result<()> {
        self.line.extend_from_slice(b"{\"type\":\"");
        self.line.extend_from_slice(kind.as_bytes());
        self.line.extend_from_slice(b"\",\"");
        self.line.extend_from_slice(key.as_bytes());
        self.line.extend_from_slice(b"\":\"");
        let len = self.rng.range(12, 50);
        self.text(len);
        self.line.extend_from_slice(b"\",\"sessionId\":");
        push_json_str(&mut self.line, &self.ctx.session_id);
        self.line.push(b'}');
        self.flush_line()
    }

    /// A bookkeeping line `{"type":…,<key>:<raw json>,"sessionId":…}`.
    fn session_line(&mut self, kind: &str, key: &str, raw_value: &[u8]) -> Result<()> {
        self.line.extend_from_slice(b"{\"type\":\"");
        self.line.extend_from_slice(kind.as_bytes());
        self.line.extend_from_slice(b"\",\"");
        self.line.extend_from_slice(key.as_bytes());
        self.line.extend_from_slice(b"\":");
        self.line.extend_from_slice(raw_value);
        self.line.extend_from_slice(b",\"sessionId\":");
        push_json_str(&mut self.line, &self.ctx.session_id);
        self.line.push(b'}');
        self.flush_line()
    }

    fn worktree_state(&mut self) -> Result<()> {
        let mut v = b"{\"originalCwd\":".to_vec();
        let original = self.ctx.cwd.split("/.claude/worktrees/").next().unwrap_or("").to_owned();
        push_json_str(&mut v, &original);
        v.extend_from_slice(b",\"worktreePath\":");
        push_json_str(&mut v, &self.ctx.cwd);
        v.extend_from_slice(b",\"worktreeName\":");
        push_json_str(&mut v, self.ctx.cwd.rsplit('/').next().unwrap_or("wt"));
        v.extend_from_slice(b",\"sessionId\":");
        push_json_str(&mut v, &self.ctx.session_id);
        v.push(b'}');
        self.session_line("worktree-state", "worktreeSession", &v)
    }

    fn pr_link(&mut self) -> Result<()> {
        let n = self.rng.range(1, 5_000);
        self.line.extend_from_slice(b"{\"type\":\"pr-link\",\"sessionId\":");
        push_json_str(&mut self.line, &self.ctx.session_id);
        self.line.extend_from_slice(b",\"prNumber\":");
        push_u64(&mut self.line, n);
        self.line.extend_from_slice(b",\"prUrl\":\"https://github.com/acme/app/pull/");
        push_u64(&mut self.line, n);
        self.line.extend_from_slice(b"\",\"prRepository\":\"acme/app\",\"timestamp\":\"");
        push_iso(&mut self.line, self.now_ms);
        self.line.extend_from_slice(b"\"}");
        self.flush_line()
    }

    /// `compact_boundary` (a new chain) and the compaction summary that follows it.
    fn compaction(&mut self) -> Result<()> {
        self.tick(1_000, 30_000);
        let logical = self.parent.take();
        self.envelope();
        if let Some(p) = logical {
            self.line.extend_from_slice(b"\"logicalParentUuid\":\"");
            self.line.extend_from_slice(&p);
            self.line.extend_from_slice(b"\",");
        }
        self.line.extend_from_slice(b"\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"isMeta\":false,\"level\":\"info\",\"compactMetadata\":{\"trigger\":\"auto\",\"preTokens\":");
        let pre = self.rng.range(150_000, 190_000);
        push_u64(&mut self.line, pre);
        self.line.extend_from_slice(b"},");
        self.finish(false)?;
        self.tick(1, 50);
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"This session is being continued from a previous conversation that ran out of context. The conversation is summarized below: ");
        let len = self.rng.range(1_000, 6_000);
        self.text(len);
        self.line.extend_from_slice(
            b"\"},\"isVisibleInTranscriptOnly\":true,\"isCompactSummary\":true,",
        );
        self.finish(true).map(|_| ())
    }

    /// A locally generated assistant line (`<synthetic>` model), which usage and counts skip.
    fn synthetic_reply(&mut self) -> Result<()> {
        self.tick(100, 2_000);
        let id = self.rng.uuid();
        self.envelope();
        self.line.extend_from_slice(b"\"message\":{\"id\":\"");
        self.line.extend_from_slice(&id);
        self.line.extend_from_slice(b"\",\"container\":null,\"model\":\"<synthetic>\",\"role\":\"assistant\",\"stop_reason\":\"stop_sequence\",\"stop_sequence\":\"\",\"type\":\"message\",\"usage\":{\"input_tokens\":0,\"output_tokens\":0,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0},\"content\":[{\"type\":\"text\",\"text\":\"No response requested.\"}]},\"type\":\"assistant\",");
        self.finish(false).map(|_| ())
    }

    fn interrupt(&mut self) -> Result<()> {
        self.tick(500, 20_000);
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"[Request interrupted by user]\"}]},");
        self.finish(true).map(|_| ())
    }

    fn last_prompt(&mut self) -> Result<()> {
        self.line.extend_from_slice(b"{\"type\":\"last-prompt\",\"lastPrompt\":\"");
        let len = self.rng.range(20, 100);
        self.text(len);
        self.line.extend_from_slice(b"\",\"sessionId\":");
        push_json_str(&mut self.line, &self.ctx.session_id);
        self.line.push(b'}');
        self.flush_line()
    }

    // --- chained lines ---

    fn user_prompt(&mut self, len: u64) -> Result<()> {
        self.tick(5_000, 240_000);
        self.envelope();
        self.line
            .extend_from_slice(b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"");
        self.text(len);
        self.line.extend_from_slice(b"\"},");
        if self.ctx.era == Era::New {
            let p = self.rng.uuid();
            self.line.extend_from_slice(b"\"promptId\":\"");
            self.line.extend_from_slice(&p);
            self.line.extend_from_slice(b"\",");
        }
        self.finish(true).map(|_| ())
    }

    fn meta_caveat_and_command(&mut self) -> Result<()> {
        self.tick(1_000, 60_000);
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.\"},\"isMeta\":true,");
        self.finish(false)?;
        let cmd = self.rng.pick_str(&["model", "clear", "compact", "cost", "mcp", "status"]);
        self.tick(1, 50);
        self.envelope();
        self.line.extend_from_slice(
            b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"<command-name>/",
        );
        self.line.extend_from_slice(cmd.as_bytes());
        self.line.extend_from_slice(b"</command-name>\\n            <command-message>");
        self.line.extend_from_slice(cmd.as_bytes());
        self.line.extend_from_slice(
            b"</command-message>\\n            <command-args></command-args>\"},",
        );
        self.finish(false)?;
        self.tick(10, 400);
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"<local-command-stdout>");
        let len = self.rng.range(10, 200);
        self.text(len);
        self.line.extend_from_slice(b"</local-command-stdout>\"},");
        self.finish(false).map(|_| ())
    }

    fn attachment(&mut self) -> Result<()> {
        self.tick(5, 300);
        let tool_use = self.rng.uuid();
        let kind = self.rng.pick_str(&["hook_success", "skill_listing", "task_reminder"]);
        self.line.extend_from_slice(b"{\"parentUuid\":");
        match &self.parent {
            Some(p) => {
                self.line.push(b'"');
                self.line.extend_from_slice(p);
                self.line.push(b'"');
            }
            None => self.line.extend_from_slice(b"null"),
        }
        self.line.extend_from_slice(if self.ctx.sidechain {
            b",\"isSidechain\":true,\"attachment\":{\"type\":\""
        } else {
            b",\"isSidechain\":false,\"attachment\":{\"type\":\""
        });
        self.line.extend_from_slice(kind.as_bytes());
        self.line.extend_from_slice(b"\",\"hookName\":\"UserPromptSubmit\",\"toolUseID\":\"");
        self.line.extend_from_slice(&tool_use);
        self.line.extend_from_slice(b"\",\"hookEvent\":\"UserPromptSubmit\",\"content\":\"");
        let len = self.rng.range(20, 600);
        self.text(len);
        self.line.extend_from_slice(
            b"\",\"stdout\":\"\",\"stderr\":\"\",\"exitCode\":0,\"durationMs\":",
        );
        let d = self.rng.range(20, 2_000);
        push_u64(&mut self.line, d);
        self.line.extend_from_slice(b"},\"type\":\"attachment\",");
        // The envelope fields come after the payload on attachment lines.
        let uuid = self.rng.uuid();
        self.line.extend_from_slice(b"\"uuid\":\"");
        self.line.extend_from_slice(&uuid);
        self.line.extend_from_slice(b"\",\"timestamp\":\"");
        push_iso(&mut self.line, self.now_ms);
        self.line.extend_from_slice(b"\",\"userType\":\"external\",\"entrypoint\":\"cli\",");
        push_kv_str(&mut self.line, "cwd", &self.ctx.cwd);
        push_kv_str(&mut self.line, "sessionId", &self.ctx.session_id);
        push_kv_str(&mut self.line, "version", self.ctx.version);
        self.line.extend_from_slice(b"\"gitBranch\":");
        push_json_str(&mut self.line, self.ctx.branch);
        self.line.push(b'}');
        self.parent = Some(uuid);
        self.flush_line()
    }

    fn hook_progress(&mut self, event: &str) -> Result<()> {
        self.tick(1, 200);
        let id = self.rng.uuid();
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"progress\",\"data\":{\"type\":\"hook_progress\",");
        push_kv_str(&mut self.line, "hookEvent", event);
        self.line.extend_from_slice(b"\"hookName\":\"");
        self.line.extend_from_slice(event.as_bytes());
        self.line.extend_from_slice(
            b":startup\",\"command\":\"$HOME/.claude/hooks/notify.sh\"},\"parentToolUseID\":\"",
        );
        self.line.extend_from_slice(&id);
        self.line.extend_from_slice(b"\",\"toolUseID\":\"");
        self.line.extend_from_slice(&id);
        self.line.extend_from_slice(b"\",");
        self.finish(false).map(|_| ())
    }

    fn bash_progress(&mut self, tool_use_id: &str) -> Result<()> {
        self.tick(500, 3_000);
        self.envelope();
        self.line.extend_from_slice(
            b"\"type\":\"progress\",\"data\":{\"type\":\"bash_progress\",\"output\":\"",
        );
        let len = self.rng.range(20, 400);
        self.text(len);
        self.line.extend_from_slice(b"\",\"fullOutput\":\"");
        self.text(len * 2);
        self.line.extend_from_slice(b"\",\"elapsedTimeSeconds\":");
        let s = self.rng.range(1, 30);
        push_u64(&mut self.line, s);
        self.line.extend_from_slice(b",\"totalLines\":");
        push_u64(&mut self.line, s * 3);
        self.line.extend_from_slice(b"},");
        push_kv_str(&mut self.line, "toolUseID", tool_use_id);
        push_kv_str(&mut self.line, "parentToolUseID", tool_use_id);
        self.finish(false).map(|_| ())
    }

    fn system_line(&mut self, subtype: &str) -> Result<()> {
        self.tick(50, 2_000);
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"system\",");
        push_kv_str(&mut self.line, "subtype", subtype);
        if subtype == "turn_duration" {
            let d = self.rng.range(2_000, 400_000);
            push_kv_u64(&mut self.line, "durationMs", d);
            let c = self.rng.range(2, 200);
            push_kv_u64(&mut self.line, "messageCount", c);
        } else {
            self.line.extend_from_slice(b"\"content\":\"");
            let len = self.rng.range(20, 200);
            self.text(len);
            self.line.extend_from_slice(b"\",\"level\":\"info\",");
        }
        self.line.extend_from_slice(b"\"isMeta\":false,");
        self.finish(false).map(|_| ())
    }

    /// One streamed assistant chunk (one content block).
    fn assistant_chunk(
        &mut self,
        msg_id: &str,
        req_id: &str,
        block: &[u8],
        last: bool,
        stop: &str,
    ) -> Result<[u8; 36]> {
        self.tick(200, 8_000);
        self.envelope();
        self.line.extend_from_slice(b"\"message\":{");
        push_kv_str(&mut self.line, "model", self.ctx.model);
        push_kv_str(&mut self.line, "id", msg_id);
        self.line.extend_from_slice(b"\"type\":\"message\",\"role\":\"assistant\",\"content\":[");
        self.line.extend_from_slice(block);
        self.line.extend_from_slice(b"],\"stop_reason\":");
        let final_usage = last || self.ctx.era == Era::V20;
        if final_usage {
            push_json_str(&mut self.line, stop);
        } else {
            self.line.extend_from_slice(b"null");
        }
        self.line.extend_from_slice(b",\"stop_sequence\":null,");
        let out = if final_usage { self.rng.range(50, 3_000) } else { self.rng.range(1, 15) };
        self.usage(out);
        self.line.extend_from_slice(b"},");
        push_kv_str(&mut self.line, "requestId", req_id);
        self.line.extend_from_slice(b"\"type\":\"assistant\",");
        self.finish(true)
    }

    fn block_text(&mut self, kind: &str, len: u64) -> Vec<u8> {
        let mut b = Vec::with_capacity(len as usize + 64);
        match kind {
            "thinking" => {
                b.extend_from_slice(b"{\"type\":\"thinking\",\"thinking\":\"");
                if !(self.ctx.era == Era::New && self.rng.chance(50)) {
                    b.extend_from_slice(self.filler.slice(&mut self.rng, len as usize));
                }
                b.extend_from_slice(b"\",\"signature\":\"");
                let sig = self.rng.range(200, 900) as usize;
                let start = self.rng.below_usize(self.filler.base64.len() - 1_000);
                b.extend_from_slice(self.filler.base64.get(start..start + sig).unwrap_or(&[]));
                b.extend_from_slice(b"\"}");
            }
            _ => {
                b.extend_from_slice(b"{\"type\":\"text\",\"text\":\"");
                b.extend_from_slice(self.filler.slice(&mut self.rng, len as usize));
                b.extend_from_slice(b"\"}");
            }
        }
        b
    }

    /// A whole assistant turn: prompt, streamed chunks, tool calls with results, follow-ups.
    fn turn(&mut self, prompt_len: u64) -> Result<()> {
        let era = self.ctx.era;
        if matches!(era, Era::Mid | Era::New | Era::V20)
            && !self.ctx.sidechain
            && self.rng.chance(4)
        {
            let c = String::from_utf8_lossy(self.filler.slice(&mut self.rng, 60)).into_owned();
            self.queue_operation("enqueue", Some(&c))?;
            self.tick(1, 30_000);
            self.queue_operation("dequeue", None)?;
        }
        if !self.ctx.sidechain && self.rng.chance(5) {
            self.meta_caveat_and_command()?;
        }
        self.user_prompt(prompt_len)?;
        match era {
            Era::New if self.rng.chance(30) => self.attachment()?,
            Era::Mid if self.rng.chance(20) => self.hook_progress("UserPromptSubmit")?,
            _ => {}
        }
        let rounds = 1 + self.rng.below(3);
        for round in 0..rounds {
            let msg_id = format!("msg_01{}", self.rng.base62(22));
            let req_id = format!("req_011C{}", self.rng.base62(20));
            let tools = if round + 1 == rounds {
                0
            } else {
                match self.rng.below(100) {
                    0..40 => 1,
                    40..70 => 2,
                    70..88 => 3,
                    _ => 4,
                }
            };
            let mut blocks: Vec<Vec<u8>> = Vec::new();
            if self.rng.chance(60) {
                let len = self.rng.log_uniform(40, 3_000);
                blocks.push(self.block_text("thinking", len));
            }
            if tools == 0 || self.rng.chance(70) {
                let len = self.rng.log_uniform(30, 2_500);
                blocks.push(self.block_text("text", len));
            }
            let mut calls = Vec::new();
            for _ in 0..tools {
                let call = self.tool_call();
                blocks.push(call.block.clone());
                calls.push(call);
            }
            let n = blocks.len();
            let stop = if tools > 0 { "tool_use" } else { "end_turn" };
            let mut tool_parents = Vec::new();
            for (i, b) in blocks.iter().enumerate() {
                let uuid = self.assistant_chunk(&msg_id, &req_id, b, i + 1 == n, stop)?;
                tool_parents.push(uuid);
            }
            let assistant_uuid = tool_parents.last().copied().unwrap_or([b'0'; 36]);
            for call in &calls {
                self.tool_result(call, &assistant_uuid)?;
            }
        }
        if !self.ctx.sidechain && self.rng.chance(2) {
            self.interrupt()?;
        } else if !self.ctx.sidechain && self.rng.chance(1) {
            self.synthetic_reply()?;
        }
        if matches!(era, Era::Mid | Era::New) && !self.ctx.sidechain && self.rng.chance(30) {
            self.system_line("turn_duration")?;
        }
        Ok(())
    }

    fn tool_call(&mut self) -> ToolCall {
        let id = format!("toolu_01{}", self.rng.base62(22));
        let can_spawn = self.ctx.allow_subagents;
        let name = if can_spawn && self.rng.chance(25) {
            "Task"
        } else {
            self.rng.pick_str(&["Bash", "Read", "Read", "Edit", "Grep", "Glob", "TodoWrite"])
        };
        let path = format!(
            "{}/src/{}.rs",
            self.ctx.cwd,
            self.rng.pick_str(&["main", "lib", "index", "parser", "catalog", "server"])
        );
        let mut input = Vec::with_capacity(256);
        match name {
            "Bash" => {
                input.extend_from_slice(b"{\"command\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 40));
                input.extend_from_slice(b"\",\"description\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 30));
                input.extend_from_slice(b"\"}");
            }
            "Read" => {
                input.extend_from_slice(b"{\"file_path\":");
                push_json_str(&mut input, &path);
                input.push(b'}');
            }
            "Edit" => {
                input.extend_from_slice(b"{\"file_path\":");
                push_json_str(&mut input, &path);
                input.extend_from_slice(b",\"old_string\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 80));
                input.extend_from_slice(b"\",\"new_string\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 90));
                input.extend_from_slice(b"\"}");
            }
            "Task" => {
                input.extend_from_slice(b"{\"description\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 30));
                input.extend_from_slice(b"\",\"prompt\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 300));
                input.extend_from_slice(b"\",\"subagent_type\":\"general-purpose\"}");
            }
            "TodoWrite" => {
                input.extend_from_slice(b"{\"todos\":[{\"content\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 40));
                input.extend_from_slice(
                    b"\",\"status\":\"in_progress\",\"activeForm\":\"Working\"}]}",
                );
            }
            _ => {
                input.extend_from_slice(b"{\"pattern\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 12));
                input.extend_from_slice(b"\",\"path\":");
                push_json_str(&mut input, &self.ctx.cwd);
                input.push(b'}');
            }
        }
        let mut block = Vec::with_capacity(input.len() + 80);
        block.extend_from_slice(b"{\"type\":\"tool_use\",\"id\":\"");
        block.extend_from_slice(id.as_bytes());
        block.extend_from_slice(b"\",\"name\":\"");
        block.extend_from_slice(name.as_bytes());
        block.extend_from_slice(b"\",\"input\":");
        block.extend_from_slice(&input);
        if self.ctx.era == Era::New {
            block.extend_from_slice(b",\"caller\":{\"type\":\"direct\"}");
        }
        block.push(b'}');
        ToolCall { id, name, path, block }
    }

    fn tool_result(&mut self, call: &ToolCall, assistant_uuid: &[u8; 36]) -> Result<()> {
        let output_len = self.rng.log_uniform(60, self.max_output.max(61));
        let mut agent_id = None;
        let mut agent_summary = Vec::new();
        if call.name == "Task" {
            let (id, tally, end_ms) = self.spawn_subagent(output_len)?;
            self.children.add(tally);
            self.now_ms = self.now_ms.max(end_ms);
            agent_summary = self.filler.slice(&mut self.rng, 400).to_vec();
            agent_id = id;
        } else if self.ctx.era == Era::Mid {
            // 2.1.17–2.1.42 wrote progress lines around every tool call (up to 72% of the lines
            // of a real file): PreToolUse hooks, streamed Bash output.
            if self.rng.chance(70) {
                self.hook_progress("PreToolUse")?;
            }
            if call.name == "Bash" {
                for _ in 0..self.rng.range(1, 6) {
                    self.bash_progress(&call.id)?;
                }
            }
        }
        self.tick(100, 20_000);
        let is_error = call.name == "Bash" && self.rng.chance(5);
        self.envelope();
        self.line.extend_from_slice(
            b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"",
        );
        self.line.extend_from_slice(call.id.as_bytes());
        self.line.extend_from_slice(b"\",\"type\":\"tool_result\",\"content\":\"");
        let content_start = self.line.len();
        match call.name {
            "Task" => self.line.extend_from_slice(&agent_summary),
            "Read" | "Edit" => self.multiline(output_len),
            _ => self.text(output_len),
        }
        let content_end = self.line.len();
        self.line.extend_from_slice(b"\"");
        if is_error {
            self.line.extend_from_slice(b",\"is_error\":true");
        }
        self.line.extend_from_slice(b"}]},\"toolUseResult\":");
        // The raw tool payload repeats the output, as Claude Code does.
        let content = self.line.get(content_start..content_end).unwrap_or(&[]).to_vec();
        match call.name {
            "Bash" => {
                self.line.extend_from_slice(b"{\"stdout\":\"");
                self.line.extend_from_slice(&content);
                self.line.extend_from_slice(
                    b"\",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}",
                );
            }
            "Read" => {
                self.line.extend_from_slice(b"{\"type\":\"text\",\"file\":{\"filePath\":");
                push_json_str(&mut self.line, &call.path);
                self.line.extend_from_slice(b",\"content\":\"");
                self.line.extend_from_slice(&content);
                self.line
                    .extend_from_slice(b"\",\"numLines\":120,\"startLine\":1,\"totalLines\":120}}");
            }
            "Edit" => {
                self.line.extend_from_slice(b"{\"filePath\":");
                push_json_str(&mut self.line, &call.path);
                self.line.extend_from_slice(
                    b",\"oldString\":\"a\",\"newString\":\"b\",\"originalFile\":\"",
                );
                self.line.extend_from_slice(&content);
                self.line.extend_from_slice(
                    b"\",\"structuredPatch\":[],\"userModified\":false,\"replaceAll\":false}",
                );
            }
            "Task" => {
                self.line
                    .extend_from_slice(b"{\"status\":\"completed\",\"prompt\":\"Investigate\",");
                if let Some(a) = &agent_id {
                    push_kv_str(&mut self.line, "agentId", a);
                }
                self.line.extend_from_slice(b"\"agentType\":\"general-purpose\",\"content\":[{\"type\":\"text\",\"text\":\"");
                self.line.extend_from_slice(&content);
                self.line.extend_from_slice(b"\"}],\"totalDurationMs\":");
                let d = self.rng.range(5_000, 500_000);
                push_u64(&mut self.line, d);
                self.line.extend_from_slice(b",\"totalTokens\":");
                let t = self.rng.range(1_000, 90_000);
                push_u64(&mut self.line, t);
                self.line.extend_from_slice(b",\"totalToolUseCount\":");
                let c = self.rng.range(1, 30);
                push_u64(&mut self.line, c);
                self.line.push(b'}');
            }
            _ => {
                self.line.extend_from_slice(b"{\"mode\":\"files_with_matches\",\"filenames\":[");
                push_json_str(&mut self.line, &call.path);
                self.line.extend_from_slice(b"],\"numFiles\":1,\"content\":\"");
                self.line.extend_from_slice(&content);
                self.line.extend_from_slice(b"\"}");
            }
        }
        self.line.extend_from_slice(b",\"sourceToolAssistantUUID\":\"");
        self.line.extend_from_slice(assistant_uuid);
        self.line.extend_from_slice(b"\",");
        self.finish(true).map(|_| ())
    }

    /// Writes a subagent transcript (nested for 2.1.x, flat for 2.0.x, inline for 1.0.x).
    /// Returns its agent id, what it wrote, and the time it ended.
    fn spawn_subagent(&mut self, budget: u64) -> Result<(Option<String>, Tally, i64)> {
        let mut rng = self.rng.fork();
        let budget = budget.max(3_000) * 3;
        let era = self.ctx.era;
        let (agent_id, path, meta) = match era {
            Era::V20 => {
                let id = rng.hex(8);
                (id.clone(), self.ctx.folder.join(format!("agent-{id}.jsonl")), false)
            }
            Era::Mid | Era::New => {
                let id = if rng.chance(5) {
                    format!("acompact-{}", rng.hex(6))
                } else if era == Era::Mid {
                    rng.hex(7)
                } else {
                    rng.hex(17)
                };
                let dir = self.ctx.folder.join(&self.ctx.session_id).join("subagents");
                std::fs::create_dir_all(&dir).map_err(|e| Error::io_at("create", &dir, e))?;
                (id.clone(), dir.join(format!("agent-{id}.jsonl")), true)
            }
            Era::Old => return Ok((None, Tally::default(), self.now_ms)),
        };
        let ctx = Ctx {
            session_id: self.ctx.session_id.clone(),
            cwd: self.ctx.cwd.clone(),
            era,
            version: self.ctx.version,
            model: rng.pick_str(&["claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929"]),
            branch: self.ctx.branch,
            sidechain: true,
            agent_id: Some(agent_id.clone()),
            folder: self.ctx.folder.clone(),
            allow_subagents: false,
        };
        let file = create_new(&path)?;
        let mut w = TranscriptWriter::new(
            BufWriter::with_capacity(256 * KIB as usize, file),
            rng,
            self.filler,
            ctx,
            self.now_ms + 500,
            self.max_output,
        );
        while w.written < budget {
            let len = w.rng.log_uniform(40, 800);
            w.turn(len)?;
        }
        let (bytes, last) = w.close(&path)?;
        if meta {
            let meta_path = path.with_extension("meta.json");
            let mut m = Vec::new();
            m.extend_from_slice(b"{\"agentType\":\"general-purpose\",\"description\":\"");
            m.extend_from_slice(self.filler.slice(&mut self.rng, 30));
            m.extend_from_slice(b"\"}");
            write_new_with_mtime(&meta_path, &m, self.now_ms + 400)?;
        }
        let tally = Tally {
            bytes,
            largest: bytes,
            subagent_files: usize::from(meta),
            flat_agent_files: usize::from(!meta),
        };
        Ok((Some(agent_id), tally, last))
    }

    /// Writes inline sidechain lines into this (1.0.x main) file.
    fn inline_sidechain(&mut self) -> Result<()> {
        let saved = self.parent.take();
        self.ctx.sidechain = true;
        let len = self.rng.range(20, 200);
        let r = self.turn(len);
        self.ctx.sidechain = false;
        self.parent = saved;
        r
    }

    fn long_line(&mut self, bytes: u64) -> Result<()> {
        self.tick(5_000, 60_000);
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"iVBOR");
        let mut left = bytes as usize;
        while left > 0 {
            let n = left.min(self.filler.base64.len());
            self.line.extend_from_slice(self.filler.base64.get(..n).unwrap_or(&[]));
            left -= n;
        }
        self.line.extend_from_slice(b"\"}},{\"type\":\"text\",\"text\":\"What is wrong in this screenshot? [Image #1]\"}]},");
        self.finish(true).map(|_| ())
    }

    /// Flushes, sets the file's mtime to just after its last message, and returns
    /// (bytes, last message time).
    fn close(self, path: &Path) -> Result<(u64, i64)>
    where
        W: IntoFile,
    {
        let mtime_ms = self.last_message_ms + 7;
        let file = self.out.into_file().map_err(|e| Error::io_at("write", path, e))?;
        file.set_times(FileTimes::new().set_modified(system_time(mtime_ms)))
            .map_err(|e| Error::io_at("set the modification time of", path, e))?;
        Ok((self.written, self.last_message_ms))
    }
}

struct ToolCall {
    id: String,
    name: &'static str,
    path: String,
    block: Vec<u8>,
}

/// Writers that end in a file (so its mtime can be set after the last write).
trait IntoFile {
    fn into_file(self) -> std::io::Result<File>;
}

impl IntoFile for BufWriter<File> {
    fn into_file(self) -> std::io::Result<File> {
        self.into_inner().map_err(std::io::IntoInnerError::into_error)
    }
}

fn create_new(path: &Path) -> Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io_at("create", path, e))
}

fn write_new_with_mtime(path: &Path, bytes: &[u8], mtime_ms: i64) -> Result<()> {
    let mut f = create_new(path)?;
    f.write_all(bytes).map_err(|e| Error::io_at("write", path, e))?;
    f.set_times(FileTimes::new().set_modified(system_time(mtime_ms)))
        .map_err(|e| Error::io_at("set the modification time of", path, e))
}

struct SessionOutcome {
    tally: Tally,
    main_bytes: u64,
    last_ms: i64,
}

fn write_session(plan: &Plan, folder: &Folder, filler: &Filler) -> Result<SessionOutcome> {
    let path = folder.dir.join(format!("{}.jsonl", plan.session_id));
    let mut rng = Rng::new(plan.seed);
    if plan.kind == Kind::Empty {
        write_new_with_mtime(&path, &[], plan.start_ms)?;
        return Ok(SessionOutcome {
            tally: Tally::default(),
            main_bytes: 0,
            last_ms: plan.start_ms,
        });
    }
    let ctx = Ctx {
        session_id: plan.session_id.clone(),
        cwd: plan.cwd.clone(),
        era: plan.era,
        version: rng.pick_str(plan.era.versions()),
        model: rng.pick_str(plan.era.models()),
        branch: if plan.era == Era::Old && rng.chance(30) { "" } else { rng.pick_str(BRANCHES) },
        sidechain: plan.kind == Kind::SidechainOnly,
        agent_id: None,
        folder: folder.dir.clone(),
        allow_subagents: plan.subagents,
    };
    let max_output = match plan.kind {
        Kind::Huge => 64 * KIB,
        _ if plan.budget > MIB => 24 * KIB,
        _ => 12 * KIB,
    };
    let file = create_new(&path)?;
    let out = BufWriter::with_capacity(256 * KIB as usize, file);
    let mut w = TranscriptWriter::new(out, rng.fork(), filler, ctx, plan.start_ms, max_output);

    if plan.kind == Kind::SummaryOnly {
        w.summary_line()?;
        w.last_message_ms = plan.start_ms;
        let (bytes, last) = w.close(&path)?;
        return Ok(SessionOutcome { tally: leaf_tally(bytes), main_bytes: bytes, last_ms: last });
    }

    // Bookkeeping first lines, by era.
    match plan.era {
        Era::Old => {
            if rng.chance(40) {
                for _ in 0..rng.range(1, 4) {
                    w.summary_line()?;
                }
            }
        }
        Era::V20 => {
            if rng.chance(50) {
                w.queue_operation("enqueue", Some("/init"))?;
                w.queue_operation("dequeue", None)?;
            }
            if rng.chance(50) {
                w.file_history_snapshot()?;
            }
        }
        Era::Mid => {
            if rng.chance(60) {
                w.file_history_snapshot()?;
            } else if rng.chance(30) {
                w.queue_operation("dequeue", None)?;
            }
            if rng.chance(60) {
                w.hook_progress("SessionStart")?;
            }
        }
        Era::New => {
            if rng.chance(5) {
                w.session_line("mode", "mode", b"\"normal\"")?;
            }
            if rng.chance(60) {
                w.permission_mode()?;
            }
            if plan.cwd.contains("/.claude/worktrees/") {
                w.worktree_state()?;
            }
            if rng.chance(40) {
                w.file_history_snapshot()?;
            }
            if rng.chance(50) {
                w.attachment()?;
            }
        }
    }

    let expected_turns = (plan.budget / 12_000).max(1);
    let custom_title_at = rng.chance(15).then(|| rng.below(expected_turns));
    let ai_title_at = (plan.era == Era::New && rng.chance(60)).then(|| rng.below(expected_turns));
    let damage_at = rng.below(expected_turns.min(4));
    let mut turn = 0u64;
    let mut long_line_done = false;
    // Subagent bytes count towards the budget, except for huge files (the main file is huge).
    let counted = |w: &TranscriptWriter<'_, _>| {
        if plan.kind == Kind::Huge { w.written } else { w.written + w.children.bytes }
    };
    while turn == 0 || counted(&w) < plan.budget {
        let prompt_len = w.rng.log_uniform(15, 1_500);
        w.turn(prompt_len)?;
        if Some(turn) == custom_title_at {
            w.title("custom-title", "customTitle")?;
            if plan.era == Era::New && rng.chance(30) {
                // `--name` writes a custom-title + agent-name pair.
                w.session_line("agent-name", "agentName", b"\"worker\"")?;
            }
        }
        if matches!(plan.era, Era::Mid | Era::New) && turn > 20 && rng.chance(2) {
            w.compaction()?;
        }
        if Some(turn) == ai_title_at {
            w.title("ai-title", "aiTitle")?;
        }
        if plan.era == Era::Old && plan.kind != Kind::SidechainOnly && rng.chance(3) {
            w.inline_sidechain()?;
        }
        if plan.era == Era::Mid && rng.chance(3) {
            w.system_line("local_command")?;
        }
        if turn == damage_at {
            match plan.kind {
                Kind::Damaged(Damage::GarbageLine) => {
                    w.line.extend_from_slice(b"{\"parentUuid\":\"3f1c0b1e-77a1-4c33-9f0e-0d2d5a");
                    w.flush_line()?;
                }
                Kind::Damaged(Damage::InvalidUtf8) => {
                    w.line.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"broken \xff\xfe bytes\"},\"uuid\":\"x\"}");
                    w.flush_line()?;
                }
                Kind::Damaged(Damage::NulRun) => {
                    w.line.resize(4096, 0);
                    w.flush_line()?;
                }
                _ => {}
            }
        }
        if plan.kind == Kind::LongLine && !long_line_done && turn >= 1 {
            w.long_line(plan.long_line_bytes)?;
            long_line_done = true;
        }
        turn += 1;
    }
    if plan.kind == Kind::LongLine && !long_line_done {
        w.long_line(plan.long_line_bytes)?;
    }
    // Tail bookkeeping: CC re-appends the custom title and the last prompt at the end.
    if plan.era == Era::New {
        if custom_title_at.is_some() && rng.chance(50) {
            w.title("custom-title", "customTitle")?;
        }
        w.last_prompt()?;
        if rng.chance(3) {
            w.pr_link()?;
        }
    }
    if plan.kind == Kind::Damaged(Damage::TruncatedTail) {
        w.line.extend_from_slice(b"{\"parentUuid\":\"a1b2\",\"isSidechain\":false,\"type\":\"assistant\",\"message\":{\"id\":\"msg_01");
        w.out.write_all(&w.line).map_err(|e| Error::io_at("write", &path, e))?;
        w.written += w.line.len() as u64;
        w.line.clear();
    }
    let children = w.children;
    let (bytes, last) = w.close(&path)?;
    let mut tally = leaf_tally(bytes);
    tally.add(children);
    Ok(SessionOutcome { tally, main_bytes: bytes, last_ms: last })
}

fn leaf_tally(bytes: u64) -> Tally {
    Tally { bytes, largest: bytes, subagent_files: 0, flat_agent_files: 0 }
}

// ---------------------------------------------------------------------------------------------
// The whole home

fn ensure_empty_dir(dir: &Path, what: &str) -> Result<()> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                Err(Error::Refused(format!(
                    "{what} {} is not empty; the generator only writes into a new or empty folder",
                    dir.display()
                )))
            } else {
                Ok(())
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io_at("read", dir, e)),
    }
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io_at("create", dir, e))
}

/// Writes a synthetic Claude home at `claude_home` (its `projects/` must be absent or empty)
/// and, given `fleet_dir`, a herdctl fleet there (`herdctl.yaml`, agent files and `.herdctl/`
/// state). Deterministic: the same spec writes the same bytes and mtimes.
pub fn generate(
    spec: &SyntheticSpec,
    claude_home: &Path,
    fleet_dir: Option<&Path>,
) -> Result<GenerateReport> {
    let started = Instant::now();
    let projects = corral_engine::paths::projects_dir(claude_home);
    ensure_empty_dir(&projects, "the Claude projects folder")?;
    if let Some(f) = fleet_dir {
        if f.join("herdctl.yaml").exists() {
            return Err(Error::Refused(format!(
                "{} already holds a herdctl.yaml; the generator never overwrites a fleet",
                f.display()
            )));
        }
        ensure_empty_dir(&f.join(".herdctl"), "the herdctl state folder")?;
    }
    create_dir(&projects)?;

    let mut rng = Rng::new(spec.seed);
    let folder_count = spec.folders.clamp(1, spec.sessions.max(1));
    let folders = make_folders(&mut rng.fork(), folder_count, &projects);
    for (i, f) in folders.iter().enumerate() {
        create_dir(&f.dir)?;
        // Files that live next to transcripts but are not sessions.
        match i % 10 {
            3 => write_new_with_mtime(
                &f.dir.join("sessions-index.json"),
                b"{\"version\":1,\"entries\":[]}\n",
                spec.newest_ms,
            )?,
            4 => {
                let memory = f.dir.join("memory");
                create_dir(&memory)?;
                write_new_with_mtime(
                    &memory.join("MEMORY.md"),
                    b"# Memory\n\n- Prefer small commits.\n",
                    spec.newest_ms,
                )?;
            }
            _ => {}
        }
    }
    let plans = make_plans(spec, &mut rng.fork(), &folders);
    let filler = Filler::new(spec.seed);

    let outcomes: Vec<Result<SessionOutcome>> = plans
        .par_iter()
        .map(|p| match folders.get(p.folder) {
            Some(f) => write_session(p, f, &filler),
            None => Err(Error::InvalidInput("synthetic plan names a missing folder".into())),
        })
        .collect();

    let mut tally = Tally::default();
    let mut special = Vec::new();
    let mut newest: Option<SessionRef> = None;
    let mut done = Vec::with_capacity(plans.len());
    for (plan, outcome) in plans.iter().zip(outcomes) {
        let o = outcome?;
        tally.add(o.tally);
        let path = folders
            .get(plan.folder)
            .map(|f| f.dir.join(format!("{}.jsonl", plan.session_id)))
            .unwrap_or_default();
        if let Some(kind) = plan.kind.special_name() {
            special.push(SpecialFile {
                kind: kind.to_owned(),
                session_id: plan.session_id.clone(),
                path: path.clone(),
                bytes: o.main_bytes,
            });
        }
        let is_candidate = matches!(plan.kind, Kind::Normal);
        if is_candidate && newest.as_ref().is_none_or(|n| o.last_ms > n.last_message_ms) {
            newest = Some(SessionRef {
                session_id: plan.session_id.clone(),
                path,
                cwd: plan.cwd.clone(),
                bytes: o.main_bytes,
                last_message_ms: o.last_ms,
            });
        }
        done.push((plan, o.last_ms));
    }

    let mut report = GenerateReport {
        seed: spec.seed,
        claude_home: claude_home.to_path_buf(),
        fleet_file: None,
        state_dir: None,
        sessions: plans.len(),
        folders: folders.len(),
        subagent_files: tally.subagent_files,
        flat_agent_files: tally.flat_agent_files,
        transcript_bytes: tally.bytes,
        largest_file_bytes: tally.largest,
        agents: 0,
        job_files: 0,
        job_claimed_sessions: 0,
        platform_binding_files: 0,
        platform_sessions: 0,
        adoption_records: 0,
        special,
        newest_session: newest,
        elapsed_ms: 0,
    };
    if let Some(f) = fleet_dir {
        write_fleet(spec, &mut rng.fork(), f, &folders, &done, &mut report)?;
    }
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

const AGENT_NAMES: &[&str] =
    &["reviewer", "marketer", "triage", "nightly-build", "docs-writer", "support-bot"];
/// Agents from this index on live in the `team` sub-fleet.
const FIRST_TEAM_AGENT: usize = 4;

fn yaml_agent(name: &str, index: usize, working_directory: &str) -> Vec<u8> {
    let mut y = Vec::new();
    y.extend_from_slice(b"name: ");
    y.extend_from_slice(name.as_bytes());
    y.extend_from_slice(b"\ndescription: \"Synthetic agent ");
    push_u64(&mut y, index as u64);
    y.extend_from_slice(b"\"\nruntime: cli\nworking_directory: ");
    push_json_str(&mut y, working_directory);
    y.extend_from_slice(b"\n");
    y
}

struct Claim<'a> {
    plan: &'a Plan,
    agent: usize,
    last_ms: i64,
}

fn write_fleet(
    spec: &SyntheticSpec,
    rng: &mut Rng,
    fleet_dir: &Path,
    folders: &[Folder],
    sessions: &[(&Plan, i64)],
    report: &mut GenerateReport,
) -> Result<()> {
    // Agents work in the busiest ordinary folders.
    let agent_folders: Vec<usize> = folders
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            f.cwds.len() == 1
                && f.cwds.first().is_some_and(|c| !corral_engine::paths::is_temp_directory(c))
        })
        .map(|(i, _)| i)
        .take(AGENT_NAMES.len())
        .collect();
    let agent_of_folder = |folder: usize| agent_folders.iter().position(|&f| f == folder);
    let qualified = |agent: usize| -> String {
        let name = AGENT_NAMES.get(agent).copied().unwrap_or("agent");
        if agent >= FIRST_TEAM_AGENT { format!("team.{name}") } else { name.to_owned() }
    };

    // Fleet files.
    let state = fleet_dir.join(".herdctl");
    for d in [fleet_dir.join("agents"), fleet_dir.join("team").join("agents")] {
        create_dir(&d)?;
    }
    let mut root = b"version: 1\nfleet:\n  name: synthetic-fleet\n  description: \"Generated by corral-cli generate\"\n".to_vec();
    let has_team = agent_folders.len() > FIRST_TEAM_AGENT;
    if has_team {
        root.extend_from_slice(b"fleets:\n  - path: ./team/herdctl.yaml\n    name: team\n");
    }
    root.extend_from_slice(b"agents:\n");
    let mut team = b"version: 1\nfleet:\n  name: team\nagents:\n".to_vec();
    for (agent, &folder) in agent_folders.iter().enumerate() {
        let name = AGENT_NAMES.get(agent).copied().unwrap_or("agent");
        let cwd = folders.get(folder).and_then(|f| f.cwds.first()).cloned().unwrap_or_default();
        let (dir, list) = if agent >= FIRST_TEAM_AGENT {
            (fleet_dir.join("team").join("agents"), &mut team)
        } else {
            (fleet_dir.join("agents"), &mut root)
        };
        list.extend_from_slice(format!("  - path: ./agents/{name}.yaml\n").as_bytes());
        write_new_with_mtime(
            &dir.join(format!("{name}.yaml")),
            &yaml_agent(name, agent, &cwd),
            spec.newest_ms,
        )?;
    }
    let fleet_file = fleet_dir.join("herdctl.yaml");
    write_new_with_mtime(&fleet_file, &root, spec.newest_ms)?;
    if has_team {
        write_new_with_mtime(&fleet_dir.join("team").join("herdctl.yaml"), &team, spec.newest_ms)?;
    }
    report.agents = agent_folders.len();
    report.fleet_file = Some(fleet_file);
    report.state_dir = Some(state.clone());

    // Who owns what.
    let mut job_claims = Vec::new();
    let mut platform_claims: Vec<(usize, usize, &Plan, i64)> = Vec::new(); // (platform, agent, ..)
    let mut adoptions = Vec::new();
    for &(plan, last_ms) in sessions {
        if matches!(plan.kind, Kind::Empty | Kind::SummaryOnly | Kind::SidechainOnly) {
            continue;
        }
        match agent_of_folder(plan.folder) {
            Some(agent) => {
                if rng.chance(spec.job_claim_percent) {
                    job_claims.push(Claim { plan, agent, last_ms });
                } else if rng.chance(30) {
                    platform_claims.push((rng.below_usize(3), agent, plan, last_ms));
                }
            }
            None if !agent_folders.is_empty() && rng.chance(1) => {
                adoptions.push(Claim {
                    plan,
                    agent: rng.below_usize(agent_folders.len()),
                    last_ms,
                });
            }
            None => {}
        }
    }
    job_claims.truncate(spec.jobs);

    // Job files.
    let jobs_dir = state.join("jobs");
    create_dir(&jobs_dir)?;
    let mut ids = HashSet::new();
    let mut job_id = |rng: &mut Rng, ms: i64| -> String {
        loop {
            let day = iso(ms);
            let id = format!("job-{}-{}", day.get(..10).unwrap_or("2026-01-01"), rng.base36(6));
            if ids.insert(id.clone()) {
                return id;
            }
        }
    };
    let triggers = ["schedule", "schedule", "manual", "webhook", "chat", "fork", "spawned"];
    let mut previous_job: Option<String> = None;
    for i in 0..spec.jobs {
        let claim = job_claims.get(i);
        let (agent, start_ms, end_ms, session) = match claim {
            Some(c) => (
                c.agent,
                c.plan.start_ms - 2_000,
                c.last_ms + 1_500,
                Some(c.plan.session_id.clone()),
            ),
            None => {
                let agent = rng.below_usize(agent_folders.len().max(1));
                let start = spec.newest_ms
                    - rng.below(u64::from(spec.span_days.max(1)) * 86_400_000) as i64;
                // Failed before a session existed, or a session deleted since (cleanupPeriodDays).
                let session = rng.chance(50).then(|| rng.uuid_string());
                (agent, start, start + rng.range(1_000, 60_000) as i64, session)
            }
        };
        let id = job_id(rng, start_ms);
        let trigger = if claim.is_none() && rng.chance(50) {
            "manual"
        } else {
            triggers.get(rng.below_usize(triggers.len())).copied().unwrap_or("manual")
        };
        let status = match (claim.is_some(), rng.below(10)) {
            (true, 0) | (false, 0..4) => "failed",
            (false, 4..6) => "cancelled",
            (false, 6..8) => "pending",
            _ => "completed",
        };
        let mut y = Vec::with_capacity(800);
        y.extend_from_slice(b"id: ");
        y.extend_from_slice(id.as_bytes());
        y.extend_from_slice(b"\nagent: ");
        y.extend_from_slice(qualified(agent).as_bytes());
        if trigger == "schedule" {
            y.extend_from_slice(b"\nschedule: ");
            y.extend_from_slice(
                rng.pick_str(&["nightly", "hourly-check", "weekly-report"]).as_bytes(),
            );
        }
        y.extend_from_slice(b"\ntrigger_type: ");
        y.extend_from_slice(trigger.as_bytes());
        y.extend_from_slice(b"\nstatus: ");
        y.extend_from_slice(status.as_bytes());
        y.extend_from_slice(b"\nexit_reason: ");
        y.extend_from_slice(if status == "completed" { b"success" } else { b"error" });
        y.extend_from_slice(b"\nsession_id: ");
        match &session {
            Some(s) if status != "pending" => y.extend_from_slice(s.as_bytes()),
            _ => y.extend_from_slice(b"null"),
        }
        y.extend_from_slice(b"\nforked_from: ");
        match (&previous_job, trigger) {
            (Some(p), "fork") => y.extend_from_slice(p.as_bytes()),
            _ => y.extend_from_slice(b"null"),
        }
        y.extend_from_slice(b"\nstarted_at: \"");
        push_iso(&mut y, start_ms);
        y.extend_from_slice(b"\"\nfinished_at: ");
        if status == "pending" {
            y.extend_from_slice(b"null");
        } else {
            y.push(b'"');
            push_iso(&mut y, end_ms);
            y.push(b'"');
        }
        y.extend_from_slice(b"\nduration_seconds: ");
        push_u64(&mut y, ((end_ms - start_ms).max(0) / 1000) as u64);
        y.extend_from_slice(b"\nprompt: \"");
        y.extend_from_slice(filler_line(rng, 120).as_bytes());
        y.extend_from_slice(b"\"\nsummary: \"");
        y.extend_from_slice(filler_line(rng, 60).as_bytes());
        y.extend_from_slice(b"\"\noutput_file: ");
        y.extend_from_slice(id.as_bytes());
        y.extend_from_slice(b".jsonl\n");
        if status == "completed" {
            y.extend_from_slice(
                b"usage:\n  per_model:\n    claude-sonnet-4-6:\n      input_tokens: ",
            );
            push_u64(&mut y, rng.range(100, 50_000));
            y.extend_from_slice(b"\n      output_tokens: ");
            push_u64(&mut y, rng.range(100, 20_000));
            y.extend_from_slice(b"\n      cache_creation_input_tokens: 0\n      cache_read_input_tokens: 0\n  num_turns: ");
            push_u64(&mut y, rng.range(1, 40));
            y.extend_from_slice(b"\n  total_cost_usd: 0.42\n");
        }
        let mtime = if status == "pending" { start_ms } else { end_ms };
        write_new_with_mtime(&jobs_dir.join(format!("{id}.yaml")), &y, mtime)?;
        let mut out = Vec::with_capacity(200);
        out.extend_from_slice(b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":");
        push_json_str(&mut out, session.as_deref().unwrap_or(""));
        out.extend_from_slice(b"}\n");
        write_new_with_mtime(&jobs_dir.join(format!("{id}.jsonl")), &out, mtime)?;
        previous_job = Some(id);
    }
    report.job_files = spec.jobs;
    report.job_claimed_sessions = job_claims.len();

    // Platform bindings: one file per (platform, agent).
    let platforms = ["web", "discord", "slack"];
    for (p, platform) in platforms.iter().enumerate() {
        for agent in 0..agent_folders.len() {
            let claims: Vec<_> =
                platform_claims.iter().filter(|(pp, a, _, _)| *pp == p && *a == agent).collect();
            if claims.is_empty() {
                continue;
            }
            let dir = state.join(format!("{platform}-sessions"));
            create_dir(&dir)?;
            let mut y = b"version: ".to_vec();
            push_u64(&mut y, [1u64, 2, 3].get(agent % 3).copied().unwrap_or(1));
            y.extend_from_slice(b"\nagentName: ");
            y.extend_from_slice(qualified(agent).as_bytes());
            y.extend_from_slice(b"\nchannels:\n");
            for (_, _, plan, last_ms) in &claims {
                let channel = match *platform {
                    "web" => plan.session_id.clone(),
                    "discord" => format!("1{:017}", rng.below(100_000_000_000_000_000)),
                    _ => format!("C0{}", rng.base36(9).to_uppercase()),
                };
                y.extend_from_slice(b"  \"");
                y.extend_from_slice(channel.as_bytes());
                y.extend_from_slice(b"\":\n    sessionId: ");
                y.extend_from_slice(plan.session_id.as_bytes());
                y.extend_from_slice(b"\n    lastMessageAt: \"");
                push_iso(&mut y, *last_ms);
                y.extend_from_slice(b"\"\n");
            }
            let name = AGENT_NAMES.get(agent).copied().unwrap_or("agent");
            let newest = claims.iter().map(|c| c.3).max().unwrap_or(spec.newest_ms);
            write_new_with_mtime(&dir.join(format!("{name}.yaml")), &y, newest)?;
            report.platform_binding_files += 1;
            report.platform_sessions += claims.len();
        }
    }

    // Adoption records.
    if !adoptions.is_empty() {
        let dir = state.join("adopted-sessions");
        create_dir(&dir)?;
        for c in &adoptions {
            let mut y = b"version: 1\nsessionId: ".to_vec();
            y.extend_from_slice(c.plan.session_id.as_bytes());
            y.extend_from_slice(b"\nagentName: ");
            y.extend_from_slice(qualified(c.agent).as_bytes());
            y.extend_from_slice(b"\nadoptedAt: ");
            push_iso(&mut y, c.last_ms + 3_600_000);
            y.extend_from_slice(b"\nsourceCwd: ");
            push_json_str(&mut y, &c.plan.cwd);
            y.push(b'\n');
            write_new_with_mtime(
                &dir.join(format!("{}.yaml", c.plan.session_id)),
                &y,
                c.last_ms + 3_600_000,
            )?;
        }
        report.adoption_records = adoptions.len();
    }
    Ok(())
}

/// Plain filler text safe inside a YAML double-quoted scalar.
fn filler_line(rng: &mut Rng, len: usize) -> String {
    const PLAIN: &[&str] = &[
        "review",
        "the",
        "open",
        "pull",
        "requests",
        "and",
        "summarise",
        "failures",
        "in",
        "nightly",
        "build",
        "report",
        "traffic",
        "for",
        "last",
        "24",
        "hours",
        "triage",
        "issues",
    ];
    let mut s = String::with_capacity(len + 16);
    while s.len() < len {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(rng.pick_str(PLAIN));
    }
    s
}

/// What [`append_turns`] added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Appended {
    pub bytes: u64,
    pub last_message_ms: i64,
}

/// Appends realistic turns (about `bytes`) to an existing transcript, as a running Claude Code
/// would, starting at `start_ms`, and sets the file's mtime to the last appended message.
pub fn append_turns(
    path: &Path,
    session_id: &str,
    cwd: &str,
    bytes: u64,
    seed: u64,
    start_ms: i64,
) -> Result<Appended> {
    let file =
        OpenOptions::new().append(true).open(path).map_err(|e| Error::io_at("open", path, e))?;
    let filler = Filler::new(seed);
    let mut rng = Rng::new(seed);
    let ctx = Ctx {
        session_id: session_id.to_owned(),
        cwd: cwd.to_owned(),
        era: Era::New,
        version: "2.1.141",
        model: "claude-opus-4-7",
        branch: "main",
        sidechain: false,
        agent_id: None,
        folder: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        allow_subagents: false,
    };
    let out = BufWriter::with_capacity(256 * KIB as usize, file);
    let mut w = TranscriptWriter::new(out, rng.fork(), &filler, ctx, start_ms, 16 * KIB);
    while w.written < bytes {
        let len = w.rng.log_uniform(15, 800);
        w.turn(len)?;
    }
    let (written, last) = w.close(path)?;
    Ok(Appended { bytes: written, last_message_ms: last })
}
