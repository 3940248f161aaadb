//! What the bot tells a person in their private chat about their linked account: a
//! correspondence game waiting for their move, a tournament's game that has begun (with its
//! page), and a direct challenge with Accept and Decline.

use std::sync::Arc;

use damasi_online::command::Command;
use damasi_online::error::ApiError;
use damasi_online::messages::YourTurn;
use damasi_online::messages::{TimeControl, UserEvent};
use damasi_online::now_ms;
use teloxide_core::payloads::{EditMessageReplyMarkupSetters, SendMessageSetters};
use teloxide_core::requests::Requester;
use teloxide_core::types::{CallbackQuery, ChatId, MaybeInaccessibleMessage};
use tokio::sync::broadcast;

use super::{markup, page_link, refused, PersonSettings, Telegram, SERVICE};
use crate::board::{Button, ButtonKind, Press};
use crate::texts::{Lang, Text};

impl Telegram {
    /// Tells the Telegram users tied to an account (by `/link`, or the bot's own `tg-`
    /// accounts) that a correspondence game waits for their move: a message in their private
    /// chat with the bot, with the opponent's move, the time left and the game's page. Live
    /// games send none (see [`YourTurn`]).
    pub(super) async fn tell_turns(self, mut turns: broadcast::Receiver<YourTurn>) {
        loop {
            match turns.recv().await {
                Ok(turn) => {
                    let me = self.clone();
                    self.spawn(async move { me.tell_turn(turn).await });
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    eprintln!("damasi-telegram: {n} turn notices missed (too many at once)");
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    }

    async fn tell_turn(&self, turn: YourTurn) {
        for (chat, outside_id, lang) in self.linked_chats(turn.player).await {
            let opponent = turn.opponent.as_deref().unwrap_or("?");
            let mut lines = vec![lang.say(Text::YourMove, &[opponent])];
            if let Some(m) = &turn.last_move {
                lines.push(lang.say(Text::LastMove, &[m]));
            }
            let left = (turn.deadline_ms - now_ms()).max(0) as u64;
            lines.push(format!(
                "{} ({})",
                lang.say(Text::TimeLeft, &[&lang.days_hours(left)]),
                lang.say(Text::DaysAMove, &[&turn.days_per_turn.to_string()])
            ));
            let mut message = self.inner.bot.send_message(ChatId(chat), lines.join("\n"));
            if let Some(url) = &self.inner.config.public_url {
                let page = format!("{}/online/{}", url.trim_end_matches('/'), turn.id);
                message = message.reply_markup(markup(&[vec![Button::web(lang, page)]]));
            }
            // A person who never opened a chat with the bot cannot be written to: Telegram
            // refuses, and that is all.
            if let Err(e) = message.await {
                eprintln!("damasi-telegram: telling {outside_id} of {}: {e}", turn.id);
            }
        }
    }

    /// Tells the Telegram users tied to an account of its events that happen away from
    /// Telegram: a tournament's game that has begun (the round was paired while they were
    /// not on the site), and a direct challenge, with buttons to accept or decline it.
    pub(super) async fn tell_events(self, mut events: broadcast::Receiver<(i64, Arc<UserEvent>)>) {
        loop {
            match events.recv().await {
                Ok((user, event)) if worth_telling(&event) => {
                    let me = self.clone();
                    self.spawn(async move { me.tell_event(user, &event).await });
                }
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    eprintln!("damasi-telegram: {n} account events missed (too many at once)");
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    }

    async fn tell_event(&self, user: i64, event: &UserEvent) {
        if let UserEvent::GameStart { game } = event {
            if self.boards_go_private(game) {
                return;
            }
        }
        for (chat, outside_id, lang) in self.linked_chats(user).await {
            let (text, mut rows) = match event {
                UserEvent::GameStart { game } => {
                    let opponent = game.opponent.username.as_deref().unwrap_or("?");
                    (lang.say(Text::EventGameBegun, &[opponent]), Vec::new())
                }
                UserEvent::Challenge { challenge } => {
                    let from = challenge
                        .challenger
                        .as_ref()
                        .map_or("?", |c| c.name.as_str());
                    let control = match &challenge.time_control {
                        TimeControl::Clock { show, .. } => show.clone(),
                        TimeControl::Correspondence { days_per_turn } => {
                            lang.say(Text::DaysAMove, &[&days_per_turn.to_string()])
                        }
                    };
                    let answer = |accept: bool, text: Text| Button {
                        text: lang.text(text).into(),
                        kind: ButtonKind::Press(
                            Press::Challenge {
                                game: challenge.id.clone(),
                                accept,
                            }
                            .encode(),
                        ),
                    };
                    (
                        lang.say(Text::ChallengeFrom, &[from, &control]),
                        vec![vec![
                            answer(true, Text::AcceptChallenge),
                            answer(false, Text::DeclineChallenge),
                        ]],
                    )
                }
                _ => continue,
            };
            let game = match event {
                UserEvent::GameStart { game } => Some(game.game_id.as_str()),
                _ => None,
            };
            if let Some(link) =
                game.and_then(|g| page_link(&self.inner.config, &self.inner.username, g))
            {
                rows.push(vec![Button::web(lang, link)]);
            }
            let mut message = self.inner.bot.send_message(ChatId(chat), text);
            if !rows.is_empty() {
                message = message.reply_markup(markup(&rows));
            }
            // A person who never opened a chat with the bot cannot be written to: Telegram
            // refuses, and that is all.
            if let Err(e) = message.await {
                eprintln!("damasi-telegram: telling {outside_id} of an event: {e}");
            }
        }
    }

    /// A press on a challenge's Accept or Decline in the private chat: only the account
    /// challenged may answer (the online core checks it), and the buttons go once answered.
    pub(super) async fn answer_challenge(
        &self,
        c: &CallbackQuery,
        game: &str,
        accept: bool,
    ) -> String {
        let (player, settings) = match self.person(&c.from).await {
            Ok(p) => p,
            Err(e) => return refused(Lang::from_code(c.from.language_code.as_deref()), &e),
        };
        let lang = Self::lang_of(&c.from, &settings);
        let online = &self.inner.online;
        let answered = if accept {
            online.join(game, &player, None).await.map(|_| ())
        } else {
            let decline = Command::Decline {
                reason: "generic".into(),
            };
            online.run(game, &player, decline).await.map(|_| ())
        };
        if let Err(e) = answered {
            // Withdrawn, expired or answered on the web meanwhile: its buttons go.
            if matches!(e, ApiError::NotFound(_) | ApiError::Conflict { .. }) {
                self.replace_buttons(c, Vec::new()).await;
            }
            return refused(lang, &e);
        }
        // The answered message keeps its text and loses its buttons; an accepted game's page
        // is offered in their place.
        let rows = match (
            accept,
            page_link(&self.inner.config, &self.inner.username, game),
        ) {
            (true, Some(link)) => vec![vec![Button::web(lang, link)]],
            _ => Vec::new(),
        };
        self.replace_buttons(c, rows).await;
        lang.text(if accept {
            Text::ChallengeAccepted
        } else {
            Text::ChallengeDeclined
        })
        .to_string()
    }
}

impl Telegram {
    /// The private chats of the Telegram users tied to account `user`: each one's chat id,
    /// Telegram id and the language they chose (English if none).
    pub(super) async fn linked_chats(&self, user: i64) -> Vec<(i64, String, Lang)> {
        let db = self.inner.online.db();
        let ids = match db.outside_ids_of(SERVICE, user).await {
            Ok(ids) => ids,
            Err(e) => {
                eprintln!(
                    "damasi-telegram: who to tell of account {user}: {}",
                    e.message()
                );
                return Vec::new();
            }
        };
        let mut chats = Vec::new();
        for outside_id in ids {
            let Ok(chat) = outside_id.parse::<i64>() else {
                continue;
            };
            let settings: PersonSettings = match db.outside_account(SERVICE, &outside_id).await {
                Ok(Some(a)) => serde_json::from_str(&a.settings).unwrap_or_default(),
                _ => PersonSettings::default(),
            };
            chats.push((chat, outside_id, Lang::from_code(settings.lang.as_deref())));
        }
        chats
    }

    /// Puts `rows` under the message that the press `c` came from (none: no buttons).
    async fn replace_buttons(&self, c: &CallbackQuery, rows: Vec<Vec<Button>>) {
        let Some(MaybeInaccessibleMessage::Regular(m)) = &c.message else {
            return;
        };
        let edit = self
            .inner
            .bot
            .edit_message_reply_markup(m.chat.id, m.id)
            .reply_markup(markup(&rows));
        if let Err(e) = edit.await {
            eprintln!("damasi-telegram: the answered challenge's buttons: {e}");
        }
    }
}

/// Whether an account's event is told in Telegram: a tournament's game that begins (other
/// games begin where the person is already looking), and a challenge waiting for an answer.
fn worth_telling(event: &UserEvent) -> bool {
    match event {
        UserEvent::GameStart { game } => game.source == "swiss" || game.source == "arena",
        UserEvent::Challenge { challenge } => challenge.status == "created",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damasi_online::messages::ChallengeRef;

    #[test]
    fn only_tournament_games_and_open_challenges_are_told() {
        let start = |source: &str| {
            let line = format!(
                r#"{{"type":"gameStart","game":{{"gameId":"g1","fullId":"g1","id":"g1","color":"white",
                "fen":"W:W:B","hasMoved":false,"isMyTurn":true,"lastMove":null,"secondsLeft":60,
                "opponent":{{"id":"b","username":"B","rating":null}},"rated":true,"speed":"bullet",
                "perf":"bullet","source":"{source}","status":{{"name":"started"}},"outcome":null,
                "winner":null,"variant":{{"key":"standard","name":"Standard","rules":"turkish",
                "noCaptureLimit":null,"kingBeatsLoneMan":false}},"compat":{{"bot":true,"board":true}}}}}}"#
            );
            serde_json::from_str::<UserEvent>(&line).unwrap()
        };
        assert!(worth_telling(&start("swiss")));
        assert!(worth_telling(&start("arena")));
        assert!(!worth_telling(&start("lobby")));
        assert!(!worth_telling(&start("friend")));
        let canceled = UserEvent::ChallengeCanceled {
            challenge: ChallengeRef {
                id: "g1".into(),
                status: "canceled".into(),
            },
        };
        assert!(!worth_telling(&canceled));
    }
}
