//! What watchers get: a game's `gameFull` (with `you`, the viewer's seat), its current
//! `gameState`, and the channel of its next events, from the process that keeps it.

use damasi::pdn::{pdn_date, write_game, PdnGame};
use damasi::{ByColor, Color, Notation};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use crate::error::ApiError;

use super::accounts::Player;
use super::cluster::Request;
use super::db::{GameFilter, OnlineGameRow};
use super::messages::{
    Compat, EventGame, GameExport, GameFull, GameMessage, GameState, NowPlaying, Opponent,
    StatusName, UserEvent,
};
use super::rating::Speed;
use super::table::TableState;
use super::{Online, Watch};

impl Online {
    /// Game `id` as `gameFull`, with `you`: the viewer's colour or null.
    pub async fn full(&self, id: &str, viewer: Option<&Player>) -> Result<GameFull, ApiError> {
        let request = || Request::Full {
            viewer: viewer.cloned(),
        };
        if let Some(r) = self.forward(id, request).await {
            return match from_wire(r?)? {
                GameMessage::GameFull(full) => Ok(*full),
                _ => Err(ApiError::Internal(
                    "another process answered no gameFull".into(),
                )),
            };
        }
        self.full_here(id, viewer).await
    }

    pub(super) async fn full_here(
        &self,
        id: &str,
        viewer: Option<&Player>,
    ) -> Result<GameFull, ApiError> {
        let table = self.table(id).await?;
        let s = table.state.lock().await;
        Ok(s.full(Instant::now(), viewer))
    }

    /// Game `id`'s current `gameState` (for a watcher that missed events).
    pub async fn snapshot(&self, id: &str) -> Result<GameState, ApiError> {
        if let Some(r) = self.forward(id, || Request::State).await {
            return match from_wire(r?)? {
                GameMessage::GameState(state) => Ok(*state),
                _ => Err(ApiError::Internal(
                    "another process answered no gameState".into(),
                )),
            };
        }
        self.state_here(id).await
    }

    pub(super) async fn state_here(&self, id: &str) -> Result<GameState, ApiError> {
        let table = self.table(id).await?;
        let s = table.state.lock().await;
        Ok(s.state(Instant::now()))
    }

