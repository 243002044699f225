//! Text from transcripts, records and file names made safe to print: the one rule for every field
//! that reaches a terminal (the CLI) or a document (the exports).
//!
//! Which characters are unsafe is decided once ([`is_unsafe`]): every control character but the
//! tab and the line feed (ESC starts colours, window titles and OSC 52 clipboard writes; BEL, the
//! carriage return that lets a line overwrite itself), DEL, the C1 controls (U+0080–U+009F, CSI
//! among them) and the bidirectional controls that make text read other than it is stored.
//! How they are shown depends on where the text goes: a terminal shows them as visible escapes
//! ([`for_terminal`]: `\x1b`, `\r`, `\u{202e}`), a document drops terminal escape sequences (the
//! colours of tool output are formatting, not text) and shows the rest as `�` ([`for_document`]).
//! A field that must stay on one line (a table cell, a heading, a name) says so, and its line
//! breaks are then escaped too, so a name can never forge a line of its own.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal or a document as it is (see the module docs). The line
/// feed and the tab are safe; whether a line feed may stay is the caller's choice ([`Lines`]).
pub fn is_unsafe(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// Whether line breaks may stay in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// A body (a message, a tool's output): line feeds and tabs stay.
    Keep,
    /// One line (a table row, a heading, a name, a caption).
    One,
}

/// `text` for a terminal: every unsafe character (and, for [`Lines::One`], every line feed and
/// tab) shown as a visible escape, `\r`, `\n`, `\t`, `\x1b`, `\u{202e}`.
pub fn for_terminal(text: &str, lines: Lines) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' if lines == Lines::Keep => out.push(c),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x80 && is_unsafe(c) => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_unsafe(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` for a document: terminal escape sequences removed, a line ending `\r\n` or a lone `\r`
/// made a line feed, every other unsafe character shown as `�`. With [`Lines::One`], every run
/// of white space (line breaks included) becomes one space.
pub fn for_document(text: &str, lines: Lines) -> Cow<'_, str> {
    let stripped: Cow<'_, str> = if text.contains('\u{1b}') || text.contains('\u{9b}') {
        anstream::adapter::strip_str(text).to_string().into()
    } else {
        text.into()
    };
    let clean: Cow<'_, str> = if stripped.chars().any(is_unsafe) {
        let mut out = String::with_capacity(stripped.len());
        let mut chars = stripped.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' => {
                    if chars.peek() != Some(&'\n') {
                        out.push('\n');
                    }
                }
                c if is_unsafe(c) => out.push('\u{fffd}'),
                c => out.push(c),
            }
        }
        out.into()
    } else {
        stripped
    };
    match lines {
        Lines::Keep => clean,
        Lines::One => clean.split_whitespace().collect::<Vec<_>>().join(" ").into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unsafe_character_is_visible_in_a_terminal_and_gone_from_a_document() {
        let hostile = "a\u{1b}]52;c;cHduZWQ=\u{7}b\rc\u{9b}31md\u{202e}e\u{0}f\nnext\tcol";
        let line = for_terminal(hostile, Lines::One);
        assert!(!line.chars().any(|c| is_unsafe(c) || c == '\n' || c == '\t'), "{line}");
        assert!(line.contains("\\x1b") && line.contains("\\r") && line.contains("\\n"), "{line}");
        let body = for_terminal(hostile, Lines::Keep);
        assert_eq!(body.matches('\n').count(), 1, "{body}");
        let doc = for_document(hostile, Lines::Keep);
        assert!(!doc.chars().any(is_unsafe), "{doc:?}");
        assert!(doc.starts_with('a') && doc.contains("b\nc"), "{doc:?}");
        let one = for_document(hostile, Lines::One);
        assert!(!one.contains('\n') && !one.contains('\t'), "{one:?}");
        assert_eq!(for_document("crlf\r\nline", Lines::Keep), "crlf\nline");
    }
}
