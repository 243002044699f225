//! Listing facts of a transcript, computed by an incremental scanner whose state can be saved
//! (with the byte offset reached) so an appended transcript is parsed only from where it left off.
//!
//! CONTRACT (owned by the transcript developer): see each item.
//!
//! Decisions (pinned by tests in `tests/engine/transcript.rs`):
//! - A line "belongs" to the file when its `isSidechain` (absent = false) equals the file's
//!   sidechain status, which the first user/assistant line carrying `isSidechain` decides. So a
//!   main file excludes 1.0.x inline sidechain lines, and a subagent file is described by its own
//!   (sidechain) lines.
//! - `message_count` = user lines with text that are neither `isMeta` nor tool-result carriers
//!   (prompts, task notifications, command lines, compaction summaries) + distinct assistant
//!   responses (`message.id`; a line without an id counts alone). `<synthetic>` lines and
//!   tool-result lines are not counted: the viewer shows results inside their tool call.
//! - Lines that cannot matter for listing (progress, snapshots, attachments, system, …) are
//!   skipped by a byte-level pre-filter without a JSON parse; `skipped_lines` therefore counts
//!   over-long lines, non-object lines (cheap shape check) and relevant lines that failed to parse.
//! - Streamed chunks are recognised within a window of the last few response ids, so the state
//!   stays small whatever the file length.
//! - Relevant lines are read by a fast path (a validating cursor that skips tool outputs,
//!   thinking and tool inputs without decoding them, and materialises message content only for
//!   user lines); any line it declines (invalid UTF-8 where a value is used, control bytes,
//!   surrogate escapes, escaped or duplicate keys, deep nesting, numbers serde would refuse) takes
//!   the serde path with its repairs. Both give the same facts for every line — pinned by the
//!   equivalence tests below (every fixture and corpus line, hand-picked edge cases, and 3,000
//!   corrupted corpus lines).

use std::path::Path;
use std::sync::{Arc, LazyLock};

use memchr::memmem::{Finder, FinderRev};

use serde::{Deserialize, Serialize};

use super::{ContentRef, Envelope, Loose, MapOr, MessageRef, record};
use crate::jsonl::{self, LineReader, LineShape, Parsed};
use crate::model::{TokenTotals, Usage};

mod fast;
mod usage;
pub use crate::pricing::Spend;
use fast::fast_fact_line;
pub use usage::{RunSpend, UsageAccumulator};

/// Bump whenever extraction changes: cached facts stamped with an older version are re-extracted
/// exactly once.
/// Cost is priced while scanning, so the bundled price table's fingerprint is part of it.
pub const EXTRACTOR_VERSION: u32 = 10 ^ (crate::pricing::TABLE_FINGERPRINT << 8);

pub use super::{PREVIEW_CHARS, preview_of};

/// How many leaf summaries one file's facts keep (≤ 2.0 wrote 1..30 at the top of a file).
pub const MAX_LEAF_SUMMARIES: usize = 64;

/// A ≤ 2.0 `summary` line: the title of the session whose newest leaf is `leaf`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeafSummary {
    /// The `leafUuid` it names.
    pub leaf: String,
    /// The title.
    pub text: String,
}

/// What listing needs to know about one transcript.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptFacts {
    /// At least one user or assistant message (otherwise the file is not a session).
    pub has_messages: bool,
    /// Decided by the first user/assistant line that carries `isSidechain` (line 1 is often a
    /// bookkeeping record). Lines whose flag differs from the file's are then ignored.
    pub is_sidechain: bool,
    /// First `cwd` recorded on a user/assistant line.
    pub cwd: Option<String>,
    /// Last non-empty `gitBranch`.
    pub git_branch: Option<String>,
    /// Last `version` (Claude Code version).
    pub version: Option<String>,
    /// Last `entrypoint`: the surface that last wrote a message (`cli` for an interactive
    /// `claude`, `sdk-cli` for `claude -p`, `sdk-ts`/`sdk-py`, `claude-desktop`, …; absent
    /// before 2.1.7x).
    #[serde(default)]
    pub entrypoint: Option<String>,
    /// Earliest timestamp of real (non-meta, non-sidechain) user/assistant lines.
    pub first_message_at: Option<String>,
    /// Latest timestamp of those lines.
    pub last_message_at: Option<String>,
    /// User + assistant messages (streamed chunks of one `message.id` count once; meta,
    /// sidechain and synthetic lines excluded).
    pub message_count: u64,
    /// First real user prompt, cleaned, 100 chars + `…` (meta lines, command wrappers and
    /// other `<tag>` text, interrupt markers, task notifications, tool results and compaction
    /// summaries are skipped); when the session holds no such prompt, its first slash command
    /// (`/init`, `/model opus`).
    pub preview: Option<String>,
    /// The last non-empty `customTitle` (`customTitle: ""` clears).
    pub custom_title: Option<String>,
    /// The last non-empty `aiTitle`, Claude Code's generated title.
    pub ai_title: Option<String>,
    /// The last `summary` line's text.
    pub summary: Option<String>,
    /// The `leafUuid` the last `summary` line named (the session it titles).
    #[serde(default)]
    pub summary_leaf: Option<String>,
    /// ≤ 2.0 `summary` lines: each names the newest leaf of the session it titles, often a
    /// sibling file's (the listing matches them by `leaf_uuid` across the folder).
    #[serde(default)]
    pub leaf_summaries: Vec<LeafSummary>,
    /// The `uuid` of the file's last user or assistant line (its newest leaf).
    #[serde(default)]
    pub leaf_uuid: Option<String>,
    /// The `uuid` and `parentUuid` of its first user or assistant line: a conversation continued
    /// into a new file replays the old one's first line, or hangs its first line from the old
    /// one's last (see `Catalog::summarize`).
    #[serde(default)]
    pub first_uuid: Option<String>,
    /// The `parentUuid` of that first line.
    #[serde(default)]
    pub first_parent: Option<String>,
    /// Context size, output and responses, for the viewer header.
    pub usage: Usage,
    /// Tokens by kind over the resumed branch (every response once).
    #[serde(default)]
    pub tokens: TokenTotals,
    /// What its responses cost at list price (every branch; see [`Spend`]).
    #[serde(default)]
    pub spend: Spend,
    /// What its subagents' runs cost at list price, when they were read (only without
    /// [`TranscriptFacts::recorded_cost`], which covers them; see [`FactsScanner::set_runs`]).
    #[serde(default)]
    pub runs_spend: Spend,
    /// What Claude Code itself said the session cost: its last `cost-state` line.
    #[serde(default)]
    pub recorded_cost: Option<RecordedCost>,
    /// With [`TranscriptFacts::recorded_cost`]: the table's price of the responses Claude Code's
    /// figure does not cover, those of runs by a version before the one that wrote the first
    /// `cost-state` line (a session begun before Claude Code wrote them, resumed since: the
    /// resumed run found no figure to carry on).
    #[serde(default)]
    pub uncovered_spend: Spend,
    /// A typed prompt's `parentUuid` is not the line written just before it: the file may hold
    /// a rewound branch (a cheap, over-eager test; [`super::branches`] decides).
    #[serde(default)]
    pub may_branch: bool,
    /// Typed prompts on rewound branches (`message_count` and `preview` follow the resumed
    /// branch, see [`super::branches`]).
    #[serde(default)]
    pub rewound_prompts: u64,
    /// Lines that could not be parsed: over-long lines, non-object lines, and user/assistant/title
    /// lines that stayed invalid after repair (other record types are not parsed for listing).
    pub skipped_lines: u64,
}

