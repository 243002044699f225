//! Reading Claude Code transcripts: listing facts, viewer messages, tools and subagents.
//!
//! Lines are parsed into borrowed, lenient record types (`Loose` scalars, raw JSON for nested
//! structures), so a field of an unexpected shape never makes a whole line unreadable and the big
//! payloads (pasted images, tool outputs) are skipped without being copied.
//!
//! Each reader declares its own record type with only the fields it needs (a field it does not
//! declare is skipped unread, which keeps the fast paths fast), through `record!`: it names the
//! envelope fields it reads (their declarations live once, in the macro) and adds its own. What
//! the envelope's flags mean is said once too, in `Envelope`, which `record!` implements: a line
//! of the other kind of file than the one read (`isSidechain`) is left out, `isMeta` marks Claude
//! Code's own bookkeeping, and `isCompactSummary` a compaction's summary. Which reader reads which
//! field of the envelope:
//!
//! | reader (record type)          | `type` | `uuid` | `parentUuid` | `timestamp` | `isSidechain` | `isMeta` | `isCompactSummary` | `origin` | `message` |
//! |-------------------------------|--------|--------|--------------|-------------|---------------|----------|--------------------|----------|-----------|
//! | `facts` (`FactLine`)          | ✓      | ✓      | ✓            | ✓           | ✓             | ✓        | ✓                  | ✓        | ✓         |
//! | `branches` (`BranchLine`)     | ✓      | ✓      | ✓            |             | ✓             | ✓        | ✓                  | ✓        | ✓         |
//! | `messages` (`MsgLine`)        | ✓      | ✓      |              | ✓           | ✓             | ✓        | ✓                  | ✓        | ✓         |
//! | `messages` (`ProbeLine`, `UserProbe`) | ✓ |     |              |             | ✓             | ✓        |                    |          | ✓         |
//! | `text` (`TextLine`, search)   | ✓      | ✓      |              | ✓           | ✓             | ✓        | ✓                  |          | ✓         |
//! | `usage` (`UsageLine`)         | ✓      |        |              |             | ✓             |          |                    |          | ✓         |
//!
//! Line kinds themselves (`type` values and what each reader does with them) are listed in
//! [`vocabulary`]; the fast scanner's keys in `facts/fast.rs`.

pub mod attachments;
pub mod branches;
pub mod facts;
pub mod forks;
pub mod frames;
pub mod ledger;
pub mod messages;
pub mod subagents;
pub mod text;
pub mod tools;
pub mod usage;
pub mod vocabulary;

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::jsonl::{self, LineReader, Parsed};

/// What a record's envelope flags mean, the same for every reader. A record type gets it from
/// [`record!`] for the flags it declares (a flag it does not declare reads as absent).
pub(crate) trait Envelope {
    /// `isSidechain: true`: the line is a subagent's.
    fn sidechain(&self) -> bool;
    /// `isMeta: true`: Claude Code's own bookkeeping (a caveat, a command's output shown to the
    /// model), never typed by a person.
    fn is_meta_line(&self) -> bool {
        false
    }
    /// `isCompactSummary: true`: the summary a compaction wrote in place of the conversation.
    fn is_compact_summary_line(&self) -> bool {
        false
    }
    /// The line belongs to the other kind of file than the one read (a subagent's line in a main
    /// transcript, or the reverse): every reader leaves it out.
    fn off_file(&self, file_sidechain: bool) -> bool {
        self.sidechain() != file_sidechain
    }
}

