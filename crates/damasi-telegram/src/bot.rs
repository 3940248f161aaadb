//! The bot: it long-polls Telegram for updates, turns inline queries into game messages,
//! button presses into the online service's commands, and each game's events into edits of
//! its message (as often as Telegram allows). Every game is an online game of the server:
//! stored, rated when both players have linked accounts, watched on its web page, and
//! resumed after a restart, when the message is redrawn from the stored game.
//!
//! This file holds the bot's state, its terms (one process of a cluster runs it, see
//! [`damasi_online::frontend`]), the polling and the games' watchers; the rest is by area:
//! `inline` (the offers), `presses` (buttons on game messages), `drawing` (texts, keyboards
//! and the throttled edits), `commands` (chat commands), `notices` (what a linked account
//! hears in its private chat) and `events` (tournaments inside a group).

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use damasi::{RuleSet, Square};
use damasi_online::accounts::{Api, Player};
use damasi_online::brain::Brain;
use damasi_online::error::ApiError;
use damasi_online::frontend::{EngineSeat, Term};
use damasi_online::messages::{GameFull, GameMessage, GameState};
use damasi_online::{now_ms, Online};
use damasi_tournaments::Tournaments;
use serde::{Deserialize, Serialize};
use teloxide_core::payloads::GetUpdatesSetters;
use teloxide_core::requests::Requester;
use teloxide_core::types::{
    AllowedUpdate, InlineKeyboardButton, InlineKeyboardMarkup, UpdateKind, User,
};
use teloxide_core::Bot;
use tokio::sync::{mpsc, watch, Mutex};

use crate::board::{Button, ButtonKind, Skin};
use crate::edits::EditLimits;
use crate::game::GameView;
use crate::offers::{BeginLimit, PressKey, UsedOffers};
use crate::texts::{Lang, Text};

mod commands;
mod drawing;
mod events;
mod inline;
mod presses;

use drawing::Place;
mod notices;

/// The service name of Telegram accounts and the prefix of its messages in the database.
const SERVICE: &str = damasi_online::accounts::TELEGRAM;
const MESSAGE_PREFIX: &str = "tg:";

/// How to run the bot.
#[derive(Clone, Debug)]
pub struct TelegramConfig {
    /// The bot's token from BotFather.
    pub token: String,
    /// Another Bot API server (the self-hosted `telegram-bot-api`, or a test's stand-in);
    /// Telegram's own when `None`.
    pub api_url: Option<String>,
    /// The site's public address (`https://dama.example`), for the button that opens a
    /// game's page; no such button without it.
    pub public_url: Option<String>,
    /// The short name of the bot's Mini App (BotFather's `/newapp`, its address the site's
    /// `/online`): the button then opens the game's page inside Telegram, logged in as the
    /// presser (`t.me/BOT/APP?startapp=GAME`), instead of in a browser.
    pub mini_app: Option<String>,
    /// How long one `getUpdates` waits for news.
    pub poll_timeout: Duration,
    /// Telegram's limits on edits.
    pub limits: EditLimits,
    /// The default time control of a game from an inline query (minutes, seconds added).
    pub default_control: (u32, u32),
}

impl TelegramConfig {
    /// The settings for `token`, with Telegram's server and a 10+5 default control.
    pub fn new(token: impl Into<String>) -> TelegramConfig {
        TelegramConfig {
            token: token.into(),
            api_url: None,
            public_url: None,
            mini_app: None,
            poll_timeout: Duration::from_secs(25),
            limits: EditLimits::default(),
            default_control: (10, 5),
        }
    }
}

/// Why the bot could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The API address is not a URL.
    #[error("--telegram-api-url: {0}")]
    BadUrl(String),
    /// Telegram refused the token or could not be reached.
    #[error("Telegram's getMe failed (is the token right?): {0}")]
    GetMe(String),
    /// The database could not be read.
    #[error("reading the Telegram games: {0}")]
    Database(String),
}