impl TranscriptFacts {
    /// custom-title › ai-title › summary › preview, with only this file to go on (adopt and
    /// import previews): the summary naming this file's own newest leaf, else (a summary line
    /// that names no leaf at all) its last one. A summary naming another leaf is usually an
    /// earlier session's title (≤ 2.0 wrote them at the top of the next file): never this one's.
    pub fn auto_name(&self) -> Option<String> {
        let own = self.leaf_uuid.as_deref().and_then(|leaf| {
            self.leaf_summaries.iter().find(|s| s.leaf == leaf).map(|s| s.text.as_str())
        });
        let unnamed = || self.summary_leaf.is_none().then_some(self.summary.as_deref()).flatten();
        self.auto_name_with(|| own.or_else(unnamed)).map(str::to_owned)
    }

    /// custom-title › ai-title › `summary` (chosen by the caller, see `Catalog::summarize`; asked
    /// for only when neither title is set) › preview.
    pub fn auto_name_with<'s>(
        &'s self,
        summary: impl FnOnce() -> Option<&'s str>,
    ) -> Option<&'s str> {
        self.custom_title
            .as_deref()
            .or(self.ai_title.as_deref())
            .or_else(summary)
            .or(self.preview.as_deref())
    }
}

/// A `cost-state` line's figure: cumulative over the session (a resumed run carries it on), and
/// covering every request Claude Code made for it, subagents' included.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedCost {
    /// `totalCostUSD`, in pico-dollars.
    pub total: crate::pricing::Pico,
    /// `hasUnknownModelCost`: Claude Code had no price for a model it used (and guessed one).
    pub unknown_model: bool,
}

/// Incremental scanner state. Serializable so it can be persisted with the byte offset reached.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FactsScanner {
    facts: TranscriptFacts,
    sidechain_decided: bool,
    first_ms: Option<i64>,
    last_ms: Option<i64>,
    usage: UsageAccumulator,
    /// `/command args` of the first slash command, shown when no typed prompt exists.
    #[serde(default)]
    command_fallback: Option<String>,
    /// The `uuid` of the last line that had one, as written (for
    /// [`TranscriptFacts::may_branch`]; `None` when unknown).
    #[serde(default)]
    last_uuid: Option<Vec<u8>>,
    /// What the branch scan said when `may_branch` was set.
    #[serde(default)]
    resumed: Option<ResumedBranch>,
    /// The subagents' runs as last read (see [`FactsScanner::set_runs`]).
    #[serde(default)]
    runs: Vec<RunSpend>,
    /// Until the first `cost-state` line: what the responses before the last change of Claude
    /// Code version cost (see [`TranscriptFacts::uncovered_spend`]).
    #[serde(default)]
    before_version: Option<Spend>,
    /// The responses of the other side's lines (a 1.0.x main transcript's inline subagent runs):
    /// not the conversation's, so not in its tokens, but paid for, so in its spend.
    #[serde(default)]
    side_usage: UsageAccumulator,
}

/// The resumed branch's corrections to file-order facts (see [`super::branches`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumedBranch {
    hidden_messages: u64,
    rewound_prompts: u64,
    /// The preview of the first typed prompt on the resumed branch, when the file's first one
    /// was rewound.
    preview: Option<String>,
    /// The tokens of the resumed branch's responses.
    tokens: TokenTotals,
}

/// Where the rewind probe looks (see `probe_branch`): the head of a line for `parentUuid` and
/// `isSidechain` (Claude Code writes them first), its tail for `uuid` (written last but for a
/// few fields), and a little more of the head for a tool result's block.
const PROBE_HEAD: usize = 256;
const PROBE_TAIL: usize = 512;
const PROBE_NEAR: usize = 128;
const PROBE_RESULT: usize = 4096;

/// Top-level types the facts scanner looks at; every other line is skipped unparsed.
pub(crate) const FACT_TYPES: &[&str] =
    &["user", "assistant", "summary", "custom-title", "ai-title", "cost-state"];

record! {
    #[derive(Default)]
    struct FactLine<'a> {
        envelope { ty, is_sidechain, is_meta, is_compact_summary, timestamp, origin, uuid, parent_uuid }
        #[serde(default, borrow)]
        cwd: Loose<'a>,
        #[serde(default, borrow)]
        git_branch: Loose<'a>,
        #[serde(default, borrow)]
        version: Loose<'a>,
        #[serde(default, borrow)]
        entrypoint: Loose<'a>,
        #[serde(default, borrow)]
        message: MapOr<MessageRef<'a>>,
        #[serde(default, borrow)]
        request_id: Loose<'a>,
        #[serde(default, borrow)]
        custom_title: Loose<'a>,
        #[serde(default, borrow)]
        ai_title: Loose<'a>,
        #[serde(default, borrow)]
        summary: Loose<'a>,
        #[serde(default, borrow)]
        leaf_uuid: Loose<'a>,
        #[serde(default, borrow, rename = "totalCostUSD")]
        total_cost_usd: Loose<'a>,
        #[serde(default, borrow)]
        has_unknown_model_cost: Loose<'a>,
    }
}