/// Declares a record type: the envelope fields it reads, named from one list (`type` is `ty`),
/// then its own fields. The envelope fields get their one declaration here, and the type gets
/// [`Envelope`] for the flags among them.
///
/// ```ignore
/// record! {
///     struct UsageLine<'a> {
///         envelope { ty, is_sidechain }
///         #[serde(default, borrow)]
///         message: MapOr<UsageMessage<'a>>,
///     }
/// }
/// ```
macro_rules! record {
    (
        $(#[$m:meta])*
        struct $name:ident<$lt:lifetime> {
            envelope { $($env:ident),* $(,)? }
            $($(#[$fm:meta])* $field:ident : $fty:ty),* $(,)?
        }
    ) => {
        record!(@build [$(#[$m])*] $name $lt [] [$($env)*] [$($(#[$fm])* $field: $fty,)*]);
        impl $crate::transcript::Envelope for $name<'_> {
            $(record!(@flag $env);)*
        }
    };
    (@build [$($m:tt)*] $name:ident $lt:lifetime [$($acc:tt)*] [] [$($rest:tt)*]) => {
        $($m)*
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct $name<$lt> {
            $($acc)*
            $($rest)*
        }
    };
    (@build $m:tt $name:ident $lt:lifetime [$($acc:tt)*] [ty $($more:ident)*] $rest:tt) => {
        record!(@build $m $name $lt [$($acc)*
            #[serde(rename = "type", default, borrow)]
            ty: $crate::transcript::Loose<$lt>,
        ] [$($more)*] $rest);
    };
    (@build $m:tt $name:ident $lt:lifetime [$($acc:tt)*] [origin $($more:ident)*] $rest:tt) => {
        record!(@build $m $name $lt [$($acc)*
            #[serde(default, borrow)]
            origin: $crate::transcript::MapOr<$crate::transcript::OriginRef<$lt>>,
        ] [$($more)*] $rest);
    };
    // `uuid`, `parent_uuid`, `timestamp`, `is_sidechain`, `is_meta`, `is_compact_summary`: scalars.
    (@build $m:tt $name:ident $lt:lifetime [$($acc:tt)*] [$scalar:ident $($more:ident)*] $rest:tt) => {
        record!(@build $m $name $lt [$($acc)*
            #[serde(default, borrow)]
            $scalar: $crate::transcript::Loose<$lt>,
        ] [$($more)*] $rest);
    };
    (@flag is_sidechain) => {
        fn sidechain(&self) -> bool {
            self.is_sidechain.is_true()
        }
    };
    (@flag is_meta) => {
        fn is_meta_line(&self) -> bool {
            self.is_meta.is_true()
        }
    };
    (@flag is_compact_summary) => {
        fn is_compact_summary_line(&self) -> bool {
            self.is_compact_summary.is_true()
        }
    };
    (@flag $other:ident) => {};
}
pub(crate) use record;

/// Which lines of a transcript a read shows, by the byte offsets where they start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Lines {
    /// Every line (the file as written).
    #[default]
    All,
    /// Every line but these (ascending): the resumed branch without its rewound branches.
    Except(std::sync::Arc<[u64]>),
    /// Only these (ascending): one rewound branch.
    Only(std::sync::Arc<[u64]>),
}

impl Lines {
    /// Whether the line starting at `offset` is shown.
    pub fn keeps(&self, offset: u64) -> bool {
        match self {
            Self::All => true,
            Self::Except(o) => o.binary_search(&offset).is_err(),
            Self::Only(o) => o.binary_search(&offset).is_ok(),
        }
    }
}

/// A JSON scalar read leniently: strings stay borrowed when possible; objects and arrays are
/// skipped. Absent and `null` are [`Loose::Other`].
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) enum Loose<'a> {
    Str(Cow<'a, str>),
    Bool(bool),
    Num(f64),
    #[default]
    Other,
}

impl<'a> Loose<'a> {
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str(s) => Some(s),
            _ => None,
        }
    }
    pub(crate) fn is_true(&self) -> bool {
        matches!(self, Self::Bool(true))
    }
    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Self::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// A number, as written.
    pub(crate) fn as_f64(&self) -> Option<f64> {
        match self {
            Self::Num(n) => Some(*n),
            _ => None,
        }
    }
    /// A non-negative integer (floats truncated, negatives and non-numbers → 0).
    pub(crate) fn as_u64(&self) -> u64 {
        match self {
            // Truncation of a token count is intended; NaN/negatives become 0.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Self::Num(n) if n.is_finite() && *n > 0.0 => *n as u64,
            _ => 0,
        }
    }
}

struct LooseVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for LooseVisitor<'a> {
    type Value = Loose<'a>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Owned(v)))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Loose::Bool(v))
    }
    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Loose::Num(v as f64))
    }
    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Loose::Num(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Loose::Num(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Loose::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Loose::Other)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Loose<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor(std::marker::PhantomData))
    }
}