/// A person's settings, kept with their account (`outside_accounts.settings`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct PersonSettings {
    /// Their first name in Telegram.
    #[serde(default)]
    name: String,
    /// The language they chose (`tr`, ...), else their app's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lang: Option<String>,
    /// The skin they chose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    skin: Option<String>,
}

/// A game message's settings, stored with it (`shown_games.settings`).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct MessageSettings {
    /// Sent from an inline query in a group (the stricter edit limit).
    group: bool,
    /// The engine's level, 0 for a game between people.
    level: u8,
    /// The message's language.
    lang: String,
    /// The message's skin.
    skin: String,
    /// The tournament game's label (`name · round 2`), shown above the players; none for
    /// other games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    event: Option<String>,
}

/// What the bot keeps of one game message between presses.
#[derive(Clone, Debug)]
struct Shown {
    game_id: String,
    settings: MessageSettings,
    /// The piece a player picked: the player's account and the square.
    picked: Option<(i64, Square)>,
    /// Routes offered to the picker when several end on the pressed square.
    routes: Vec<String>,
    flipped: bool,
    /// The engine is thinking in this game.
    thinking: bool,
}

impl Shown {
    fn lang(&self) -> Lang {
        Lang::ALL
            .into_iter()
            .find(|l| l.code() == self.settings.lang)
            .unwrap_or(Lang::En)
    }

    fn skin(&self) -> Skin {
        Skin::from_code(&self.settings.skin).unwrap_or(Skin::Turkish)
    }
}

/// The running bot; cheap to clone.
#[derive(Clone)]
pub struct Telegram {
    inner: Arc<Inner>,
}

struct Inner {
    online: Online,
    brain: Brain,
    /// The tournament director, for the events run inside groups.
    tournaments: Tournaments,
    bot: Bot,
    config: TelegramConfig,
    username: String,
    /// Game messages by their id ([`Place`]), each behind its own lock so presses on one
    /// message are handled in order and other messages never wait.
    shown: StdMutex<HashMap<String, Arc<Mutex<Shown>>>>,
    /// The tournaments' messages in groups, by their id ([`Place`]).
    events: StdMutex<HashMap<String, Arc<events::GroupEvent>>>,
    /// Messages to redraw.
    redraw: mpsc::UnboundedSender<String>,
    /// Their receiver, until the term begins.
    redraws: StdMutex<Option<mpsc::UnboundedReceiver<String>>>,
    /// Engine accounts by level.
    engines: Mutex<HashMap<u8, Player>>,
    /// Set when the term ends (another process took the bot over): its tasks stop.
    stopped: watch::Receiver<bool>,
    /// Signs the data of the buttons that begin games.
    key: PressKey,
    /// The offers that began games (see [`UsedOffers`]).
    used_offers: StdMutex<UsedOffers>,
    /// How many games each Telegram user may still begin.
    begins: StdMutex<BeginLimit>,
}

/// Games one Telegram user may begin at once by pressing, then one more every
/// [`BEGIN_EVERY`] (against the engine or a person).
pub const BEGIN_BURST: u32 = 5;

/// How often a Telegram user may begin one more game once [`BEGIN_BURST`] are spent.
pub const BEGIN_EVERY: Duration = Duration::from_secs(30);

/// Most offers remembered as taken (far more than are begun within their lifetime at
/// [`BEGIN_EVERY`] per person).
const USED_OFFERS_KEPT: usize = 200_000;

/// Most Telegram users whose begun games are counted at once.
const BEGINS_COUNTED: usize = 100_000;

/// The role of the process that runs the bot ([`Online::hold_role`]): Telegram gives a bot's
/// updates to one poller, so one process of a cluster runs it at a time.
pub const ROLE: &str = "telegram";

/// Where a game message's web button goes: the Mini App `app` of bot `bot` on the game (the
/// page inside Telegram, logged in), or the game's page on the site, or nowhere.
fn page_link(config: &TelegramConfig, bot: &str, game: &str) -> Option<String> {
    match (&config.mini_app, &config.public_url) {
        (Some(app), _) => Some(format!("https://t.me/{bot}/{app}?startapp={game}")),
        (None, Some(u)) => Some(format!("{}/online/{game}", u.trim_end_matches('/'))),
        (None, None) => None,
    }
}