impl FactsScanner {
    /// A scanner at the start of a file.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one complete line (without its `\n`).
    pub fn feed(&mut self, line: &[u8]) {
        match jsonl::quick_shape(line) {
            LineShape::Blank => return,
            LineShape::Malformed => {
                self.facts.skipped_lines += 1;
                return;
            }
            LineShape::ObjectLike => {}
        }
        self.probe_branch(line);
        if !jsonl::has_type_in(line, FACT_TYPES) {
            return;
        }
        if let Some(l) = fast_fact_line(jsonl::trim_line(line)) {
            self.apply(&l);
        } else {
            self.feed_parsed(line);
        }
    }

    /// The reference path: a full serde parse with repairs (used for every line the fast path
    /// declines).
    fn feed_parsed(&mut self, line: &[u8]) {
        let mut scratch = Vec::new();
        match jsonl::parse_line_with::<FactLine<'_>>(line, &mut scratch) {
            Parsed::Value(l) => self.apply(&l),
            Parsed::Blank => {}
            Parsed::Invalid => self.facts.skipped_lines += 1,
        }
    }

    /// Like [`FactsScanner::feed`] through the serde path only (equivalence tests).
    #[cfg(test)]
    fn feed_reference(&mut self, line: &[u8]) {
        match jsonl::quick_shape(line) {
            LineShape::Malformed => self.facts.skipped_lines += 1,
            LineShape::ObjectLike => {
                self.probe_branch(line);
                if jsonl::has_type_in(line, FACT_TYPES) {
                    self.feed_parsed(line);
                }
            }
            LineShape::Blank => {}
        }
    }

    fn apply(&mut self, l: &FactLine<'_>) {
        match l.ty.as_str() {
            Some("summary") => {
                if let Some(s) = non_empty(&l.summary) {
                    let leaf = l.leaf_uuid.as_str().filter(|u| !u.is_empty());
                    if let Some(leaf) = leaf {
                        self.note_leaf_summary(leaf, &s);
                    }
                    self.facts.summary_leaf = leaf.map(str::to_owned);
                    self.facts.summary = Some(s);
                }
            }
            Some("custom-title") => {
                if let Some(s) = l.custom_title.as_str() {
                    self.facts.custom_title =
                        if s.trim().is_empty() { None } else { Some(s.to_owned()) };
                }
            }
            Some("ai-title") => {
                if let Some(s) = non_empty(&l.ai_title) {
                    self.facts.ai_title = Some(s);
                }
            }
            Some(role @ ("user" | "assistant")) => self.message_line(role == "user", l),
            Some("cost-state") => self.note_cost_state(l),
            _ => {}
        }
    }

    /// A `summary` line naming a leaf (≤ 2.0): kept for whichever session's newest leaf it names
    /// (last one wins per leaf; at most [`MAX_LEAF_SUMMARIES`] per file).
    fn note_leaf_summary(&mut self, leaf: &str, text: &str) {
        let list = &mut self.facts.leaf_summaries;
        list.retain(|s| s.leaf != leaf);
        if list.len() >= MAX_LEAF_SUMMARIES {
            list.remove(0);
        }
        list.push(LeafSummary { leaf: leaf.to_owned(), text: text.to_owned() });
    }

    /// Records lines that were skipped outside [`FactsScanner::feed`] (over-long lines).
    pub fn add_skipped(&mut self, n: u64) {
        self.facts.skipped_lines = self.facts.skipped_lines.saturating_add(n);
    }

    fn message_line(&mut self, is_user: bool, l: &FactLine<'_>) {
        let side = l.is_sidechain.as_bool();
        if !self.sidechain_decided
            && let Some(b) = side
        {
            self.facts.is_sidechain = b;
            self.sidechain_decided = true;
        }
        self.facts.has_messages = true;
        if side.unwrap_or(false) != self.facts.is_sidechain {
            if !is_user {
                self.price_side_line(l);
            }
            return;
        }
        if let Some(u) = l.uuid.as_str().filter(|u| !u.is_empty()) {
            if self.facts.first_uuid.is_none() {
                self.facts.first_uuid = Some(u.to_owned());
                self.facts.first_parent = l.parent_uuid.as_str().map(str::to_owned);
            }
            set_string(&mut self.facts.leaf_uuid, u);
        }
        if self.facts.cwd.is_none()
            && let Some(c) = non_empty(&l.cwd)
        {
            self.facts.cwd = Some(c);
        }
        if let Some(v) = non_empty(&l.version) {
            self.note_version(v);
        }
        if let Some(e) = l.entrypoint.as_str().filter(|e| !e.trim().is_empty()) {
            set_string(&mut self.facts.entrypoint, e);
        }
        if let Some(b) = non_empty(&l.git_branch) {
            self.facts.git_branch = Some(b);
        }
        let meta = l.is_meta_line();
        let empty = MessageRef::default();
        let msg = l.message.0.as_ref().unwrap_or(&empty);
        if is_user {
            let content = &msg.content;
            let tool_result = super::has_tool_result(content);
            if !meta {
                self.note_time(&l.timestamp);
            }
            if meta || tool_result {
                return;
            }
            let text = super::user_text(content);
            if text.trim().is_empty() {
                return;
            }
            self.facts.message_count += 1;
            let kind = l.origin.0.as_ref().and_then(|o| o.kind.as_str());
            if self.facts.preview.is_none()
                && kind != Some("task-notification")
                && !l.is_compact_summary_line()
            {
                self.facts.preview = first_preview(content);
                if self.facts.preview.is_none() && self.command_fallback.is_none() {
                    self.command_fallback = command_of(&text);
                }
            }
        } else {
            let model = msg.model.as_str();
            if model == Some("<synthetic>") {
                return;
            }
            let at = if meta {
                l.timestamp.as_str().and_then(crate::time::millis)
            } else {
                self.note_time(&l.timestamp)
            };
            let day = at.map(crate::pricing::day_of_ms);
            let usage = msg.usage.0.as_ref();
            if self.usage.add(msg.id.as_str(), l.request_id.as_str(), model, day, usage) {
                self.facts.message_count += 1;
            }
        }
    }

    /// Notes a line's time for the first and last message; returns it (ms since the epoch).
    fn note_time(&mut self, ts: &Loose<'_>) -> Option<i64> {
        let s = ts.as_str()?;
        let ms = chrono::DateTime::parse_from_rfc3339(s).ok()?.timestamp_millis();
        if self.first_ms.is_none_or(|f| ms < f) {
            self.first_ms = Some(ms);
            set_string(&mut self.facts.first_message_at, s);
        }
        if self.last_ms.is_none_or(|l| ms > l) {
            self.last_ms = Some(ms);
            set_string(&mut self.facts.last_message_at, s);
        }
        Some(ms)
    }

    /// Sets `may_branch` when a user line that may be a typed prompt names a parent other than
    /// the line written just before it. Byte-level on purpose: the approximations here (a
    /// nested `uuid` key, a meta line taken for a prompt, a uuid not found near either end of a
    /// long line) can only set the flag too often, and the branch scan it triggers is exact.
    /// The one way to miss a rewind is a writer that puts `parentUuid` past the first
    /// [`PROBE_HEAD`] bytes (Claude Code writes it first): its file then reads in file order,
    /// as it always did.
    /// The work per line is bounded (a few hundred bytes at each end) but for the rare line
    /// whose parent differs from the line before it, and lines that put these keys elsewhere.
    fn probe_branch(&mut self, line: &[u8]) {
        static TOOL_RESULT: LazyLock<Finder<'static>> =
            LazyLock::new(|| Finder::new(b"\"tool_result\""));
        static PARENT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"parentUuid\""));
        static UUID_BACK: LazyLock<FinderRev<'static>> =
            LazyLock::new(|| FinderRev::new(b"\"uuid\""));
        static SIDECHAIN: LazyLock<Finder<'static>> =
            LazyLock::new(|| Finder::new(b"\"isSidechain\":true"));
        let head = line.get(..PROBE_HEAD).unwrap_or(line);
        // Claude Code's own lines start `{"parentUuid":<value>,"isSidechain":<bool>`: read at
        // once, without a search. Other shapes are searched for in the head.
        let (parent, sidechain) = match lead(line) {
            Some(lead) => lead,
            // No `parentUuid` key in the head: a bookkeeping line (snapshot, title, queue
            // operation), or one written in an order Claude Code does not use.
            None if PARENT.find(head).is_none() => return,
            None => (string_field(head, &PARENT), SIDECHAIN.find(head).is_some()),
        };
        // Subagent lines (1.0.x wrote them inline) are not on the conversation's chain.
        if sidechain {
            return;
        }
        if !self.facts.may_branch
            && let Some(parent) = parent
            && self.last_uuid.as_deref() != Some(parent)
            && jsonl::has_type_in(line, &["user"])
            && TOOL_RESULT.find(line).is_none()
        {
            self.facts.may_branch = true;
        }
        // Near the end first (where Claude Code writes it), then the rest of the tail, the head.
        let near = line.get(line.len().saturating_sub(PROBE_NEAR)..).unwrap_or(line);
        let tail = line.get(line.len().saturating_sub(PROBE_TAIL)..).unwrap_or(line);
        let uuid = match last_string_field(near, &UUID_BACK)
            .or_else(|| last_string_field(tail, &UUID_BACK))
            .or_else(|| last_string_field(head, &UUID_BACK))
        {
            Some(u) => Some(u),
            None if line.len() <= PROBE_TAIL => None,
            // A tool result's uuid sits between its output and `toolUseResult`: left unknown
            // rather than searched for (a prompt rarely follows a result directly).
            None if TOOL_RESULT.find(line.get(..PROBE_RESULT).unwrap_or(line)).is_some() => {
                self.last_uuid = None;
                return;
            }
            None => last_string_field(line, &UUID_BACK),
        };
        if let Some(uuid) = uuid {
            let slot = self.last_uuid.get_or_insert_with(Vec::new);
            slot.clear();
            slot.extend_from_slice(uuid);
        }
    }

    /// Claude Code's own figure for the session was read (it covers the subagents' runs).
    pub fn has_recorded_cost(&self) -> bool {
        self.facts.recorded_cost.is_some()
    }

    /// The subagents' runs as last read (each with the stamp it was read at).
    pub fn runs(&self) -> &[RunSpend] {
        &self.runs
    }

    /// Records what the session's subagents' runs cost, as read by the caller (a transcript
    /// does not name its runs' files; the catalog finds them beside it).
    pub fn set_runs(&mut self, runs: Vec<RunSpend>) {
        self.runs = runs;
    }

    /// Records what the branch scan found (see [`scan_file`]).
    fn set_branches(&mut self, b: Option<ResumedBranch>) {
        self.resumed = b;
    }

    /// This state for storing beside `given`, what [`FactsScanner::facts`] gave: its own copy of
    /// the facts is emptied when `given` stands for it (the common case), so that a listing
    /// index holds the facts once. `true` with the state: emptied (see [`FactsScanner::with_facts`]).
    pub fn without_facts(&self, given: &TranscriptFacts) -> (bool, Self) {
        // The copy's usage and tokens stay empty (`facts()` gives those from the rest of the
        // state), so `given` stands for the copy when all else is equal.
        let stands_for = {
            let mut g = given.clone();
            g.usage = Usage::default();
            g.tokens = TokenTotals::default();
            g.spend = Spend::default();
            g.runs_spend = Spend::default();
            g == self.facts
        };
        let mut state = self.clone();
        if stands_for {
            state.facts = TranscriptFacts::default();
        }
        (stands_for, state)
    }

    /// The state [`FactsScanner::without_facts`] was given, from what it returned and the same
    /// `given` facts.
    pub fn with_facts(mut self, emptied: bool, given: &TranscriptFacts) -> Self {
        if emptied {
            self.facts = given.clone();
            self.facts.usage = Usage::default();
            self.facts.tokens = TokenTotals::default();
            self.facts.spend = Spend::default();
            self.facts.runs_spend = Spend::default();
        }
        self
    }

    /// The facts as of the lines fed so far.
    pub fn facts(&self) -> TranscriptFacts {
        let mut f = self.facts.clone();
        f.usage = self.usage.usage();
        f.tokens = self.usage.tokens();
        f.spend = self.spend_so_far();
        for r in &self.runs {
            f.runs_spend.add(&r.spend);
        }
        if let Some(r) = &self.resumed {
            f.message_count = f.message_count.saturating_sub(r.hidden_messages);
            f.tokens = r.tokens;
            f.rewound_prompts = r.rewound_prompts;
            if let Some(p) = &r.preview {
                f.preview = Some(p.clone());
            }
        }
        if f.preview.is_none() {
            f.preview.clone_from(&self.command_fallback);
        }
        f
    }
}

