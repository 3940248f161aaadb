//! Tournaments inside a Telegram group. An organiser with a linked account sends `/swiss` or
//! `/arena` in the group; the bot makes the tournament with the director (the same event is
//! on the web at its page) and posts one message that shows the entrants, then the live
//! standings, with Join, Leave and Start. Each game of a round appears as a board message,
//! in the group or in its players' private chats (the organiser's choice: `private`), and
//! the final standings are posted in the group at the end.
//!
//! Everything is stored, so a restart picks it up: the tournament's message (`tge:CHAT:MSG`,
//! its settings as JSON), each board (`tg:chat:CHAT:MSG`, looked after like any game
//! message) and the fact that a game's board reached a chat (`tgp:GAME:CHAT`) or that the
//! final standings were posted (`tgf:TOURNAMENT`), so nothing is posted twice.

use std::sync::Arc;
use std::time::Duration;

use damasi_online::accounts::Player;
use damasi_online::db::{ShownEvent, ShownGame};
use damasi_online::error::ApiError;
use damasi_online::messages::EventGame;
use damasi_tournaments::arena::{Arena, ArenaSettings};
use damasi_tournaments::swiss::{Entry, Status, Swiss, SwissSettings, System};
use damasi_tournaments::tiebreak::Tiebreak;
use damasi_tournaments::{NewArena, NewSwiss};
use serde::{Deserialize, Serialize};
use teloxide_core::payloads::SendMessageSetters;
use teloxide_core::requests::Requester;
use teloxide_core::types::{ChatId, InlineKeyboardMarkup, Message, User};
use tokio::sync::broadcast::error::RecvError;

use super::{lock, markup, refused, MessageSettings, Place, Shown, Telegram, MESSAGE_PREFIX};
use crate::board::{Button, ButtonKind, EventAction, EventKind, Press, Skin};
use crate::texts::{Lang, Text};

/// Stored tournament messages: `tge:CHAT:MESSAGE`.
const EVENT_PREFIX: &str = "tge:";
/// A game's board sent to a chat: `tgp:GAME:CHAT`.
const POSTED_PREFIX: &str = "tgp:";
/// A tournament's final standings posted: `tgf:TOURNAMENT`.
const FINAL_PREFIX: &str = "tgf:";

/// Lines of standings a tournament's message shows (the page has them all).
const SHOWN_LINES: usize = 30;

/// The pause between a Swiss round's end and the next pairing, as on the web's form.
const ROUND_PAUSE_MS: i64 = 10_000;

/// A tournament's message in a group, as stored with it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct EventSettings {
    kind: EventKind,
    tournament: String,
    /// The language of the group's messages (the organiser's).
    lang: String,
    /// Boards go to the players' private chats instead of the group.
    private: bool,
}

/// A tournament's message the bot looks after.
#[derive(Debug)]
pub(super) struct GroupEvent {
    settings: EventSettings,
    chat: ChatId,
}

impl GroupEvent {
    fn lang(&self) -> Lang {
        Lang::from_code(Some(&self.settings.lang))
    }
}

/// The tournament of a group's message now: what its message and boards need.
enum State {
    Swiss(Box<Swiss>),
    Arena(Box<Arena>),
}

/// A game in play of a tournament: its id, its players' accounts and its label.
struct InPlay {
    game: String,
    players: [i64; 2],
    label: String,
}

impl State {
    fn name(&self) -> &str {
        match self {
            State::Swiss(s) => &s.settings.name,
            State::Arena(a) => &a.settings.name,
        }
    }

    fn status(&self) -> Status {
        match self {
            State::Swiss(s) => s.status,
            State::Arena(a) => a.status,
        }
    }

    fn organiser(&self) -> &str {
        match self {
            State::Swiss(s) => &s.organiser,
            State::Arena(a) => &a.organiser,
        }
    }