fn lock<T>(m: &StdMutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Telegram {
    /// Starts the bot on `online`'s games with `brain`'s engines: checks the token
    /// (`getMe`); then, in the process that holds the bot's role ([`ROLE`]; a process alone
    /// always does), redraws the messages of the games not over and polls for updates until
    /// the process ends. Among several processes the others wait, and one of them takes the
    /// bot over within a lease once the holder is gone.
    /// Tournaments run inside groups (`/swiss`, `/arena`) are `tournaments`'s.
    pub async fn start(
        online: Online,
        brain: Brain,
        tournaments: Tournaments,
        config: TelegramConfig,
    ) -> Result<Telegram, StartError> {
        let client = teloxide_core::net::default_reqwest_settings()
            .timeout(config.poll_timeout + Duration::from_secs(15))
            .build()
            .map_err(|e| StartError::GetMe(e.to_string()))?;
        let mut bot = Bot::with_client(config.token.clone(), client);
        if let Some(url) = &config.api_url {
            let url =
                url::Url::parse(url).map_err(|e| StartError::BadUrl(format!("{url}: {e}")))?;
            bot = bot.set_api_url(url);
        }
        let me = bot
            .get_me()
            .await
            .map_err(|e| StartError::GetMe(e.to_string()))?;
        let username = me.user.username.clone().unwrap_or_default();
        let (stop, stopped) = watch::channel(false);
        let parts = (online, brain, tournaments);
        let telegram = Telegram::term(parts, bot, config, username, stopped);
        let db_error = |e: ApiError| StartError::Database(e.message().to_string());
        let mut terms = telegram.inner.online.lead(ROLE).await.map_err(db_error)?;
        if terms.borrow_and_update().is_some() {
            telegram.begin_term().await.map_err(db_error)?;
        } else {
            eprintln!(
                "damasi-telegram: another process runs the bot; this one takes over if it stops"
            );
        }
        tokio::spawn(telegram.clone().lead(stop, terms));
        Ok(telegram)
    }

    /// A term of the bot in this process: everything it keeps, ended by `stopped`.
    fn term(
        (online, brain, tournaments): (Online, Brain, Tournaments),
        bot: Bot,
        config: TelegramConfig,
        username: String,
        stopped: watch::Receiver<bool>,
    ) -> Telegram {
        let (redraw, redraws) = mpsc::unbounded_channel();
        let key = PressKey::from_token(&config.token);
        Telegram {
            inner: Arc::new(Inner {
                online,
                brain,
                tournaments,
                bot,
                config,
                username,
                shown: StdMutex::new(HashMap::new()),
                events: StdMutex::new(HashMap::new()),
                redraw,
                redraws: StdMutex::new(Some(redraws)),
                engines: Mutex::new(HashMap::new()),
                stopped,
                key,
                used_offers: StdMutex::new(UsedOffers::new(USED_OFFERS_KEPT)),
                begins: StdMutex::new(BeginLimit::new(BEGIN_BURST, BEGIN_EVERY, BEGINS_COUNTED)),
            }),
        }
    }

    /// Begins the term: the messages of the games not over are looked after again, and the
    /// turns, the edits and the polling start.
    async fn begin_term(&self) -> Result<(), ApiError> {
        let unfinished = self
            .inner
            .online
            .db()
            .shown_unfinished(MESSAGE_PREFIX)
            .await?;
        for row in unfinished {
            let Some(settings) = serde_json::from_str(&row.settings).ok() else {
                eprintln!("damasi-telegram: unreadable settings of {}", row.message);
                continue;
            };
            let id = row.message[MESSAGE_PREFIX.len()..].to_string();
            self.keep(&id, row.game_id, settings);
        }
        self.restore_events().await?;
        let turns = self.inner.online.your_turns();
        self.spawn(self.clone().tell_turns(turns));
        let events = self.inner.online.every_user_event();
        self.spawn(self.clone().tell_events(events));
        if let Some(redraws) = lock(&self.inner.redraws).take() {
            self.spawn(self.clone().edit_messages(redraws));
        }
        self.spawn(self.clone().poll());
        Ok(())
    }

    /// Runs `task` until it ends or the term does.
    fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        let mut stopped = self.inner.stopped.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = task => {}
                Ok(_) = stopped.wait_for(|s| *s) => {}
            }
        });
    }

    /// Runs the bot's terms in this process as its role comes and goes ([`Online::lead`]): a
    /// term begins when the process takes the role (again until it begins, should the
    /// database fail meanwhile) and ends, everything it keeps with it, when another process
    /// took the role over.
    async fn lead(self, mut stop: watch::Sender<bool>, mut terms: watch::Receiver<Term>) {
        let every = self.inner.online.role_renew_every();
        let mut term = self;
        while terms.changed().await.is_ok() {
            if terms.borrow_and_update().is_some() {
                while let Err(e) = term.begin_term().await {
                    eprintln!("damasi-telegram: taking the bot over: {}", e.message());
                    tokio::time::sleep(every).await;
                    if terms.borrow().is_none() {
                        break;
                    }
                }
                eprintln!("damasi-telegram: this process runs the bot now");
                continue;
            }
            eprintln!("damasi-telegram: another process runs the bot now; this one stops it");
            let _ = stop.send(true);
            let (next_stop, stopped) = watch::channel(false);
            let i = &term.inner;
            term = Telegram::term(
                (i.online.clone(), i.brain.clone(), i.tournaments.clone()),
                i.bot.clone(),
                i.config.clone(),
                i.username.clone(),
                stopped,
            );
            stop = next_stop;
        }
    }

    /// The bot's `@username`.
    pub fn username(&self) -> &str {
        &self.inner.username
    }

    /// Starts looking after the message `id` showing `game_id`: watches the game, redraws.
    fn keep(&self, id: &str, game_id: String, settings: MessageSettings) -> Arc<Mutex<Shown>> {
        let shown = Arc::new(Mutex::new(Shown {
            game_id: game_id.clone(),
            settings,
            picked: None,
            routes: Vec::new(),
            flipped: false,
            thinking: false,
        }));
        lock(&self.inner.shown).insert(id.to_string(), shown.clone());
        self.spawn(self.clone().watch(id.to_string(), game_id));
        shown
    }

    fn redraw(&self, id: &str) {
        let _ = self.inner.redraw.send(id.to_string());
    }

    /// Follows game `game_id` for message `id`: every event redraws it, and the engine moves
    /// when a `gameState` event says it is its turn. Ends when the game is over and drawn so.
    async fn watch(self, id: String, game_id: String) {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            let watched = self.inner.online.watch(&game_id, None).await;
            let Ok((full, _, mut events)) = watched else {
                eprintln!("damasi-telegram: cannot watch game {game_id}");
                return;
            };
            // Seats and rules do not change once the game is played: read once.
            let engine = self.engine_seat(&id, &full).await;
            let rules = damasi_online::variant::parse("variant", Some(&full.variant.rules))
                .unwrap_or_default();
            self.redraw(&id);
            let mut over = match &full.state {
                GameMessage::GameState(state) => {
                    self.after_state(&id, &game_id, state, rules, engine.as_ref())
                        .await
                }
                _ => false,
            };
            while !over {
                let state = match events.recv().await {
                    Ok(event) => match &event.message {
                        GameMessage::GameState(state) => state.clone(),
                        _ => {
                            self.redraw(&id);
                            continue;
                        }
                    },
                    Err(RecvError::Lagged(_)) => match self.inner.online.snapshot(&game_id).await {
                        Ok(state) => Box::new(state),
                        Err(e) => {
                            eprintln!("damasi-telegram: game {game_id}: {}", e.message());
                            continue;
                        }
                    },
                    Err(RecvError::Closed) => break,
                };
                self.redraw(&id);
                over = self
                    .after_state(&id, &game_id, &state, rules, engine.as_ref())
                    .await;
            }
            if over {
                // Kept a while for last presses (a flip); a later press reads it back.
                tokio::time::sleep(Duration::from_secs(60)).await;
                lock(&self.inner.shown).remove(&id);
                return;
            }
            // The game was evicted from memory or moved to another process: watch again.
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The engine's seat in the game `full` that message `id` shows, if it plays there: its
    /// account, its colour and its level.
    async fn engine_seat(&self, id: &str, full: &GameFull) -> Option<EngineSeat> {
        let shown = lock(&self.inner.shown).get(id).cloned()?;
        let level = shown.lock().await.settings.level;
        if level == 0 {
            return None;
        }
        let player = self.engine_player(level).await.ok()?;
        let side = GameView::from_full(full).ok()?.side_of(player.id)?;
        Some(EngineSeat {
            player,
            side,
            level,
        })
    }

    /// After the game's `gameState` `state` (a game under `rules`): starts the engine's move
    /// when it is its turn. Answers whether the game is over.
    async fn after_state(
        &self,
        id: &str,
        game_id: &str,
        state: &GameState,
        rules: RuleSet,
        engine: Option<&EngineSeat>,
    ) -> bool {
        if state.outcome.is_some() {
            return true;
        }
        let Some(engine) = engine.filter(|e| e.to_move(state)) else {
            return false;
        };
        let Some(shown) = lock(&self.inner.shown).get(id).cloned() else {
            return false;
        };
        let mut s = shown.lock().await;
        if s.thinking {
            return false;
        }
        s.thinking = true;
        drop(s);
        let me = self.clone();
        let (game_id, engine, state) = (game_id.to_string(), engine.clone(), state.clone());
        self.spawn(async move {
            let i = &me.inner;
            if let Err(e) = engine
                .play(&i.online, &i.brain, &game_id, &state, rules)
                .await
            {
                eprintln!("damasi-telegram: engine in {game_id}: {e}");
            }
            shown.lock().await.thinking = false;
        });
        false
    }

    /// Long-polls Telegram and handles each update in its own task.
    async fn poll(self) {
        let mut offset: i32 = 0;
        let mut backoff = Duration::from_secs(1);
        loop {
            let request = self
                .inner
                .bot
                .get_updates()
                .offset(offset)
                .timeout(self.inner.config.poll_timeout.as_secs() as u32)
                .allowed_updates([
                    AllowedUpdate::Message,
                    AllowedUpdate::InlineQuery,
                    AllowedUpdate::CallbackQuery,
                ]);
            match request.await {
                Ok(updates) => {
                    backoff = Duration::from_secs(1);
                    for update in updates {
                        offset = offset.max(update.id.0 as i32 + 1);
                        let me = self.clone();
                        self.spawn(async move { me.handle(update.kind).await });
                    }
                }
                Err(e) => {
                    eprintln!("damasi-telegram: getUpdates: {e}");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(60));
                }
            }
        }
    }

    async fn handle(&self, kind: UpdateKind) {
        let result = match kind {
            UpdateKind::InlineQuery(q) => self.inline_query(q).await,
            UpdateKind::CallbackQuery(c) => self.callback(c).await,
            UpdateKind::Message(m) => self.message(m).await,
            _ => Ok(()),
        };
        if let Err(e) = result {
            eprintln!("damasi-telegram: {e}");
        }
    }

    /// The account of Telegram user `user`, made (a guest) on their first visit, and their
    /// settings.
    async fn person(&self, user: &User) -> Result<(Player, PersonSettings), ApiError> {
        let db = self.inner.online.db();
        let outside_id = user.id.0.to_string();
        if let Some(a) = db.outside_account(SERVICE, &outside_id).await? {
            let settings = serde_json::from_str(&a.settings).unwrap_or_default();
            let player = Player::from(a.user);
            // An account linked before it became a BOT: a BOT plays through the Bot API only.
            player.check_api(Api::Board)?;
            return Ok((player, settings));
        }
        let settings = PersonSettings {
            name: user.first_name.clone(),
            ..PersonSettings::default()
        };
        let by_username = user
            .username
            .as_deref()
            .filter(|u| u.len() <= 17 && u.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_'))
            .map(|u| format!("tg-{u}"));
        let mut names = by_username.into_iter().chain([format!("tg-{}", user.id.0)]);
        let mut taken = None;
        let row = loop {
            let Some(name) = names.next() else {
                return Err(taken.unwrap_or_else(|| ApiError::Internal("no name".into())));
            };
            match db.create_user(&name, None, true, now_ms()).await {
                Ok(row) => break row,
                Err(e @ ApiError::Conflict { .. }) => taken = Some(e),
                Err(e) => return Err(e),
            }
        };
        let json = serde_json::to_string(&settings).expect("settings serialize");
        db.set_outside_account(SERVICE, &outside_id, row.id, &json)
            .await?;
        Ok((row.into(), settings))
    }

    async fn save_person(&self, user: &User, player: &Player, settings: &PersonSettings) {
        let json = serde_json::to_string(settings).expect("settings serialize");
        let saved = self
            .inner
            .online
            .db()
            .set_outside_account(SERVICE, &user.id.0.to_string(), player.id, &json)
            .await;
        if let Err(e) = saved {
            eprintln!("damasi-telegram: saving settings: {}", e.message());
        }
    }

    fn lang_of(user: &User, settings: &PersonSettings) -> Lang {
        let chosen = settings.lang.as_deref();
        Lang::from_code(chosen.or(user.language_code.as_deref()))
    }

    /// The engine's account at `level` (`damasi-level-N`; the `damasi-` names are refused at
    /// sign-up, so nobody else has it).
    async fn engine_player(&self, level: u8) -> Result<Player, ApiError> {
        let mut engines = self.inner.engines.lock().await;
        if let Some(p) = engines.get(&level) {
            return Ok(p.clone());
        }
        let db = self.inner.online.db();
        let name = format!("damasi-level-{level}");
        let row = match db.user_by_name(&name).await? {
            Some(row) => row,
            None => db.create_user(&name, None, false, now_ms()).await?,
        };
        let player = Player::from(row);
        engines.insert(level, player.clone());
        Ok(player)
    }
}

