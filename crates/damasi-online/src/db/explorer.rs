//! The opening explorer's tables (see [`crate::explorer`]): one row per game counted
//! (`explorer_games`, which is also the mark that a game was counted: its key is unique, so a
//! game is counted once however often it is offered), and one aggregate row per position,
//! move, speed class and rating band (`explorer_moves`), the only rows a query reads.

use std::collections::BTreeMap;

use rusqlite::{params, OptionalExtension};

use async_trait::async_trait;

use crate::error::ApiError;
use crate::explorer::{ExploredGame, GameRef, MoveRow, Source, MAX_ROWS};
use crate::rating::Speed;

use super::postgres::{db_error, PostgresDb};
use super::sqlite::SqliteDb;

pub(super) const SQLITE_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS explorer_games (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    source INTEGER NOT NULL,
    game TEXT NOT NULL,
    white TEXT,
    black TEXT,
    white_rating INTEGER,
    black_rating INTEGER,
    result INTEGER NOT NULL,
    speed INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    year INTEGER,
    month INTEGER,
    UNIQUE (source, game)
);
CREATE TABLE IF NOT EXISTS explorer_moves (
    source INTEGER NOT NULL,
    pos INTEGER NOT NULL,
    speed INTEGER NOT NULL,
    band INTEGER NOT NULL,
    mv TEXT NOT NULL,
    white INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    black INTEGER NOT NULL,
    rated INTEGER NOT NULL,
    rating_sum INTEGER NOT NULL,
    top_n INTEGER NOT NULL,
    top_rating INTEGER NOT NULL,
    last_n INTEGER NOT NULL,
    last_ms INTEGER NOT NULL,
    PRIMARY KEY (source, pos, speed, band, mv)
) WITHOUT ROWID;
";

pub(super) const POSTGRES_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS explorer_games (
    n BIGSERIAL PRIMARY KEY,
    source BIGINT NOT NULL,
    game TEXT NOT NULL,
    white TEXT,
    black TEXT,
    white_rating BIGINT,
    black_rating BIGINT,
    result BIGINT NOT NULL,
    speed BIGINT NOT NULL,
    at_ms BIGINT NOT NULL,
    year BIGINT,
    month BIGINT,
    UNIQUE (source, game)
);
CREATE TABLE IF NOT EXISTS explorer_moves (
    source BIGINT NOT NULL,
    pos BIGINT NOT NULL,
    speed BIGINT NOT NULL,
    band BIGINT NOT NULL,
    mv TEXT NOT NULL,
    white BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    black BIGINT NOT NULL,
    rated BIGINT NOT NULL,
    rating_sum BIGINT NOT NULL,
    top_n BIGINT NOT NULL,
    top_rating BIGINT NOT NULL,
    last_n BIGINT NOT NULL,
    last_ms BIGINT NOT NULL,
    PRIMARY KEY (source, pos, speed, band, mv)
);
";

/// SQL (both stores): marks a game counted, unless it is already; returns its number.
const MARK: &str = "INSERT INTO explorer_games \
    (source, game, white, black, white_rating, black_rating, result, speed, at_ms, year, month) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
    ON CONFLICT (source, game) DO NOTHING RETURNING n";

/// SQL (both stores): adds one game's move to its aggregate row. The best-rated and the
/// latest game of the row are kept by number, for `topGames` and `recentGames`.
const ADD: &str = "INSERT INTO explorer_moves \
    (source, pos, speed, band, mv, white, draws, black, rated, rating_sum, top_n, top_rating, last_n, last_ms) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) \
    ON CONFLICT (source, pos, speed, band, mv) DO UPDATE SET \
    white = explorer_moves.white + excluded.white, \
    draws = explorer_moves.draws + excluded.draws, \
    black = explorer_moves.black + excluded.black, \
    rated = explorer_moves.rated + excluded.rated, \
    rating_sum = explorer_moves.rating_sum + excluded.rating_sum, \
    top_n = CASE WHEN excluded.top_rating > explorer_moves.top_rating \
        THEN excluded.top_n ELSE explorer_moves.top_n END, \
    top_rating = CASE WHEN excluded.top_rating > explorer_moves.top_rating \
        THEN excluded.top_rating ELSE explorer_moves.top_rating END, \
    last_n = CASE WHEN excluded.last_ms >= explorer_moves.last_ms \
        THEN excluded.last_n ELSE explorer_moves.last_n END, \
    last_ms = CASE WHEN excluded.last_ms >= explorer_moves.last_ms \
        THEN excluded.last_ms ELSE explorer_moves.last_ms END";

