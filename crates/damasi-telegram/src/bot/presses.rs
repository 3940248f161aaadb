//! Presses on the buttons of game messages: the offer's first press begins the game, then
//! squares, routes and actions are the players' commands.

use std::sync::Arc;

use damasi::Color;
use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::db::ShownGame;
use damasi_online::error::ApiError;
use damasi_online::{now_ms, NewGame};
use teloxide_core::payloads::AnswerCallbackQuerySetters;
use teloxide_core::requests::Requester;
use teloxide_core::types::{CallbackQuery, User};
use tokio::sync::Mutex;
use tokio::time::Instant;

use super::{lock, refused, MessageSettings, Place, Shown, Telegram, MESSAGE_PREFIX, SERVICE};
use crate::board::{Action, Press, Start};
use crate::game::GameView;
use crate::offers::{offer_expires_ms, Taken};
use crate::texts::{Lang, Text};

impl Telegram {
    pub(super) async fn callback(&self, c: CallbackQuery) -> Result<(), String> {
        let press = c.data.as_deref().and_then(Press::decode);
        let answer = match (press, c.inline_message_id.clone()) {
            // Data the bot did not sign, or an offer too old: nothing is looked up or made.
            (Some(Press::Start(start)), _) if !self.offer_stands(&start) => {
                let lang = Lang::from_code(c.from.language_code.as_deref());
                lang.text(Text::BadOffer).to_string()
            }
            // Data the bot never sends (or sent before offers were signed).
            (None, _) if c.data.as_deref().is_some_and(|d| !d.is_empty()) => {
                let lang = Lang::from_code(c.from.language_code.as_deref());
                lang.text(Text::BadOffer).to_string()
            }
            (Some(Press::Language(l)), _) => self.choose_language(&c.from, l).await,
            (Some(Press::Challenge { game, accept }), _) => {
                self.answer_challenge(&c, &game, accept).await
            }
            (Some(Press::Skin(s)), _) => self.choose_skin(&c.from, s).await,
            (
                Some(Press::Event {
                    action,
                    kind,
                    tournament,
                }),
                _,
            ) => self.event_press(&c.from, action, kind, &tournament).await,
            (Some(press), Some(id)) => self.press(&c.from, &id, press).await,
            // A board the bot sent to a chat (a tournament's game); only inline messages
            // begin games.
            (Some(press), None) if !matches!(press, Press::Start(_)) => match &c.message {
                Some(m) => {
                    let id = Place::board_id(m.chat().id, m.id());
                    self.press(&c.from, &id, press).await
                }
                None => String::new(),
            },
            _ => String::new(),
        };
        let mut request = self.inner.bot.answer_callback_query(c.id);
        if !answer.is_empty() {
            request = request.text(answer);
        }
        request
            .await
            .map(|_| ())
            .map_err(|e| format!("answerCallbackQuery: {e}"))
    }

    /// Whether `start` is an offer the bot made (its tag is right) and can still be taken.
    pub(super) fn offer_stands(&self, start: &Start) -> bool {
        self.inner.key.verify(start) && now_ms() < offer_expires_ms(start)
    }

    /// A press on the game message `id`: what to tell the presser.
    pub(super) async fn press(&self, from: &User, id: &str, press: Press) -> String {
        let (player, settings) = match self.person(from).await {
            Ok(p) => p,
            Err(e) => return refused(Lang::from_code(from.language_code.as_deref()), &e),
        };
        let lang = Self::lang_of(from, &settings);
        let shown = lock(&self.inner.shown).get(id).cloned();
        let shown = match (shown, &press) {
            (Some(shown), _) => shown,
            // A stored message (its game begun before a restart, or over): not begun again.
            (None, Press::Start(start)) => match self.load(id).await {
                Some(shown) => shown,
                None => return self.begin(id, from, &player, lang, start.clone()).await,
            },
            (None, _) => match self.load(id).await {
                Some(shown) => shown,
                None => return lang.text(Text::GameOver).to_string(),
            },
        };
        let mut s = shown.lock().await;
        let answer = self.press_in_game(&mut s, &player, lang, press).await;
        drop(s);
        self.redraw(id);
        answer
    }

