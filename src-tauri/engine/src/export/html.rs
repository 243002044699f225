//! HTML: one self-contained page that works offline and runs nothing.

use std::io::Write;

use super::{Sink, facts, heading, input_shown, printable, provenance, tool_title};
use crate::catalog::SessionDetails;
use crate::model::{Role, SubagentInfo, TranscriptMessage};

pub(super) struct Html<'a> {
    pub(super) out: &'a mut dyn Write,
}

/// Escapes text for HTML content and attribute values.
fn esc(s: &str) -> String {
    let s = printable(s);
    let mut o = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// Claude's Markdown as HTML: raw HTML shown as text, only http(s)/mailto/#links kept, images as
/// their alt text.
fn markdown_html(text: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    opts.insert(Options::ENABLE_TASKLISTS);
    // An image's alt text stays (as text); the image and its URL do not. A link to anything but
    // http(s), mailto or an anchor keeps its text and loses the link.
    let mut links: Vec<bool> = Vec::new();
    let text = printable(text);
    let events = Parser::new_ext(&text, opts).filter_map(move |e| match e {
        Event::Html(h) | Event::InlineHtml(h) => Some(Event::Text(h)),
        Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => None,
        Event::Start(Tag::Link { ref dest_url, .. }) => {
            let url = dest_url.to_ascii_lowercase();
            let safe = ["http://", "https://", "mailto:", "#"].iter().any(|p| url.starts_with(p));
            links.push(safe);
            safe.then_some(e)
        }
        Event::End(TagEnd::Link) => links.pop().unwrap_or(false).then_some(e),
        other => Some(other),
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

const STYLE: &str = "
:root{color-scheme:light dark;--bg:#fff;--fg:#1d1e22;--muted:#64656f;--user:#eef3fd;--code:#f3f3f6;--border:#e1e1e6;--accent:#2f6fe4;--err:#c23a2b;--add:#e3f5e6;--del:#fbe6e4}
@media (prefers-color-scheme:dark){:root{--bg:#1c1d21;--fg:#e6e6ea;--muted:#a0a1ab;--user:#232d40;--code:#15161a;--border:#34353c;--accent:#6d9cf4;--err:#f07060;--add:#1e3a26;--del:#44221f}}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,'Segoe UI',Ubuntu,sans-serif}
main{max-width:920px;margin:0 auto;padding:24px}
h1{font-size:20px;margin:0 0 8px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;color:var(--muted);font-size:13px}
dl.facts dd{margin:0;word-break:break-all}
.note{color:var(--muted);font-size:13px;border-left:3px solid var(--border);padding-left:10px}
section.msg{margin:14px 0}
section.msg h2{font-size:12px;font-weight:600;color:var(--muted);margin:0 0 4px}
.user .body{background:var(--user);border-radius:10px;padding:8px 12px;white-space:pre-wrap;word-wrap:break-word}
pre,code{font-family:ui-monospace,'SF Mono',Menlo,Consolas,monospace;font-size:12.5px}
pre{background:var(--code);padding:8px 10px;border-radius:6px;overflow-x:auto;white-space:pre-wrap;word-wrap:break-word}
details.tool{border:1px solid var(--border);border-radius:6px;padding:4px 10px;margin:6px 0}
details.tool summary{cursor:pointer;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
details.tool.error{border-color:var(--err)}
details.thinking summary{color:var(--muted);cursor:pointer}
h3.part{font-size:12px;color:var(--muted);margin:8px 0 2px}
pre.diff span{display:block}pre.diff .add{background:var(--add)}pre.diff .del{background:var(--del)}
a{color:var(--accent)}
hr{border:0;border-top:1px solid var(--border);margin:28px 0}
table{border-collapse:collapse}td,th{border:1px solid var(--border);padding:2px 6px}
";

impl Sink for Html<'_> {
    fn head(&mut self, d: &SessionDetails, now: &str) -> std::io::Result<()> {
        let title = esc(d.summary.display_name());
        write!(
            self.out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>\n\
             <meta name=\"color-scheme\" content=\"light dark\"/>\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
             <meta name=\"generator\" content=\"Corral\"/>\n<title>{title}</title>\n<style>{STYLE}</style>\n\
             </head>\n<body>\n<main>\n<h1>{title}</h1>\n<dl class=\"facts\">\n"
        )?;
        for (k, v) in facts(d) {
            writeln!(self.out, "<dt>{k}</dt><dd>{}</dd>", esc(&v))?;
        }
        writeln!(self.out, "</dl>\n<p class=\"note\">{}</p>", esc(&provenance(&d.summary, now)))
    }

    fn messages(&mut self, messages: &[TranscriptMessage]) -> std::io::Result<()> {
        for m in messages {
            if let (Role::Tool, Some(call)) = (&m.role, &m.tool_call) {
                let class = if call.is_error { "tool error" } else { "tool" };
                writeln!(
                    self.out,
                    "<details class=\"{class}\"><summary>{}</summary>",
                    esc(&tool_title(call))
                )?;
                if let Some(input) = input_shown(call) {
                    let caption = input.caption.as_deref().map(esc).unwrap_or_default();
                    writeln!(self.out, "<h3 class=\"part\">Input <code>{caption}</code></h3>")?;
                    if input.lang == "diff" {
                        // Each line of the diff in its colour, as the viewer draws it.
                        write!(self.out, "<pre class=\"diff\">")?;
                        for line in input.body.lines() {
                            let class = match line.chars().next() {
                                Some('+') => "add",
                                Some('-') => "del",
                                _ => "same",
                            };
                            writeln!(self.out, "<span class=\"{class}\">{}</span>", esc(line))?;
                        }
                        writeln!(self.out, "</pre>")?;
                    } else if !input.body.is_empty() {
                        writeln!(self.out, "<pre>{}</pre>", esc(&input.body))?;
                    }
                }
                if !call.output.is_empty() {
                    let label = if call.is_error { "Error" } else { "Output" };
                    let clipped = if call.output_truncated { " (clipped)" } else { "" };
                    writeln!(
                        self.out,
                        "<h3 class=\"part\">{label}{clipped}</h3><pre>{}</pre>",
                        esc(&call.output)
                    )?;
                }
                writeln!(self.out, "</details>")?;
                continue;
            }
            let class = if m.role == Role::User { "user" } else { "assistant" };
            writeln!(self.out, "<section class=\"msg {class}\">\n<h2>{}</h2>", esc(&heading(m)))?;
            if let Some(t) = m.thinking.as_deref().filter(|t| !t.is_empty()) {
                writeln!(
                    self.out,
                    "<details class=\"thinking\"><summary>Thinking</summary><pre>{}</pre></details>",
                    esc(t)
                )?;
            }
            if m.role == Role::User {
                writeln!(self.out, "<div class=\"body\">{}</div>", esc(&m.content))?;
            } else {
                writeln!(self.out, "<div class=\"body\">{}</div>", markdown_html(&m.content))?;
            }
            writeln!(self.out, "</section>")?;
        }
        Ok(())
    }

    fn end_conversation(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn subagent(&mut self, s: &SubagentInfo) -> std::io::Result<()> {
        let what = s.description.as_deref().or(s.agent_type.as_deref()).unwrap_or("subagent");
        writeln!(self.out, "<hr/>\n<h1>Subagent run {}: {}</h1>", esc(&s.agent_id), esc(what))
    }

    fn end_subagent(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        writeln!(self.out, "</main>\n</body>\n</html>")
    }
}
