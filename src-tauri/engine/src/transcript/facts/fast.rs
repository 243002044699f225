//! The listing's fast line reader: the same fields as `FactLine`, read with a validating cursor
//! that skips the big values (tool outputs, thinking, tool inputs) without decoding them. It
//! accepts only lines that serde would accept with the same result, and gives up (`None`) on
//! anything unusual — invalid UTF-8, control bytes, surrogate escapes, escaped keys, duplicate
//! known fields, deep nesting — so the serde path in `facts` stays the reference for every line
//! the fast path declines. Each object's keys are named once ([`keys!`]).

use std::borrow::Cow;

use super::FactLine;
use crate::jsonl::Cursor;
use crate::transcript::{
    BlockRef, CacheCreationRef, ContentRef, Loose, MapOr, MessageRef, OriginRef, ServerToolUseRef,
    UsageRef,
};

/// A string kept as its quoted JSON form until someone needs its value.
#[derive(Clone, Copy)]
struct RawStr<'a> {
    quoted: &'a [u8],
    escaped: bool,
}

impl<'a> RawStr<'a> {
    /// The value, checked as serde checks a string it decodes (UTF-8 included).
    fn decode(self) -> Option<Cow<'a, str>> {
        if self.escaped {
            serde_json::from_slice::<String>(self.quoted).ok().map(Cow::Owned)
        } else {
            let body = self.quoted.get(1..self.quoted.len().saturating_sub(1))?;
            std::str::from_utf8(body).ok().map(Cow::Borrowed)
        }
    }
}

fn raw_str<'a>(c: &mut Cursor<'a>) -> Option<RawStr<'a>> {
    c.peek()?;
    let from = c.pos();
    let (_, escaped) = c.string()?;
    Some(RawStr { quoted: c.since(from), escaped })
}

/// A value read as serde reads a [`Loose`] field.
fn loose<'a>(c: &mut Cursor<'a>) -> Option<Loose<'a>> {
    match c.peek()? {
        b'"' => raw_str(c)?.decode().map(Loose::Str),
        b'{' | b'[' => c.skip().map(|()| Loose::Other),
        b't' | b'f' | b'n' => Some(c.literal()?.map_or(Loose::Other, Loose::Bool)),
        _ => serde_json::from_slice::<Loose<'a>>(c.number()?).ok(),
    }
}

/// Checks a value that serde reads with `deserialize_any` and then drops: strings and nested
/// values are validated, numbers are parsed (serde rejects out-of-range floats there).
fn check_any(c: &mut Cursor<'_>) -> Option<()> {
    match c.peek()? {
        b'"' => c.string().map(drop),
        b'{' | b'[' | b't' | b'f' | b'n' => c.skip(),
        _ => serde_json::from_slice::<Loose<'_>>(c.number()?).ok().map(drop),
    }
}

/// The keys one fast reader takes from a JSON object, each named once with its spelling (see
/// [`keys!`]): adding one cannot shift another, and a reader's `match` must handle every one.
trait Keys: Copy + 'static {
    const ALL: &'static [(Self, &'static [u8])];
}

/// Declares an enum of object keys and their spellings, as a [`Keys`].
macro_rules! keys {
    ($(#[$meta:meta])* enum $name:ident { $($variant:ident = $key:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum $name {
            $($variant),+
        }
        impl Keys for $name {
            const ALL: &'static [(Self, &'static [u8])] = &[$((Self::$variant, $key)),+];
        }
        // `object_keys` tells duplicates apart with one bit per key.
        const _: () = assert!(<$name as Keys>::ALL.len() <= 32);
    };
}

/// Iterates an object's keys, naming the known ones; `seen` guards them (serde refuses
/// duplicates).
fn object_keys<'a, K: Keys>(
    c: &mut Cursor<'a>,
    mut each: impl FnMut(&mut Cursor<'a>, Option<K>) -> Option<()>,
) -> Option<()> {
    c.enter(b'{')?;
    let mut first = true;
    let mut seen = 0u32;
    while let Some(key) = c.next_key(&mut first)? {
        let idx = K::ALL.iter().position(|(_, k)| *k == key);
        if let Some(i) = idx {
            let bit = 1u32 << i;
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
        }
        each(c, idx.and_then(|i| K::ALL.get(i)).map(|(k, _)| *k))?;
    }
    Some(())
}

/// A `MapOr<T>` value: `parse` for an object, `None` (after checking) otherwise.
fn map_or<'a, T>(
    c: &mut Cursor<'a>,
    parse: impl FnOnce(&mut Cursor<'a>) -> Option<T>,
) -> Option<Option<T>> {
    if c.peek()? == b'{' { parse(c).map(Some) } else { check_any(c).map(|()| None) }
}

/// One content block: its type and (raw) text.
struct RawBlock<'a> {
    ty: Loose<'a>,
    text: Option<RawStr<'a>>,
}