/// How long a code from the account page links a Telegram user (`/link CODE`).
pub const LINK_CODE_LIFETIME: Duration = Duration::from_secs(10 * 60);

/// The service's refusal, for the presser: its sentence (English: the codes are the API's).
fn refused(lang: Lang, e: &ApiError) -> String {
    match e {
        ApiError::Busy(_)
        | ApiError::Overloaded(_)
        | ApiError::NotHere(_)
        | ApiError::Internal(_) => lang.text(Text::Busy).to_string(),
        e => lang.say(Text::Refused, &[e.message()]),
    }
}

/// The inline keyboard Telegram takes.
fn markup(rows: &[Vec<Button>]) -> InlineKeyboardMarkup {
    InlineKeyboardMarkup::new(rows.iter().map(|row| {
        row.iter()
            .map(|b| match &b.kind {
                ButtonKind::Press(data) => {
                    InlineKeyboardButton::callback(b.text.clone(), data.clone())
                }
                ButtonKind::Url(u) => match url::Url::parse(u) {
                    Ok(u) => InlineKeyboardButton::url(b.text.clone(), u),
                    Err(_) => InlineKeyboardButton::callback(b.text.clone(), String::new()),
                },
            })
            .collect::<Vec<_>>()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_web_button_opens_the_mini_app_when_there_is_one() {
        let mut config = TelegramConfig::new("1:T");
        assert_eq!(page_link(&config, "damabot", "Ab12"), None);
        config.public_url = Some("https://dama.example/".into());
        assert_eq!(
            page_link(&config, "damabot", "Ab12").as_deref(),
            Some("https://dama.example/online/Ab12")
        );
        // Telegram's direct link to a Mini App, its start parameter the game.
        config.mini_app = Some("play".into());
        assert_eq!(
            page_link(&config, "damabot", "Ab12").as_deref(),
            Some("https://t.me/damabot/play?startapp=Ab12")
        );
    }
}
