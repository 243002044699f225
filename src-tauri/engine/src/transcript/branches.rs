//! Rewound branches: which lines of a transcript are on the branch `claude --resume` continues,
//! and which were abandoned by a rewind (a checkpoint restore, an edited earlier prompt).
//!
//! CONTRACT (owned by the transcript developer).
//!
//! Rules (pinned by tests in `tests/engine/transcript.rs` and the unit tests below):
//! - Nodes are the `user`, `assistant`, `system` and `attachment` lines with a `uuid` whose
//!   `isSidechain` matches the file's. `progress` lines are bridged: a node whose parent is a
//!   progress line hangs from that line's own parent. A `compact_boundary` continues from its
//!   `logicalParentUuid` when that names an earlier node. A parent that is not an earlier node
//!   (null, dangling, or later in the file) makes a root. A repeated uuid is the same node.
//! - The resumed branch is the parent chain of the last node in file order (Claude Code appends
//!   a resumed conversation at the end of the file).
//! - A node off that chain whose nearest on-chain ancestor is `F` belongs to the off-branch
//!   subtree hanging from `F`. That subtree is **rewound** when it holds at least one typed
//!   prompt and the resumed branch continues from `F` with a typed prompt (system and
//!   attachment lines and meta lines in between are passed over) — what a rewind writes. Every
//!   other off-chain subtree is a recording artifact (parallel tool results, local commands of
//!   1.0.x hanging from one caveat line) and stays shown where it is; so do separate roots
//!   (`/clear`, a dangling parent).
//! - A typed prompt is a user line that is not meta, carries no tool result, is not a task
//!   notification or compaction summary, and has text that [`super::preview_of`]
//!   accepts (not a command wrapper or interrupt marker).
//!
//! The scan is a full pass over the file (a byte-level pre-filter skips other line types), so
//! callers run it only for files whose listing facts say a rewind may be present (the facts'
//! `may_branch`), and can continue it after an append.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::BufReader;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use super::{ContentRef, Envelope, Loose, MapOr, record};
use crate::jsonl::{self, LineReader, LineShape, Parsed};

pub(crate) const NODE_TYPES: &[&str] = &["user", "assistant", "system", "attachment", "progress"];
const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A typed prompt.
    Prompt,
    /// Other user text the listing counts (command lines, notifications, summaries).
    Said,
    /// An assistant line (counted once per `message.id`).
    Assistant,
    /// Tool results, meta lines, system and attachment lines.
    Quiet,
}

#[derive(Debug, Clone)]
struct Node {
    parent: u32,
    offset: u64,
    kind: Kind,
    /// Hash of an assistant line's `message.id` (0 when none).
    message: u64,
}

record! {
    struct BranchLine<'a> {
        envelope { ty, uuid, parent_uuid, is_sidechain, is_meta, is_compact_summary, origin }
        #[serde(default, borrow)]
        logical_parent_uuid: Loose<'a>,
        #[serde(default, borrow)]
        subtype: Loose<'a>,
        #[serde(default, borrow)]
        message: MapOr<BranchMessage<'a>>,
    }
}

#[derive(Deserialize)]
struct BranchMessage<'a> {
    #[serde(default, borrow)]
    id: Loose<'a>,
    #[serde(default, borrow)]
    model: Loose<'a>,
    #[serde(default, borrow)]
    content: ContentRef<'a>,
}

/// A uuid as a compact key: its 128 bits when uuid-shaped, else a hash in the upper half-space.
fn key(s: &str) -> u128 {
    let hex: String = s.chars().filter(|c| *c != '-').collect();
    if s.len() == 36
        && hex.len() == 32
        && let Ok(v) = u128::from_str_radix(&hex, 16)
    {
        return v;
    }
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    (1u128 << 127) | u128::from(h.finish())
}

fn hash_str(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish().max(1)
}

/// Whether a user line's content is a typed prompt (see the module rules).
fn is_typed_prompt(content: &ContentRef<'_>) -> bool {
    match content {
        ContentRef::Text(s) => super::preview_of(s).is_some(),
        ContentRef::Blocks(blocks) => blocks
            .iter()
            .filter(|b| b.ty.as_str() == Some("text"))
            .filter_map(|b| b.text.as_str())
            .any(|t| super::preview_of(t).is_some()),
        ContentRef::None => false,
    }
}