enum RawContent<'a> {
    Text(RawStr<'a>),
    Blocks(Vec<RawBlock<'a>>),
    None,
}

keys! {
    /// A content block's keys.
    enum BlockKey {
        Type = b"type",
        Text = b"text",
        Thinking = b"thinking",
        Id = b"id",
        Name = b"name",
        Input = b"input",
        ToolUseId = b"tool_use_id",
        Content = b"content",
        IsError = b"is_error",
    }
}

fn raw_block<'a>(c: &mut Cursor<'a>) -> Option<RawBlock<'a>> {
    let mut b = RawBlock { ty: Loose::Other, text: None };
    object_keys(c, |c, k| {
        match k {
            Some(BlockKey::Type) => b.ty = loose(c)?,
            Some(BlockKey::Text) => {
                if c.peek()? == b'"' {
                    b.text = Some(raw_str(c)?);
                } else {
                    check_any(c)?;
                }
            }
            // `input` and `content` are raw values; unknown keys are ignored.
            Some(BlockKey::Input | BlockKey::Content) | None => c.skip()?,
            // The rest are checked (serde would refuse a malformed one) and not kept.
            Some(
                BlockKey::Thinking
                | BlockKey::Id
                | BlockKey::Name
                | BlockKey::ToolUseId
                | BlockKey::IsError,
            ) => check_any(c)?,
        }
        Some(())
    })?;
    Some(b)
}

fn raw_content<'a>(c: &mut Cursor<'a>) -> Option<RawContent<'a>> {
    match c.peek()? {
        b'"' => raw_str(c).map(RawContent::Text),
        b'[' => {
            c.enter(b'[')?;
            let mut first = true;
            let mut blocks = Vec::new();
            while c.next_element(&mut first)? {
                if let Some(b) = map_or(c, raw_block)? {
                    blocks.push(b);
                }
            }
            Some(RawContent::Blocks(blocks))
        }
        _ => check_any(c).map(|()| RawContent::None),
    }
}

impl<'a> RawContent<'a> {
    fn resolve(self) -> Option<ContentRef<'a>> {
        Some(match self {
            Self::Text(s) => ContentRef::Text(s.decode()?),
            Self::Blocks(raw) => {
                let mut blocks = Vec::with_capacity(raw.len());
                for b in raw {
                    let text = match b.text {
                        Some(t) => Loose::Str(t.decode()?),
                        None => Loose::Other,
                    };
                    blocks.push(BlockRef { ty: b.ty, text, ..BlockRef::default() });
                }
                ContentRef::Blocks(blocks)
            }
            Self::None => ContentRef::None,
        })
    }
}

keys! {
    /// `usage.cache_creation`'s keys.
    enum CacheCreationKey {
        FiveMinutes = b"ephemeral_5m_input_tokens",
        OneHour = b"ephemeral_1h_input_tokens",
    }
}

fn cache_creation<'a>(c: &mut Cursor<'a>) -> Option<CacheCreationRef<'a>> {
    let mut v = CacheCreationRef::default();
    object_keys(c, |c, k| {
        match k {
            Some(CacheCreationKey::FiveMinutes) => v.ephemeral_5m_input_tokens = loose(c)?,
            Some(CacheCreationKey::OneHour) => v.ephemeral_1h_input_tokens = loose(c)?,
            None => c.skip()?,
        }
        Some(())
    })?;
    Some(v)
}

keys! {
    /// A message's `usage` keys.
    enum UsageKey {
        Input = b"input_tokens",
        Output = b"output_tokens",
        CacheCreationInput = b"cache_creation_input_tokens",
        CacheReadInput = b"cache_read_input_tokens",
        CacheCreation = b"cache_creation",
        ServerToolUse = b"server_tool_use",
    }
}

keys! {
    /// `usage.server_tool_use`'s keys.
    enum ServerToolKey {
        WebSearches = b"web_search_requests",
    }
}

fn server_tool_use<'a>(c: &mut Cursor<'a>) -> Option<ServerToolUseRef<'a>> {
    let mut v = ServerToolUseRef::default();
    object_keys(c, |c, k| {
        match k {
            Some(ServerToolKey::WebSearches) => v.web_search_requests = loose(c)?,
            None => c.skip()?,
        }
        Some(())
    })?;
    Some(v)
}

fn usage<'a>(c: &mut Cursor<'a>) -> Option<UsageRef<'a>> {
    let mut u = UsageRef::default();
    object_keys(c, |c, k| {
        match k {
            Some(UsageKey::Input) => u.input_tokens = loose(c)?,
            Some(UsageKey::Output) => u.output_tokens = loose(c)?,
            Some(UsageKey::CacheCreationInput) => u.cache_creation_input_tokens = loose(c)?,
            Some(UsageKey::CacheReadInput) => u.cache_read_input_tokens = loose(c)?,
            Some(UsageKey::CacheCreation) => {
                u.cache_creation = MapOr(map_or(c, cache_creation)?);
            }
            Some(UsageKey::ServerToolUse) => {
                u.server_tool_use = MapOr(map_or(c, server_tool_use)?);
            }
            None => c.skip()?,
        }
        Some(())
    })?;
    Some(u)
}

