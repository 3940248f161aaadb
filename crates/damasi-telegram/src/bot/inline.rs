//! Inline mode: a person types the bot's name in any chat, and the bot offers a game (with a
//! person, or the engine at a level) whose message is the board.

use damasi::Position;
use damasi_online::now_ms;
use teloxide_core::payloads::AnswerInlineQuerySetters;
use teloxide_core::requests::Requester;
use teloxide_core::types::{
    ChatType, InlineQuery, InlineQueryResult, InlineQueryResultArticle, InputMessageContent,
    InputMessageContentText,
};

use super::{markup, Telegram};
use crate::board::{keyboard, BoardView, Skin, Start};
use crate::offers::{minute_of, NONCE_LEN};
use crate::texts::Text;

impl Telegram {
    /// An inline query: answers with the offers of a game (its message the board, waiting
    /// for a first press), for the control, engine level and rating the query asks for.
    pub(super) async fn inline_query(&self, q: InlineQuery) -> Result<(), String> {
        let (player, settings) = self
            .person(&q.from)
            .await
            .map_err(|e| e.message().to_string())?;
        let lang = Self::lang_of(&q.from, &settings);
        let skin = settings
            .skin
            .clone()
            .unwrap_or_else(|| Skin::Turkish.code().into());
        let asked = parse_query(&q.query, self.inner.config.default_control);
        let group = matches!(q.chat_type, Some(ChatType::Group | ChatType::Supergroup));
        let issued = minute_of(now_ms());
        let start = |level: u8, rated: bool| {
            let nonce =
                damasi_online::accounts::new_secret().map_err(|e| e.message().to_string())?;
            Ok::<_, String>(self.inner.key.sign(Start {
                creator: q.from.id.0 as i64,
                minutes: asked.minutes,
                increment: asked.increment,
                level,
                rated,
                group,
                lang,
                skin: Skin::from_code(&skin).unwrap_or(Skin::Turkish),
                issued,
                nonce: nonce[..NONCE_LEN].to_string(),
                tag: String::new(),
            }))
        };
        let control = match asked.days() {
            Some(days) => lang.say(Text::DaysAMove, &[&days.to_string()]),
            None => format!("{}+{}", asked.minutes, asked.increment),
        };
        let mut results = Vec::new();
        let name = settings.name.as_str();
        let waiting = |start: &Start| {
            let text = if start.level > 0 {
                lang.say(Text::WaitingEngine, &[name, &start.level.to_string()])
            } else {
                lang.say(Text::Waiting, &[name])
            };
            format!("{text}\n⏱ {control}")
        };
        let mut article = |id: &str, title: String, description: String, start: Start| {
            let markup = markup(&keyboard(&BoardView {
                position: &Position::start(),
                flipped: false,
                skin: start.skin,
                picked: None,
                routes: vec![],
                start: Some(start.clone()),
                playing: false,
                draw_offered: false,
                page: None,
                lang,
            }));
            let content = InputMessageContent::Text(InputMessageContentText::new(waiting(&start)));
            results.push(InlineQueryResult::Article(
                InlineQueryResultArticle::new(id, title, content)
                    .description(description)
                    .reply_markup(markup),
            ));
        };
        match asked.level {
            Some(level) => article(
                &format!("e{level}"),
                lang.say(Text::EngineTitle, &[&level.to_string()]),
                control.clone(),
                start(level, false)?,
            ),
            None => {
                article(
                    "p",
                    format!("{} ({control})", lang.text(Text::InlineTitle)),
                    lang.text(Text::InlineDescription).to_string(),
                    start(0, false)?,
                );
                if asked.rated && !player.guest {
                    article(
                        "r",
                        format!("{} ({control})", lang.text(Text::RatedTitle)),
                        lang.text(Text::InlineDescription).to_string(),
                        start(0, true)?,
                    );
                }
                article(
                    "e5",
                    lang.say(Text::EngineTitle, &["5"]),
                    control.clone(),
                    start(5, false)?,
                );
            }
        }
        self.inner
            .bot
            .answer_inline_query(q.id, results)
            .cache_time(0)
            .is_personal(true)
            .await
            .map(|_| ())
            .map_err(|e| format!("answerInlineQuery: {e}"))
    }
}