/// The preview of a user message: its string content, or its first text block that qualifies
/// (IDE context blocks such as `<ide_opened_file>` come before the typed text).
fn first_preview(content: &ContentRef<'_>) -> Option<String> {
    match content {
        ContentRef::Text(s) => preview_of(s),
        ContentRef::Blocks(blocks) => blocks
            .iter()
            .filter(|b| b.ty.as_str() == Some("text"))
            .filter_map(|b| b.text.as_str())
            .find_map(preview_of),
        ContentRef::None => None,
    }
}

fn tag_body<'t>(text: &'t str, tag: &str) -> Option<&'t str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let rest = text.get(start..)?;
    let end = rest.find(&close)?;
    rest.get(..end).map(str::trim)
}

/// `/name args` of a slash-command wrapper line (`<command-name>/name</command-name>` …).
fn command_of(text: &str) -> Option<String> {
    let name = tag_body(text, "command-name").filter(|n| !n.is_empty())?;
    let line = match tag_body(text, "command-args").filter(|a| !a.is_empty()) {
        Some(args) => format!("{name} {args}"),
        None => name.to_owned(),
    };
    preview_of(&line)
}

/// `*slot = Some(s.to_owned())`, reusing the allocation already there.
fn set_string(slot: &mut Option<String>, s: &str) {
    match slot {
        Some(old) => {
            old.clear();
            old.push_str(s);
        }
        None => *slot = Some(s.to_owned()),
    }
}