    /// The stored message `id` (a game begun before a restart and not looked after since).
    pub(super) async fn load(&self, id: &str) -> Option<Arc<Mutex<Shown>>> {
        let row = self
            .inner
            .online
            .db()
            .shown_game(&format!("{MESSAGE_PREFIX}{id}"))
            .await
            .ok()??;
        let settings = serde_json::from_str(&row.settings).ok()?;
        Some(self.keep(id, row.game_id, settings))
    }

    /// The first press on a message from an inline query: the game begins.
    /// Blocks apply as on the web: nobody begins a game with a person either of them blocks.
    /// Each offer begins one game at most, on one message (its signed data sent again on
    /// another message begins nothing), and a Telegram user begins at most [`BEGIN_BURST`]
    /// games at once, then one every [`BEGIN_EVERY`].
    pub(super) async fn begin(
        &self,
        id: &str,
        from: &User,
        player: &Player,
        lang: Lang,
        start: Start,
    ) -> String {
        let db = self.inner.online.db();
        let creator = match db
            .outside_account(SERVICE, &start.creator.to_string())
            .await
        {
            Ok(Some(a)) => Player::from(a.user),
            Ok(None) => return lang.text(Text::GameOver).to_string(),
            Err(e) => return refused(lang, &e),
        };
        let opponent = if start.level > 0 {
            if player.id != creator.id {
                return lang.say(Text::EngineGameOf, &[&creator.name]);
            }
            match self.engine_player(start.level).await {
                Ok(p) => p,
                Err(e) => return refused(lang, &e),
            }
        } else {
            if player.id == creator.id {
                return lang.text(Text::OwnGame).to_string();
            }
            if start.rated && player.guest {
                return lang.text(Text::RatedNeedsLink).to_string();
            }
            match self
                .inner
                .online
                .relations()
                .either_blocks(creator.id, player.id)
                .await
            {
                Ok(false) => {}
                Ok(true) => return lang.say(Text::Blocked, &[&creator.name]),
                Err(e) => return refused(lang, &e),
            }
            player.clone()
        };
        match lock(&self.inner.used_offers).take(&start, id, now_ms()) {
            Taken::Now => {}
            // Another press on this message is beginning it: it shows the game soon.
            Taken::HereAlready => return String::new(),
            Taken::Elsewhere => return lang.text(Text::BadOffer).to_string(),
            Taken::Full => return lang.text(Text::Busy).to_string(),
        }
        if !lock(&self.inner.begins).allow(from.id.0 as i64, Instant::now()) {
            lock(&self.inner.used_offers).give_back(&start);
            return lang.text(Text::TooManyGames).to_string();
        }
        let new = NewGame {
            initial_ms: i64::from(start.minutes) * 60_000,
            increment_ms: i64::from(start.increment) * 1000,
            rated: start.rated,
            chat: false,
            rules: damasi_online::variant::FEDERATION,
        };
        let table = match self
            .inner
            .online
            .create_paired(&creator, &opponent, new)
            .await
        {
            Ok(t) => t,
            Err(e) => {
                lock(&self.inner.used_offers).give_back(&start);
                return refused(lang, &e);
            }
        };
        let settings = MessageSettings {
            group: start.group,
            level: start.level,
            lang: start.lang.code().to_string(),
            skin: start.skin.code().to_string(),
            event: None,
        };
        let shown = ShownGame {
            message: format!("{MESSAGE_PREFIX}{id}"),
            game_id: table.id.clone(),
            settings: serde_json::to_string(&settings).expect("settings serialize"),
        };
        if let Err(e) = db.add_shown_game(shown).await {
            // Another press began it a moment before: this game is not needed.
            let _ = self
                .inner
                .online
                .run(&table.id, &creator, Command::Abort)
                .await;
            return match e {
                ApiError::Conflict { .. } => String::new(),
                e => {
                    lock(&self.inner.used_offers).give_back(&start);
                    refused(lang, &e)
                }
            };
        }
        self.keep(id, table.id.clone(), settings);
        if start.level > 0 {
            lang.text(Text::PickPiece).to_string()
        } else {
            lang.text(Text::Joined).to_string()
        }
    }