/// Parses a raw JSON value into `T`, `None` when it does not fit.
pub(crate) fn raw_as<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>) -> Option<T> {
    raw.and_then(|r| serde_json::from_str::<T>(r.get()).ok())
}

/// An object parsed as `T` in the same pass; any other JSON value (or absence) is `None`, so an
/// odd shape never fails the enclosing line.
#[derive(Debug)]
pub(crate) struct MapOr<T>(pub Option<T>);

impl<T> Default for MapOr<T> {
    fn default() -> Self {
        Self(None)
    }
}

struct MapOrVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for MapOrVisitor<T> {
    type Value = MapOr<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| MapOr(Some(t)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(MapOr(None))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(MapOr(None))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(MapOr(None))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(MapOr(None))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(MapOr(None))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(MapOr(None))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(MapOr(None))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(MapOr(None))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for MapOr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(MapOrVisitor(std::marker::PhantomData))
    }
}

/// `{"kind": …}` of a user line's `origin`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct OriginRef<'a> {
    #[serde(default, borrow)]
    pub kind: Loose<'a>,
}

/// The `usage` object of an assistant message (every field optional and lenient).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct UsageRef<'a> {
    #[serde(default, borrow)]
    pub input_tokens: Loose<'a>,
    #[serde(default, borrow)]
    pub output_tokens: Loose<'a>,
    #[serde(default, borrow)]
    pub cache_creation_input_tokens: Loose<'a>,
    #[serde(default, borrow)]
    pub cache_read_input_tokens: Loose<'a>,
    #[serde(default, borrow)]
    pub cache_creation: MapOr<CacheCreationRef<'a>>,
    #[serde(default, borrow)]
    pub server_tool_use: MapOr<ServerToolUseRef<'a>>,
}

/// `usage.server_tool_use`: tools the API ran itself (priced per use).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ServerToolUseRef<'a> {
    #[serde(default, borrow)]
    pub web_search_requests: Loose<'a>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct CacheCreationRef<'a> {
    #[serde(default, borrow)]
    pub ephemeral_5m_input_tokens: Loose<'a>,
    #[serde(default, borrow)]
    pub ephemeral_1h_input_tokens: Loose<'a>,
}

impl UsageRef<'_> {
    /// Context size: input + cache creation + cache read.
    pub(crate) fn context_tokens(&self) -> u64 {
        self.input_tokens
            .as_u64()
            .saturating_add(self.cache_write_tokens())
            .saturating_add(self.cache_read_input_tokens.as_u64())
    }

    /// Tokens written to the cache: the larger of the flat count and the nested 5 m + 1 h ones.
    pub(crate) fn cache_write_tokens(&self) -> u64 {
        let flat = self.cache_creation_input_tokens.as_u64();
        let nested = self.cache_creation.0.as_ref().map_or(0, |c| {
            c.ephemeral_5m_input_tokens
                .as_u64()
                .saturating_add(c.ephemeral_1h_input_tokens.as_u64())
        });
        flat.max(nested)
    }

    /// This response as a price names it: a cache write the nested counts do not split is a
    /// five-minute one (as Claude Code prices it).
    pub(crate) fn request(&self) -> crate::pricing::Request {
        let (five, hour) = self.cache_creation.0.as_ref().map_or((0, 0), |c| {
            (c.ephemeral_5m_input_tokens.as_u64(), c.ephemeral_1h_input_tokens.as_u64())
        });
        let unsplit = self.cache_write_tokens().saturating_sub(five.saturating_add(hour));
        crate::pricing::Request {
            input: self.input_tokens.as_u64(),
            output: self.output_tokens.as_u64(),
            cache_read: self.cache_read_input_tokens.as_u64(),
            cache_write_5m: five.saturating_add(unsplit),
            cache_write_1h: hour,
            web_searches: self
                .server_tool_use
                .0
                .as_ref()
                .map_or(0, |s| s.web_search_requests.as_u64()),
        }
    }

    /// This response's tokens by kind.
    pub(crate) fn totals(&self) -> crate::model::TokenTotals {
        crate::model::TokenTotals {
            input_tokens: self.input_tokens.as_u64(),
            output_tokens: self.output_tokens.as_u64(),
            cache_read_tokens: self.cache_read_input_tokens.as_u64(),
            cache_write_tokens: self.cache_write_tokens(),
        }
    }
}