    /// Starts watching game `id`: its `gameFull` (with `you`), the viewer's colour, and the
    /// channel of its next events. In a cluster the events come from the owner through this
    /// node's relay, and those older than the `gameFull` are dropped.
    pub async fn watch(&self, id: &str, viewer: Option<&Player>) -> Result<Watch, ApiError> {
        if let Some(cluster) = &self.inner.cluster {
            let mut events = cluster.channel(id).subscribe();
            let request = || Request::Full {
                viewer: viewer.cloned(),
            };
            if let Some(r) = self.forward(id, request).await {
                let GameMessage::GameFull(full) = from_wire(r?)? else {
                    return Err(ApiError::Internal(
                        "another process answered no gameFull".into(),
                    ));
                };
                // The owner sends events and replies in one ordered stream: what is waiting
                // now is older than the reply.
                while let Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) = events.try_recv()
                {
                }
                let side = full.you.as_deref().and_then(Color::from_name);
                return Ok((*full, side, events));
            }
        }
        let table = self.table(id).await?;
        let s = table.state.lock().await;
        let full = s.full(Instant::now(), viewer);
        let side = viewer.and_then(|p| s.side_of(p.id));
        Ok((full, side, table.events.subscribe()))
    }

    /// The games `player` is playing now, at most `limit`, as lichess's `GET
    /// /api/account/playing` lists them (`nowPlaying`): each game's `gameId`, `color`, `fen`,
    /// `isMyTurn`, `secondsLeft` (of the player's clock, or of a correspondence game's turn),
    /// `lastMove`, `opponent`, `speed`, `rated`, and damasi's `daysPerTurn`. The games where it
    /// is the player's move come first, the least time left first; then the others, newest
    /// first. Each game is read where it is kept, so any process answers.
    pub async fn now_playing(
        &self,
        player: &Player,
        limit: i64,
    ) -> Result<Vec<NowPlaying>, ApiError> {
        let mut out = Vec::new();
        for id in self.inner.db.playing_of(player.id, limit).await? {
            let full = match self.full(&id, Some(player)).await {
                Ok(full) => full,
                // Ended or gone meanwhile: not being played any more.
                Err(ApiError::NotFound(_)) => continue,
                Err(e) => return Err(e),
            };
            if let Some(game) = now_playing_entry(&full) {
                out.push(game);
            }
        }
        // Stable: within each group the newest stay first.
        out.sort_by_key(|g| (!g.is_my_turn, g.is_my_turn.then_some(g.seconds_left)));
        Ok(out)
    }

    /// The `gameStart` event of game `id` for `player`, as an event stream opened while the
    /// game is being played tells it first (none when `player` does not play it or it is not
    /// being played). Read where the game is kept, so any process answers.
    pub async fn game_start(
        &self,
        id: &str,
        player: &Player,
    ) -> Result<Option<UserEvent>, ApiError> {
        let full = self.full(id, Some(player)).await?;
        Ok(now_playing_entry(&full).map(|g| UserEvent::GameStart {
            game: Box::new(EventGame {
                game_id: g.game_id,
                full_id: g.full_id,
                id: full.id.clone(),
                color: g.color,
                fen: g.fen,
                has_moved: g.has_moved,
                is_my_turn: g.is_my_turn,
                last_move: Some(g.last_move).filter(|m| !m.is_empty()),
                seconds_left: g.seconds_left,
                opponent: g.opponent,
                rated: g.rated,
                speed: g.speed,
                perf: g.perf,
                // As the live event says it for a tournament's game.
                source: match (&full.swiss_id, &full.tournament_id) {
                    (Some(_), _) => "swiss".to_string(),
                    (_, Some(_)) => "arena".to_string(),
                    _ => g.source,
                },
                swiss_id: full.swiss_id.clone(),
                tournament_id: full.tournament_id.clone(),
                status: StatusName {
                    name: "started".to_string(),
                },
                outcome: None,
                winner: None,
                variant: g.variant,
                compat: Compat {
                    bot: true,
                    board: true,
                },
            }),
        }))
    }

    /// Game `id` as a PDN file in `notation` (lichess: `GET /game/export/{id}`), `site` its
    /// address. Read from the database, so any process answers, for a finished game too.
    pub async fn pdn(&self, id: &str, notation: Notation, site: &str) -> Result<String, ApiError> {
        let not_found = || ApiError::NotFound(format!("no online game '{id}'"));
        let (row, moves) = self.inner.db.game(id).await?.ok_or_else(not_found)?;
        let seats = self.seats_of(row.players).await?;
        let names = seats
            .clone()
            .map(|seat| seat.map_or_else(|| "?".to_string(), |p| p.name));
        let titles = seats.map(|seat| seat.and_then(|p| p.title()));
        let event = format!(
            "damasi {} {} game",
            if row.rated { "rated" } else { "casual" },
            Speed::of(row.initial_ms, row.increment_ms).name()
        );
        let date = pdn_date(row.created_ms.div_euclid(1000));
        let state = TableState::restore(row, ByColor::default(), &moves, None)?;
        let mut pdn = PdnGame::new(state.core.game);
        pdn.set_tag("Event", &event);
        pdn.set_tag("Site", site);
        pdn.set_tag("Date", &date);
        pdn.set_tag("White", &names.white);
        pdn.set_tag("Black", &names.black);
        // lichess's tags for a titled player: a BOT's games say so.
        for (tag, title) in [("WhiteTitle", titles.white), ("BlackTitle", titles.black)] {
            if let Some(title) = title {
                pdn.set_tag(tag, title);
            }
        }
        Ok(write_game(&pdn, notation))
    }
}

/// Which of a player's games lichess's `GET /api/games/user/{name}` exports: finished ones
/// whose seats were both taken, newest first, these filters passed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportFilter {
    /// Games created at or after this time (Unix ms).
    pub since: Option<i64>,
    /// Games created at or before this time (Unix ms).
    pub until: Option<i64>,
    /// At most this many.
    pub max: Option<u64>,
    /// Rated ones only (`true`) or casual ones only (`false`).
    pub rated: Option<bool>,
    /// These speed classes only (none: all).
    pub speeds: Vec<Speed>,
}

/// Games read from the database a page at a time while exporting.
const EXPORT_PAGE: i64 = 50;

