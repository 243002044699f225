//! Images and documents a person attaches to a prompt (a pasted screenshot, a dropped PDF).
//!
//! A page describes them (`describe`: kind, type, size, whether the viewer can draw it) without
//! their bytes, so a page of a transcript full of screenshots stays small; the viewer then asks for
//! each one it shows ([`read`]), which reads that one line again. Only an image embedded as base64
//! in PNG, JPEG, GIF or WebP is handed out, and only when its first bytes say it is that type: the
//! viewer shows it as a `data:` URL. A source that points elsewhere (a URL, a file id) is described
//! as text and never loaded.

use std::io::{BufReader, Seek, SeekFrom};
use std::path::Path;

use base64::Engine as _;
use serde::Deserialize;

use super::{BlockRef, ContentRef, MapOr, MessageRef, SourceRef};
use crate::error::{Error, Result};
use crate::jsonl::{LineReader, MAX_LINE_BYTES};
use crate::model::{Attachment, AttachmentData, AttachmentKind};

/// The image types the viewer draws.
const VIEWABLE: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

/// The viewable type `bytes` are, by their first bytes (the one check of what an image is):
/// PNG's signature, JPEG's SOI marker, `GIF87a`/`GIF89a`, and a RIFF container whose form is
/// `WEBP` (bytes 8–11; any other RIFF — a WAV, an AVI — is not an image).
fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else {
        None
    }
}

/// The type the first bytes of base64 `data` show (16 characters: 12 bytes, enough for every
/// signature [`sniff`] knows).
fn sniff_base64(data: &str) -> Option<&'static str> {
    let head = data.get(..16).unwrap_or(data);
    let bytes = base64::engine::general_purpose::STANDARD.decode(head).ok()?;
    sniff(&bytes)
}

fn kind(b: &BlockRef<'_>) -> Option<AttachmentKind> {
    match b.ty.as_str()? {
        "image" => Some(AttachmentKind::Image),
        "document" => Some(AttachmentKind::Document),
        _ => None,
    }
}

fn source<'a, 'b>(b: &'b BlockRef<'a>) -> Option<&'b SourceRef<'a>> {
    b.source.0.as_ref()
}

/// The attachments among a prompt's content blocks, in order (`offset` is the line's).
pub(crate) fn describe(content: &ContentRef<'_>, offset: u64) -> Vec<Attachment> {
    let ContentRef::Blocks(blocks) = content else { return Vec::new() };
    let mut out = Vec::new();
    for b in blocks {
        let Some(kind) = kind(b) else { continue };
        let src = source(b);
        let ty = src.and_then(|s| s.ty.as_str());
        let media_type = src.and_then(|s| s.media_type.as_str()).map(str::to_owned);
        let data = src.and_then(|s| s.data.as_str()).filter(|_| ty == Some("base64"));
        let reference = src
            .and_then(|s| s.url.as_str().or(s.file_id.as_str()))
            .filter(|_| data.is_none())
            .map(str::to_owned);
        // Viewable only when the bytes are the image type claimed (a GIF or an SVG called a
        // PNG is not drawn as one).
        let viewable = kind == AttachmentKind::Image
            && media_type.as_deref().is_some_and(|t| VIEWABLE.contains(&t))
            && data.is_some_and(|d| sniff_base64(d) == media_type.as_deref());
        out.push(Attachment {
            kind,
            media_type,
            title: b.title.as_str().map(str::to_owned),
            bytes: data.map(|d| (d.trim_end_matches('=').len() as u64) * 3 / 4),
            viewable,
            reference,
            offset,
            index: u32::try_from(out.len()).unwrap_or(u32::MAX),
        });
    }
    out
}

#[derive(Deserialize)]
struct PromptLine<'a> {
    #[serde(default, borrow)]
    message: MapOr<MessageRef<'a>>,
}

/// The bytes of attachment `index` of the line at `offset` of `path`: a viewable image whose
/// content is the type it claims. Anything else is refused with a plain reason.
pub fn read(path: &Path, offset: u64, index: u32) -> Result<AttachmentData> {
    let gone = || {
        Error::InvalidInput(format!("no image {index} at offset {offset} of {}", path.display()))
    };
    let file = crate::files::open_regular(path).map_err(|e| Error::io_at("read", path, e))?;
    let mut reader = BufReader::new(file);
    reader.seek(SeekFrom::Start(offset)).map_err(|e| Error::io_at("read", path, e))?;
    let mut lines = LineReader::with_max_line(reader, offset, MAX_LINE_BYTES);
    let line = lines.next_line().map_err(|e| Error::io_at("read", path, e))?.ok_or_else(gone)?;
    if line.offset != offset {
        return Err(gone());
    }
    let parsed: PromptLine<'_> = serde_json::from_slice(line.bytes).map_err(|_| gone())?;
    let content = parsed.message.0.map(|m| m.content).unwrap_or_default();
    let ContentRef::Blocks(blocks) = &content else { return Err(gone()) };
    let block = blocks.iter().filter(|b| kind(b).is_some()).nth(index as usize).ok_or_else(gone)?;
    let src = source(block).ok_or_else(gone)?;
    let media_type = src.media_type.as_str().unwrap_or_default();
    if !VIEWABLE.contains(&media_type)
        || kind(block) != Some(AttachmentKind::Image)
        || src.ty.as_str() != Some("base64")
    {
        return Err(Error::InvalidInput(format!(
            "attachment {index} is not an image Corral shows"
        )));
    }
    let data = src.data.as_str().unwrap_or_default();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|_| Error::InvalidInput(format!("image {index} is not valid base64")))?;
    if sniff(&bytes) != Some(media_type) {
        return Err(Error::InvalidInput(format!(
            "image {index} is not the {media_type} it claims to be"
        )));
    }
    Ok(AttachmentData { media_type: media_type.to_owned(), data: data.to_owned() })
}