/// The `message` object of a user/assistant line.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct MessageRef<'a> {
    #[serde(default, borrow)]
    pub id: Loose<'a>,
    #[serde(default, borrow)]
    pub model: Loose<'a>,
    #[serde(default, borrow)]
    pub content: ContentRef<'a>,
    #[serde(default, borrow)]
    pub usage: MapOr<UsageRef<'a>>,
}

/// One content block (text, thinking, tool_use, tool_result, image, …), every field optional.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct BlockRef<'a> {
    #[serde(rename = "type", default, borrow)]
    pub ty: Loose<'a>,
    #[serde(default, borrow)]
    pub text: Loose<'a>,
    #[serde(default, borrow)]
    pub thinking: Loose<'a>,
    #[serde(default, borrow)]
    pub id: Loose<'a>,
    #[serde(default, borrow)]
    pub name: Loose<'a>,
    #[serde(default, borrow)]
    pub input: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub tool_use_id: Loose<'a>,
    #[serde(default, borrow)]
    pub content: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub is_error: Loose<'a>,
    /// An image or document block's `source`.
    #[serde(default, borrow)]
    pub source: MapOr<SourceRef<'a>>,
    #[serde(default, borrow)]
    pub title: Loose<'a>,
}

/// Where an image or document block's bytes are: embedded (`base64` with `data`) or elsewhere
/// (`url`, `file`), every field optional.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct SourceRef<'a> {
    #[serde(rename = "type", default, borrow)]
    pub ty: Loose<'a>,
    #[serde(default, borrow)]
    pub media_type: Loose<'a>,
    #[serde(default, borrow)]
    pub data: Loose<'a>,
    #[serde(default, borrow)]
    pub url: Loose<'a>,
    #[serde(default, borrow)]
    pub file_id: Loose<'a>,
}

/// `message.content` (or a queue-operation's `content`): a string, or an array of blocks
/// (non-object items dropped); anything else is `None`.
#[derive(Debug, Default)]
pub(crate) enum ContentRef<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<BlockRef<'a>>),
    #[default]
    None,
}

