//! A whole transcript's messages: read at once (`show`, a subagent's run) or streamed in pieces
//! cut at prompts, so memory stays bounded by a piece whatever the file's size (exports).

use super::*;

/// Reads the whole transcript (CLI `show`).
pub fn read_transcript(
    path: &Path,
    session_id: &str,
    working_directory: &str,
) -> std::io::Result<SessionTranscript> {
    read_transcript_in(path, session_id, working_directory, &Lines::All)
}

/// [`read_transcript`] of the lines `lines` keeps.
pub fn read_transcript_in(
    path: &Path,
    session_id: &str,
    working_directory: &str,
    lines: &Lines,
) -> std::io::Result<SessionTranscript> {
    let mut builder = Builder::showing(crate::transcript::file_is_sidechain(path), lines.clone());
    let mut reader = LineReader::new(crate::transcript::open_at(path, 0)?, 0);
    while let Some(line) = reader.next_line()? {
        builder.line(line.offset, line.bytes);
    }
    let tail_offset = reader.complete_offset();
    builder.tail(tail_offset, reader.pending());
    let skipped = builder.skipped().saturating_add(reader.oversized_lines());
    let usage = builder.usage();
    Ok(SessionTranscript {
        session_id: session_id.to_owned(),
        working_directory: working_directory.to_owned(),
        messages: builder.finish(&HashMap::new()),
        usage,
        subagents: crate::transcript::subagents::list_subagents(path, session_id),
        skipped_lines: skipped,
    })
}

/// Reads the messages of subagent `agent_id` (`None` when there is no such subagent), a fork's
/// copy of the main conversation left out (see [`crate::transcript::forks`]). The returned transcript's
/// `session_id` is the parent's; `subagents` is empty.
pub fn read_subagent(
    transcript: &Path,
    session_id: &str,
    agent_id: &str,
    working_directory: &str,
) -> std::io::Result<Option<SessionTranscript>> {
    let Some(run) = crate::transcript::subagents::subagent(transcript, session_id, agent_id) else {
        return Ok(None);
    };
    let path = Path::new(&run.transcript_path);
    let fork = run.agent_type.as_deref() == Some("fork");
    let inherited = crate::transcript::forks::inherited(path, transcript, fork)?;
    let lines =
        if inherited.lines.is_empty() { Lines::All } else { Lines::Except(inherited.lines) };
    let mut t = read_transcript_in(path, session_id, working_directory, &lines)?;
    t.subagents = Vec::new();
    Ok(Some(t))
}

/// What [`stream_transcript`] learned besides the messages.
#[derive(Debug, Clone, Default)]
pub struct StreamSummary {
    /// Token usage over the conversation.
    pub usage: Usage,
    /// Lines that could not be parsed and were skipped.
    pub skipped_lines: u64,
}

/// Bytes of transcript built into messages at once by [`stream_transcript`].
pub const STREAM_PIECE_BYTES: u64 = 16 * 1024 * 1024;

/// The whole transcript, in file order, handed to `emit` in pieces of about `piece_bytes` of
/// file, each cut only where a new prompt starts (so a turn, its streamed chunks and its tool
/// results stay together): memory stays bounded by a piece, whatever the file's size. What
/// [`read_transcript`] returns at once, for a file of any size (`show`).
pub fn stream_transcript(
    path: &Path,
    piece_bytes: u64,
    lines: &Lines,
    emit: &mut dyn FnMut(Vec<TranscriptMessage>) -> std::io::Result<()>,
) -> std::io::Result<StreamSummary> {
    let scope = Scope { sidechain: crate::transcript::file_is_sidechain(path), lines };
    let size = crate::files::open_regular(path)?.metadata()?.len();
    let mut cuts = LineReader::new(crate::transcript::open_at(path, 0)?, 0);
    let mut summary = StreamSummary::default();
    let mut start = 0u64;
    loop {
        let cut = match cuts.next_line()? {
            Some(line) if line.offset.saturating_sub(start) >= piece_bytes.max(1) => {
                scope.probe(line.offset, line.bytes).boundary.then_some(line.offset)
            }
            Some(_) => None,
            None => break,
        };
        if let Some(at) = cut {
            let piece = build_piece(path, scope, start, at, false)?;
            summary.add(&piece.1, piece.2);
            emit(piece.0)?;
            start = at;
        }
    }
    let last = build_piece(path, scope, start, size.max(start), true)?;
    summary.add(&last.1, last.2);
    emit(last.0)?;
    Ok(summary)
}

impl StreamSummary {
    /// Adds one piece: output tokens and turns add up (a response never spans pieces); the
    /// context size and the model are the newest piece's that has any.
    fn add(&mut self, usage: &Usage, skipped: u64) {
        self.usage.output_tokens = self.usage.output_tokens.saturating_add(usage.output_tokens);
        self.usage.turn_count = self.usage.turn_count.saturating_add(usage.turn_count);
        if usage.turn_count > 0 {
            self.usage.input_tokens = usage.input_tokens;
        }
        if usage.model.is_some() {
            self.usage.model.clone_from(&usage.model);
        }
        self.skipped_lines = self.skipped_lines.saturating_add(skipped);
    }
}