/// The incremental scan: feed complete lines in file order, then [`BranchScanner::branches`].
#[derive(Debug, Clone, Default)]
pub struct BranchScanner {
    file_sidechain: bool,
    nodes: Vec<Node>,
    by_key: HashMap<u128, u32>,
    /// Progress lines: their (bridged) parent node.
    bridge: HashMap<u128, u32>,
    /// Offsets of repeated uuids, with the node they repeat.
    repeats: Vec<(u64, u32)>,
    /// Byte offset reached (the next line starts here).
    offset: u64,
}

impl BranchScanner {
    /// A scanner for a file whose sidechain status is `file_sidechain`.
    pub fn new(file_sidechain: bool) -> Self {
        Self { file_sidechain, ..Self::default() }
    }

    /// The byte offset the next [`BranchScanner::continue_file`] reads from.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    fn resolve(&self, parent: Option<&str>) -> u32 {
        let Some(k) = parent.map(key) else { return NONE };
        if let Some(&i) = self.by_key.get(&k) {
            return i;
        }
        self.bridge.get(&k).copied().unwrap_or(NONE)
    }

    /// Feeds one complete line that starts at byte `offset`.
    pub fn feed(&mut self, offset: u64, bytes: &[u8]) {
        if jsonl::quick_shape(bytes) != LineShape::ObjectLike
            || !jsonl::has_type_in(bytes, NODE_TYPES)
        {
            return;
        }
        let mut scratch = Vec::new();
        let Parsed::Value(l) = jsonl::parse_line_with::<BranchLine<'_>>(bytes, &mut scratch) else {
            return;
        };
        let Some(uuid) = l.uuid.as_str() else { return };
        let ty = l.ty.as_str().unwrap_or("");
        if !matches!(ty, "user" | "assistant" | "system" | "attachment" | "progress") {
            return;
        }
        if l.off_file(self.file_sidechain) {
            return;
        }
        let k = key(uuid);
        if ty == "progress" {
            let parent = self.resolve(l.parent_uuid.as_str());
            self.bridge.entry(k).or_insert(parent);
            return;
        }
        if let Some(&i) = self.by_key.get(&k) {
            self.repeats.push((offset, i));
            return;
        }
        let mut parent = self.resolve(l.parent_uuid.as_str());
        if parent == NONE && l.subtype.as_str() == Some("compact_boundary") {
            parent = self.resolve(l.logical_parent_uuid.as_str());
        }
        let msg = l.message.0.as_ref();
        let kind = match ty {
            "user" => {
                let content = msg.map(|m| &m.content);
                let text = content.map(super::user_text).unwrap_or_default();
                let notification =
                    l.origin.0.as_ref().and_then(|o| o.kind.as_str()) == Some("task-notification");
                if l.is_meta_line()
                    || content.is_some_and(super::has_tool_result)
                    || text.trim().is_empty()
                {
                    Kind::Quiet
                } else if !notification
                    && !l.is_compact_summary_line()
                    && content.is_some_and(is_typed_prompt)
                {
                    Kind::Prompt
                } else {
                    Kind::Said
                }
            }
            "assistant" if msg.and_then(|m| m.model.as_str()) != Some("<synthetic>") => {
                Kind::Assistant
            }
            _ => Kind::Quiet,
        };
        let message =
            msg.and_then(|m| m.id.as_str()).filter(|_| kind == Kind::Assistant).map_or(0, hash_str);
        let Ok(index) = u32::try_from(self.nodes.len()) else { return };
        if index == NONE {
            return;
        }
        self.nodes.push(Node { parent, offset, kind, message });
        self.by_key.insert(k, index);
    }

    /// Reads the rest of `path` from [`BranchScanner::offset`] (complete lines only).
    pub fn continue_file(&mut self, path: &Path) -> std::io::Result<()> {
        let file = super::open_at(path, self.offset)?;
        let mut reader = LineReader::new(BufReader::with_capacity(256 * 1024, file), self.offset);
        while let Some(line) = reader.next_line()? {
            self.feed(line.offset, line.bytes);
        }
        self.offset = reader.complete_offset();
        Ok(())
    }

    /// The branches as of the lines fed so far.
    pub fn branches(&self) -> Branches {
        let (on_chain, next) = self.chain();
        let mut rewinds = Vec::new();
        let mut hidden_nodes = HashSet::new();
        for (r, members) in self.off_branches(&on_chain) {
            if let Some(rewind) = self.rewind(r, &members, &next) {
                hidden_nodes.extend(members);
                rewinds.push(rewind);
            }
        }
        for (offset, node) in &self.repeats {
            if hidden_nodes.contains(node)
                && let Some(r) = rewinds.iter_mut().find(|r| {
                    self.nodes
                        .get(*node as usize)
                        .is_some_and(|x| r.lines.binary_search(&x.offset).is_ok())
                })
            {
                r.lines.push(*offset);
                r.lines.sort_unstable();
            }
        }
        rewinds.sort_by_key(|r| (r.at, r.branch));
        let mut hidden: Vec<u64> = rewinds.iter().flat_map(|r| r.lines.iter().copied()).collect();
        hidden.sort_unstable();
        hidden.dedup();
        let hidden: Arc<[u64]> = hidden.into();
        let mut prompts = self.nodes.iter().filter(|x| x.kind == Kind::Prompt);
        let first_prompt_hidden =
            prompts.next().is_some_and(|x| hidden.binary_search(&x.offset).is_ok());
        let first_visible_prompt = self
            .nodes
            .iter()
            .filter(|x| x.kind == Kind::Prompt)
            .map(|x| x.offset)
            .find(|o| hidden.binary_search(o).is_err());
        Branches { hidden, rewinds, first_prompt_hidden, first_visible_prompt }
    }

    /// Which nodes are on the chain `claude --resume` continues (walked back from the last node),
    /// and the chain child of each on-chain node (the next node of the resumed branch).
    fn chain(&self) -> (Vec<bool>, Vec<u32>) {
        let n = self.nodes.len();
        let mut on_chain = vec![false; n];
        let mut next = vec![NONE; n];
        let mut cur = n.checked_sub(1).and_then(|i| u32::try_from(i).ok()).unwrap_or(NONE);
        let mut child = NONE;
        while let Some(node) = self.nodes.get(cur as usize) {
            if let Some(slot) = on_chain.get_mut(cur as usize) {
                *slot = true;
            }
            if let Some(slot) = next.get_mut(cur as usize) {
                *slot = child;
            }
            child = cur;
            // Parents are always earlier nodes, so this walk ends.
            cur = node.parent;
        }
        (on_chain, next)
    }

    /// The off-chain nodes grouped by the root of the subtree they hang in from the chain.
    fn off_branches(&self, on_chain: &[bool]) -> HashMap<u32, Vec<u32>> {
        // For each off-chain node: the root of its off-branch subtree (NONE: not hanging from
        // the chain). Parents come first, so one forward pass suffices.
        let mut root = vec![NONE; self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            if on_chain.get(i).copied().unwrap_or(true) || node.parent == NONE {
                continue;
            }
            let p = node.parent as usize;
            let r = if on_chain.get(p).copied().unwrap_or(false) {
                u32::try_from(i).unwrap_or(NONE)
            } else {
                root.get(p).copied().unwrap_or(NONE)
            };
            if let Some(slot) = root.get_mut(i) {
                *slot = r;
            }
        }
        let mut groups: HashMap<u32, Vec<u32>> = HashMap::new();
        for (i, r) in root.iter().enumerate() {
            if *r != NONE {
                groups.entry(*r).or_default().push(u32::try_from(i).unwrap_or(NONE));
            }
        }
        groups
    }

    /// The off-branch rooted at `r` as a rewind: only when it holds a typed prompt and the resumed
    /// branch goes on with a typed prompt after the fork.
    fn rewind(&self, r: u32, members: &[u32], next: &[u32]) -> Option<Rewind> {
        let prompts = members.iter().filter(|&&m| self.kind(m) == Some(Kind::Prompt)).count();
        let fork = self.nodes.get(r as usize)?.parent;
        let resumed = self.resumed_prompt(next, fork)?;
        if prompts == 0 {
            return None;
        }
        let mut ids = HashSet::new();
        let mut messages = 0u64;
        let mut offsets: Vec<u64> = Vec::with_capacity(members.len());
        for &m in members {
            let Some(node) = self.nodes.get(m as usize) else { continue };
            offsets.push(node.offset);
            match node.kind {
                Kind::Prompt | Kind::Said => messages += 1,
                Kind::Assistant if node.message == 0 || ids.insert(node.message) => {
                    messages += 1;
                }
                Kind::Assistant | Kind::Quiet => {}
            }
        }
        let first_prompt = members
            .iter()
            .filter_map(|&m| self.nodes.get(m as usize))
            .find(|x| x.kind == Kind::Prompt)
            .map(|x| x.offset);
        Some(Rewind {
            at: resumed,
            branch: offsets.first().copied().unwrap_or(0),
            prompts: prompts as u64,
            messages,
            first_prompt,
            lines: offsets,
        })
    }

    fn kind(&self, i: u32) -> Option<Kind> {
        self.nodes.get(i as usize).map(|n| n.kind)
    }

    /// The offset of the typed prompt the resumed branch continues with after `fork`, when it
    /// does (system, attachment and meta lines in between are passed over).
    fn resumed_prompt(&self, next: &[u32], fork: u32) -> Option<u64> {
        let mut cur = next.get(fork as usize).copied().unwrap_or(NONE);
        while let Some(node) = self.nodes.get(cur as usize) {
            match node.kind {
                Kind::Prompt => return Some(node.offset),
                Kind::Quiet => cur = next.get(cur as usize).copied().unwrap_or(NONE),
                Kind::Said | Kind::Assistant => return None,
            }
        }
        None
    }
}

