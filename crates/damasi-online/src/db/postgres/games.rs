//! The PostgreSQL store's games: games and their moves, ratings, leaderboards, and the
//! messages of other services that show games and tournaments.

use async_trait::async_trait;
use tokio_postgres::Row;

use crate::db::{
    games_page_sql, GameFilter, GameRecord, GameStore, GameSummary, LeaderRow, OnlineGameRow,
    RatedResult, RatingPoint, RatingRow, ShownEvent, ShownGame, LEADERBOARD_SQL, RECORD_SQL,
};
use crate::error::ApiError;
use crate::rating;

use super::{db_error, user_row, PostgresDb, GAME_COLUMNS};

#[async_trait]
impl GameStore for PostgresDb {
    async fn shown_game(&self, message: &str) -> Result<Option<ShownGame>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT message, game_id, settings FROM shown_games WHERE message = $1",
                &[&message],
            )
            .await
            .map_err(db_error)?;
        Ok(row.as_ref().map(shown_row))
    }

    async fn shown_event(&self, message: &str) -> Result<Option<ShownEvent>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT message, tournament_id, settings FROM shown_events WHERE message = $1",
                &[&message],
            )
            .await
            .map_err(db_error)?;
        Ok(row.as_ref().map(event_row))
    }

    async fn add_shown_event(&self, shown: ShownEvent) -> Result<(), ApiError> {
        let c = self.client().await?;
        let n = c
            .execute(
                "INSERT INTO shown_events (message, tournament_id, settings) VALUES ($1, $2, $3) \
                 ON CONFLICT (message) DO NOTHING",
                &[&shown.message, &shown.tournament_id, &shown.settings],
            )
            .await
            .map_err(db_error)?;
        if n == 0 {
            return Err(ApiError::conflict(
                "message-taken",
                "this message already shows a tournament",
            ));
        }
        Ok(())
    }

    async fn shown_events(&self, prefix: &str) -> Result<Vec<ShownEvent>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT message, tournament_id, settings FROM shown_events \
                 WHERE starts_with(message, $1)",
                &[&prefix],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(event_row).collect())
    }

    async fn add_shown_game(&self, shown: ShownGame) -> Result<(), ApiError> {
        let c = self.client().await?;
        let n = c
            .execute(
                "INSERT INTO shown_games (message, game_id, settings) VALUES ($1, $2, $3) \
                 ON CONFLICT (message) DO NOTHING",
                &[&shown.message, &shown.game_id, &shown.settings],
            )
            .await
            .map_err(db_error)?;
        if n == 0 {
            return Err(ApiError::conflict(
                "message-taken",
                "this message already shows a game",
            ));
        }
        Ok(())
    }

    async fn shown_unfinished(&self, prefix: &str) -> Result<Vec<ShownGame>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT s.message, s.game_id, s.settings FROM shown_games s \
                 JOIN online_games g ON g.id = s.game_id \
                 WHERE g.status != 'over' AND starts_with(s.message, $1)",
                &[&prefix],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(shown_row).collect())
    }

    async fn rating_history(&self, user: i64) -> Result<Vec<RatingPoint>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT speed, at_ms, rating FROM rating_history WHERE user_id = $1 ORDER BY id",
                &[&user],
            )
            .await
            .map_err(db_error)?;
        Ok(rows
            .iter()
            .map(|r| RatingPoint {
                speed: r.get(0),
                at_ms: r.get(1),
                rating: r.get(2),
            })
            .collect())
    }

    async fn leaderboard(
        &self,
        speed: &str,
        max_deviation: f64,
        active_since_ms: i64,
        limit: i64,
    ) -> Result<Vec<LeaderRow>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                LEADERBOARD_SQL,
                &[&speed, &max_deviation, &active_since_ms, &limit],
            )
            .await
            .map_err(db_error)?;
        Ok(rows
            .iter()
            .map(|r| LeaderRow {
                user: user_row(r),
                rating: rating_row(r, 4),
                before: r.get(8),
            })
            .collect())
    }

    async fn record(&self, user: i64) -> Result<GameRecord, ApiError> {
        let c = self.client().await?;
        let r = c.query_one(RECORD_SQL, &[&user]).await.map_err(db_error)?;
        Ok(GameRecord {
            all: r.get(0),
            wins: r.get(1),
            draws: r.get(2),
            losses: r.get(3),
            rated: r.get(4),
        })
    }

    async fn games_page(
        &self,
        user: i64,
        filter: GameFilter,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<GameSummary>, i64), ApiError> {
        let c = self.client().await?;
        let (page, count) = games_page_sql(&filter);
        let rows = c
            .query(&page, &[&user, &limit, &offset])
            .await
            .map_err(db_error)?;
        let total: i64 = c
            .query_one(&count, &[&user])
            .await
            .map_err(db_error)?
            .get(0);
        Ok((
            rows.iter()
                .map(|r| {
                    Ok(GameSummary {
                        row: game_row(r)?,
                        names: [r.get(16), r.get(17)],
                        plies: r.get(18),
                    })
                })
                .collect::<Result<_, ApiError>>()?,
            total,
        ))
    }

    async fn withdraw_open(&self, id: &str, outcome: String) -> Result<bool, ApiError> {
        let c = self.client().await?;
        let n = c
            .execute(
                "UPDATE online_games SET status = 'over', outcome = $2, turn_started_ms = NULL \
                 WHERE id = $1 AND status = 'open'",
                &[&id, &outcome],
            )
            .await
            .map_err(db_error)?;
        Ok(n == 1)
    }

    async fn open_before(&self, before_ms: i64) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT id FROM online_games WHERE status = 'open' AND created_ms < $1",
                &[&before_ms],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    async fn challenges_to(&self, user: i64) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT id FROM online_games WHERE status = 'open' AND invited_id = $1 \
                 ORDER BY created_ms LIMIT 50",
                &[&user],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    async fn rating(&self, user: i64, speed: &str) -> Result<Option<RatingRow>, ApiError> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT rating, deviation, volatility, games FROM ratings WHERE user_id = $1 AND speed = $2",
                &[&user, &speed],
            )
            .await
            .map_err(db_error)?;
        Ok(row.map(|r| rating_row(&r, 0)))
    }

    async fn ratings(&self, user: i64) -> Result<Vec<(String, RatingRow)>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT speed, rating, deviation, volatility, games FROM ratings WHERE user_id = $1 ORDER BY speed",
                &[&user],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| (r.get(0), rating_row(r, 1))).collect())
    }

    async fn save_game(&self, g: OnlineGameRow) -> Result<(), ApiError> {
        let c = self.client().await?;
        c.execute(
            &format!(
                "INSERT INTO online_games ({GAME_COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) \
                 ON CONFLICT (id) DO UPDATE SET {}",
                crate::db::upsert_set(GAME_COLUMNS)
            ),
            &[
                &g.id,
                &g.created_ms,
                &g.players[0],
                &g.players[1],
                &g.initial_ms,
                &g.increment_ms,
                &g.rated,
                &g.chat,
                &g.status,
                &g.outcome,
                &g.turn_started_ms,
                &g.diffs[0],
                &g.diffs[1],
                &g.invited,
                &g.rules.name(),
                &g.event,
            ],
        )
        .await
        .map_err(db_error)?;
        Ok(())
    }

    async fn add_move(
        &self,
        id: &str,
        ply: usize,
        token: String,
        elapsed_ms: i64,
        turn_started_ms: i64,
    ) -> Result<(), ApiError> {
        // Through the group commit: the moves of many games share a transaction (`moves.rs`).
        self.write_move(crate::db::move_writer::MoveWrite {
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
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        self.check_fence(&tx, id).await?;
        tx.execute(
            "DELETE FROM online_moves WHERE game_id = $1 AND ply >= $2",
            &[&id, &(ply as i64)],
        )
        .await
        .map_err(db_error)?;
        tx.execute(
            "UPDATE online_games SET turn_started_ms = $2 WHERE id = $1",
            &[&id, &turn_started_ms],
        )
        .await
        .map_err(db_error)?;
        tx.commit().await.map_err(db_error)
    }

    async fn finish(
        &self,
        id: &str,
        outcome: String,
        rated: Option<RatedResult>,
    ) -> Result<[Option<i64>; 2], ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        self.check_fence(&tx, id).await?;
        let ended = tx
            .execute(
                "UPDATE online_games SET status = 'over', outcome = $2, turn_started_ms = NULL \
                 WHERE id = $1 AND status <> 'over'",
                &[&id, &outcome],
            )
            .await
            .map_err(db_error)?;
        let mut diffs = [None, None];
        if let (1, Some(rated)) = (ended, rated) {
            // Both rating rows exist, then are locked in the order of their ids (two games of
            // the same pair ending at once must not deadlock) and held until the commit.
            let start = rating::initial();
            for user in [rated.white, rated.black] {
                tx.execute(
                    "INSERT INTO ratings (user_id, speed, rating, deviation, volatility, games) \
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (user_id, speed) DO NOTHING",
                    &[
                        &user,
                        &rated.speed,
                        &start.rating,
                        &start.deviation,
                        &start.volatility,
                        &start.games,
                    ],
                )
                .await
                .map_err(db_error)?;
            }
            let rows = tx
                .query(
                    "SELECT user_id, rating, deviation, volatility, games FROM ratings \
                     WHERE speed = $1 AND user_id IN ($2, $3) ORDER BY user_id FOR UPDATE",
                    &[&rated.speed, &rated.white, &rated.black],
                )
                .await
                .map_err(db_error)?;
            let of = |user: i64| {
                rows.iter()
                    .find(|r| r.get::<_, i64>(0) == user)
                    .map(|r| rating_row(r, 1))
                    .unwrap_or(start)
            };
            let (white, black) = (of(rated.white), of(rated.black));
            if let Some((nw, nb, d)) = rated.apply(&white, &black) {
                for (user, r) in [(rated.white, nw), (rated.black, nb)] {
                    tx.execute(
                        "UPDATE ratings SET rating = $3, deviation = $4, volatility = $5, games = $6 \
                         WHERE user_id = $1 AND speed = $2",
                        &[&user, &rated.speed, &r.rating, &r.deviation, &r.volatility, &r.games],
                    )
                    .await
                    .map_err(db_error)?;
                    tx.execute(
                        "INSERT INTO rating_history (user_id, speed, at_ms, rating) VALUES ($1, $2, $3, $4)",
                        &[&user, &rated.speed, &rated.at_ms, &r.rating],
                    )
                    .await
                    .map_err(db_error)?;
                }
                tx.execute(
                    "UPDATE online_games SET white_diff = $2, black_diff = $3 WHERE id = $1",
                    &[&id, &d[0], &d[1]],
                )
                .await
                .map_err(db_error)?;
                diffs = d;
            }
        }
        tx.commit().await.map_err(db_error)?;
        Ok(diffs)
    }

    async fn game(
        &self,
        id: &str,
    ) -> Result<Option<(OnlineGameRow, Vec<(String, i64)>)>, ApiError> {
        let c = self.client().await?;
        let Some(row) = c
            .query_opt(
                &format!("SELECT {GAME_COLUMNS} FROM online_games WHERE id = $1"),
                &[&id],
            )
            .await
            .map_err(db_error)?
        else {
            return Ok(None);
        };
        let moves = c
            .query(
                "SELECT token, elapsed_ms FROM online_moves WHERE game_id = $1 ORDER BY ply",
                &[&id],
            )
            .await
            .map_err(db_error)?;
        Ok(Some((
            game_row(&row)?,
            moves.iter().map(|m| (m.get(0), m.get(1))).collect(),
        )))
    }

    async fn ended_among(&self, ids: &[String]) -> Result<Vec<(String, Option<String>)>, ApiError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT id, outcome FROM online_games WHERE status = 'over' AND id = ANY($1)",
                &[&ids],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    async fn unfinished(&self) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query("SELECT id FROM online_games WHERE status != 'over'", &[])
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    async fn playing_of(&self, user: i64, limit: i64) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT id FROM online_games WHERE status = 'playing' \
                 AND (white_id = $1 OR black_id = $1) ORDER BY created_ms DESC LIMIT $2",
                &[&user, &limit],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    async fn games_of(&self, user: i64, limit: i64) -> Result<Vec<GameSummary>, ApiError> {
        let c = self.client().await?;
        let cols = GAME_COLUMNS
            .split(", ")
            .map(|col| format!("g.{col}"))
            .collect::<Vec<_>>()
            .join(", ");
        let rows = c
            .query(
                &format!(
                    "SELECT {cols}, w.name, b.name, \
                     (SELECT COUNT(*) FROM online_moves m WHERE m.game_id = g.id) \
                     FROM online_games g LEFT JOIN users w ON w.id = g.white_id \
                     LEFT JOIN users b ON b.id = g.black_id \
                     WHERE g.white_id = $1 OR g.black_id = $1 ORDER BY g.created_ms DESC LIMIT $2"
                ),
                &[&user, &limit],
            )
            .await
            .map_err(db_error)?;
        rows.iter()
            .map(|r| {
                Ok(GameSummary {
                    row: game_row(r)?,
                    names: [r.get(16), r.get(17)],
                    plies: r.get(18),
                })
            })
            .collect()
    }
}

fn game_row(r: &Row) -> Result<OnlineGameRow, ApiError> {
    Ok(OnlineGameRow {
        id: r.get(0),
        created_ms: r.get(1),
        players: [r.get(2), r.get(3)],
        initial_ms: r.get(4),
        increment_ms: r.get(5),
        rated: r.get(6),
        chat: r.get(7),
        status: r.get(8),
        outcome: r.get(9),
        turn_started_ms: r.get(10),
        diffs: [r.get(11), r.get(12)],
        invited: r.get(13),
        rules: crate::db::stored_rules(r.get(0), r.get(14)).map_err(ApiError::Internal)?,
        event: r.get(15),
    })
}

fn event_row(r: &Row) -> ShownEvent {
    ShownEvent {
        message: r.get(0),
        tournament_id: r.get(1),
        settings: r.get(2),
    }
}

fn shown_row(r: &Row) -> ShownGame {
    ShownGame {
        message: r.get(0),
        game_id: r.get(1),
        settings: r.get(2),
    }
}

fn rating_row(r: &Row, from: usize) -> RatingRow {
    RatingRow {
        rating: r.get(from),
        deviation: r.get(from + 1),
        volatility: r.get(from + 2),
        games: r.get(from + 3),
    }
}