    /// The games being played.
    fn in_play(&self, lang: Lang) -> Vec<InPlay> {
        match self {
            State::Swiss(s) => {
                let Some(round) = s.in_play() else {
                    return Vec::new();
                };
                let user = |n: u32| s.entrants.get(n as usize - 1).map_or(0, |e| e.user);
                let label = format!(
                    "{} · {}",
                    s.settings.name,
                    lang.say(
                        Text::EventRound,
                        &[&round.number.to_string(), &s.nb_rounds().to_string()]
                    )
                );
                round
                    .boards
                    .iter()
                    .filter(|b| b.result.is_none())
                    .filter_map(|b| {
                        Some(InPlay {
                            game: b.game.clone()?,
                            players: [user(b.white), user(b.black)],
                            label: label.clone(),
                        })
                    })
                    .collect()
            }
            State::Arena(a) => a
                .games
                .iter()
                .map(|g| InPlay {
                    game: g.id.clone(),
                    players: [g.white, g.black].map(|i| a.players.get(i).map_or(0, |p| p.user)),
                    label: a.settings.name.clone(),
                })
                .collect(),
        }
    }

    /// The standings' lines (`1. Ali — 2½`), or the entrants' names before the start.
    fn lines(&self) -> Vec<String> {
        let points = |halves: u32| match (halves / 2, halves % 2) {
            (0, 1) => "½".to_string(),
            (p, 1) => format!("{p}½"),
            (p, _) => p.to_string(),
        };
        match self {
            State::Swiss(s) if s.status == Status::Created => {
                s.entrants.iter().map(|e| e.name.clone()).collect()
            }
            State::Swiss(s) => s
                .standings()
                .into_iter()
                .map(|l| {
                    let e = &s.entrants[l.number as usize - 1];
                    format!("{}. {} — {}", l.rank, e.name, points(l.halves))
                })
                .collect(),
            State::Arena(a) if a.status == Status::Created => {
                a.players.iter().map(|p| p.name.clone()).collect()
            }
            State::Arena(a) => a
                .ranking()
                .into_iter()
                .enumerate()
                .map(|(rank, i)| {
                    let p = &a.players[i];
                    let fire = if p.on_fire() { " 🔥" } else { "" };
                    format!("{}. {} — {}{fire}", rank + 1, p.name, p.score)
                })
                .collect(),
        }
    }
}

/// What `/swiss` and `/arena` ask for, read from their words.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Asked {
    minutes: u32,
    increment: u32,
    /// Rounds of a Swiss, minutes of an arena.
    length: u32,
    rated: bool,
    private: bool,
}

/// Reads `/swiss 5+3 7 rated private` (any order; each word optional): the time control, the
/// rounds (a Swiss, 5 if not said) or minutes (an arena, 30), rated (casual if not said), and
/// where the boards go. `None` for a word it does not know.
fn parse_asked(kind: EventKind, args: &[&str]) -> Option<Asked> {
    let mut asked = match kind {
        EventKind::Swiss => Asked {
            minutes: 5,
            increment: 3,
            length: 5,
            rated: false,
            private: false,
        },
        EventKind::Arena => Asked {
            minutes: 3,
            increment: 2,
            length: 30,
            rated: false,
            private: false,
        },
    };
    for word in args {
        let word = word.to_ascii_lowercase();
        if let Some((m, s)) = word.split_once('+') {
            asked.minutes = m.parse().ok()?;
            asked.increment = s.parse().ok()?;
        } else if let Ok(n) = word.parse() {
            asked.length = n;
        } else {
            match word.as_str() {
                "rated" | "puanlı" => asked.rated = true,
                "casual" | "puansız" => asked.rated = false,
                "private" | "özel" => asked.private = true,
                "group" | "grup" => asked.private = false,
                _ => return None,
            }
        }
    }
    Some(asked)
}

/// A tournament's name from its group's title: invisible and control characters left out, at
/// most 60 characters, then the kind.
fn event_name(title: Option<&str>, kind: EventKind) -> String {
    let title: String = title
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_control() && !damasi_tournaments::swiss::is_format(*c))
        .take(60)
        .collect();
    let title = title.trim();
    let kind = match kind {
        EventKind::Swiss => "Swiss",
        EventKind::Arena => "Arena",
    };
    if title.is_empty() {
        format!("Telegram {kind}")
    } else {
        format!("{title} {kind}")
    }
}

