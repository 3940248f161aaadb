//! Drawing the messages: their text and keyboard from the game (or the tournament) now, and
//! the edits, each as soon as Telegram's limits allow.

use std::collections::{BTreeSet, HashSet};

use damasi::Color;
use teloxide_core::payloads::{EditMessageTextInlineSetters, EditMessageTextSetters};
use teloxide_core::requests::Requester;
use teloxide_core::types::{ChatId, InlineKeyboardMarkup, MessageId};
use teloxide_core::{ApiError as TgApiError, RequestError};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{lock, markup, page_link, Shown, Telegram};
use crate::board::{keyboard, BoardView};
use crate::edits::Throttle;
use crate::game::{clock_text, GameView};
use crate::texts::Text;

impl Telegram {
    /// The text and keyboard of message `id` now.
    pub(super) async fn render(&self, id: &str) -> Option<(String, InlineKeyboardMarkup)> {
        if lock(&self.inner.events).contains_key(id) {
            return self.render_event(id).await;
        }
        let shown = lock(&self.inner.shown).get(id).cloned()?;
        let s = shown.lock().await.clone();
        self.render_shown(&s).await
    }

    /// The text and keyboard of a game message as `s` shows it now.
    pub(super) async fn render_shown(&self, s: &Shown) -> Option<(String, InlineKeyboardMarkup)> {
        let full = self.inner.online.full(&s.game_id, None).await.ok()?;
        let view = GameView::from_full(&full).ok()?;
        let lang = s.lang();
        let name = |c: Color| {
            view.seat(c).map_or("?".to_string(), |p| {
                let name = self.display_name(&p.name, s, lang);
                // A BOT's title before its name, as lichess shows it.
                match &p.title {
                    Some(title) => format!("{title} {name}"),
                    None => name,
                }
            })
        };
        let mut lines: Vec<String> = s.settings.event.iter().map(|e| format!("🏆 {e}")).collect();
        lines.push(format!(
            "⚪ {} — ⚫ {}{}",
            name(Color::White),
            name(Color::Black),
            if view.rated { " · ★" } else { "" }
        ));
        lines.push(match view.days_per_turn {
            // Correspondence: the turn's time in days and hours, and the control.
            Some(days) => format!(
                "⏱ {} · {} ({})",
                lang.days_hours(view.clocks.white),
                lang.days_hours(view.clocks.black),
                lang.say(Text::DaysAMove, &[&days.to_string()])
            ),
            None => format!(
                "⏱ {} · {}",
                clock_text(view.clocks.white),
                clock_text(view.clocks.black)
            ),
        });
        match &view.outcome {
            Some(o) => lines.push(format!("🏁 {}", lang.outcome(o))),
            None => {
                let turn = view.turn();
                lines.push(lang.say(
                    Text::ToMove,
                    &[&format!("{} ({})", name(turn), lang.color(turn))],
                ));
                if let Some(ms) = view.first_move_ms {
                    lines.push(lang.say(Text::FirstMove, &[&ms.div_ceil(1000).to_string()]));
                }
            }
        }
        if let Some(m) = &view.last_move {
            lines.push(lang.say(Text::LastMove, &[m]));
        }
        if let (Some(c), true) = (view.draw_offer, view.playing()) {
            lines.push(lang.say(Text::DrawOffered, &[&name(c)]));
        }
        let picked = s.picked.map(|(_, sq)| {
            let to = view
                .moves_from(sq)
                .iter()
                .filter_map(|m| m.to.parse().ok())
                .collect();
            (sq, to)
        });
        let page = page_link(&self.inner.config, &self.inner.username, &view.id);
        let board = keyboard(&BoardView {
            position: &view.position,
            flipped: s.flipped,
            skin: s.skin(),
            picked,
            routes: s.routes.clone(),
            start: None,
            playing: view.playing(),
            draw_offered: view.draw_offer.is_some() && view.playing(),
            page,
            lang,
        });
        Some((lines.join("\n"), markup(&board)))
    }