fn non_empty(v: &Loose<'_>) -> Option<String> {
    v.as_str().filter(|s| !s.trim().is_empty()).map(str::to_owned)
}

// ---------------------------------------------------------------------------------------------
/// The result of scanning a transcript file (possibly resumed).
#[derive(Debug, Clone)]
pub struct ScanOutcome {
    /// The scanner as it stopped (resumable).
    pub scanner: FactsScanner,
    /// Offset just past the last complete line (resume point).
    pub offset: u64,
}

/// Scans a transcript's listing facts from the start, with a readable error.
pub fn read_facts(path: &Path) -> std::result::Result<TranscriptFacts, crate::files::Unusable> {
    scan_file(path, None).map(|o| o.scanner.facts()).map_err(|e| crate::files::Unusable::from(&e))
}

/// Scans `path` from the start, or resumes from `resume = (offset, scanner)`. When the file is now
/// shorter than the resume offset (rewritten or truncated), it is scanned again from the start.
pub fn scan_file(path: &Path, resume: Option<(u64, FactsScanner)>) -> std::io::Result<ScanOutcome> {
    let len = std::fs::metadata(path)?.len();
    let (offset, mut scanner) = match resume {
        Some((o, s)) if o <= len => (o, s),
        _ => (0, FactsScanner::new()),
    };
    let mut reader = LineReader::with_max_line(
        super::open_at(path, offset)?,
        offset,
        jsonl::LISTING_MAX_LINE_BYTES,
    );
    while let Some(line) = reader.next_line()? {
        scanner.feed(line.bytes);
    }
    scanner.add_skipped(reader.oversized_lines());
    if scanner.facts.may_branch {
        scanner.set_branches(resumed_branch(path)?);
    }
    Ok(ScanOutcome { offset: reader.complete_offset(), scanner })
}

/// Runs the exact branch scan for a file that may hold a rewind.
fn resumed_branch(path: &Path) -> std::io::Result<Option<ResumedBranch>> {
    let (_, b) = super::branches::scan(path)?;
    if b.rewinds.is_empty() {
        return Ok(None);
    }
    let preview = match b.first_visible_prompt {
        Some(at) if b.first_prompt_hidden => prompt_preview_at(path, at)?,
        _ => None,
    };
    let tokens = super::usage::totals(path, &super::Lines::Except(Arc::clone(&b.hidden)))?;
    Ok(Some(ResumedBranch {
        hidden_messages: b.hidden_messages(),
        rewound_prompts: b.rewound_prompts(),
        preview,
        tokens,
    }))
}

#[derive(Deserialize)]
struct PromptLine<'a> {
    #[serde(default, borrow)]
    message: MapOr<MessageRef<'a>>,
}

/// The preview of the user line at byte `offset`.
pub(crate) fn prompt_preview_at(path: &Path, offset: u64) -> std::io::Result<Option<String>> {
    let mut reader = LineReader::new(super::open_at(path, offset)?, offset);
    let Some(line) = reader.next_line()? else { return Ok(None) };
    let mut scratch = Vec::new();
    Ok(match jsonl::parse_line_with::<PromptLine<'_>>(line.bytes, &mut scratch) {
        Parsed::Value(l) => l.message.0.and_then(|m| first_preview(&m.content)),
        _ => None,
    })
}