/// One abandoned branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewind {
    /// Byte offset of the prompt the resumed branch continues with at the fork.
    pub at: u64,
    /// Byte offset of the abandoned branch's first line (its id).
    pub branch: u64,
    /// Typed prompts on the abandoned branch.
    pub prompts: u64,
    /// Messages on it, counted as the listing counts them.
    pub messages: u64,
    /// Byte offset of its first typed prompt.
    pub first_prompt: Option<u64>,
    /// Offsets of every line of the branch, ascending.
    pub lines: Vec<u64>,
}

/// What a scan found: the lines to hide from the resumed view and the rewinds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Branches {
    /// Offsets of lines on rewound branches, ascending.
    pub hidden: Arc<[u64]>,
    /// Abandoned branches, by the offset of the prompt that replaced them.
    pub rewinds: Vec<Rewind>,
    /// The file's first typed prompt is on a rewound branch.
    pub first_prompt_hidden: bool,
    /// Byte offset of the first typed prompt on the resumed branch (or off it, not rewound).
    pub first_visible_prompt: Option<u64>,
}

impl Branches {
    /// Whether the line at `offset` is on a rewound branch.
    pub fn is_hidden(&self, offset: u64) -> bool {
        self.hidden.binary_search(&offset).is_ok()
    }