impl Telegram {
    /// `/swiss` or `/arena` in a group from `player`: makes the tournament and posts its
    /// message. Answers what to tell the chat when nothing was made.
    pub(super) async fn new_event(
        &self,
        m: &Message,
        player: &Player,
        lang: Lang,
        kind: EventKind,
        args: &[&str],
    ) -> Result<(), String> {
        if m.chat.is_private() || m.chat.is_channel() {
            return Err(lang.text(Text::EventUsage).into());
        }
        let Some(asked) = parse_asked(kind, args) else {
            return Err(lang.text(Text::EventUsage).into());
        };
        if player.guest {
            return Err(lang.text(Text::OrganiseNeedsLink).into());
        }
        let name = event_name(m.chat.title(), kind);
        let tournaments = &self.inner.tournaments;
        let (initial_ms, increment_ms) = (
            i64::from(asked.minutes) * 60_000,
            i64::from(asked.increment) * 1000,
        );
        let made = match kind {
            EventKind::Swiss => {
                let settings = SwissSettings {
                    name,
                    rounds: asked.length,
                    initial_ms,
                    increment_ms,
                    rated: asked.rated,
                    starts_ms: None,
                    round_pause_ms: ROUND_PAUSE_MS,
                    entry: Entry::Anyone,
                    tiebreaks: Tiebreak::FEDERATION.to_vec(),
                    rules: damasi_online::variant::FEDERATION,
                    system: System::Swiss,
                    allow_bots: false,
                };
                let new = NewSwiss {
                    settings,
                    password: None,
                };
                tournaments.create(player, new).await
            }
            EventKind::Arena => {
                let settings = ArenaSettings {
                    name,
                    minutes: asked.length,
                    initial_ms,
                    increment_ms,
                    rated: asked.rated,
                    starts_ms: None,
                    entry: Entry::Anyone,
                    rules: damasi_online::variant::FEDERATION,
                    allow_bots: false,
                };
                let new = NewArena {
                    settings,
                    password: None,
                };
                tournaments.create_arena(player, new).await
            }
        };
        let view = made.map_err(|e| refused(lang, &e))?;
        let tournament = view["id"].as_str().unwrap_or_default().to_string();
        let settings = EventSettings {
            kind,
            tournament,
            lang: lang.code().into(),
            private: asked.private,
        };
        let event = Arc::new(GroupEvent {
            settings,
            chat: m.chat.id,
        });
        let (text, keyboard) = self
            .event_message(&event)
            .await
            .map_err(|e| refused(lang, &e))?;
        let sent = self
            .inner
            .bot
            .send_message(m.chat.id, text)
            .reply_markup(keyboard)
            .await
            .map_err(|e| format!("sendMessage: {e}"))?;
        let key = format!("{EVENT_PREFIX}{}:{}", m.chat.id.0, sent.id.0);
        let row = ShownEvent {
            message: key,
            tournament_id: event.settings.tournament.clone(),
            settings: serde_json::to_string(&event.settings).expect("settings serialize"),
        };
        if let Err(e) = self.inner.online.db().add_shown_event(row).await {
            // The message stays as sent, but would not come back after a restart.
            eprintln!(
                "damasi-telegram: storing a tournament's message: {}",
                e.message()
            );
        }
        self.follow(Place::event_id(m.chat.id, sent.id), event);
        Ok(())
    }

    /// Looks after the tournaments' messages of groups again after a restart (those whose
    /// final standings are not posted yet).
    pub(super) async fn restore_events(&self) -> Result<(), ApiError> {
        let db = self.inner.online.db();
        for row in db.shown_events(EVENT_PREFIX).await? {
            let Some(settings) = serde_json::from_str::<EventSettings>(&row.settings).ok() else {
                eprintln!("damasi-telegram: unreadable settings of {}", row.message);
                continue;
            };
            let final_key = format!("{FINAL_PREFIX}{}", settings.tournament);
            if db.shown_event(&final_key).await?.is_some() {
                continue;
            }
            let id = format!("event:{}", &row.message[EVENT_PREFIX.len()..]);
            let Place::Chat(chat, _) = Place::of(&id) else {
                continue;
            };
            self.follow(id, Arc::new(GroupEvent { settings, chat }));
        }
        Ok(())
    }

