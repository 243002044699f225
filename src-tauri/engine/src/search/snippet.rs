//! A hit's snippet: the words around the first match, that match a third of the way in, with the
//! matched words marked and `…` where the text goes on.
//!
//! tantivy picks the fragment with the most matched words, cut at fixed places: its first match can
//! sit at the fragment's very end. The window is moved so the eye finds the match at once.

use std::ops::Range;

use super::SnippetPart;

/// The window around the first match: this many characters before it, at most.
const LEAD_CHARS: usize = 60;

/// The snippet of `source` of about `chars` characters around the first of `highlights` (byte
/// ranges into `fragment`, which is part of `source`).
pub(super) fn centred(
    source: &str,
    fragment: &str,
    highlights: &[Range<usize>],
    chars: usize,
) -> (String, Vec<SnippetPart>) {
    let (text, base) = match source.find(fragment) {
        Some(base) if !fragment.is_empty() => (source, base),
        _ => (fragment, 0),
    };
    let marks: Vec<Range<usize>> = highlights
        .iter()
        .map(|r| r.start + base..r.end + base)
        .filter(|r| {
            r.end <= text.len() && text.is_char_boundary(r.start) && text.is_char_boundary(r.end)
        })
        .collect();
    let Some(first) = marks.first() else {
        let cut = whole_words(text, 0, chars);
        return (cut.to_owned(), vec![SnippetPart { text: cut.to_owned(), hit: false }]);
    };
    let start = word_start(text, back(text, first.start, LEAD_CHARS.min(chars / 3)));
    // The first match is whole, however short the window.
    let end = (start + whole_words(text, start, chars).len()).max(first.end);
    let mut parts = Vec::new();
    let mut at = start;
    if start > 0 {
        parts.push(SnippetPart { text: "…".to_owned(), hit: false });
    }
    for r in marks.iter().filter(|r| r.start >= start && r.end <= end) {
        if r.start < at {
            continue;
        }
        if r.start > at {
            parts.push(SnippetPart { text: text[at..r.start].to_owned(), hit: false });
        }
        parts.push(SnippetPart { text: text[r.clone()].to_owned(), hit: true });
        at = r.end;
    }
    if at < end {
        parts.push(SnippetPart { text: text[at..end].to_owned(), hit: false });
    }
    if end < text.trim_end().len() {
        parts.push(SnippetPart { text: "…".to_owned(), hit: false });
    }
    let plain: String = parts.iter().map(|p| p.text.as_str()).collect();
    (plain, parts)
}

/// The byte index `n` characters before `at` (or 0).
fn back(text: &str, at: usize, n: usize) -> usize {
    text[..at].char_indices().rev().nth(n.saturating_sub(1)).map_or(0, |(i, _)| i)
}

/// `at` moved forward to the start of the word it is inside (unless that is the text's start, or
/// the word runs to the match).
fn word_start(text: &str, at: usize) -> usize {
    if at == 0 {
        return 0;
    }
    // No whitespace within reach (a run of CJK, a path): start where the count ended.
    let rest = &text[at..];
    match rest.find(char::is_whitespace) {
        Some(i) if i < LEAD_CHARS / 2 => {
            let after = &rest[i..];
            at + i + (after.len() - after.trim_start().len())
        }
        _ => at,
    }
}

/// At most `chars` characters of `text` from `start`, ending at a word's end when the text goes on.
fn whole_words(text: &str, start: usize, chars: usize) -> &str {
    let rest = &text[start..];
    let Some((cut, _)) = rest.char_indices().nth(chars) else { return rest.trim_end() };
    let head = &rest[..cut];
    match head.rfind(char::is_whitespace) {
        Some(i) if i > cut / 2 => head[..i].trim_end(),
        _ => head,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn marked(parts: &[SnippetPart]) -> Vec<&str> {
        parts.iter().filter(|p| p.hit).map(|p| p.text.as_str()).collect()
    }

    #[test]
    fn the_match_is_a_third_of_the_way_in_with_the_text_around_it() {
        let before = "word ".repeat(60);
        let source = format!("{before}the zanzibarquill phrase {}", "tail ".repeat(60));
        let at = source.find("zanzibarquill").unwrap();
        // tantivy's fragment ended with the match.
        let fragment = &source[at - 170..at + 13];
        let (plain, parts) = centred(&source, fragment, &[Range { start: 170, end: 183 }], 180);
        assert_eq!(marked(&parts), ["zanzibarquill"]);
        let pos = plain.find("zanzibarquill").unwrap();
        assert!((40..=80).contains(&plain[..pos].chars().count()), "{plain}");
        assert!(plain.starts_with("…word"), "{plain}");
        assert!(plain.ends_with("tail…"), "{plain}");
        assert!(plain.contains("phrase tail"), "{plain}");
    }

    #[test]
    fn a_short_text_is_whole_and_every_match_in_the_window_is_marked() {
        let source = "Fix the cart: the cart total is wrong";
        let (plain, parts) = centred(source, source, &[8..12, 18..22], 180);
        assert_eq!(plain, source);
        assert_eq!(marked(&parts), ["cart", "cart"]);
    }

    #[test]
    fn odd_input_never_panics() {
        let source = "ééé 🦀 zebra";
        let (plain, _) = centred(source, "zebra", &[Range { start: 0, end: 5 }], 3);
        assert!(plain.contains("zebra"));
        let (plain, parts) = centred(source, "not in it", &[Range { start: 0, end: 200 }], 180);
        assert_eq!(plain, "not in it");
        assert_eq!(marked(&parts), Vec::<&str>::new());
        let (plain, _) = centred("", "", &[], 180);
        assert_eq!(plain, "");
    }
}