/// SQL (both stores): the aggregate rows of one position, a bounded read of the primary key.
const ROWS: &str = "SELECT mv, speed, band, white, draws, black, rated, rating_sum, \
    top_n, top_rating, last_n, last_ms FROM explorer_moves \
    WHERE source = $1 AND pos = $2 LIMIT $3";

const REF_COLUMNS: &str =
    "n, game, white, black, white_rating, black_rating, result, speed, year, month";

/// SQL (both stores): the finished games of the server that the explorer takes (the default
/// rules, not aborted) and has not counted yet, oldest first, at most `$1`.
const UNEXPLORED: &str = "SELECT g.id FROM online_games g WHERE g.status = 'over' \
    AND g.outcome IS NOT NULL AND g.outcome <> 'aborted' AND g.rules = 'turkish' \
    AND NOT EXISTS (SELECT 1 FROM explorer_games e WHERE e.source = 0 AND e.game = g.id) \
    ORDER BY g.created_ms LIMIT $1";

/// What newly counted games add to one aggregate row: their sums, and the best-rated and the
/// latest of them.
struct Addition<'a> {
    key: (i64, i64, i64, i64, &'a str),
    counts: [i64; 3],
    rated: i64,
    rating_sum: i64,
    /// (average rating or -1, game number).
    top: (i64, i64),
    /// (time, game number).
    last: (i64, i64),
}

impl Addition<'_> {
    /// The values of [`ADD`], in its order.
    fn values(&self) -> (i64, i64, i64, i64, &str, [i64; 9]) {
        let (source, pos, speed, band, mv) = self.key;
        let [w, d, b] = self.counts;
        let v = [
            w,
            d,
            b,
            self.rated,
            self.rating_sum,
            self.top.1,
            self.top.0,
            self.last.1,
            self.last.0,
        ];
        (source, pos, speed, band, mv, v)
    }
}

/// The rows that the games just marked (each with its number, in the order marked) add to,
/// summed, in key order. In key order, every transaction takes the rows' locks in the same
/// order, so two processes counting games at once never wait for each other in a circle
/// (PostgreSQL); and a batch writes each row once, however many of its games played the move.
/// The best and latest games are chosen as [`ADD`] chooses them: the first of equal ratings,
/// the last of equal times.
fn additions<'a>(marked: &[(i64, &'a ExploredGame)]) -> Vec<Addition<'a>> {
    let mut rows: BTreeMap<(i64, i64, i64, i64, &'a str), Addition<'a>> = BTreeMap::new();
    for &(n, g) in marked {
        let (w, d, b) = g.result_counts();
        let rating = g.average_rating();
        let (speed, band) = (g.speed_code(), g.band() as i64);
        for (pos, mv) in &g.plies {
            let key = (g.source as i64, *pos as i64, speed, band, mv.as_str());
            let row = rows.entry(key).or_insert(Addition {
                key,
                counts: [0; 3],
                rated: 0,
                rating_sum: 0,
                top: (i64::MIN, 0),
                last: (i64::MIN, 0),
            });
            row.counts[0] += w;
            row.counts[1] += d;
            row.counts[2] += b;
            row.rated += i64::from(rating.is_some());
            row.rating_sum += rating.unwrap_or(0);
            let top = rating.unwrap_or(-1);
            if top > row.top.0 {
                row.top = (top, n);
            }
            if g.at_ms >= row.last.0 {
                row.last = (g.at_ms, n);
            }
        }
    }
    rows.into_values().collect()
}

/// The games in the order they are marked: by source and key, the same order in every
/// transaction (see [`additions`]).
fn in_mark_order(games: &mut [ExploredGame]) {
    games.sort_by(|a, b| (a.source as i64, &a.key).cmp(&(b.source as i64, &b.key)));
}

fn speed_of(code: i64) -> Speed {
    Speed::ALL
        .get(code as usize)
        .copied()
        .unwrap_or(Speed::Classical)
}