    /// Messages on rewound branches (as the listing counts them).
    pub fn hidden_messages(&self) -> u64 {
        self.rewinds.iter().map(|r| r.messages).sum()
    }

    /// Typed prompts on rewound branches.
    pub fn rewound_prompts(&self) -> u64 {
        self.rewinds.iter().map(|r| r.prompts).sum()
    }

    /// The rewind whose branch starts at `branch`.
    pub fn rewind(&self, branch: u64) -> Option<&Rewind> {
        self.rewinds.iter().find(|r| r.branch == branch)
    }
}

/// Scans a whole file.
pub fn scan(path: &Path) -> std::io::Result<(BranchScanner, Branches)> {
    let mut scanner = BranchScanner::new(super::file_is_sidechain(path));
    scanner.continue_file(path)?;
    let branches = scanner.branches();
    Ok((scanner, branches))
}

/// How many files' branch scans [`BranchCache`] keeps.
const CACHED_FILES: usize = 4;

/// The branch scans of the last few files asked about, continued after an append and redone
/// after any other change.
#[derive(Debug, Default)]
pub struct BranchCache {
    entries: Vec<Cached>,
}

#[derive(Debug)]
struct Cached {
    path: std::path::PathBuf,
    len: u64,
    modified: Option<std::time::SystemTime>,
    scanner: BranchScanner,
    branches: Arc<Branches>,
}

