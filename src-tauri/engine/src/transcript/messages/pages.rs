//! Pages of a transcript: read backwards from the end (or a cursor), around a search hit, or
//! forwards from a cursor — each starting at a prompt where it can, so a turn is never split —
//! and the lines of one rewound branch.

use super::*;

/// How far back from a tool result its call is looked for: the calls of a turn sit just before
/// their results.
const CALL_LOOKBACK_BYTES: u64 = 4 * 1024 * 1024;

/// The offset of the line that made the call `tool_use_id`, looked for backwards from the line
/// at `result` (its result), at most 4 MiB back; `None` when no earlier line
/// made it (the line at `result` is the call itself, or the call is further back).
pub fn call_line_before(
    path: &Path,
    result: u64,
    tool_use_id: &str,
) -> std::io::Result<Option<u64>> {
    let mut file = crate::files::open_regular(path)?;
    let size = file.metadata()?.len();
    let line = line_start_at_or_before(&mut file, result.min(size), false)?;
    // The line at `result` comes first: when it is the call itself, there is nothing to look for
    // (without this, every match in a call's input read 4 MiB back for nothing).
    let mut back = BackLines::new(file, line_end_after(path, line, size)?);
    let (quoted, own) = (format!("\"{tool_use_id}\""), format!("\"id\":\"{tool_use_id}\""));
    let (id, call) = (
        memchr::memmem::Finder::new(quoted.as_bytes()),
        memchr::memmem::Finder::new(b"\"tool_use\""),
    );
    while let Some((offset, bytes)) = back.prev()? {
        if offset == line {
            // A result names the call as `tool_use_id`; only the call has it as its `id`.
            if call.find(&bytes).is_some() && memchr::memmem::find(&bytes, own.as_bytes()).is_some()
            {
                return Ok(None);
            }
            continue;
        }
        if line - offset > CALL_LOOKBACK_BYTES {
            break;
        }
        if id.find(&bytes).is_some() && call.find(&bytes).is_some() {
            return Ok(Some(offset));
        }
    }
    Ok(None)
}

/// Reads lines backwards from a line boundary.
struct BackLines {
    file: File,
    /// Bytes `[buf_start, buf_start + buf.len())`, ending at a line boundary, not yet emitted.
    buf: Vec<u8>,
    buf_start: u64,
    max_line: usize,
}

const BACK_BLOCK: usize = 256 * 1024;

impl BackLines {
    fn new(file: File, end: u64) -> Self {
        Self { file, buf: Vec::new(), buf_start: end, max_line: jsonl::MAX_LINE_BYTES }
    }

    /// The previous line: `(offset, bytes without '\n')`.
    fn prev(&mut self) -> std::io::Result<Option<(u64, Vec<u8>)>> {
        loop {
            let body_len = self.buf.len().saturating_sub(1);
            let search = self.buf.get(..body_len).unwrap_or_default();
            if let Some(i) = memchr::memrchr(b'\n', search) {
                let line = self.buf.split_off(i + 1);
                let offset = self.buf_start + (i as u64) + 1;
                return Ok(Some((offset, strip_nl(line))));
            }
            if self.buf_start == 0 {
                if self.buf.is_empty() {
                    return Ok(None);
                }
                let line = std::mem::take(&mut self.buf);
                return Ok(Some((0, strip_nl(line))));
            }
            if self.buf.len() > self.max_line {
                return self.skip_long_line().map(Some);
            }
            let want = BACK_BLOCK.max(self.buf.len());
            let n = usize::try_from(self.buf_start).unwrap_or(usize::MAX).min(want);
            let from = self.buf_start - n as u64;
            let mut block = vec![0u8; n];
            self.file.seek(SeekFrom::Start(from))?;
            self.file.read_exact(&mut block)?;
            block.extend_from_slice(&self.buf);
            self.buf = block;
            self.buf_start = from;
        }
    }
}

impl BackLines {
    /// Drops the over-long line being assembled and finds its start without holding it;
    /// returns it as an empty line (the forward reader skips and counts it).
    fn skip_long_line(&mut self) -> std::io::Result<(u64, Vec<u8>)> {
        self.buf = Vec::new();
        let mut block = vec![0u8; BACK_BLOCK];
        while self.buf_start > 0 {
            let n = usize::try_from(self.buf_start).unwrap_or(usize::MAX).min(BACK_BLOCK);
            let from = self.buf_start - n as u64;
            let chunk = block.get_mut(..n).unwrap_or_default();
            self.file.seek(SeekFrom::Start(from))?;
            self.file.read_exact(chunk)?;
            self.buf_start = from;
            if let Some(i) = memchr::memrchr(b'\n', chunk) {
                self.buf = chunk.get(..=i).unwrap_or_default().to_vec();
                return Ok((from + i as u64 + 1, Vec::new()));
            }
        }
        Ok((0, Vec::new()))
    }
}

fn strip_nl(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    line
}