/// `(parentUuid, isSidechain)` of a line that starts the way Claude Code writes them:
/// `{"parentUuid":"…"` or `{"parentUuid":null`, then `,"isSidechain":true|false`.
fn lead(line: &[u8]) -> Option<(Option<&[u8]>, bool)> {
    let rest = line.strip_prefix(b"{\"parentUuid\":".as_slice())?;
    let (parent, rest) = if let Some(r) = rest.strip_prefix(b"null".as_slice()) {
        (None, r)
    } else {
        let r = rest.strip_prefix(b"\"".as_slice())?;
        let end = memchr::memchr(b'"', r.get(..r.len().min(128))?)?;
        (Some(r.get(..end)?), r.get(end + 1..)?)
    };
    let rest = rest.strip_prefix(b",\"isSidechain\":".as_slice())?;
    if rest.starts_with(b"true") {
        Some((parent, true))
    } else if rest.starts_with(b"false") {
        Some((parent, false))
    } else {
        None
    }
}

/// The string value of the last `key` in `line` whose value is a plain string (searched from
/// the end), as raw bytes (escapes left as they are).
fn last_string_field<'l>(line: &'l [u8], key: &FinderRev<'_>) -> Option<&'l [u8]> {
    let mut end = line.len();
    while let Some(i) = key.rfind(line.get(..end)?) {
        if let Some(value) = string_value_at(line, i + key.needle().len()) {
            return Some(value);
        }
        end = i;
    }
    None
}

/// The string value of the first `key` in `line` whose value is a plain string, as raw bytes.
fn string_field<'l>(line: &'l [u8], key: &Finder<'_>) -> Option<&'l [u8]> {
    key.find_iter(line).find_map(|i| string_value_at(line, i + key.needle().len()))
}