fn winner_of(result: i64) -> Option<damasi::Color> {
    match result {
        1 => Some(damasi::Color::White),
        -1 => Some(damasi::Color::Black),
        _ => None,
    }
}

/// The opening explorer's counts.
#[async_trait]
pub trait ExplorerStore: Send + Sync {
    /// Counts `games` in the explorer, in one transaction: each game that is not counted yet
    /// (by its source and key) is marked and its moves added to their rows; one counted
    /// already is passed over. Returns how many were counted now.
    async fn explore_games(&self, games: Vec<ExploredGame>) -> Result<usize, ApiError>;

    /// The explorer's rows of the position whose Zobrist key is `pos` in `source`, at most
    /// [`MAX_ROWS`].
    async fn explorer_rows(&self, source: Source, pos: u64) -> Result<Vec<MoveRow>, ApiError>;

    /// The counted games with these numbers (those that exist), in no particular order.
    async fn explorer_game_refs(&self, ns: Vec<i64>) -> Result<Vec<GameRef>, ApiError>;

    /// Ids of finished games of the server the explorer takes but has not counted yet
    /// (ended while no process listened, or while one was counting), oldest first, at most
    /// `limit`.
    async fn unexplored_games(&self, limit: i64) -> Result<Vec<String>, ApiError>;
}

#[async_trait]
impl ExplorerStore for SqliteDb {
    async fn explore_games(&self, mut games: Vec<ExploredGame>) -> Result<usize, ApiError> {
        if games.is_empty() {
            return Ok(0);
        }
        in_mark_order(&mut games);
        self.with(move |c| {
            let tx = c.transaction()?;
            let mut marked = Vec::new();
            {
                let mut mark = tx.prepare_cached(MARK)?;
                for g in &games {
                    let n: Option<i64> = mark
                        .query_row(
                            params![
                                g.source as i64,
                                g.key,
                                g.names[0],
                                g.names[1],
                                g.ratings[0],
                                g.ratings[1],
                                g.result_code(),
                                g.speed_code(),
                                g.at_ms,
                                g.year,
                                g.month
                            ],
                            |r| r.get(0),
                        )
                        .optional()?;
                    if let Some(n) = n {
                        marked.push((n, g));
                    }
                }
                let mut add = tx.prepare_cached(ADD)?;
                for a in additions(&marked) {
                    let (source, pos, speed, band, mv, v) = a.values();
                    add.execute(params![
                        source, pos, speed, band, mv, v[0], v[1], v[2], v[3], v[4], v[5], v[6],
                        v[7], v[8]
                    ])?;
                }
            }
            let counted = marked.len();
            tx.commit()?;
            Ok(counted)
        })
        .await
    }