    /// Starts looking after the tournament's message `id`: redrawn as the tournament
    /// changes, the boards of its games posted, the final standings at the end.
    fn follow(&self, id: String, event: Arc<GroupEvent>) {
        lock(&self.inner.events).insert(id.clone(), event.clone());
        self.spawn(self.clone().follow_event(id, event));
    }

    async fn follow_event(self, id: String, event: Arc<GroupEvent>) {
        let t = &event.settings.tournament;
        let tournaments = &self.inner.tournaments;
        let watched = match event.settings.kind {
            EventKind::Swiss => tournaments.watch(t).await,
            EventKind::Arena => tournaments.watch_arena(t).await,
        };
        let mut updates = match watched {
            Ok((_, updates)) => updates,
            Err(e) => {
                eprintln!("damasi-telegram: tournament {t}: {}", e.message());
                return;
            }
        };
        loop {
            self.redraw(&id);
            match self.state(&event).await {
                Ok(state) => {
                    self.post_boards(&event, &state).await;
                    if state.status() == Status::Finished {
                        self.post_final(&event, &state).await;
                        // Kept a while for the last redraw and presses.
                        tokio::time::sleep(Duration::from_secs(60)).await;
                        lock(&self.inner.events).remove(&id);
                        return;
                    }
                }
                Err(e) => eprintln!("damasi-telegram: tournament {t}: {}", e.message()),
            }
            match updates.recv().await {
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => return,
            }
        }
    }

    async fn state(&self, event: &GroupEvent) -> Result<State, ApiError> {
        let (t, tournaments) = (&event.settings.tournament, &self.inner.tournaments);
        Ok(match event.settings.kind {
            EventKind::Swiss => State::Swiss(Box::new(tournaments.get(t).await?)),
            EventKind::Arena => State::Arena(Box::new(tournaments.get_arena(t).await?)),
        })
    }

    /// Posts a board for each game in play that has none where it goes yet: in the group, or
    /// in each player's private chats with the bot.
    async fn post_boards(&self, event: &GroupEvent, state: &State) {
        let db = self.inner.online.db();
        for game in state.in_play(event.lang()) {
            let mut places = Vec::new();
            if event.settings.private {
                for user in game.players {
                    for (chat, _, lang) in self.linked_chats(user).await {
                        places.push((ChatId(chat), lang));
                    }
                }
            } else {
                places.push((event.chat, event.lang()));
            }
            for (chat, lang) in places {
                let posted = format!("{POSTED_PREFIX}{}:{}", game.game, chat.0);
                match db.shown_game(&posted).await {
                    Ok(None) => {}
                    Ok(Some(_)) => continue,
                    Err(e) => {
                        eprintln!("damasi-telegram: board of {}: {}", game.game, e.message());
                        continue;
                    }
                }
                if let Err(e) = self.post_board(&game, chat, lang).await {
                    eprintln!("damasi-telegram: board of {} in {}: {e}", game.game, chat.0);
                    continue;
                }
                let row = ShownGame {
                    message: posted,
                    game_id: game.game.clone(),
                    settings: "{}".into(),
                };
                if let Err(e) = db.add_shown_game(row).await {
                    eprintln!("damasi-telegram: board of {}: {}", game.game, e.message());
                }
            }
        }
    }

    /// Sends `game`'s board to `chat` and looks after it as after any game message.
    async fn post_board(&self, game: &InPlay, chat: ChatId, lang: Lang) -> Result<(), String> {
        let settings = MessageSettings {
            group: chat.0 < 0,
            level: 0,
            lang: lang.code().into(),
            skin: Skin::Turkish.code().into(),
            event: Some(game.label.clone()),
        };
        let shown = Shown {
            game_id: game.game.clone(),
            settings: settings.clone(),
            picked: None,
            routes: Vec::new(),
            flipped: false,
            thinking: false,
        };
        let (text, keyboard) = self
            .render_shown(&shown)
            .await
            .ok_or("the game cannot be read")?;
        let sent = self
            .inner
            .bot
            .send_message(chat, text)
            .reply_markup(keyboard)
            .await
            .map_err(|e| format!("sendMessage: {e}"))?;
        let id = Place::board_id(chat, sent.id);
        let row = ShownGame {
            message: format!("{MESSAGE_PREFIX}{id}"),
            game_id: game.game.clone(),
            settings: serde_json::to_string(&settings).expect("settings serialize"),
        };
        self.inner
            .online
            .db()
            .add_shown_game(row)
            .await
            .map_err(|e| e.message().to_string())?;
        self.keep(&id, game.game.clone(), settings);
        Ok(())
    }