impl BranchCache {
    /// The branches of `path` as it is now.
    pub fn get(&mut self, path: &Path) -> std::io::Result<Arc<Branches>> {
        let meta = crate::files::open_regular(path)?.metadata()?;
        let (len, modified) = (meta.len(), meta.modified().ok());
        let found = self.entries.iter().position(|e| e.path == path);
        let mut entry = match found {
            Some(i) => self.entries.remove(i),
            None => {
                let (scanner, branches) = scan(path)?;
                Cached {
                    path: path.to_owned(),
                    len,
                    modified,
                    scanner,
                    branches: Arc::new(branches),
                }
            }
        };
        if entry.len != len || entry.modified != modified {
            if len < entry.scanner.offset() {
                entry.scanner = BranchScanner::new(super::file_is_sidechain(path));
            }
            entry.scanner.continue_file(path)?;
            entry.branches = Arc::new(entry.scanner.branches());
            (entry.len, entry.modified) = (len, modified);
        }
        let branches = Arc::clone(&entry.branches);
        self.entries.insert(0, entry);
        self.entries.truncate(CACHED_FILES);
        Ok(branches)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn line(ty: &str, uuid: &str, parent: Option<&str>, text: &str) -> String {
        let content = if ty == "assistant" {
            serde_json::json!({"id": format!("msg_{uuid}"), "model":"claude-opus-4-5",
                "content":[{"type":"text","text":text}]})
        } else {
            serde_json::json!({"role":"user","content":text})
        };
        serde_json::json!({"type":ty,"uuid":uuid,"parentUuid":parent,"isSidechain":false,
            "message":content})
        .to_string()
    }

    fn scan_lines(lines: &[String]) -> (Branches, Vec<u64>) {
        let mut s = BranchScanner::new(false);
        let mut offsets = Vec::new();
        let mut at = 0u64;
        for l in lines {
            offsets.push(at);
            s.feed(at, l.as_bytes());
            at += l.len() as u64 + 1;
        }
        (s.branches(), offsets)
    }

    #[test]
    fn a_rewound_prompt_is_hidden_and_the_replacement_marks_it() {
        let lines = [
            line("user", "a", None, "first question"),
            line("assistant", "b", Some("a"), "first answer"),
            line("user", "c", Some("b"), "abandoned question"),
            line("assistant", "d", Some("c"), "abandoned answer"),
            line("user", "e", Some("b"), "better question"),
            line("assistant", "f", Some("e"), "better answer"),
        ];
        let (b, o) = scan_lines(&lines);
        assert_eq!(&*b.hidden, &[o[2], o[3]]);
        assert_eq!(b.rewinds.len(), 1);
        let r = &b.rewinds[0];
        assert_eq!((r.at, r.branch, r.prompts, r.messages), (o[4], o[2], 1, 2));
        assert_eq!(r.first_prompt, Some(o[2]));
    }

    #[test]
    fn artifacts_and_separate_roots_stay_shown() {
        let lines = [
            line("user", "a", None, "question"),
            line("assistant", "b", Some("a"), "calling two tools"),
            // Parallel results hanging from one node: not a rewind (no prompt off the chain).
            line("user", "r1", Some("b"), "<local-command-stdout>x</local-command-stdout>"),
            line("user", "r2", Some("b"), "<local-command-stdout>y</local-command-stdout>"),
            line("assistant", "c", Some("r2"), "done"),
            // A /clear: a separate root is not abandoned.
            line("user", "z", None, "after clear"),
            line("assistant", "y", Some("z"), "fresh"),
        ];
        let (b, _) = scan_lines(&lines);
        assert!(b.hidden.is_empty(), "{b:?}");
        assert!(b.rewinds.is_empty());
    }

    #[test]
    fn a_fork_continued_by_a_command_is_not_a_rewind() {
        let lines = [
            line("user", "a", None, "caveat"),
            line("user", "c", Some("a"), "real prompt on the old line"),
            line("assistant", "d", Some("c"), "reply"),
            line("user", "e", Some("a"), "<bash-input>ls</bash-input>"),
        ];
        let (b, _) = scan_lines(&lines);
        assert!(b.rewinds.is_empty(), "{b:?}");
    }

    #[test]
    fn progress_lines_are_bridged_and_compaction_continues_the_chain() {
        let progress = serde_json::json!({"type":"progress","uuid":"p","parentUuid":"b"});
        let boundary = serde_json::json!({"type":"system","subtype":"compact_boundary",
            "uuid":"k","parentUuid":null,"logicalParentUuid":"q"});
        let lines = [
            line("user", "a", None, "first"),
            line("assistant", "b", Some("a"), "answer"),
            progress.to_string(),
            line("user", "c", Some("p"), "abandoned"),
            line("user", "q", Some("p"), "kept"),
            boundary.to_string(),
            line("user", "s", Some("k"), "after compaction"),
        ];
        let (b, o) = scan_lines(&lines);
        assert_eq!(&*b.hidden, &[o[3]], "{b:?}");
        assert_eq!(b.rewinds[0].at, o[4]);
    }

    #[test]
    fn keys_of_uuids_and_other_ids_differ() {
        assert_eq!(
            key("0d3a8e6f-290f-4105-a327-a2496e5e2a83"),
            0x0d3a_8e6f_290f_4105_a327_a249_6e5e_2a83
        );
        assert_ne!(key("a"), key("b"));
        assert!(key("not-a-uuid") >> 127 == 1);
    }
}