/// The plain string after a key ending at `at` (`: "value"`), if that is what follows.
pub(crate) fn string_value_at(line: &[u8], at: usize) -> Option<&[u8]> {
    let rest = line.get(at..)?.trim_ascii_start().strip_prefix(b":".as_slice())?;
    let rest = rest.trim_ascii_start().strip_prefix(b"\"".as_slice())?;
    rest.get(..memchr::memchr(b'"', rest)?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::print_stdout)]
    use std::path::PathBuf;

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn preview_rules() {
        assert_eq!(preview_of("<command-name>/clear</command-name>"), None);
        assert_eq!(preview_of("  hello \n  world "), Some("hello world".into()));
        assert_eq!(preview_of("[Request interrupted by user]"), None);
        assert_eq!(preview_of("<Tag> is fine"), Some("<Tag> is fine".into()));
        let long = "x".repeat(150);
        assert_eq!(preview_of(&long).unwrap().chars().count(), 101);
    }

    /// Feeds `lines` through the fast scanner and the serde-only scanner, comparing the states
    /// after every line. Returns how many relevant lines the fast path accepted.
    fn assert_same(name: &str, lines: &[&[u8]]) -> usize {
        let (mut fast, mut slow) = (FactsScanner::new(), FactsScanner::new());
        let mut accepted = 0;
        for (n, line) in lines.iter().enumerate() {
            if jsonl::quick_shape(line) == LineShape::ObjectLike
                && jsonl::has_type_in(line, FACT_TYPES)
                && fast_fact_line(jsonl::trim_line(line)).is_some()
            {
                accepted += 1;
            }
            fast.feed(line);
            slow.feed_reference(line);
            assert_eq!(fast, slow, "{name} line {}: {}", n + 1, String::from_utf8_lossy(line));
        }
        accepted
    }

    fn split(bytes: &[u8]) -> Vec<&[u8]> {
        bytes.split(|&b| b == b'\n').collect()
    }

    fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                jsonl_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }

    fn sample_files() -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        jsonl_files(&root.join("fixtures"), &mut files);
        let corpus = root.join("../shared/corpus");
        if corpus.is_dir() {
            jsonl_files(&corpus, &mut files);
        } else {
            println!("corpus not found at {}: fixtures only", corpus.display());
        }
        files.sort();
        files
    }

    #[test]
    fn fast_path_equals_serde_path_on_fixtures_and_corpus() {
        let (mut relevant, mut accepted) = (0usize, 0usize);
        let files = sample_files();
        assert!(files.len() > 5, "fixtures missing");
        for path in &files {
            let bytes = std::fs::read(path).unwrap();
            let lines = split(&bytes);
            relevant += lines
                .iter()
                .filter(|l| {
                    jsonl::quick_shape(l) == LineShape::ObjectLike
                        && jsonl::has_type_in(l, FACT_TYPES)
                })
                .count();
            accepted += assert_same(&path.display().to_string(), &lines);
            // Whole-file scans agree too (framing, over-long lines, resume offsets).
            let fast = scan_file(path, None).unwrap();
            let mut slow = FactsScanner::new();
            let mut r =
                LineReader::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()), 0);
            while let Some(l) = r.next_line().unwrap() {
                slow.feed_reference(l.bytes);
            }
            if slow.facts.may_branch {
                slow.set_branches(resumed_branch(path).unwrap());
            }
            assert_eq!(fast.scanner, slow, "{}", path.display());
            assert_eq!(fast.offset, r.complete_offset());
        }
        println!("{} files, {accepted} of {relevant} relevant lines on the fast path", files.len());
        assert!(
            accepted * 10 >= relevant * 9,
            "fast path declines too much: {accepted}/{relevant}"
        );
    }

    /// A response's chunks count once, by their last line, also when another response's line
    /// comes between them; the same message id under another request id is another response.
    #[test]
    fn interleaved_chunks_of_a_response_count_once() {
        let line = |id: &str, req: &str, out: u64| {
            format!(
                r#"{{"type":"assistant","uuid":"u-{id}-{req}-{out}","timestamp":"2025-01-01T00:00:00Z","requestId":"{req}","message":{{"id":"{id}","model":"m","role":"assistant","content":[{{"type":"text","text":"x"}}],"usage":{{"input_tokens":1,"output_tokens":{out}}}}}}}"#
            )
        };
        let mut s = FactsScanner::new();
        for l in [line("a", "r1", 3), line("a", "r1", 10), line("b", "r2", 20), line("a", "r1", 10)]
        {
            s.feed(l.as_bytes());
        }
        assert_eq!(s.facts().tokens.output_tokens, 30);
        assert_eq!(s.facts().usage.turn_count, 2);
        s.feed(line("a", "r3", 5).as_bytes());
        assert_eq!(s.facts().tokens.output_tokens, 35);
        // And through a saved state.
        let saved: FactsScanner =
            postcard::from_bytes(&postcard::to_allocvec(&s).unwrap()).unwrap();
        let mut resumed = saved;
        resumed.feed(line("b", "r2", 20).as_bytes());
        assert_eq!(resumed.facts().tokens.output_tokens, 35);
    }

    /// Lines the fast path must decline or read exactly as serde does.
    #[test]
    fn fast_path_edge_cases_match_serde() {
        let base = r#"{"type":"assistant","message":{"id":"m1","model":"claude","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":5,"output_tokens":7}},"timestamp":"2025-01-01T00:00:00Z","requestId":"r"}"#;
        let cases: Vec<String> = vec![
            base.to_owned(),
            base.replace(r#""output_tokens":7"#, r#""output_tokens":1e400"#),
            base.replace(r#""output_tokens":7"#, r#""output_tokens":7.9"#),
            base.replace(r#""output_tokens":7"#, r#""output_tokens":-0"#),
            base.replace(r#""output_tokens":7"#, r#""output_tokens":07"#),
            base.replace(r#""output_tokens":7"#, r#""output_tokens":1.e3"#),
            base.replace(r#""output_tokens":7"#, r#""output_tokens":123456789012345678901234567890"#),
            base.replace(r#""output_tokens":7"#, r#""output_tokens":7,"output_tokens":9"#),
            base.replace(r#""id":"m1""#, r#""id":"m1","id":"m2""#),
            base.replace(r#""type":"text""#, r#""type":"text","type":"text""#),
            base.replace(r#""text":"hi""#, r#""text":"hi","thinking":1e999"#),
            base.replace(r#""text":"hi""#, r#""text":"hi","input":1e999"#),
            base.replace(r#""text":"hi""#, r#""text":"h\u+041""#),
            base.replace(r#""text":"hi""#, r#""text":"h\x41""#),
            base.replace(r#""text":"hi""#, r#""text":"h\ud83d\ude00""#),
            base.replace(r#""text":"hi""#, r#""text":"h\ud83d""#),
            base.replace(r#""text":"hi""#, "\"text\":\"h\ti\""),
            base.replace(r#""requestId""#, r#""request\u0049d""#),
            base.replace(r#""requestId":"r""#, r#""requestId":"r","#),
            base.replace(r#""requestId":"r""#, r#""requestId":"r" , "x" : [ 1 , {"y":null} ]"#),
            base.replace(r#""model":"claude""#, r#""model":"<synthetic>""#),
            format!("{base}{base}"),
            format!("{{\"type\":\"user\",\"x\":{}{}}}", "[".repeat(100), "]".repeat(100)),
            format!("{{\"type\":\"user\",\"x\":{}{}}}", "[".repeat(200), "]".repeat(200)),
            r#"{"type":"user","message":{"content":"typed \"prompt\"\nhere"},"timestamp":"2025-01-01T00:00:01Z"}"#.to_owned(),
            r#"{"type":"user","message":{"content":[{"type":"text","text":"a\u00e9b"},7,null,{"type":"text","text":"second"}]}}"#.to_owned(),
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}]},"toolUseResult":{"stdout":"ok"}}"#.to_owned(),
            r#"{"type":"user","message":{"content":{"a":1}},"origin":{"kind":"task-notification","kind":"x"}}"#.to_owned(),
            r#"{"type":"user","message":"text","origin":7,"isMeta":true}"#.to_owned(),
            r#"{"type":"custom-title","customTitle":"T\u00e9"}"#.to_owned(),
            r#"{"type":"summary","summary":"S","summary":"S2"}"#.to_owned(),
            "{\"type\":\"user\",\"message\":{\"content\":\"caf\u{e9}\"}}".to_owned(),
            r#"{"type":"assistant","message":{"usage":{"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":4},"cache_creation_input_tokens":2}}}"#.to_owned(),
            r#"{"type":"assistant","message":{"usage":{"cache_creation":[1e999]}}}"#.to_owned(),
            r#"{"type":"assistant","message":{"usage":{"cache_creation":1e999}}}"#.to_owned(),
            r#"{"type":"assistant","message":{"id":"w","model":"claude-opus-5-5","usage":{"output_tokens":3,"server_tool_use":{"web_search_requests":2,"web_fetch_requests":1}}}}"#.to_owned(),
            r#"{"type":"assistant","message":{"usage":{"server_tool_use":{"web_search_requests":"2"}}}}"#.to_owned(),
            r#"{"type":"cost-state","totalCostUSD":0.045200000000000004,"modelUsage":{"m":{"costUSD":1}},"hasUnknownModelCost":true}"#.to_owned(),
            r#"{"type":"cost-state","totalCostUSD":"0.5","hasUnknownModelCost":1}"#.to_owned(),
            r#"{"type":"cost-state","totalCostUSD":-3}"#.to_owned(),
            r#"{"type":"assistant", "message":{"id":tru}}"#.to_owned(),
            r#"{"type":"assistant","message":{"id":"a"}} x"#.to_owned(),
        ];
        let mut lines: Vec<&[u8]> = cases.iter().map(String::as_bytes).collect();
        let bad_utf8: &[&[u8]] = &[
            b"{\"type\":\"user\",\"message\":{\"content\":\"a\xff b\"}}",
            b"{\"type\":\"assistant\",\"message\":{\"id\":\"x\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"\xe2\x28\"},{\"type\":\"tool_use\",\"input\":{\"a\":\"\xc3\"}}]}}",
            b"{\"type\":\"assistant\",\"message\":{\"id\":\"x\xff\"}}",
            b"{\"type\":\"assistant\",\"cwd\":\"/w\xc3\",\"message\":{\"id\":\"x\"}}",
            b"{\"type\":\"user\",\t\"message\" :\r{\"content\":\"tabs\"}}",
            b"{\"type\":\"user\",\"message\":{\"content\":\"nul\x00inside\"}}",
            b"{\"type\":\"user\",\"message\":{\"content\":\"ctrl\x01\"}}",
            b"{\"type\":\"user\",\"x\x01\":1,\"message\":{\"content\":\"ok\"}}",
            b"{\"type\":\"user\",\"message\":{\"content\":\"ok\"}\x0c}",
        ];
        lines.extend_from_slice(bad_utf8);
        for line in &lines {
            assert_same("edge", &[line]);
        }
        assert_same("edge, all in one file", &lines);
    }

    fn corpus_lines() -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for p in sample_files() {
            let bytes = std::fs::read(p).unwrap();
            for l in split(&bytes) {
                if l.len() < 4000 && jsonl::has_type_in(l, FACT_TYPES) {
                    out.push(l.to_vec());
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Corrupted versions of real lines read the same on both paths.
        #[test]
        fn mutated_lines_read_the_same(
            pick in any::<prop::sample::Index>(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, prop::sample::select(
                b"\"\\{}[],:0123eE-+. utfnlx\x01\t\xc3\xff/".to_vec())), 1..4),
        ) {
            thread_local! { static LINES: Vec<Vec<u8>> = corpus_lines(); }
            let mut line = LINES.with(|l| pick.get(l).clone());
            for (at, op, byte) in edits {
                let i = at.index(line.len() + 1);
                match op {
                    0 => line.insert(i, byte),
                    1 if i < line.len() => { line.remove(i); }
                    _ => if let Some(b) = line.get_mut(i) { *b = byte },
                }
            }
            let (mut fast, mut slow) = (FactsScanner::new(), FactsScanner::new());
            fast.feed(&line);
            slow.feed_reference(&line);
            prop_assert_eq!(fast, slow, "{}", String::from_utf8_lossy(&line));
        }
    }

    /// CPU time of this thread in seconds (Linux), else wall time since first call; the machine
    /// is shared, so throughput is reported per CPU second.
    fn cpu_now() -> f64 {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
            .map_or_else(|| 0.0, |ns| ns / 1e9)
    }

    /// Per-piece CPU cost on an in-memory copy (min of 3 runs):
    /// `CORRAL_PERF_FILE=/path cargo test -p corral-engine --release --lib perf_pieces -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn perf_pieces() {
        let Ok(path) = std::env::var("CORRAL_PERF_FILE") else { return };
        let bytes = std::fs::read(path).unwrap();
        let lines: Vec<&[u8]> = split(&bytes)
            .into_iter()
            .filter(|l| {
                jsonl::quick_shape(l) == LineShape::ObjectLike && jsonl::has_type_in(l, FACT_TYPES)
            })
            .collect();
        let total = lines.iter().map(|l| l.len()).sum::<usize>() as f64;
        let only = std::env::var("CORRAL_PERF_ONLY").ok();
        let time = |name: &str, f: &dyn Fn(&[u8]) -> bool| {
            if only.as_deref().is_some_and(|o| !name.starts_with(o)) {
                return;
            }
            let mut best = f64::MAX;
            let mut hits = 0;
            for _ in 0..3 {
                let t = cpu_now();
                hits = lines.iter().filter(|l| f(l)).count();
                best = best.min(cpu_now() - t);
            }
            println!(
                "{name:28} {:7.1} ms {:6.0} MB/s ({hits} true)",
                best * 1e3,
                total / 1e6 / best
            );
        };
        time("split+filter (whole file)", &|_| true);
        time("memchr newline", &|l| memchr::memchr(b'\n', l).is_none());
        time("from_utf8", &|l| std::str::from_utf8(l).is_ok());
        time("fast_fact_line", &|l| fast_fact_line(l).is_some());
        time("serde FactLine", &|l| serde_json::from_slice::<FactLine<'_>>(l).is_ok());
        time("serde IgnoredAny", &|l| serde_json::from_slice::<serde::de::IgnoredAny>(l).is_ok());
    }

    /// Manual throughput check (CPU time of the scanning thread, read syscalls included):
    /// `CORRAL_PERF_FILE=/path cargo test -p corral-engine --release --lib perf_facts -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn perf_facts() {
        let Ok(path) = std::env::var("CORRAL_PERF_FILE") else { return };
        let path = PathBuf::from(path);
        let len = std::fs::metadata(&path).unwrap().len() as f64;
        let mbs = |secs: f64| len / 1e6 / secs;
        let (mut frame, mut fast, mut reference) = (f64::MAX, f64::MAX, f64::MAX);
        for _ in 0..3 {
            let t = cpu_now();
            let mut r = LineReader::new(super::super::open_at(&path, 0).unwrap(), 0);
            let mut n = 0u64;
            while let Some(l) = r.next_line().unwrap() {
                n += l.bytes.len() as u64;
            }
            assert!(n > 0);
            frame = frame.min(cpu_now() - t);
            let t = cpu_now();
            let out = scan_file(&path, None).unwrap();
            fast = fast.min(cpu_now() - t);
            if std::env::var_os("CORRAL_PERF_FAST_ONLY").is_some() {
                continue;
            }
            let t = cpu_now();
            let mut slow = FactsScanner::new();
            let mut r = LineReader::new(super::super::open_at(&path, 0).unwrap(), 0);
            while let Some(l) = r.next_line().unwrap() {
                slow.feed_reference(l.bytes);
            }
            reference = reference.min(cpu_now() - t);
            assert_eq!(out.scanner, slow);
        }
        println!(
            "CPU time, best of 3: read+framing {:.0} ms ({:.0} MB/s) | scan_file {:.0} ms ({:.0} MB/s) | serde path {:.0} ms ({:.0} MB/s)",
            frame * 1e3,
            mbs(frame),
            fast * 1e3,
            mbs(fast),
            reference * 1e3,
            mbs(reference)
        );
    }
}
