//! Markdown: a `# title`, the session facts, a heading per message, fenced tool input and output.

use std::io::Write;

use super::{Sink, facts, heading, input_shown, printable, provenance, tool_title};
use crate::catalog::SessionDetails;
use crate::model::{Role, SubagentInfo, TranscriptMessage};
use crate::printable::Lines;

pub(super) struct Markdown<'a> {
    pub(super) out: &'a mut dyn Write,
}

/// A fenced block whose fence no backtick run inside can close.
fn fenced(out: &mut dyn Write, info: &str, body: &str) -> std::io::Result<()> {
    let body = &*printable(body);
    let mut longest = 0usize;
    let mut run = 0usize;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    writeln!(out, "{fence}{info}")?;
    out.write_all(body.as_bytes())?;
    if !body.ends_with('\n') {
        writeln!(out)?;
    }
    writeln!(out, "{fence}\n")
}

/// Text for one Markdown line (a heading or a list item): printable, line breaks become spaces.
fn one_line(s: &str) -> String {
    crate::printable::for_document(s, Lines::One).into_owned()
}

impl Sink for Markdown<'_> {
    fn head(&mut self, d: &SessionDetails, now: &str) -> std::io::Result<()> {
        writeln!(self.out, "# {}\n", one_line(d.summary.display_name()))?;
        for (k, v) in facts(d) {
            writeln!(self.out, "- **{k}:** {}", one_line(&v))?;
        }
        writeln!(self.out, "\n> {}\n", one_line(&provenance(&d.summary, now)))
    }

    fn messages(&mut self, messages: &[TranscriptMessage]) -> std::io::Result<()> {
        for m in messages {
            match (&m.role, &m.tool_call) {
                (Role::Tool, Some(call)) => {
                    writeln!(self.out, "### Tool: {}\n", one_line(&tool_title(call)))?;
                    if let Some(input) = input_shown(call) {
                        if let Some(c) = &input.caption {
                            writeln!(self.out, "`{}`\n", one_line(c).replace('`', "'"))?;
                        }
                        if !input.body.is_empty() {
                            fenced(self.out, input.lang, &input.body)?;
                        }
                    }
                    if !call.output.is_empty() {
                        let label = if call.is_error { "Error" } else { "Output" };
                        writeln!(
                            self.out,
                            "{label}{}:\n",
                            if call.output_truncated { " (clipped)" } else { "" }
                        )?;
                        fenced(self.out, "text", &call.output)?;
                    }
                }
                _ => {
                    writeln!(self.out, "## {}\n", one_line(&heading(m)))?;
                    if let Some(t) = m.thinking.as_deref().filter(|t| !t.is_empty()) {
                        writeln!(self.out, "<details><summary>Thinking</summary>\n")?;
                        fenced(self.out, "text", t)?;
                        writeln!(self.out, "</details>\n")?;
                    }
                    if m.role == Role::User {
                        // As typed: a fence keeps a pasted block's shape and stops Markdown.
                        fenced(self.out, "text", &m.content)?;
                    } else {
                        writeln!(self.out, "{}\n", printable(m.content.trim_end()))?;
                    }
                }
            }
        }
        Ok(())
    }

    fn end_conversation(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn subagent(&mut self, s: &SubagentInfo) -> std::io::Result<()> {
        let what = s.description.as_deref().or(s.agent_type.as_deref()).unwrap_or("subagent");
        writeln!(self.out, "---\n\n# Subagent run {}: {}\n", one_line(&s.agent_id), one_line(what))
    }

    fn end_subagent(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