/// Bytes scanned backwards beyond which a page may start mid-turn (at the first line of an
/// assistant response) instead of at a prompt.
const MID_TURN_BYTES: u64 = 8 * 1024 * 1024;

/// Reads about `limit` messages ending just before byte offset `before` (or at the end of the
/// file), reading backwards so the newest page of a huge file is cheap.
pub fn read_page(path: &Path, before: Option<u64>, limit: usize) -> std::io::Result<MessagePage> {
    read_page_in(path, before, limit, &Lines::All)
}

/// [`read_page`] of the lines `lines` keeps.
pub fn read_page_in(
    path: &Path,
    before: Option<u64>,
    limit: usize,
    lines: &Lines,
) -> std::io::Result<MessagePage> {
    let mut file = crate::files::open_regular(path)?;
    let size = file.metadata()?.len();
    let scope = Scope { sidechain: crate::transcript::file_is_sidechain(path), lines };
    let with_tail = before.is_none_or(|b| b >= size);
    let end = line_start_at_or_before(&mut file, before.unwrap_or(size).min(size), with_tail)?;
    let limit = limit.max(1);
    let mut back = BackLines::new(file, end);
    let mut start = end;
    let mut wanted = limit;
    let mut candidates = 0usize;
    let mut messages = Vec::new();
    for _round in 0..16 {
        // The newest assistant line seen so far (file order: the next one after `offset`).
        let mut newer_assistant: Option<(u64, String)> = None;
        while let Some((offset, bytes)) = back.prev()? {
            let p = scope.probe(offset, &bytes);
            if p.candidate {
                candidates += 1;
            }
            let enough = candidates >= wanted;
            // A turn too long to page at prompts: cut where one response ends and the next
            // begins, so chunks of one message.id stay together.
            let long_turn = enough
                && (end - offset > MID_TURN_BYTES || candidates >= wanted.saturating_mul(4) + 16);
            if let Some(id) = p.assistant_id {
                if long_turn
                    && let Some((newer_offset, newer_id)) = &newer_assistant
                    && *newer_id != id
                {
                    start = *newer_offset;
                    break;
                }
                newer_assistant = Some((offset, id));
            }
            start = offset;
            if enough && p.boundary {
                break;
            }
        }
        messages = build_range(path, scope, start, end, with_tail)?;
        if messages.len() >= limit || start == 0 {
            break;
        }
        wanted = candidates + (limit - messages.len());
    }
    Ok(MessagePage {
        messages,
        earlier_cursor: (start > 0).then_some(start),
        later_cursor: (!with_tail).then_some(end),
        size_bytes: size,
        rewinds: Vec::new(),
        open_branch: None,
        inherited: 0,
    })
}

/// How far back from a hit a page looks for the prompt that starts its turn.
const TURN_START_BYTES: u64 = 8 * 1024 * 1024;

/// About `limit` messages from the turn that holds the line at byte offset `at` on: the page
/// starts at that turn's prompt (looked for at most `TURN_START_BYTES` back) and ends before
/// a later prompt. Deep in a huge file this reads only the page, not everything after it.
pub fn read_page_around(path: &Path, at: u64, limit: usize) -> std::io::Result<MessagePage> {
    read_page_around_in(path, at, limit, &Lines::All)
}

/// [`read_page_around`] of the lines `lines` keeps.
pub fn read_page_around_in(
    path: &Path,
    at: u64,
    limit: usize,
    lines: &Lines,
) -> std::io::Result<MessagePage> {
    let mut file = crate::files::open_regular(path)?;
    let size = file.metadata()?.len();
    let scope = Scope { sidechain: crate::transcript::file_is_sidechain(path), lines };
    let line = line_start_at_or_before(&mut file, at.min(size), false)?;
    let mut back = BackLines::new(file, line_end_after(path, line, size)?);
    let mut start = line;
    while let Some((offset, bytes)) = back.prev()? {
        if line - offset > TURN_START_BYTES {
            break;
        }
        start = offset;
        if scope.probe(offset, &bytes).boundary {
            break;
        }
    }
    page_from(path, scope, start, size, limit)
}

/// About `limit` messages starting at byte offset `after` (a `later_cursor`), ending before a
/// prompt so that a turn is never split.
pub fn read_page_after(path: &Path, after: u64, limit: usize) -> std::io::Result<MessagePage> {
    read_page_after_in(path, after, limit, &Lines::All)
}

/// [`read_page_after`] of the lines `lines` keeps.
pub fn read_page_after_in(
    path: &Path,
    after: u64,
    limit: usize,
    lines: &Lines,
) -> std::io::Result<MessagePage> {
    let mut file = crate::files::open_regular(path)?;
    let size = file.metadata()?.len();
    let start = line_start_at_or_before(&mut file, after.min(size), false)?;
    let scope = Scope { sidechain: crate::transcript::file_is_sidechain(path), lines };
    page_from(path, scope, start, size, limit)
}

