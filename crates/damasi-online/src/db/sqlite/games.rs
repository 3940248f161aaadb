//! The SQLite store's games: games and their moves, ratings, leaderboards, and the messages
//! of other services that show games and tournaments.

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::db::{
    games_page_sql, GameFilter, GameRecord, GameStore, GameSummary, LeaderRow, OnlineGameRow,
    RatedResult, RatingPoint, RatingRow, ShownEvent, ShownGame, LEADERBOARD_SQL, RECORD_SQL,
};
use crate::error::ApiError;
use crate::rating;

use super::{game_row, numbered, user_row, SqliteDb, GAME_COLUMNS};

#[async_trait]
impl GameStore for SqliteDb {
    async fn withdraw_open(&self, id: &str, outcome: String) -> Result<bool, ApiError> {
        let id = id.to_string();
        self.with(move |c| {
            Ok(c.execute(
                "UPDATE online_games SET status = 'over', outcome = ?2, turn_started_ms = NULL \
                 WHERE id = ?1 AND status = 'open'",
                params![id, outcome],
            )? == 1)
        })
        .await
    }

    async fn open_before(&self, before_ms: i64) -> Result<Vec<String>, ApiError> {
        self.with(move |c| {
            let mut stmt =
                c.prepare("SELECT id FROM online_games WHERE status = 'open' AND created_ms < ?1")?;
            let ids = stmt
                .query_map([before_ms], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(ids)
        })
        .await
    }

    async fn challenges_to(&self, user: i64) -> Result<Vec<String>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT id FROM online_games WHERE status = 'open' AND invited_id = ?1 \
                 ORDER BY created_ms LIMIT 50",
            )?;
            let ids = stmt
                .query_map([user], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(ids)
        })
        .await
    }

    async fn rating(&self, user: i64, speed: &str) -> Result<Option<RatingRow>, ApiError> {
        let speed = speed.to_string();
        self.with(move |c| Ok(read_rating(c, user, &speed)?)).await
    }

    async fn ratings(&self, user: i64) -> Result<Vec<(String, RatingRow)>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT speed, rating, deviation, volatility, games FROM ratings WHERE user_id = ?1 ORDER BY speed",
            )?;
            let rows = stmt.query_map([user], |r| {
                Ok((
                    r.get(0)?,
                    RatingRow {
                        rating: r.get(1)?,
                        deviation: r.get(2)?,
                        volatility: r.get(3)?,
                        games: r.get(4)?,
                    },
                ))
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn save_game(&self, g: OnlineGameRow) -> Result<(), ApiError> {
        self.with(move |c| {
            c.execute(
                &format!(
                    "INSERT INTO online_games ({GAME_COLUMNS}) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) \
                     ON CONFLICT (id) DO UPDATE SET {}",
                    crate::db::upsert_set(GAME_COLUMNS)
                ),
                params![
                    g.id,
                    g.created_ms,
                    g.players[0],
                    g.players[1],
                    g.initial_ms,
                    g.increment_ms,
                    g.rated,
                    g.chat,
                    g.status,
                    g.outcome,
                    g.turn_started_ms,
                    g.diffs[0],
                    g.diffs[1],
                    g.invited,
                    g.rules.name(),
                    g.event,
                ],
            )?;
            Ok(())
        })
        .await
    }

    async fn add_move(
        &self,
        id: &str,
        ply: usize,
        token: String,
        elapsed_ms: i64,
        turn_started_ms: i64,
    ) -> Result<(), ApiError> {
        // Committed before it answers; moves of several games arriving together share a
        // transaction (`move_writer.rs`).
        self.moves
            .write(crate::db::move_writer::MoveWrite {
                id: id.to_string(),
                ply: ply as i64,
                token,
                elapsed_ms,
                turn_started_ms,
            })
            .await
    }

    async fn truncate_moves(
        &self,
        id: &str,
        ply: usize,
        turn_started_ms: i64,
    ) -> Result<(), ApiError> {
        let id = id.to_string();
        self.with(move |c| {
            let tx = c.transaction()?;
            tx.execute(
                "DELETE FROM online_moves WHERE game_id = ?1 AND ply >= ?2",
                params![id, ply as i64],
            )?;
            tx.execute(
                "UPDATE online_games SET turn_started_ms = ?2 WHERE id = ?1",
                params![id, turn_started_ms],
            )?;
            tx.commit()?;
            Ok(())
        })
        .await
    }

    async fn finish(
        &self,
        id: &str,
        outcome: String,
        rated: Option<RatedResult>,
    ) -> Result<[Option<i64>; 2], ApiError> {
        let id = id.to_string();
        self.with(move |c| {
            // IMMEDIATE takes the write lock before the ratings are read, so another process
            // on the same file cannot slip a rating change in between.
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let ended = tx.execute(
                "UPDATE online_games SET status = 'over', outcome = ?2, turn_started_ms = NULL \
                 WHERE id = ?1 AND status <> 'over'",
                params![id, outcome],
            )?;
            let mut diffs = [None, None];
            if let (1, Some(rated)) = (ended, rated) {
                let read = |user| {
                    read_rating(&tx, user, &rated.speed).map(|r| r.unwrap_or_else(rating::initial))
                };
                let (white, black) = (read(rated.white)?, read(rated.black)?);
                if let Some((nw, nb, d)) = rated.apply(&white, &black) {
                    for (user, r) in [(rated.white, nw), (rated.black, nb)] {
                        tx.execute(
                            "INSERT OR REPLACE INTO ratings (user_id, speed, rating, deviation, volatility, games) \
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                            params![user, rated.speed, r.rating, r.deviation, r.volatility, r.games],
                        )?;
                        tx.execute(
                            "INSERT INTO rating_history (user_id, speed, at_ms, rating) VALUES (?1, ?2, ?3, ?4)",
                            params![user, rated.speed, rated.at_ms, r.rating],
                        )?;
                    }
                    tx.execute(
                        "UPDATE online_games SET white_diff = ?2, black_diff = ?3 WHERE id = ?1",
                        params![id, d[0], d[1]],
                    )?;
                    diffs = d;
                }
            }
            tx.commit()?;
            Ok(diffs)
        })
        .await
    }

    async fn game(
        &self,
        id: &str,
    ) -> Result<Option<(OnlineGameRow, Vec<(String, i64)>)>, ApiError> {
        let id = id.to_string();
        self.with(move |c| {
            let Some(row) = c
                .query_row(
                    &format!("SELECT {GAME_COLUMNS} FROM online_games WHERE id = ?1"),
                    [&id],
                    game_row,
                )
                .optional()?
            else {
                return Ok(None);
            };
            let mut stmt = c.prepare(
                "SELECT token, elapsed_ms FROM online_moves WHERE game_id = ?1 ORDER BY ply",
            )?;
            let moves = stmt
                .query_map([&id], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            Ok(Some((row, moves)))
        })
        .await
    }

    async fn ended_among(&self, ids: &[String]) -> Result<Vec<(String, Option<String>)>, ApiError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids = ids.to_vec();
        self.with(move |c| {
            let mut ended = Vec::new();
            // SQLite takes at most 32,766 parameters in one statement.
            for chunk in ids.chunks(500) {
                let marks = vec!["?"; chunk.len()].join(",");
                let mut stmt = c.prepare(&format!(
                    "SELECT id, outcome FROM online_games WHERE status = 'over' AND id IN ({marks})"
                ))?;
                let rows = stmt
                    .query_map(rusqlite::params_from_iter(chunk), |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })?
                    .collect::<Result<Vec<_>, _>>()?;
                ended.extend(rows);
            }
            Ok(ended)
        })
        .await
    }

    async fn unfinished(&self) -> Result<Vec<String>, ApiError> {
        self.with(|c| {
            let mut stmt = c.prepare("SELECT id FROM online_games WHERE status != 'over'")?;
            let ids = stmt
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(ids)
        })
        .await
    }

    async fn playing_of(&self, user: i64, limit: i64) -> Result<Vec<String>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT id FROM online_games WHERE status = 'playing' \
                 AND (white_id = ?1 OR black_id = ?1) ORDER BY created_ms DESC LIMIT ?2",
            )?;
            let ids = stmt
                .query_map(params![user, limit], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(ids)
        })
        .await
    }

    async fn games_of(&self, user: i64, limit: i64) -> Result<Vec<GameSummary>, ApiError> {
        self.with(move |c| {
            let cols = GAME_COLUMNS
                .split(", ")
                .map(|col| format!("g.{col}"))
                .collect::<Vec<_>>()
                .join(", ");
            let mut stmt = c.prepare(&format!(
                "SELECT {cols}, w.name, b.name, \
                 (SELECT COUNT(*) FROM online_moves m WHERE m.game_id = g.id) \
                 FROM online_games g LEFT JOIN users w ON w.id = g.white_id \
                 LEFT JOIN users b ON b.id = g.black_id \
                 WHERE g.white_id = ?1 OR g.black_id = ?1 ORDER BY g.created_ms DESC LIMIT ?2"
            ))?;
            let rows = stmt.query_map(params![user, limit], |r| {
                Ok(GameSummary {
                    row: game_row(r)?,
                    names: [r.get(16)?, r.get(17)?],
                    plies: r.get(18)?,
                })
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn shown_game(&self, message: &str) -> Result<Option<ShownGame>, ApiError> {
        let message = message.to_string();
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT message, game_id, settings FROM shown_games WHERE message = ?1",
                [message],
                shown_row,
            )
            .optional()?)
        })
        .await
    }

    async fn shown_event(&self, message: &str) -> Result<Option<ShownEvent>, ApiError> {
        let message = message.to_string();
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT message, tournament_id, settings FROM shown_events WHERE message = ?1",
                [message],
                event_row,
            )
            .optional()?)
        })
        .await
    }

    async fn add_shown_event(&self, shown: ShownEvent) -> Result<(), ApiError> {
        self.with(move |c| {
            let n = c.execute(
                "INSERT INTO shown_events (message, tournament_id, settings) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (message) DO NOTHING",
                params![shown.message, shown.tournament_id, shown.settings],
            )?;
            if n == 0 {
                return Err(ApiError::conflict(
                    "message-taken",
                    "this message already shows a tournament",
                ));
            }
            Ok(())
        })
        .await
    }

    async fn shown_events(&self, prefix: &str) -> Result<Vec<ShownEvent>, ApiError> {
        let pattern = like_prefix(prefix);
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT message, tournament_id, settings FROM shown_events \
                 WHERE message LIKE ?1 ESCAPE '\\'",
            )?;
            let rows = stmt
                .query_map([pattern], event_row)?
                .collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .await
    }

    async fn add_shown_game(&self, shown: ShownGame) -> Result<(), ApiError> {
        self.with(move |c| {
            let n = c.execute(
                "INSERT INTO shown_games (message, game_id, settings) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (message) DO NOTHING",
                params![shown.message, shown.game_id, shown.settings],
            )?;
            if n == 0 {
                return Err(ApiError::conflict(
                    "message-taken",
                    "this message already shows a game",
                ));
            }
            Ok(())
        })
        .await
    }

    async fn shown_unfinished(&self, prefix: &str) -> Result<Vec<ShownGame>, ApiError> {
        let pattern = like_prefix(prefix);
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT s.message, s.game_id, s.settings FROM shown_games s \
                 JOIN online_games g ON g.id = s.game_id \
                 WHERE g.status != 'over' AND s.message LIKE ?1 ESCAPE '\\'",
            )?;
            let rows = stmt
                .query_map([pattern], shown_row)?
                .collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .await
    }

    async fn rating_history(&self, user: i64) -> Result<Vec<RatingPoint>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT speed, at_ms, rating FROM rating_history WHERE user_id = ?1 ORDER BY id",
            )?;
            let rows = stmt
                .query_map([user], |r| {
                    Ok(RatingPoint {
                        speed: r.get(0)?,
                        at_ms: r.get(1)?,
                        rating: r.get(2)?,
                    })
                })?
                .collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .await
    }

    async fn leaderboard(
        &self,
        speed: &str,
        max_deviation: f64,
        active_since_ms: i64,
        limit: i64,
    ) -> Result<Vec<LeaderRow>, ApiError> {
        let speed = speed.to_string();
        self.with(move |c| {
            let mut stmt = c.prepare(&numbered(LEADERBOARD_SQL))?;
            let rows = stmt
                .query_map(params![speed, max_deviation, active_since_ms, limit], |r| {
                    Ok(LeaderRow {
                        user: user_row(r)?,
                        rating: RatingRow {
                            rating: r.get(4)?,
                            deviation: r.get(5)?,
                            volatility: r.get(6)?,
                            games: r.get(7)?,
                        },
                        before: r.get(8)?,
                    })
                })?
                .collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .await
    }

    async fn record(&self, user: i64) -> Result<GameRecord, ApiError> {
        self.with(move |c| {
            Ok(c.query_row(&numbered(RECORD_SQL), [user], |r| {
                Ok(GameRecord {
                    all: r.get(0)?,
                    wins: r.get(1)?,
                    draws: r.get(2)?,
                    losses: r.get(3)?,
                    rated: r.get(4)?,
                })
            })?)
        })
        .await
    }

    async fn games_page(
        &self,
        user: i64,
        filter: GameFilter,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<GameSummary>, i64), ApiError> {
        self.with(move |c| {
            let (page, count) = games_page_sql(&filter);
            let mut stmt = c.prepare(&numbered(&page))?;
            let games = stmt
                .query_map(params![user, limit, offset], |r| {
                    Ok(GameSummary {
                        row: game_row(r)?,
                        names: [r.get(16)?, r.get(17)?],
                        plies: r.get(18)?,
                    })
                })?
                .collect::<Result<_, _>>()?;
            let total = c.query_row(&numbered(&count), [user], |r| r.get(0))?;
            Ok((games, total))
        })
        .await
    }
}

fn read_rating(c: &Connection, user: i64, speed: &str) -> rusqlite::Result<Option<RatingRow>> {
    c.query_row(
        "SELECT rating, deviation, volatility, games FROM ratings WHERE user_id = ?1 AND speed = ?2",
        params![user, speed],
        |r| {
            Ok(RatingRow {
                rating: r.get(0)?,
                deviation: r.get(1)?,
                volatility: r.get(2)?,
                games: r.get(3)?,
            })
        },
    )
    .optional()
}

/// The LIKE pattern (for `ESCAPE` with a backslash) of the texts that begin with `prefix`:
/// its `%`, `_` and backslashes taken as themselves.
fn like_prefix(prefix: &str) -> String {
    let escaped = prefix
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("{escaped}%")
}

fn event_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ShownEvent> {
    Ok(ShownEvent {
        message: r.get(0)?,
        tournament_id: r.get(1)?,
        settings: r.get(2)?,
    })
}

fn shown_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ShownGame> {
    Ok(ShownGame {
        message: r.get(0)?,
        game_id: r.get(1)?,
        settings: r.get(2)?,
    })
}