struct RawMessage<'a> {
    id: Loose<'a>,
    model: Loose<'a>,
    content: RawContent<'a>,
    usage: Option<UsageRef<'a>>,
}

fn raw_message<'a>(c: &mut Cursor<'a>) -> Option<RawMessage<'a>> {
    let mut m = RawMessage {
        id: Loose::Other,
        model: Loose::Other,
        content: RawContent::None,
        usage: None,
    };
    object_keys(c, |c, k| {
        match k {
            Some(MessageKey::Id) => m.id = loose(c)?,
            Some(MessageKey::Model) => m.model = loose(c)?,
            Some(MessageKey::Content) => m.content = raw_content(c)?,
            Some(MessageKey::Usage) => m.usage = map_or(c, usage)?,
            None => c.skip()?,
        }
        Some(())
    })?;
    Some(m)
}

keys! {
    /// A line's `message` keys.
    enum MessageKey {
        Id = b"id",
        Model = b"model",
        Content = b"content",
        Usage = b"usage",
    }
}

keys! {
    /// A line's `origin` keys.
    enum OriginKey {
        Kind = b"kind",
    }
}

fn origin<'a>(c: &mut Cursor<'a>) -> Option<OriginRef<'a>> {
    let mut o = OriginRef::default();
    object_keys(c, |c, k| {
        match k {
            Some(OriginKey::Kind) => o.kind = loose(c)?,
            None => c.skip()?,
        }
        Some(())
    })?;
    Some(o)
}

keys! {
    /// A line's top-level keys the listing reads.
    enum LineKey {
        Type = b"type",
        IsSidechain = b"isSidechain",
        IsMeta = b"isMeta",
        IsCompactSummary = b"isCompactSummary",
        Cwd = b"cwd",
        GitBranch = b"gitBranch",
        Version = b"version",
        Entrypoint = b"entrypoint",
        Timestamp = b"timestamp",
        Origin = b"origin",
        Message = b"message",
        RequestId = b"requestId",
        CustomTitle = b"customTitle",
        AiTitle = b"aiTitle",
        Summary = b"summary",
        Uuid = b"uuid",
        LeafUuid = b"leafUuid",
        ParentUuid = b"parentUuid",
        TotalCost = b"totalCostUSD",
        UnknownModelCost = b"hasUnknownModelCost",
    }
}

/// The [`FactLine`] serde would read from `line` (already trimmed), or `None` when the fast path
/// declines the line. Message content is only materialised for user lines (the only ones that
/// read it); assistant content is validated and skipped.
pub(super) fn fast_fact_line(line: &[u8]) -> Option<FactLine<'_>> {
    let mut c = Cursor::new(line);
    let mut l = FactLine::default();
    let mut message = None;
    object_keys(&mut c, |c, k| {
        match k {
            Some(LineKey::Type) => l.ty = loose(c)?,
            Some(LineKey::IsSidechain) => l.is_sidechain = loose(c)?,
            Some(LineKey::IsMeta) => l.is_meta = loose(c)?,
            Some(LineKey::IsCompactSummary) => l.is_compact_summary = loose(c)?,
            Some(LineKey::Cwd) => l.cwd = loose(c)?,
            Some(LineKey::GitBranch) => l.git_branch = loose(c)?,
            Some(LineKey::Version) => l.version = loose(c)?,
            Some(LineKey::Entrypoint) => l.entrypoint = loose(c)?,
            Some(LineKey::Timestamp) => l.timestamp = loose(c)?,
            Some(LineKey::Origin) => l.origin = MapOr(map_or(c, origin)?),
            Some(LineKey::Message) => message = map_or(c, raw_message)?,
            Some(LineKey::RequestId) => l.request_id = loose(c)?,
            Some(LineKey::CustomTitle) => l.custom_title = loose(c)?,
            Some(LineKey::AiTitle) => l.ai_title = loose(c)?,
            Some(LineKey::Summary) => l.summary = loose(c)?,
            Some(LineKey::Uuid) => l.uuid = loose(c)?,
            Some(LineKey::LeafUuid) => l.leaf_uuid = loose(c)?,
            Some(LineKey::ParentUuid) => l.parent_uuid = loose(c)?,
            Some(LineKey::TotalCost) => l.total_cost_usd = loose(c)?,
            Some(LineKey::UnknownModelCost) => l.has_unknown_model_cost = loose(c)?,
            None => c.skip()?,
        }
        Some(())
    })?;
    if !c.at_end() {
        return None;
    }
    if let Some(m) = message {
        let content =
            if l.ty.as_str() == Some("user") { m.content.resolve()? } else { ContentRef::None };
        l.message =
            MapOr(Some(MessageRef { id: m.id, model: m.model, content, usage: MapOr(m.usage) }));
    }
    Some(l)
}
