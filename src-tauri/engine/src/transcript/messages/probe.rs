//! What one line contributes when paging backwards: whether it likely makes (or extends) a
//! message, and whether a page may start there without splitting a turn. Read with a cheaper
//! parse than the builder's.

use serde::Deserialize;

use super::super::{ContentRef, Envelope, Loose, MapOr, record};
use super::{LOCAL_COMMAND, Lines, MESSAGE_TYPES};
use crate::jsonl::{self, LineShape, Parsed};

/// What a read looks at: the file's sidechain status and the lines shown.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scope<'a> {
    pub(super) sidechain: bool,
    pub(super) lines: &'a Lines,
}

impl Scope<'_> {
    /// What the line at `offset` contributes when paging backwards (nothing when the view
    /// leaves it out).
    pub(super) fn probe(&self, offset: u64, bytes: &[u8]) -> Probe {
        if self.lines.keeps(offset) {
            probe(bytes, self.sidechain)
        } else {
            Probe { candidate: false, boundary: false, assistant_id: None }
        }
    }
}

record! {
    struct ProbeLine<'a> {
        envelope { ty, is_sidechain, is_meta }
        #[serde(default, borrow)]
        subtype: Loose<'a>,
        #[serde(default, borrow)]
        message: MapOr<ContentProbe<'a>>,
        #[serde(default, borrow)]
        operation: Loose<'a>,
    }
}

#[derive(Deserialize)]
struct ContentProbe<'a> {
    #[serde(default, borrow)]
    id: Loose<'a>,
    #[serde(default, borrow)]
    content: ContentRef<'a>,
}

/// What one line contributes when paging backwards.
pub(super) struct Probe {
    /// Likely produces (or extends) a message.
    pub(super) candidate: bool,
    /// A user prompt: pages may start here without splitting a turn.
    pub(super) boundary: bool,
    /// For assistant lines: `message.id` (chunks of one response share it).
    pub(super) assistant_id: Option<String>,
}

fn probe(bytes: &[u8], file_sidechain: bool) -> Probe {
    let none = Probe { candidate: false, boundary: false, assistant_id: None };
    if jsonl::quick_shape(bytes) != LineShape::ObjectLike
        || !jsonl::has_type_in(bytes, MESSAGE_TYPES)
    {
        return none;
    }
    let mut scratch = Vec::new();
    let Parsed::Value(p) = jsonl::parse_line_with::<ProbeLine<'_>>(bytes, &mut scratch) else {
        return none;
    };
    match p.ty.as_str() {
        // A slash command: typed by the person, so a page may start there.
        Some("system") => {
            let shown = p.subtype.as_str() == Some(LOCAL_COMMAND) && !p.off_file(file_sidechain);
            Probe { candidate: shown, boundary: shown, assistant_id: None }
        }
        Some("queue-operation") => Probe {
            candidate: p.operation.as_str() == Some("enqueue"),
            boundary: false,
            assistant_id: None,
        },
        Some(t @ ("user" | "assistant")) => {
            if p.off_file(file_sidechain) || p.is_meta_line() {
                return none;
            }
            let msg = p.message.0;
            if t == "assistant" {
                let id = msg.and_then(|m| m.id.as_str().map(str::to_owned));
                return Probe { candidate: true, boundary: false, assistant_id: id };
            }
            let tool_result = msg.is_some_and(|m| crate::transcript::has_tool_result(&m.content));
            Probe { candidate: true, boundary: !tool_result, assistant_id: None }
        }
        _ => none,
    }
}