/// Reads forward from the line boundary `start`: at least `limit` messages' worth of lines, then
/// up to the next prompt.
fn page_from(
    path: &Path,
    scope: Scope<'_>,
    start: u64,
    size: u64,
    limit: usize,
) -> std::io::Result<MessagePage> {
    let mut file = crate::files::open_regular(path)?;
    file.seek(SeekFrom::Start(start))?;
    let mut reader = LineReader::new(BufReader::with_capacity(256 * 1024, file), start);
    let mut candidates = 0usize;
    let mut end = None;
    while let Some(line) = reader.next_line()? {
        let p = scope.probe(line.offset, line.bytes);
        if p.boundary && candidates >= limit.max(1) && line.offset > start {
            end = Some(line.offset);
            break;
        }
        if p.candidate {
            candidates += 1;
        }
    }
    let with_tail = end.is_none();
    let end = end.unwrap_or(size);
    let messages = build_range(path, scope, start, end, with_tail)?;
    Ok(MessagePage {
        messages,
        earlier_cursor: (start > 0).then_some(start),
        later_cursor: (!with_tail).then_some(end),
        size_bytes: size,
        rewinds: Vec::new(),
        open_branch: None,
        inherited: 0,
    })
}

/// The messages of the lines at `offsets` (ascending; one rewound branch), at most `limit`.
pub fn read_lines(path: &Path, offsets: &[u64], limit: usize) -> std::io::Result<MessagePage> {
    let size = crate::files::open_regular(path)?.metadata()?.len();
    let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) else {
        return Ok(MessagePage {
            messages: Vec::new(),
            earlier_cursor: None,
            later_cursor: None,
            size_bytes: size,
            rewinds: Vec::new(),
            open_branch: None,
            inherited: 0,
        });
    };
    let lines = Lines::Only(offsets.into());
    let scope = Scope { sidechain: crate::transcript::file_is_sidechain(path), lines: &lines };
    let end = line_end_after(path, last, size)?;
    let mut messages = build_range(path, scope, first, end, end >= size)?;
    messages.truncate(limit.max(1));
    Ok(MessagePage {
        messages,
        earlier_cursor: None,
        later_cursor: None,
        size_bytes: size,
        rewinds: Vec::new(),
        open_branch: None,
        inherited: 0,
    })
}

/// The offset just past the line that starts at `line` (its `\n` included), or `size`.
fn line_end_after(path: &Path, line: u64, size: u64) -> std::io::Result<u64> {
    let mut file = crate::files::open_regular(path)?;
    file.seek(SeekFrom::Start(line))?;
    let mut reader = LineReader::new(BufReader::new(file), line);
    Ok(match reader.next_line()? {
        Some(_) => reader.complete_offset(),
        None => size,
    })
}

/// The offset of the line boundary at or before `pos`: `pos` itself when it follows a `\n` (or is
/// 0); with `allow_tail` the end of file is accepted as-is (the unterminated tail is included).
fn line_start_at_or_before(file: &mut File, pos: u64, allow_tail: bool) -> std::io::Result<u64> {
    if pos == 0 || allow_tail {
        return Ok(pos);
    }
    let mut cur = pos;
    let mut block = vec![0u8; 64 * 1024];
    loop {
        let n = usize::try_from(cur).unwrap_or(usize::MAX).min(block.len());
        let from = cur - n as u64;
        file.seek(SeekFrom::Start(from))?;
        let chunk = block.get_mut(..n).unwrap_or_default();
        file.read_exact(chunk)?;
        if let Some(i) = memchr::memrchr(b'\n', chunk) {
            return Ok(from + i as u64 + 1);
        }
        if from == 0 {
            return Ok(0);
        }
        cur = from;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn back_lines_skip_over_long_lines_without_holding_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let long = "x".repeat(3 * BACK_BLOCK + 17);
        std::fs::write(&path, format!("a\n{long}\nbb\n\nc\n")).unwrap();
        let size = std::fs::metadata(&path).unwrap().len();
        let mut back = BackLines::new(File::open(&path).unwrap(), size);
        back.max_line = BACK_BLOCK;
        let mut got = Vec::new();
        while let Some((o, l)) = back.prev().unwrap() {
            got.push((o, String::from_utf8(l).unwrap()));
        }
        let long_at = 2u64;
        let bb_at = long_at + long.len() as u64 + 1;
        assert_eq!(
            got,
            vec![
                (bb_at + 4, "c".to_owned()),
                (bb_at + 3, String::new()),
                (bb_at, "bb".to_owned()),
                (long_at, String::new()),
                (0, "a".to_owned()),
            ]
        );
        let mut back = BackLines::new(File::open(&path).unwrap(), size);
        let mut n = 0;
        while let Some((_, l)) = back.prev().unwrap() {
            n += usize::from(l.len() == long.len());
        }
        assert_eq!(n, 1, "under the default cap the long line is returned whole");
    }
}
