//! The players' chat of a game: its lines, how many are kept, and how a line is cleaned
//! before anyone sees it.

use damasi::Color;

/// Chat lines kept per game (older ones are dropped).
pub const CHAT_KEPT: usize = 50;

/// Longest chat line, in characters.
pub const CHAT_MAX: usize = 140;

/// One chat line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatLine {
    /// Who wrote it.
    pub name: String,
    /// What they wrote.
    pub text: String,
    /// The player who does not see it: the writer's opponent, when they block the writer.
    pub hidden_from: Option<Color>,
}

/// A chat line as shown: trimmed, without control characters, without the invisible
/// formatting characters that reorder or hide text (bidirectional overrides and isolates,
/// zero-width characters), and with at most two combining marks on a letter (a long run of
/// them draws over the lines around it). Turkish letters are whole characters (ş, ğ, ı) and
/// keep their marks.
pub fn clean_chat(text: &str) -> String {
    const MAX_MARKS: usize = 2;
    let invisible = |c: char| {
        matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
    };
    let combining = |c: char| {
        matches!(c, '\u{0300}'..='\u{036F}' | '\u{0483}'..='\u{0489}' | '\u{1AB0}'..='\u{1AFF}'
            | '\u{1DC0}'..='\u{1DFF}' | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
    };
    let mut out = String::new();
    let mut marks = 0;
    for c in text.trim().chars() {
        if c.is_control() || invisible(c) {
            continue;
        }
        if combining(c) {
            marks += 1;
            if marks > MAX_MARKS {
                continue;
            }
        } else {
            marks = 0;
        }
        out.push(c);
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_lines_lose_what_hides_or_overdraws_text() {
        // A right-to-left override would show "gpj.exe" reversed; zero-width joiners hide.
        assert_eq!(clean_chat("hi \u{202E}exe.gpj"), "hi exe.gpj");
        assert_eq!(clean_chat("\u{200B}a\u{2066}b\u{FEFF}"), "ab");
        // Seventy combining marks on one letter: two are kept.
        let zalgo = format!("a{}b", "\u{0301}".repeat(70));
        assert_eq!(clean_chat(&zalgo), "a\u{0301}\u{0301}b");
        // Turkish text and an accent or two are untouched.
        assert_eq!(
            clean_chat("  İyi oyunlar, şansın bol olsun  "),
            "İyi oyunlar, şansın bol olsun"
        );
        assert_eq!(clean_chat("e\u{0301}"), "e\u{0301}");
        assert_eq!(clean_chat("\u{202E}\u{202E}"), "");
    }
}