/// What an inline query asks for: `engine 7`, `3+2` (or `3d`, three days a move), `rated`
/// in any order.
#[derive(Debug, PartialEq, Eq)]
struct Asked {
    /// Minutes each (a correspondence game's days a move in minutes, with no increment: the
    /// online service reads whole days as a correspondence control).
    minutes: u32,
    increment: u32,
    level: Option<u8>,
    rated: bool,
}

/// Minutes in a day.
const DAY_MINUTES: u32 = 24 * 60;

impl Asked {
    /// The days a move, when a correspondence game is asked for.
    pub(super) fn days(&self) -> Option<u32> {
        (self.increment == 0 && self.minutes >= DAY_MINUTES && self.minutes % DAY_MINUTES == 0)
            .then_some(self.minutes / DAY_MINUTES)
    }
}

/// The days of a word such as `3d`, `3g` (gün), `3д`: one of the correspondence controls.
fn days_word(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(['d', 'g', 'д']);
    if digits.len() == word.len() {
        return None;
    }
    let days = digits.parse::<u32>().ok()?;
    damasi_online::CORRESPONDENCE_DAYS
        .contains(&i64::from(days))
        .then_some(days)
}

fn parse_query(text: &str, default: (u32, u32)) -> Asked {
    let mut asked = Asked {
        minutes: default.0,
        increment: default.1,
        level: None,
        rated: false,
    };
    let mut engine = false;
    for word in text.split_whitespace() {
        let w = word.to_lowercase();
        if let Some(days) = days_word(&w) {
            (asked.minutes, asked.increment) = (days * DAY_MINUTES, 0);
        } else if let Some((m, s)) = w.split_once('+') {
            if let (Ok(m), Ok(s)) = (m.parse::<u32>(), s.parse::<u32>()) {
                if (1..=180).contains(&m) && s <= 60 {
                    (asked.minutes, asked.increment) = (m, s);
                }
            }
        } else if ["engine", "motor", "mühərrik", "движок", "bot"].contains(&w.as_str()) {
            engine = true;
        } else if ["rated", "puanlı", "reytinqli", "рейтинг"].contains(&w.as_str()) {
            asked.rated = true;
        } else if let Ok(n) = w.parse::<u8>() {
            if engine && (1..=10).contains(&n) {
                asked.level = Some(n);
            }
        }
    }
    if engine && asked.level.is_none() {
        asked.level = Some(5);
    }
    asked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_queries_ask_for_controls_engines_and_rated_games() {
        let d = (10, 5);
        assert_eq!(
            parse_query("", d),
            Asked {
                minutes: 10,
                increment: 5,
                level: None,
                rated: false
            }
        );
        assert_eq!(
            parse_query("motor 7 3+2", d),
            Asked {
                minutes: 3,
                increment: 2,
                level: Some(7),
                rated: false
            }
        );
        assert_eq!(parse_query("engine", d).level, Some(5));
        assert_eq!(parse_query("engine 11", d).level, Some(5));
        assert!(parse_query("Puanlı 5+0", d).rated);
        // Out of range controls keep the default.
        assert_eq!(parse_query("500+3", d).minutes, 10);
        // Correspondence: days a move, in any of the bot's languages.
        assert_eq!(parse_query("3d", d).days(), Some(3));
        assert_eq!(parse_query("puanlı 14g", d).days(), Some(14));
        assert_eq!(parse_query("7д", d).days(), Some(7));
        assert_eq!(parse_query("4d", d).days(), None);
        assert_eq!(parse_query("", d).days(), None);
    }
}
