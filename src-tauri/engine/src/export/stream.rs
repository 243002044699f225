//! Driving one format over a session: its head, its messages streamed piece by piece (memory
//! stays bounded), then each subagent run when asked.

use std::io::Write;

use super::html::Html;
use super::json::Json;
use super::markdown::Markdown;
use super::{ExportFormat, ExportRequest, ExportSummary, Sink};
use crate::catalog::Catalog;
use crate::error::{Error, Result};

/// Writes the export of `session_id` to `out`.
pub fn export(
    catalog: &Catalog,
    session_id: &str,
    req: ExportRequest,
    out: &mut dyn Write,
) -> Result<ExportSummary> {
    let details = catalog.session_details(session_id)?;
    let now = crate::time::iso(chrono::Utc::now());
    let mut counted = Counting { inner: out, bytes: 0 };
    let mut w: Box<dyn Sink + '_> = match req.format {
        ExportFormat::Markdown => Box::new(Markdown { out: &mut counted }),
        ExportFormat::Html => Box::new(Html { out: &mut counted }),
        ExportFormat::Json => Box::new(Json { out: &mut counted, first: true }),
    };
    let io = |e: std::io::Error| Error::io("cannot write the export", e);
    w.head(&details, &now).map_err(io)?;
    let mut summary = ExportSummary::default();
    let mut failed: Option<std::io::Error> = None;
    let streamed = catalog.stream_transcript(session_id, &mut |piece| {
        summary.messages += piece.len() as u64;
        w.messages(&piece)
            .inspect_err(|e| failed = Some(std::io::Error::new(e.kind(), e.to_string())))
    });
    if let Some(e) = failed {
        return Err(io(e));
    }
    streamed?;
    w.end_conversation().map_err(io)?;
    if req.subagents {
        for sub in &details.subagents {
            w.subagent(sub).map_err(io)?;
            catalog.stream_run(session_id, sub, &mut |piece| w.messages(&piece))?;
            w.end_subagent().map_err(io)?;
            summary.subagents += 1;
        }
    }
    w.end().map_err(io)?;
    drop(w);
    counted.flush().map_err(io)?;
    summary.bytes = counted.bytes;
    Ok(summary)
}

/// Counts the bytes written through it.
struct Counting<'a> {
    inner: &'a mut dyn Write,
    bytes: u64,
}

impl Write for Counting<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
