//! The index's fields. Two kinds of document share them: one per searchable piece of a transcript
//! line (a message), and one per session holding its names and working directory.

use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};

use super::tokenizer::WORDS;

/// `kind` of a message document.
pub const KIND_MESSAGE: u64 = 0;
/// `kind` of a session's names document.
pub const KIND_SESSION: u64 = 1;

/// Stored text of a message is cut past this many bytes (the snippet then comes from the file).
pub const EXCERPT_BYTES: usize = 1024;

#[derive(Clone, Copy)]
pub struct Fields {
    /// [`KIND_MESSAGE`] or [`KIND_SESSION`] (fast, for grouping).
    pub kind: Field,
    /// What a document is deleted by: the transcript file's path for messages, the
    /// [`session_key`] for names.
    pub key: Field,
    pub session_id: Field,
    /// [`group_key`]: the session's hash and whether this is its names document, in one fast
    /// value (grouping reads one column per match).
    pub session_hash: Field,
    /// Set for a subagent's message.
    pub agent_id: Field,
    /// The line's own `uuid`.
    pub uuid: Field,
    /// Byte offset of the line in its file, and the piece's position among the line's pieces.
    pub offset: Field,
    pub piece: Field,
    /// `user`, `assistant` or `tool`.
    pub role: Field,
    /// Lowercased tool name (searched) and the name as written (stored).
    pub tool: Field,
    pub tool_name: Field,
    /// The tool call's id (a call and its result are one message in the viewer).
    pub tool_use_id: Field,
    /// `1` on a failed tool result.
    pub error: Field,
    /// Milliseconds since the epoch.
    pub time: Field,
    /// The searched words of a message, and the start of them kept for snippets.
    pub text: Field,
    pub excerpt: Field,
    /// A session's names (custom, AI title, summary) and working directory.
    pub names: Field,
    pub dir: Field,
}

/// The key of a session's names document (a path never starts with NUL).
pub fn session_key(session_id: &str) -> String {
    format!("\0session:{session_id}")
}

/// The schema and its fields.
pub fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let words = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(WORDS)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        kind: b.add_u64_field("kind", INDEXED | FAST),
        key: b.add_text_field("key", STRING | STORED),
        session_id: b.add_text_field("session_id", STRING | STORED),
        session_hash: b.add_u64_field("session_hash", FAST),
        agent_id: b.add_text_field("agent_id", STORED),
        uuid: b.add_text_field("uuid", STORED),
        offset: b.add_u64_field("offset", STORED | FAST),
        piece: b.add_u64_field("piece", STORED),
        role: b.add_text_field("role", STRING | STORED),
        tool: b.add_text_field("tool", STRING),
        tool_name: b.add_text_field("tool_name", STORED),
        tool_use_id: b.add_text_field("tool_use_id", STORED),
        error: b.add_text_field("error", STRING),
        time: b.add_i64_field("time", INDEXED | FAST | STORED),
        text: b.add_text_field("text", words.clone()),
        excerpt: b.add_text_field("excerpt", STORED),
        names: b.add_text_field("names", words.clone().set_stored()),
        dir: b.add_text_field("dir", words),
    };
    (b.build(), fields)
}

/// The top bit of a [`group_key`]: set on a session's names document.
pub const NAMES_BIT: u64 = 1 << 63;

/// The grouping value of a document: the session's hash without its top bit, which says whether
/// the document holds the session's names.
pub fn group_key(session_id: &str, names: bool) -> u64 {
    let h = session_hash(session_id) & !NAMES_BIT;
    if names { h | NAMES_BIT } else { h }
}

/// A stable 64-bit hash of a session id (FNV-1a: the same on every run and platform).
pub fn session_hash(session_id: &str) -> u64 {
    crate::stable_hash::fnv1a(session_id.as_bytes())
}