    async fn explorer_rows(&self, source: Source, pos: u64) -> Result<Vec<MoveRow>, ApiError> {
        self.read(move |c| {
            let mut stmt = c.prepare_cached(ROWS)?;
            let rows =
                stmt.query_map(params![source as i64, pos as i64, MAX_ROWS as i64], |r| {
                    Ok(MoveRow {
                        mv: r.get(0)?,
                        speed: speed_of(r.get(1)?),
                        band: r.get::<_, i64>(2)? as usize,
                        counts: [r.get(3)?, r.get(4)?, r.get(5)?],
                        rated: r.get(6)?,
                        rating_sum: r.get(7)?,
                        top: (r.get(8)?, r.get(9)?),
                        last: (r.get(10)?, r.get(11)?),
                    })
                })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn explorer_game_refs(&self, ns: Vec<i64>) -> Result<Vec<GameRef>, ApiError> {
        if ns.is_empty() {
            return Ok(Vec::new());
        }
        self.read(move |c| {
            let mut stmt = c.prepare_cached(&format!(
                "SELECT {REF_COLUMNS} FROM explorer_games WHERE n = ?1"
            ))?;
            let mut out = Vec::new();
            for n in ns {
                if let Some(g) = stmt
                    .query_row([n], |r| {
                        Ok(GameRef {
                            n: r.get(0)?,
                            key: r.get(1)?,
                            names: [r.get(2)?, r.get(3)?],
                            ratings: [r.get(4)?, r.get(5)?],
                            winner: winner_of(r.get(6)?),
                            speed: speed_of(r.get(7)?),
                            year: r.get(8)?,
                            month: r.get(9)?,
                        })
                    })
                    .optional()?
                {
                    out.push(g);
                }
            }
            Ok(out)
        })
        .await
    }

    async fn unexplored_games(&self, limit: i64) -> Result<Vec<String>, ApiError> {
        self.with(move |c| {
            let mut stmt = c.prepare_cached(UNEXPLORED)?;
            let rows = stmt.query_map([limit], |r| r.get(0))?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }
}

fn pg_ref(r: &tokio_postgres::Row) -> GameRef {
    GameRef {
        n: r.get(0),
        key: r.get(1),
        names: [r.get(2), r.get(3)],
        ratings: [r.get(4), r.get(5)],
        winner: winner_of(r.get(6)),
        speed: speed_of(r.get(7)),
        year: r.get(8),
        month: r.get(9),
    }
}

#[async_trait]
impl ExplorerStore for PostgresDb {
    async fn explore_games(&self, mut games: Vec<ExploredGame>) -> Result<usize, ApiError> {
        if games.is_empty() {
            return Ok(0);
        }
        in_mark_order(&mut games);
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        let mark = tx.prepare(MARK).await.map_err(db_error)?;
        let add = tx.prepare(ADD).await.map_err(db_error)?;
        let mut marked = Vec::new();
        for g in &games {
            // Another process counting the same game waits here on the unique key until the
            // first commits, then finds it counted.
            let row = tx
                .query_opt(
                    &mark,
                    &[
                        &(g.source as i64),
                        &g.key,
                        &g.names[0],
                        &g.names[1],
                        &g.ratings[0],
                        &g.ratings[1],
                        &g.result_code(),
                        &g.speed_code(),
                        &g.at_ms,
                        &g.year,
                        &g.month,
                    ],
                )
                .await
                .map_err(db_error)?;
            if let Some(row) = row {
                marked.push((row.get::<_, i64>(0), g));
            }
        }
        let sums = additions(&marked);
        let rows: Vec<_> = sums.iter().map(Addition::values).collect();
        type Param<'a> = &'a (dyn tokio_postgres::types::ToSql + Sync);
        let params: Vec<[Param<'_>; 14]> = rows
            .iter()
            .map(|(source, pos, speed, band, mv, v)| -> [Param<'_>; 14] {
                [
                    source, pos, speed, band, mv, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                    &v[7], &v[8],
                ]
            })
            .collect();
        // Pipelined on the connection (sent in this order, not one round trip each).
        let adds = params.iter().map(|p| tx.execute(&add, p));
        futures_util::future::try_join_all(adds)
            .await
            .map_err(db_error)?;
        tx.commit().await.map_err(db_error)?;
        Ok(marked.len())
    }

    async fn explorer_rows(&self, source: Source, pos: u64) -> Result<Vec<MoveRow>, ApiError> {
        let c = self.client().await?;
        let rows = c
            .query(ROWS, &[&(source as i64), &(pos as i64), &(MAX_ROWS as i64)])
            .await
            .map_err(db_error)?;
        Ok(rows
            .iter()
            .map(|r| MoveRow {
                mv: r.get(0),
                speed: speed_of(r.get(1)),
                band: r.get::<_, i64>(2) as usize,
                counts: [r.get(3), r.get(4), r.get(5)],
                rated: r.get(6),
                rating_sum: r.get(7),
                top: (r.get(8), r.get(9)),
                last: (r.get(10), r.get(11)),
            })
            .collect())
    }

    async fn explorer_game_refs(&self, ns: Vec<i64>) -> Result<Vec<GameRef>, ApiError> {
        if ns.is_empty() {
            return Ok(Vec::new());
        }
        let c = self.client().await?;
        let rows = c
            .query(
                &format!("SELECT {REF_COLUMNS} FROM explorer_games WHERE n = ANY($1)"),
                &[&ns],
            )
            .await
            .map_err(db_error)?;
        Ok(rows.iter().map(pg_ref).collect())
    }

    async fn unexplored_games(&self, limit: i64) -> Result<Vec<String>, ApiError> {
        let c = self.client().await?;
        let rows = c.query(UNEXPLORED, &[&limit]).await.map_err(db_error)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }
}