impl Online {
    /// Game `id` as lichess's game export writes it in JSON (`GET /game/export/{id}`). Read
    /// from the database, so any process answers, for a finished game too.
    pub async fn export(&self, id: &str) -> Result<GameExport, ApiError> {
        let not_found = || ApiError::NotFound(format!("no online game '{id}'"));
        let (row, moves) = self.inner.db.game(id).await?.ok_or_else(not_found)?;
        self.export_row(row, &moves).await
    }

    async fn export_row(
        &self,
        row: OnlineGameRow,
        moves: &[(String, i64)],
    ) -> Result<GameExport, ApiError> {
        let seats = self.seats_of(row.players).await?;
        Ok(TableState::restore(row, seats, moves, None)?.export())
    }

    /// Sends the finished games of account `user` that pass `filter` on `out`, newest first,
    /// as [`Online::export`] writes them; stops early once the receiver is gone. Returns how
    /// many were sent.
    pub async fn export_games_of(
        &self,
        user: i64,
        filter: &ExportFilter,
        out: &mpsc::Sender<GameExport>,
    ) -> Result<u64, ApiError> {
        let db_filter = GameFilter {
            rated: filter.rated,
            speed: None,
            result: None,
        };
        let mut sent = 0;
        let mut offset = 0;
        loop {
            let (page, _) = self
                .inner
                .db
                .games_page(user, db_filter, offset, EXPORT_PAGE)
                .await?;
            offset += EXPORT_PAGE;
            let last_page = (page.len() as i64) < EXPORT_PAGE;
            for g in page {
                if filter.max.is_some_and(|max| sent >= max) {
                    return Ok(sent);
                }
                let created = g.row.created_ms;
                // Newest first: the rest are older still.
                if filter.since.is_some_and(|since| created < since) {
                    return Ok(sent);
                }
                let speed = Speed::of(g.row.initial_ms, g.row.increment_ms);
                // Finished games that were games: both seats taken (a challenge declined or
                // withdrawn before anyone sat down ended too, but nobody played it).
                let wanted = g.row.status == "over"
                    && g.row.players.iter().all(Option::is_some)
                    && filter.until.is_none_or(|until| created <= until)
                    && (filter.speeds.is_empty() || filter.speeds.contains(&speed));
                if !wanted {
                    continue;
                }
                let Some((row, moves)) = self.inner.db.game(&g.row.id).await? else {
                    continue;
                };
                let game = self.export_row(row, &moves).await?;
                if out.send(game).await.is_err() {
                    return Ok(sent);
                }
                sent += 1;
            }
            if last_page {
                return Ok(sent);
            }
        }
    }
}

/// A message another process sent as its reply, read back.
fn from_wire(v: Value) -> Result<GameMessage, ApiError> {
    serde_json::from_value(v)
        .map_err(|e| ApiError::Internal(format!("another process's message is unreadable: {e}")))
}

/// One `nowPlaying` entry from a player's `gameFull` (none when the game is not being played
/// or the viewer does not play it).
fn now_playing_entry(full: &GameFull) -> Option<NowPlaying> {
    let GameMessage::GameState(state) = &full.state else {
        return None;
    };
    if state.status != "started" {
        return None;
    }
    let you = full.you.as_deref().and_then(Color::from_name)?;
    let them = match you {
        Color::White => &full.black,
        Color::Black => &full.white,
    };
    let left_ms = match you {
        Color::White => state.wtime,
        Color::Black => state.btime,
    };
    let plies = state.moves.split_whitespace().count();
    let opponent = them.as_ref().map(|s| s.name.clone());
    Some(NowPlaying {
        game_id: full.id.clone(),
        full_id: full.id.clone(),
        color: you.name().to_string(),
        fen: state.fen.clone(),
        has_moved: plies > you.index(),
        is_my_turn: state.turn == you.name(),
        last_move: state
            .moves
            .split_whitespace()
            .last()
            .unwrap_or_default()
            .to_string(),
        opponent: Opponent {
            id: opponent.as_deref().map(str::to_ascii_lowercase),
            username: opponent,
            rating: them.as_ref().and_then(|s| s.rating),
        },
        perf: full.speed.clone(),
        speed: full.speed.clone(),
        rated: full.rated,
        seconds_left: left_ms / 1000,
        source: "friend".to_string(),
        variant: full.variant.clone(),
        days_per_turn: full.days_per_turn,
    })
}
