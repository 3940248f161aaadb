//! The bot: it long-polls Telegram for updates, turns inline queries into game messages,
//! button presses into the online service's commands, and each game's events into edits of
//! its message (as often as Telegram allows). Every game is an online game of the server:
//! stored, rated when both players have linked accounts, watched on its web page, and
//! resumed after a restart, when the message is redrawn from the stored game.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use damasi::{Color, Position, RuleSet, Square};
use damasi_online::accounts::Player;
use damasi_online::brain::Brain;
use damasi_online::command::Command;
use damasi_online::db::{SecretKind, ShownGame};
use damasi_online::error::ApiError;
use damasi_online::frontend::{EngineSeat, Term};
use damasi_online::messages::{GameFull, GameMessage, GameState};
use damasi_online::{now_ms, NewGame, Online};
use damasi_tournaments::Tournaments;
use serde::{Deserialize, Serialize};
use teloxide_core::payloads::{
    AnswerCallbackQuerySetters, AnswerInlineQuerySetters, EditMessageTextInlineSetters,
    EditMessageTextSetters, GetUpdatesSetters, SendMessageSetters,
};
use teloxide_core::requests::Requester;
use teloxide_core::types::{
    AllowedUpdate, CallbackQuery, ChatId, ChatType, InlineKeyboardButton, InlineKeyboardMarkup,
    InlineQuery, InlineQueryResult, InlineQueryResultArticle, InputMessageContent,
    InputMessageContentText, Message, MessageId, UpdateKind, User,
};
use teloxide_core::{ApiError as TgApiError, Bot, RequestError};
use tokio::sync::{mpsc, watch, Mutex};
use tokio::time::Instant;

use crate::board::{
    keyboard, Action, BoardView, Button, ButtonKind, EventKind, Press, Skin, Start,
};
use crate::edits::{EditLimits, Throttle};
use crate::game::{clock_text, GameView};
use crate::offers::{
    minute_of, offer_expires_ms, BeginLimit, PressKey, Taken, UsedOffers, NONCE_LEN,
};
use crate::texts::{Lang, Text};

mod events;
mod notices;

/// The service name of Telegram accounts and the prefix of its messages in the database.
const SERVICE: &str = damasi_online::init_data::TELEGRAM;
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

/// Where a message the bot looks after is. Its id says it: a message sent through inline mode
/// is named by Telegram's `inline_message_id` (which never holds a `:`), and a message the
/// bot sent to a chat by `chat:CHAT:MESSAGE` (a game's board) or `event:CHAT:MESSAGE` (a
/// tournament's message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// An inline message: Telegram does not say in which chat.
    Inline,
    /// A message in a chat.
    Chat(ChatId, MessageId),
}

