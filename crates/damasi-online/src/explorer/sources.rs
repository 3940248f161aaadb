//! Where the explorer's games come from: the server's own games as they end (and those that
//! ended while nobody listened), and master games read from PDN files.

use std::io::BufRead;
use std::time::Duration;

use damasi::pdn::{self, PdnGame};
use damasi::{Game, Outcome, Position, RuleSet};
use sha2::{Digest, Sha256};
use tokio::sync::broadcast::error::RecvError;

use crate::db::OnlineDb;
use crate::error::ApiError;
use crate::rating::{self, Speed};
use crate::record::Record;
use crate::Online;

use super::{ExploredGame, GameFacts, Source};

/// How often the games that ended unheard are looked for while the server runs (a game whose
/// end could not be stored at once is announced before it is stored, and counted here).
const CATCH_UP_EVERY: Duration = Duration::from_secs(600);

/// Games looked at per round of a catch-up.
const CATCH_UP_BATCH: i64 = 200;

/// Master games written per transaction while importing: short transactions, so that the
/// server's own writes to the same database do not wait long.
const IMPORT_BATCH: usize = 500;

/// Keeps the explorer up to date with the server's games: catches up with the games that
/// ended unheard, then counts each game as it ends (and catches up again after missing some,
/// and every ten minutes). The one listener of [`Online::finished_games`] for the
/// explorer; every process of a cluster may run it, since each game is counted once.
pub fn follow(online: &Online) -> tokio::task::JoinHandle<()> {
    // Subscribed before the catch-up, so that no game ends in between unheard.
    let mut ended = online.finished_games();
    let db = online.db().clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(CATCH_UP_EVERY);
        loop {
            tokio::select! {
                _ = tick.tick() => report(catch_up(&db).await),
                game = ended.recv() => match game {
                    Ok(g) if g.outcome.is_some_and(|o| o != Outcome::Aborted) => {
                        if let Err(e) = count_online_game(&db, &g.id).await {
                            eprintln!("damasi: explorer: game {}: {e:?}", g.id);
                        }
                    }
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => report(catch_up(&db).await),
                    Err(RecvError::Closed) => return,
                },
            }
        }
    })
}

fn report(r: Result<usize, ApiError>) {
    match r {
        Ok(0) => {}
        Ok(n) => println!("damasi: explorer: counted {n} games that ended unheard"),
        Err(e) => eprintln!("damasi: explorer: cannot catch up: {e:?}"),
    }
}

/// Counts the server's finished games that the explorer has not counted yet; returns how
/// many it counted. Stops when a round counts none (games that cannot be read are reported
/// and left for the next time).
pub async fn catch_up(db: &OnlineDb) -> Result<usize, ApiError> {
    let mut total = 0;
    loop {
        let ids = db.unexplored_games(CATCH_UP_BATCH).await?;
        let mut counted = 0;
        for id in &ids {
            match count_online_game(db, id).await {
                Ok(true) => counted += 1,
                Ok(false) => {}
                Err(e) => eprintln!("damasi: explorer: game {id}: {e:?}"),
            }
        }
        total += counted;
        if counted == 0 || (ids.len() as i64) < CATCH_UP_BATCH {
            return Ok(total);
        }
    }
}

/// Counts the server's game `id` if it is over, under the federation's rules and not
/// aborted; whether it was counted now (false: not such a game, or counted already).
///
/// The players' ratings are those of the game's speed class before it: for a rated game the
/// rating now less the game's change (exact when the game is counted as it ends, as it
/// normally is), for a casual one the rating now; 1500 (the start) for a player with none.
pub async fn count_online_game(db: &OnlineDb, id: &str) -> Result<bool, ApiError> {
    let Some((row, moves)) = db.game(id).await? else {
        return Ok(false);
    };
    let outcome: Option<Outcome> = row.outcome.as_deref().and_then(|c| c.parse().ok());
    if row.status != "over" || row.rules != RuleSet::default() {
        return Ok(false);
    }
    let record = match Record::replay(
        Position::start(),
        row.rules,
        None,
        moves.iter().map(|(t, _)| (t.as_str(), 0)),
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("damasi: explorer: game {id} cannot be replayed, left out: {e:?}");
            return skip(db, id).await;
        }
    };
    let speed = Speed::of(row.initial_ms, row.increment_ms);
    let mut facts = GameFacts {
        speed: Some(speed),
        at_ms: row.turn_started_ms.unwrap_or(row.created_ms),
        ..GameFacts::default()
    };
    for i in 0..2 {
        let Some(user) = row.players[i] else { continue };
        facts.names[i] = db.user(user).await?.map(|u| u.name);
        let now = db
            .rating(user, speed.name())
            .await?
            .unwrap_or_else(rating::initial);
        let change = if row.rated {
            row.diffs[i].unwrap_or(0)
        } else {
            0
        };
        facts.ratings[i] = Some(now.rating.round() as i64 - change);
    }
    (facts.year, facts.month) = year_month_of_ms(facts.at_ms);
    let game = match ExploredGame::new(
        Source::Server,
        id.to_string(),
        record.game(),
        outcome,
        facts,
    ) {
        Ok(g) => g,
        Err(_) => return skip(db, id).await,
    };
    Ok(db.explore_games(vec![game]).await? == 1)
}