    /// Edits messages as they change, each as soon as Telegram's limits allow, showing the
    /// game as it is at that moment.
    pub(super) async fn edit_messages(self, mut redraws: mpsc::UnboundedReceiver<String>) {
        let mut throttle = Throttle::new(self.inner.config.limits);
        let mut due: BTreeSet<(Instant, String)> = BTreeSet::new();
        // The messages in `due`, each once however often it changes meanwhile.
        let mut scheduled: HashSet<String> = HashSet::new();
        loop {
            let next = due.first().map(|(at, _)| *at);
            tokio::select! {
                got = redraws.recv() => {
                    let Some(id) = got else { return };
                    if scheduled.contains(&id) {
                        continue;
                    }
                    let Some(group) = self.in_group(&id) else { continue };
                    let at = throttle.next_allowed(&Place::throttle_key(&id), group, Instant::now());
                    due.insert((at, id.clone()));
                    scheduled.insert(id);
                }
                _ = sleep_until(next) => {
                    let Some((_, id)) = due.pop_first() else { continue };
                    scheduled.remove(&id);
                    let Some((text, markup)) = self.render(&id).await else { continue };
                    let bot = &self.inner.bot;
                    let sent = match Place::of(&id) {
                        Place::Inline => bot
                            .edit_message_text_inline(id.clone(), text)
                            .reply_markup(markup)
                            .await
                            .map(|_| ()),
                        Place::Chat(chat, message) => bot
                            .edit_message_text(chat, message, text)
                            .reply_markup(markup)
                            .await
                            .map(|_| ()),
                    };
                    let now = Instant::now();
                    match sent {
                        Ok(()) | Err(RequestError::Api(TgApiError::MessageNotModified)) => {
                            throttle.record(&Place::throttle_key(&id), now);
                        }
                        Err(RequestError::RetryAfter(wait)) => {
                            let at = now + wait.duration();
                            due.insert((at, id.clone()));
                            scheduled.insert(id);
                        }
                        Err(e) => eprintln!("damasi-telegram: editing {id}: {e}"),
                    }
                }
            }
        }
    }

    /// Whether message `id` is in a group (the stricter edit limit), if the bot looks after it.
    pub(super) fn in_group(&self, id: &str) -> Option<bool> {
        if lock(&self.inner.events).contains_key(id) {
            return Some(true);
        }
        let shown = lock(&self.inner.shown).get(id).cloned()?;
        Some(shown.try_lock().map(|s| s.settings.group).unwrap_or(true))
    }
}

/// Where a message the bot looks after is. Its id says it: a message sent through inline mode
/// is named by Telegram's `inline_message_id` (which never holds a `:`), and a message the
/// bot sent to a chat by `chat:CHAT:MESSAGE` (a game's board) or `event:CHAT:MESSAGE` (a
/// tournament's message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// An inline message: Telegram does not say in which chat.
    Inline,
    /// A message in a chat.
    Chat(ChatId, MessageId),
}

impl Place {
    pub(super) fn of(id: &str) -> Place {
        let mut parts = id.splitn(3, ':');
        match (parts.next(), parts.next(), parts.next()) {
            (Some("chat" | "event"), Some(chat), Some(message)) => {
                match (chat.parse(), message.parse()) {
                    (Ok(chat), Ok(message)) => Place::Chat(ChatId(chat), MessageId(message)),
                    _ => Place::Inline,
                }
            }
            _ => Place::Inline,
        }
    }

    /// The id of a game's board sent to a chat.
    pub(super) fn board_id(chat: ChatId, message: MessageId) -> String {
        format!("chat:{}:{}", chat.0, message.0)
    }

    /// The id of a tournament's message sent to a chat.
    pub(super) fn event_id(chat: ChatId, message: MessageId) -> String {
        format!("event:{}:{}", chat.0, message.0)
    }

    /// The key of the edits' limits: a group chat's messages share the group's limit; any
    /// other message has its own.
    pub(super) fn throttle_key(id: &str) -> String {
        match Place::of(id) {
            Place::Chat(chat, _) if chat.0 < 0 => format!("chat:{}", chat.0),
            _ => id.to_string(),
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
