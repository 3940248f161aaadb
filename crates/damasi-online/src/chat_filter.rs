//! Chat that stays civil: the common insults of English and Turkish (`chat_words.txt`) are
//! kept out of the games' chats. A line with one of them is refused with a clear message (403
//! `chat-refused`), so the writer knows it was not sent. Words only: no list of spelling
//! tricks; moderators have the reports and the mute for the rest.

use std::sync::OnceLock;

use crate::error::ApiError;

/// The words, as written in `chat_words.txt`: whole words, stems (`aptal*`) and phrases.
struct Words {
    whole: Vec<String>,
    stems: Vec<String>,
    phrases: Vec<Vec<String>>,
}

fn words() -> &'static Words {
    static WORDS: OnceLock<Words> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut w = Words {
            whole: Vec::new(),
            stems: Vec::new(),
            phrases: Vec::new(),
        };
        for line in include_str!("chat_words.txt").lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let line = lower(line);
            if let Some(stem) = line.strip_suffix('*') {
                w.stems.push(stem.to_string());
            } else if line.contains(' ') {
                w.phrases
                    .push(line.split_whitespace().map(str::to_string).collect());
            } else {
                w.whole.push(line);
            }
        }
        w
    })
}

/// `text` in lower case as Turkish writes it (`I` is `ı`, `İ` is `i`), so that both
/// languages' capitals fold to the words of the list.
fn lower(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'I' => 'ı',
            'İ' => 'i',
            c => c.to_lowercase().next().unwrap_or(c),
        })
        .collect()
}

/// The words of `text`, lower case (letters and digits; anything else separates).
fn tokens(text: &str) -> Vec<String> {
    lower(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The listed word `text` contains, if any. An `I` written for `i` (a keyboard without
/// Turkish letters) is tried both ways.
pub fn offending_word(text: &str) -> Option<String> {
    let w = words();
    for variant in [text.to_string(), text.replace('I', "i")] {
        let tokens = tokens(&variant);
        for t in &tokens {
            if w.whole.iter().any(|x| x == t) || w.stems.iter().any(|s| t.starts_with(s.as_str())) {
                return Some(t.clone());
            }
        }
        for p in &w.phrases {
            if tokens.windows(p.len()).any(|win| win == p.as_slice()) {
                return Some(p.join(" "));
            }
        }
    }
    None
}

/// Refuses a chat line with a listed word (403 `chat-refused`).
pub fn check_chat_line(text: &str) -> Result<(), ApiError> {
    match offending_word(text) {
        Some(_) => Err(ApiError::Forbidden {
            code: "chat-refused",
            message: "the line was not sent: it has a word this site keeps out of its chats".into(),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insults_are_caught_whatever_their_case_and_turkish_endings() {
        for line in [
            "you IDIOT",
            "what a moron!",
            "Fucking hell",
            "sen bir APTALSIN",
            "aptalsın sen",
            "salak",
            "Şerefsizin biri",
            "geri zekalı",
            "siktir git",
            "AMK",
        ] {
            assert!(offending_word(line).is_some(), "{line}");
        }
    }

    #[test]
    fn ordinary_lines_pass() {
        for line in [
            "good game",
            "iyi oyunlar, tebrikler",
            "Malzeme üstünlüğü bende",
            "I think the position is a draw",
            "İyi şanslar",
            "hıh, güzel hamle",
            "Sikke gibi oynadın",
            "scunthorpe is a town",
        ] {
            assert_eq!(offending_word(line), None, "{line}");
        }
    }
}