    /// A press on a game's message: a square, a route, an action.
    pub(super) async fn press_in_game(
        &self,
        s: &mut Shown,
        player: &Player,
        lang: Lang,
        press: Press,
    ) -> String {
        let online = &self.inner.online;
        let full = match online.full(&s.game_id, None).await {
            Ok(f) => f,
            Err(e) => return refused(lang, &e),
        };
        let Ok(view) = GameView::from_full(&full) else {
            return lang.text(Text::Busy).to_string();
        };
        let Some(side) = view.side_of(player.id) else {
            let names: Vec<String> = [Color::White, Color::Black]
                .into_iter()
                .map(|c| {
                    view.seat(c)
                        .map_or("?".to_string(), |p| self.display_name(&p.name, s, lang))
                })
                .collect();
            return lang.say(Text::NotYourGame, &[&names[0], &names[1]]);
        };
        let game_id = s.game_id.clone();
        let run = |cmd: Command| online.run(&game_id, player, cmd);
        let action = |cmd: Command| async {
            match online.run(&game_id, player, cmd).await {
                Ok(_) => String::new(),
                Err(e) => refused(lang, &e),
            }
        };
        match press {
            Press::Action(Action::Flip) => {
                s.flipped = !s.flipped;
                String::new()
            }
            Press::Action(Action::Cancel) => {
                s.picked = None;
                s.routes.clear();
                String::new()
            }
            _ if view.outcome.is_some() => lang.text(Text::GameOver).to_string(),
            Press::Action(Action::Resign) => action(Command::Resign).await,
            Press::Action(Action::OfferDraw | Action::AcceptDraw) => {
                action(Command::Draw { yes: true }).await
            }
            Press::Action(Action::DeclineDraw) => action(Command::Draw { yes: false }).await,
            _ if view.turn() != side => lang.text(Text::NotYourTurn).to_string(),
            Press::Route(landing) => {
                if !s.routes.contains(&landing) || s.picked.map(|p| p.0) != Some(player.id) {
                    return lang.text(Text::NotLegal).to_string();
                }
                s.picked = None;
                s.routes.clear();
                match run(Command::Move {
                    text: landing.clone(),
                })
                .await
                {
                    Ok(_) => lang.say(Text::Played, &[&landing]),
                    Err(e) => refused(lang, &e),
                }
            }
            Press::Square(sq) => {
                let picked = s.picked.filter(|p| p.0 == player.id).map(|p| p.1);
                if !view.moves_from(sq).is_empty() {
                    s.picked = Some((player.id, sq));
                    s.routes.clear();
                    return lang.text(Text::PickSquare).to_string();
                }
                let Some(from) = picked else {
                    let t = if view.must_capture() {
                        Text::MustCapture
                    } else {
                        Text::PickPiece
                    };
                    return lang.text(t).to_string();
                };
                let to = sq.to_string();
                let routes: Vec<String> = view
                    .moves_from(from)
                    .into_iter()
                    .filter(|m| m.to == to)
                    .map(|m| m.landing.clone())
                    .collect();
                match routes.len() {
                    0 => lang.text(Text::NotLegal).to_string(),
                    1 => {
                        s.picked = None;
                        match run(Command::Move {
                            text: routes[0].clone(),
                        })
                        .await
                        {
                            Ok(_) => lang.say(Text::Played, &[&routes[0]]),
                            Err(e) => refused(lang, &e),
                        }
                    }
                    _ => {
                        s.routes = routes;
                        lang.text(Text::ChooseRoute).to_string()
                    }
                }
            }
            Press::Start(_) => String::new(),
            Press::Language(_) | Press::Skin(_) | Press::Challenge { .. } => String::new(),
            Press::Event { .. } => String::new(),
        }
    }

    /// How a player is named on the message: the engine by its level, others by account.
    pub(super) fn display_name(&self, name: &str, s: &Shown, lang: Lang) -> String {
        match name.strip_prefix("damasi-level-") {
            Some(level) if s.settings.level > 0 => lang.say(Text::EngineName, &[level]),
            _ => name.to_string(),
        }
    }
}