impl Place {
    fn of(id: &str) -> Place {
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
    fn board_id(chat: ChatId, message: MessageId) -> String {
        format!("chat:{}:{}", chat.0, message.0)
    }

    /// The key of the edits' limits: a group chat's messages share the group's limit; any
    /// other message has its own.
    fn throttle_key(id: &str) -> String {
        match Place::of(id) {
            Place::Chat(chat, _) if chat.0 < 0 => format!("chat:{}", chat.0),
            _ => id.to_string(),
        }
    }
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
            return Ok((a.user.into(), settings));
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

    async fn inline_query(&self, q: InlineQuery) -> Result<(), String> {
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

    async fn callback(&self, c: CallbackQuery) -> Result<(), String> {
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
    fn offer_stands(&self, start: &Start) -> bool {
        self.inner.key.verify(start) && now_ms() < offer_expires_ms(start)
    }

    /// A press on the game message `id`: what to tell the presser.
    async fn press(&self, from: &User, id: &str, press: Press) -> String {
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
    async fn load(&self, id: &str) -> Option<Arc<Mutex<Shown>>> {
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
    async fn begin(
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
            match self.inner.online.either_blocks(creator.id, player.id).await {
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
    async fn press_in_game(
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
    fn display_name(&self, name: &str, s: &Shown, lang: Lang) -> String {
        match name.strip_prefix("damasi-level-") {
            Some(level) if s.settings.level > 0 => lang.say(Text::EngineName, &[level]),
            _ => name.to_string(),
        }
    }

    /// The text and keyboard of message `id` now.
    async fn render(&self, id: &str) -> Option<(String, InlineKeyboardMarkup)> {
        if lock(&self.inner.events).contains_key(id) {
            return self.render_event(id).await;
        }
        let shown = lock(&self.inner.shown).get(id).cloned()?;
        let s = shown.lock().await.clone();
        self.render_shown(&s).await
    }

    /// The text and keyboard of a game message as `s` shows it now.
    async fn render_shown(&self, s: &Shown) -> Option<(String, InlineKeyboardMarkup)> {
        let full = self.inner.online.full(&s.game_id, None).await.ok()?;
        let view = GameView::from_full(&full).ok()?;
        let lang = s.lang();
        let name = |c: Color| {
            view.seat(c)
                .map_or("?".to_string(), |p| self.display_name(&p.name, s, lang))
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
                lang.days_hours(view.clocks[0]),
                lang.days_hours(view.clocks[1]),
                lang.say(Text::DaysAMove, &[&days.to_string()])
            ),
            None => format!(
                "⏱ {} · {}",
                clock_text(view.clocks[0]),
                clock_text(view.clocks[1])
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
    async fn edit_messages(self, mut redraws: mpsc::UnboundedReceiver<String>) {
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
    fn in_group(&self, id: &str) -> Option<bool> {
        if lock(&self.inner.events).contains_key(id) {
            return Some(true);
        }
        let shown = lock(&self.inner.shown).get(id).cloned()?;
        Some(shown.try_lock().map(|s| s.settings.group).unwrap_or(true))
    }

    /// A message to the bot in a chat: the commands.
    async fn message(&self, m: Message) -> Result<(), String> {
        let (Some(text), Some(from)) = (m.text(), m.from.as_ref()) else {
            return Ok(());
        };
        let mut words = text.split_whitespace();
        let command = words.next().unwrap_or("");
        let (command, addressee) = command.split_once('@').unwrap_or((command, ""));
        // In a group, only commands to this bot are its business (nobody there gets an
        // account for talking).
        let for_me = addressee.is_empty() || addressee.eq_ignore_ascii_case(&self.inner.username);
        if !m.chat.is_private() && (!command.starts_with('/') || !for_me) {
            return Ok(());
        }
        let (player, settings) = self
            .person(from)
            .await
            .map_err(|e| e.message().to_string())?;
        let lang = Self::lang_of(from, &settings);
        let bot = &self.inner.bot;
        let send = |text: String| bot.send_message(m.chat.id, text);
        let result = match command {
            "/language" | "/dil" => {
                let rows = Lang::ALL
                    .iter()
                    .map(|l| {
                        vec![Button {
                            text: l.name().into(),
                            kind: ButtonKind::Press(Press::Language(*l).encode()),
                        }]
                    })
                    .collect::<Vec<_>>();
                send(lang.text(Text::ChooseLanguage).into())
                    .reply_markup(markup(&rows))
                    .await
            }
            "/skin" => {
                let rows = Skin::ALL
                    .iter()
                    .map(|s| {
                        vec![Button {
                            text: s.sample(),
                            kind: ButtonKind::Press(Press::Skin(*s).encode()),
                        }]
                    })
                    .collect::<Vec<_>>();
                send(lang.text(Text::ChooseSkin).into())
                    .reply_markup(markup(&rows))
                    .await
            }
            // `/start link-CODE` is what the link `t.me/BOT?start=link-CODE` sends.
            "/link" | "/start" if command == "/link" || text.contains(" link-") => {
                let code = words.next().map(|w| w.trim_start_matches("link-"));
                let reply = match code {
                    None => lang.text(Text::LinkUsage).to_string(),
                    Some(code) => self.link(from, &player, settings, code, lang).await,
                };
                send(reply).await
            }
            "/unlink" => send(self.unlink(from, &player, lang).await).await,
            "/swiss" | "/arena" => {
                let kind = if command == "/swiss" {
                    EventKind::Swiss
                } else {
                    EventKind::Arena
                };
                let args: Vec<&str> = words.collect();
                match self.new_event(&m, &player, lang, kind, &args).await {
                    Ok(()) => return Ok(()),
                    Err(reply) => send(reply).await,
                }
            }
            _ if m.chat.is_private() => {
                let me = self.inner.username.as_str();
                send(lang.say(Text::Help, &[me, me])).await
            }
            _ => return Ok(()),
        };
        result.map(|_| ()).map_err(|e| format!("sendMessage: {e}"))
    }

    /// `/link CODE`: ties this Telegram user to the damasi account the code was made for.
    async fn link(
        &self,
        from: &User,
        _was: &Player,
        settings: PersonSettings,
        code: &str,
        lang: Lang,
    ) -> String {
        let db = self.inner.online.db();
        let hash = damasi_online::accounts::secret_hash(code.trim());
        let not_before = now_ms() - LINK_CODE_LIFETIME.as_millis() as i64;
        let user = match db
            .user_by_secret(hash.clone(), SecretKind::Link, not_before)
            .await
        {
            Ok(Some(u)) => u,
            Ok(None) => return lang.text(Text::BadCode).to_string(),
            Err(e) => return refused(lang, &e),
        };
        let _ = db.delete_secret(hash).await;
        let player = Player::from(user);
        self.save_person(from, &player, &settings).await;
        lang.say(Text::Linked, &[&player.name])
    }

    /// `/unlink`: unties this Telegram user from the damasi account `/link` tied it to; the
    /// bot plays them as a guest again (a new `tg-` one) until they link again with a new code.
    async fn unlink(&self, from: &User, player: &Player, lang: Lang) -> String {
        if player.guest {
            return lang.text(Text::NotLinked).to_string();
        }
        let outside_id = from.id.0.to_string();
        match self
            .inner
            .online
            .accounts()
            .unlink(player, Some(&outside_id))
            .await
        {
            Ok(_) => lang.say(Text::Unlinked, &[&player.name]),
            Err(e) => refused(lang, &e),
        }
    }

    async fn choose_language(&self, from: &User, l: Lang) -> String {
        match self.person(from).await {
            Ok((player, mut settings)) => {
                settings.lang = Some(l.code().to_string());
                self.save_person(from, &player, &settings).await;
                l.text(Text::LanguageSet).to_string()
            }
            Err(e) => refused(l, &e),
        }
    }

    async fn choose_skin(&self, from: &User, skin: Skin) -> String {
        match self.person(from).await {
            Ok((player, mut settings)) => {
                let lang = Self::lang_of(from, &settings);
                settings.skin = Some(skin.code().to_string());
                self.save_person(from, &player, &settings).await;
                lang.say(Text::SkinSet, &[&skin.sample()])
            }
            Err(e) => refused(Lang::En, &e),
        }
    }
}

/// How long a code from the account page links a Telegram user (`/link CODE`).
pub const LINK_CODE_LIFETIME: Duration = Duration::from_secs(10 * 60);

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

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
    fn days(&self) -> Option<u32> {
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