/// Marks a finished game the explorer cannot count (a stored outcome it cannot read, moves
/// that do not replay) as looked at, with no move, so that catching up does not look at it
/// again and again; counted: false.
async fn skip(db: &OnlineDb, id: &str) -> Result<bool, ApiError> {
    let none = ExploredGame {
        source: Source::Server,
        key: id.to_string(),
        names: [None, None],
        ratings: [None, None],
        winner: None,
        speed: Speed::Classical,
        at_ms: 0,
        year: None,
        month: None,
        plies: Vec::new(),
    };
    db.explore_games(vec![none]).await?;
    Ok(false)
}

/// The year and month of a moment (Unix ms).
fn year_month_of_ms(ms: i64) -> (Option<i64>, Option<i64>) {
    year_month(&pdn::pdn_date(ms.div_euclid(1000)))
}

/// The year and month of a PDN date (`2024.05.17`, `2024.??.??`).
fn year_month(date: &str) -> (Option<i64>, Option<i64>) {
    let mut parts = date.split('.');
    let year = parts
        .next()
        .filter(|y| y.len() == 4)
        .and_then(|y| y.parse().ok());
    let month = parts
        .next()
        .and_then(|m| m.parse().ok())
        .filter(|m| (1..=12).contains(m));
    (year, month.filter(|_| year.is_some()))
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Games read and counted now.
    pub imported: usize,
    /// Games read that were counted already (the same game imported before).
    pub duplicates: usize,
    /// Games left out, each with why: `game N (line L): ...`.
    pub skipped: Vec<String>,
}

/// A master game as counted, or why not. Its key is a hash of what makes it that game (the
/// players, event, date, round, result and moves), so importing it again counts it once.
fn master_game(record: &PdnGame) -> Result<ExploredGame, String> {
    let tag = |name: &str| {
        record
            .tag(name)
            .map(str::trim)
            .filter(|v| !v.is_empty() && *v != "?" && *v != "-")
    };
    let elo = |name: &str| {
        tag(name)
            .and_then(|v| v.parse::<i64>().ok())
            .filter(|r| *r > 0)
    };
    let mut hash = Sha256::new();
    for name in ["Event", "Site", "Date", "Round", "White", "Black", "Result"] {
        hash.update(tag(name).unwrap_or("").as_bytes());
        hash.update([0]);
    }
    for m in record.game.history() {
        hash.update(Record::token(m).as_bytes());
        hash.update([b' ']);
    }
    let key = crate::hex(&hash.finalize()[..8]);
    let (year, month) = tag("Date").map_or((None, None), year_month);
    let facts = GameFacts {
        names: [
            tag("White").map(String::from),
            tag("Black").map(String::from),
        ],
        ratings: [elo("WhiteElo"), elo("BlackElo")],
        speed: Some(Speed::Classical),
        at_ms: 0,
        year,
        month,
    };
    ExploredGame::new(
        Source::Masters,
        key,
        &record.game,
        record.game.outcome(),
        facts,
    )
}

/// Imports the master games of a PDN input: each game that reads and has a result is
/// counted (once: a game imported before is passed over); a broken game, one with no result
/// (`*`), under other rules or from a set-up position is reported with its number (and
/// line, when the reader knows it) and skipped, and the rest are imported.
pub async fn import_masters<R: BufRead>(db: &OnlineDb, input: R) -> Result<ImportReport, ApiError> {
    let mut report = ImportReport::default();
    let mut batch = Vec::new();
    let mut number = 0;
    for read in pdn::read_games(input) {
        number += 1;
        match read {
            Err(e) => {
                report
                    .skipped
                    .push(format!("game {} (line {}): {}", e.game, e.line, kind(&e)))
            }
            Ok(record) => match master_game(&record) {
                Ok(g) => batch.push(g),
                Err(why) => report.skipped.push(format!("game {number}: {why}")),
            },
        }
        if batch.len() >= IMPORT_BATCH {
            flush(db, &mut batch, &mut report).await?;
        }
    }
    flush(db, &mut batch, &mut report).await?;
    Ok(report)
}

/// The reason of a PDN error without its place (which the report writes itself).
fn kind(e: &pdn::PdnError) -> String {
    let text = e.to_string();
    match text.split_once("): ") {
        Some((_, rest)) => rest.to_string(),
        None => text,
    }
}

async fn flush(
    db: &OnlineDb,
    batch: &mut Vec<ExploredGame>,
    report: &mut ImportReport,
) -> Result<(), ApiError> {
    // The same game twice in one batch: the second is a duplicate like one imported before.
    let n = batch.len();
    let counted = db.explore_games(std::mem::take(batch)).await?;
    report.imported += counted;
    report.duplicates += n - counted;
    Ok(())
}

/// A game as [`ExploredGame::new`] takes it, for callers that have moves and an outcome
/// (tests, benchmarks): the moves `texts` from the start under the default rules.
pub fn game_of(texts: &[&str]) -> Result<Game, ApiError> {
    let mut game = Game::new();
    for (i, text) in texts.iter().enumerate() {
        game.play_text(text)
            .map_err(|e| ApiError::from(e).prefixed(&format!("move {}", i + 1)))?;
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_give_a_year_and_month() {
        assert_eq!(year_month("2024.05.17"), (Some(2024), Some(5)));
        assert_eq!(year_month("2024.??.??"), (Some(2024), None));
        assert_eq!(year_month("????.05.??"), (None, None));
        assert_eq!(year_month_of_ms(1_795_651_200_000), (Some(2026), Some(11)));
    }
}