    /// Posts the final standings in the group, once.
    async fn post_final(&self, event: &GroupEvent, state: &State) {
        let db = self.inner.online.db();
        let key = format!("{FINAL_PREFIX}{}", event.settings.tournament);
        if !matches!(db.shown_event(&key).await, Ok(None)) {
            return;
        }
        let lang = event.lang();
        let mut lines = vec![lang.say(Text::FinalStandings, &[state.name()])];
        lines.extend(state.lines().into_iter().take(SHOWN_LINES));
        let mut message = self.inner.bot.send_message(event.chat, lines.join("\n"));
        if let Some(page) = self.event_page(event) {
            message = message.reply_markup(markup(&[vec![Button::web(lang, page)]]));
        }
        if let Err(e) = message.await {
            eprintln!("damasi-telegram: final standings: {e}");
            return;
        }
        let row = ShownEvent {
            message: key,
            tournament_id: event.settings.tournament.clone(),
            settings: "{}".into(),
        };
        if let Err(e) = db.add_shown_event(row).await {
            eprintln!("damasi-telegram: final standings: {}", e.message());
        }
    }

    /// The tournament's page on the site, if the bot knows the site's address.
    fn event_page(&self, event: &GroupEvent) -> Option<String> {
        let site = self
            .inner
            .config
            .public_url
            .as_deref()?
            .trim_end_matches('/');
        let path = match event.settings.kind {
            EventKind::Swiss => "swiss",
            EventKind::Arena => "tournament",
        };
        Some(format!("{site}/{path}/{}", event.settings.tournament))
    }

    /// The text and keyboard of the tournament's message `id` now.
    pub(super) async fn render_event(&self, id: &str) -> Option<(String, InlineKeyboardMarkup)> {
        let event = lock(&self.inner.events).get(id).cloned()?;
        self.event_message(&event).await.ok()
    }

    async fn event_message(
        &self,
        event: &GroupEvent,
    ) -> Result<(String, InlineKeyboardMarkup), ApiError> {
        let state = self.state(event).await?;
        let lang = event.lang();
        let (control, length, rated) = match &state {
            State::Swiss(s) => (
                (s.settings.initial_ms, s.settings.increment_ms),
                lang.say(Text::EventRounds, &[&s.nb_rounds().to_string()]),
                s.settings.rated,
            ),
            State::Arena(a) => (
                (a.settings.initial_ms, a.settings.increment_ms),
                lang.say(Text::EventMinutes, &[&a.settings.minutes.to_string()]),
                a.settings.rated,
            ),
        };
        let mut lines = vec![
            format!("🏆 {}", state.name()),
            format!(
                "⏱ {}+{} · {length} · {}",
                control.0 / 60_000,
                control.1 / 1000,
                lang.text(if rated {
                    Text::RatedEvent
                } else {
                    Text::CasualEvent
                })
            ),
        ];
        lines.push(match (&state, state.status()) {
            (_, Status::Created) => lang.say(Text::EventWaiting, &[state.organiser()]),
            (_, Status::Finished) => lang.text(Text::EventFinished).into(),
            (State::Swiss(s), _) => lang.say(
                Text::EventRound,
                &[&s.rounds.len().to_string(), &s.nb_rounds().to_string()],
            ),
            (State::Arena(a), _) => {
                let left = a
                    .ends_ms
                    .map_or(0, |e| (e - damasi_online::now_ms()).max(0));
                lang.say(
                    Text::EventEndsIn,
                    &[&(left as u64).div_ceil(60_000).to_string()],
                )
            }
        });
        let names = state.lines();
        lines.push(String::new());
        lines.push(if state.status() == Status::Created {
            lang.say(Text::EventPlayers, &[&names.len().to_string()])
        } else {
            lang.text(Text::EventStandings).into()
        });
        lines.extend(names.iter().take(SHOWN_LINES).cloned());
        if names.len() > SHOWN_LINES {
            lines.push("…".into());
        }
        lines.push(String::new());
        lines.push(if event.settings.private {
            lang.say(Text::BoardsInPrivate, &[&self.inner.username])
        } else {
            lang.text(Text::BoardsInGroup).into()
        });
        let mut rows = Vec::new();
        if state.status() != Status::Finished {
            let press = |action: EventAction, text: Text| Button {
                text: lang.text(text).into(),
                kind: ButtonKind::Press(
                    Press::Event {
                        action,
                        kind: event.settings.kind,
                        tournament: event.settings.tournament.clone(),
                    }
                    .encode(),
                ),
            };
            rows.push(vec![
                press(EventAction::Join, Text::JoinEvent),
                press(EventAction::Leave, Text::LeaveEvent),
            ]);
            if state.status() == Status::Created {
                rows.push(vec![press(EventAction::Start, Text::StartEvent)]);
            }
        }
        if let Some(page) = self.event_page(event) {
            rows.push(vec![Button::web(lang, page)]);
        }
        Ok((lines.join("\n"), markup(&rows)))
    }

