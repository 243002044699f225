//! Words as the index sees them: runs of letters and digits, lowercased and folded to ASCII where
//! a folding exists (`Café` → `cafe`), so matching ignores case and accents. Each CJK character
//! (Han, Hiragana, Katakana, Hangul) is a word of its own: CJK text has no spaces, and a search for
//! a CJK phrase becomes a phrase of its characters, which finds it anywhere in a sentence.

use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RemoveLongFilter, TextAnalyzer, Token, TokenStream, Tokenizer,
};

/// The analyzer's name in the index's tokenizer registry.
pub const WORDS: &str = "corral_words";

/// Longer words are payloads (hashes, base64), not something one types.
const MAX_TOKEN_BYTES: usize = 100;

/// The analyzer for every text field and for the words of a query.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(WordTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// Whether `c` is written without spaces between words (each character is then a token).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F  // CJK Extensions B–F, Compatibility Supplement
    )
}

/// Splits text into words the way the index and the queries both do.
#[derive(Clone, Default)]
pub struct WordTokenizer {
    token: Token,
}

/// The words of one text, as the tokenizer yields them.
pub struct WordStream<'a> {
    text: &'a str,
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    token: &'a mut Token,
}

impl Tokenizer for WordTokenizer {
    type TokenStream<'a> = WordStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream<'a> {
        self.token.reset();
        WordStream { text, chars: text.char_indices().peekable(), token: &mut self.token }
    }
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        self.token.text.clear();
        self.token.position = self.token.position.wrapping_add(1);
        while let Some((from, c)) = self.chars.next() {
            if !c.is_alphanumeric() {
                continue;
            }
            let mut to = from + c.len_utf8();
            if !is_cjk(c) {
                while let Some(&(at, next)) = self.chars.peek() {
                    if !next.is_alphanumeric() || is_cjk(next) {
                        break;
                    }
                    to = at + next.len_utf8();
                    self.chars.next();
                }
            }
            self.token.offset_from = from;
            self.token.offset_to = to;
            self.token.text.push_str(&self.text[from..to]);
            return true;
        }
        false
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

/// The words of `text` as the index stores them.
pub fn words(text: &str) -> Vec<String> {
    let mut a = analyzer();
    let mut stream = a.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn words_fold_case_and_accents_and_split_cjk() {
        assert_eq!(
            words("Café CRÈME, naïve_test src/main.rs"),
            ["cafe", "creme", "naive", "test", "src", "main", "rs"]
        );
        assert_eq!(words("東京タワーへ行く"), ["東", "京", "タ", "ワ", "ー", "へ", "行", "く"]);
        assert_eq!(words("abc日本def"), ["abc", "日", "本", "def"]);
        assert_eq!(words(&"x".repeat(500)), Vec::<String>::new());
    }
}