struct ContentVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ContentVisitor<'a> {
    type Value = ContentRef<'a>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("message content")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(ContentRef::Text(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(ContentRef::Text(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(ContentRef::Text(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut blocks = Vec::new();
        while let Some(b) = seq.next_element::<MapOr<BlockRef<'a>>>()? {
            if let Some(b) = b.0 {
                blocks.push(b);
            }
        }
        Ok(ContentRef::Blocks(blocks))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(ContentRef::None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(ContentRef::None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(ContentRef::None)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(ContentRef::None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(ContentRef::None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(ContentRef::None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(ContentRef::None)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ContentRef<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ContentVisitor(std::marker::PhantomData))
    }
}

/// Text of a user message: the string content, or its text blocks joined with `\n`.
pub(crate) fn user_text(content: &ContentRef<'_>) -> String {
    match content {
        ContentRef::Text(s) => s.to_string(),
        ContentRef::Blocks(blocks) => {
            let parts: Vec<&str> = blocks
                .iter()
                .filter(|b| b.ty.as_str() == Some("text"))
                .filter_map(|b| b.text.as_str())
                .collect();
            parts.join("\n")
        }
        ContentRef::None => String::new(),
    }
}

/// True when a content array carries at least one `tool_result` block.
pub(crate) fn has_tool_result(content: &ContentRef<'_>) -> bool {
    matches!(content, ContentRef::Blocks(b) if b.iter().any(|x| x.ty.as_str() == Some("tool_result")))
}

/// How much of the head of a file is searched for the first line that says `isSidechain`.
const SIDECHAIN_HEAD_BYTES: u64 = 64 * 1024;

#[derive(Deserialize)]
struct SidechainProbe<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
    #[serde(rename = "isSidechain", default, borrow)]
    is_sidechain: Loose<'a>,
}

/// Whether the transcript at `path` is a sidechain (subagent) transcript: decided by the first
/// user/assistant line carrying `isSidechain` within the first 64 KiB, else by the file name
/// (`agent-*.jsonl`).
pub fn file_is_sidechain(path: &Path) -> bool {
    let by_name =
        path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("agent-"));
    let Ok(file) = crate::files::open_regular(path) else { return by_name };
    let mut reader = LineReader::new(BufReader::new(file.take(SIDECHAIN_HEAD_BYTES)), 0);
    let mut scratch = Vec::new();
    while let Ok(Some(line)) = reader.next_line() {
        if !jsonl::has_type_in(line.bytes, &["user", "assistant"]) {
            continue;
        }
        if let Parsed::Value(p) =
            jsonl::parse_line_with::<SidechainProbe<'_>>(line.bytes, &mut scratch)
            && matches!(p.ty.as_str(), Some("user" | "assistant"))
            && let Some(b) = p.is_sidechain.as_bool()
        {
            return b;
        }
    }
    by_name
}

/// Maximum preview length in characters (an ellipsis is appended when clipped).
pub const PREVIEW_CHARS: usize = 100;

/// The preview of a user prompt, or `None` when the text is not a typed prompt: command
/// wrappers and injected tags (`<command-name>`, `<local-command-stdout>`, `<bash-input>`,
/// `<system-reminder>`, … — any text starting with a lowercase tag) and interrupt markers.
/// Whitespace is collapsed; the result is clipped to [`PREVIEW_CHARS`] characters + `…`.
pub fn preview_of(text: &str) -> Option<String> {
    let t = text.trim_start();
    let mut chars = t.chars();
    if chars.next() == Some('<') && chars.next().is_some_and(|c| c.is_ascii_lowercase()) {
        return None;
    }
    if t.starts_with("[Request interrupted by user") {
        return None;
    }
    let collapsed = t.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        return None;
    }
    if collapsed.chars().count() > PREVIEW_CHARS {
        let mut s: String = collapsed.chars().take(PREVIEW_CHARS).collect();
        s.push('…');
        Some(s)
    } else {
        Some(collapsed)
    }
}

/// Opens `path` positioned at `offset`. The buffer is small: [`LineReader`] reads big blocks
/// itself, which bypass it.
pub(crate) fn open_at(path: &Path, offset: u64) -> std::io::Result<BufReader<File>> {
    let mut file = crate::files::open_regular(path)?;
    if offset > 0 {
        file.seek(SeekFrom::Start(offset))?;
    }
    Ok(BufReader::with_capacity(8 * 1024, file))
}

/// Clips `s` to at most `max` bytes on a char boundary; returns whether it was clipped.
pub(crate) fn clip(s: &mut String, max: usize) -> bool {
    if s.len() <= max {
        return false;
    }
    let mut cut = max;
    while cut > 0 && !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.truncate(cut);
    true
}