    /// A press on a tournament's message: join, leave, or (the organiser) start.
    pub(super) async fn event_press(
        &self,
        from: &User,
        action: EventAction,
        kind: EventKind,
        tournament: &str,
    ) -> String {
        let (player, settings) = match self.person(from).await {
            Ok(p) => p,
            Err(e) => return refused(Lang::from_code(from.language_code.as_deref()), &e),
        };
        let lang = Self::lang_of(from, &settings);
        let t = &self.inner.tournaments;
        let done = match (action, kind) {
            (EventAction::Join, EventKind::Swiss) => t.join(tournament, &player, None).await,
            (EventAction::Join, EventKind::Arena) => t.join_arena(tournament, &player, None).await,
            (EventAction::Leave, EventKind::Swiss) => t.withdraw(tournament, &player).await,
            (EventAction::Leave, EventKind::Arena) => t.pause_arena(tournament, &player).await,
            (EventAction::Start, EventKind::Swiss) => {
                t.begin_next_round(tournament, &player).await.map(|_| ())
            }
            (EventAction::Start, EventKind::Arena) => t.start_arena(tournament, &player).await,
        };
        match done {
            Ok(()) => lang
                .text(match action {
                    EventAction::Join => Text::EventJoined,
                    EventAction::Leave => Text::EventLeft,
                    EventAction::Start => Text::EventStarted,
                })
                .into(),
            Err(e) => refused(lang, &e),
        }
    }

    /// Whether `game` is a game of a tournament whose boards go to its players' private
    /// chats from here (its private notice would say the same again).
    pub(super) fn boards_go_private(&self, game: &EventGame) -> bool {
        let Some(tournament) = game.swiss_id.as_ref().or(game.tournament_id.as_ref()) else {
            return false;
        };
        lock(&self.inner.events)
            .values()
            .any(|e| e.settings.private && &e.settings.tournament == tournament)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commands_words_are_read_in_any_order() {
        let a = parse_asked(EventKind::Swiss, &["7", "rated", "3+2"]).unwrap();
        assert_eq!(
            a,
            Asked {
                minutes: 3,
                increment: 2,
                length: 7,
                rated: true,
                private: false
            }
        );
        let d = parse_asked(EventKind::Arena, &[]).unwrap();
        assert_eq!(
            (d.minutes, d.increment, d.length, d.rated),
            (3, 2, 30, false)
        );
        assert!(parse_asked(EventKind::Arena, &["private"]).unwrap().private);
        assert_eq!(parse_asked(EventKind::Swiss, &["five"]), None);
        assert_eq!(parse_asked(EventKind::Swiss, &["5+x"]), None);
    }

    #[test]
    fn names_come_from_the_groups_title_without_invisible_characters() {
        assert_eq!(
            event_name(Some("Kadıköy Dama\u{202E}"), EventKind::Swiss),
            "Kadıköy Dama Swiss"
        );
        assert_eq!(event_name(None, EventKind::Arena), "Telegram Arena");
        let long = "x".repeat(100);
        assert_eq!(
            event_name(Some(&long), EventKind::Arena).chars().count(),
            60 + " Arena".len()
        );
    }
}
