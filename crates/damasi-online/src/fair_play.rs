//! Fair-play screening: after each rated game, in the background, the server scores each
//! side's moves against the engine searching to a fixed depth: how often the move played was
//! the engine's first choice, what the others lost against it (in men), and how the thinking
//! time was spread. It keeps these per game and side, and looks at each player's last games
//! together; an account beyond the thresholds goes to the moderators' queue as a report of
//! the screen's own, with the figures and the games as evidence. Nothing is done to an account
//! automatically: a moderator decides.
//!
//! The CPU is bounded: one thread of its own at the lowest priority, one game at a time, each
//! position searched to the fixed depth only. In a cluster each game is screened once (a
//! process claims it in the database first). The screen's error rates on games the project
//! made are measured with `damasi fair-play-trial` and published in `docs/fair-play.md`.

use std::sync::{mpsc, Arc};
use std::time::Duration;

use damasi::{ByColor, Color, Game, Move};
use damasi_engine::{
    Engine, EngineOptions, Limits, Score, SearchControl, SearchRequest, SearchRoot,
};
use serde_json::json;
use tokio::sync::{broadcast::error::RecvError, oneshot};

use crate::db::{OnlineDb, ReportRow, ScreenRow};
use crate::error::ApiError;
use crate::record::Record;
use crate::{now_ms, Online};

/// How the screen scores games and when it reports a player.
#[derive(Clone, Debug, PartialEq)]
pub struct ScreenSettings {
    /// The depth every position is searched to.
    pub depth: u32,
    /// The plies at the start not scored (the openings everyone knows).
    pub opening_plies: usize,
    /// Positions whose best score is beyond this (hundredths of a man) are not scored: when a
    /// game is decided, any move wins.
    pub decided_cm: i32,
    /// A move's loss is counted up to this much (hundredths of a man), so that one blunder
    /// does not hide a player's other moves.
    pub loss_cap_cm: i32,
    /// A side with fewer scored moves in a game does not count that game.
    pub min_moves: i64,
    /// How many of a player's last games are looked at together.
    pub window: usize,
    /// Fewest counted games among those before a player can be reported.
    pub min_games: usize,
    /// Reported when at least this share of the scored moves were the engine's first
    /// choice...
    pub agreement: f64,
    /// ...and the moves lost at most this much on average (men).
    pub average_loss_men: f64,
    /// How far back, when the server starts, the games that ended unscreened are taken up.
    pub catch_up: Duration,
}

impl Default for ScreenSettings {
    /// The settings measured in `docs/fair-play.md`.
    fn default() -> Self {
        ScreenSettings {
            depth: 8,
            opening_plies: 10,
            decided_cm: 300,
            loss_cap_cm: 300,
            min_moves: 10,
            window: 10,
            min_games: 5,
            agreement: 0.82,
            average_loss_men: 0.10,
            catch_up: Duration::from_secs(7 * 24 * 3600),
        }
    }
}

/// One side's scores in one game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideScore {
    /// Moves scored.
    pub moves: i64,
    /// Of those, the engine's first choice.
    pub agreed: i64,
    /// Loss of the scored moves against the engine's choice, summed (hundredths of a man).
    pub loss_cm: i64,
    /// Average thinking time of the scored moves (ms).
    pub think_mean_ms: i64,
    /// Its standard deviation (ms).
    pub think_sd_ms: i64,
}

/// Scores each side's moves of `game` (`think_ms[ply]` the time each move took; missing ones
/// count as 0) with `engine`, searching each scored position to `settings.depth`. A position
/// is scored when it is past the opening, the side had more than one legal move, and the game
/// was not decided there yet. Answers White's and Black's scores.
pub fn screen_game(
    engine: &mut Engine,
    game: &Game,
    think_ms: &[i64],
    settings: &ScreenSettings,
) -> ByColor<SideScore> {
    engine.new_game();
    let mut root = SearchRoot {
        position: *game.initial_position(),
        history: Vec::new(),
        rules: *game.rules(),
        plies_since_capture: 0,
    };
    let mut scores = ByColor::<SideScore>::default();
    let mut thinks = ByColor::<Vec<i64>>::default();
    for (ply, played) in game.history().iter().enumerate() {
        let side = root.position.side_to_move();
        if ply >= settings.opening_plies && root.position.legal_moves().len() > 1 {
            if let Some(loss) = move_loss(engine, &root, played, settings) {
                let s = &mut scores[side];
                s.moves += 1;
                s.agreed += i64::from(loss == 0);
                s.loss_cm += i64::from(loss);
                thinks[side].push(think_ms.get(ply).copied().unwrap_or(0).max(0));
            }
        }
        root.history.push(root.position.key());
        root.plies_since_capture = if played.is_capture() {
            0
        } else {
            root.plies_since_capture + 1
        };
        root.position = root.position.play(played);
    }
    for side in Color::BOTH {
        let s = &mut scores[side];
        (s.think_mean_ms, s.think_sd_ms) = mean_and_sd(&thinks[side]);
    }
    scores
}

/// What `played` loses at `root` against the engine's first choice (0 when it is that
/// choice), capped; none when the position is decided already.
fn move_loss(
    engine: &mut Engine,
    root: &SearchRoot,
    played: &Move,
    settings: &ScreenSettings,
) -> Option<i32> {
    let search = |engine: &mut Engine, only: Vec<Move>| {
        let request =
            SearchRequest::new(root.clone(), Limits::depth(settings.depth)).with_root_moves(only);
        engine.search(&request, &Arc::new(SearchControl::new()), &mut |_| {})
    };
    let best = search(engine, Vec::new());
    if decided(best.score, settings) {
        return None;
    }
    if best.best.as_ref() == Some(played) {
        return Some(0);
    }
    let answer = search(engine, vec![*played]);
    let loss = if decided(answer.score, settings) {
        settings.loss_cap_cm
    } else {
        best.score.0 - answer.score.0
    };
    Some(loss.clamp(0, settings.loss_cap_cm))
}

fn decided(score: Score, settings: &ScreenSettings) -> bool {
    score.0.abs() >= settings.decided_cm
}

fn mean_and_sd(values: &[i64]) -> (i64, i64) {
    if values.is_empty() {
        return (0, 0);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<i64>() as f64 / n;
    let var = values
        .iter()
        .map(|&v| (v as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    (mean.round() as i64, var.sqrt().round() as i64)
}

/// A player's figures over their last screened games.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerFigures {
    /// Games counted (those with enough scored moves).
    pub games: usize,
    /// Moves scored in them.
    pub moves: i64,
    /// Share of those moves that were the engine's first choice (0..=1).
    pub agreement: f64,
    /// Average loss of a move against the engine's choice (men).
    pub average_loss_men: f64,
    /// Average over the games of the spread of thinking times (standard deviation over mean):
    /// near 0 when every move takes the same time.
    pub time_spread: f64,
}

impl ScreenSettings {
    /// The figures of the sides `rows` (one player's, newest first), over the last
    /// [`ScreenSettings::window`] of them that have at least [`ScreenSettings::min_moves`].
    pub fn figures(&self, rows: &[SideScore]) -> PlayerFigures {
        let counted: Vec<&SideScore> = rows
            .iter()
            .filter(|s| self.counts(s))
            .take(self.window)
            .collect();
        let moves: i64 = counted.iter().map(|s| s.moves).sum();
        let per_move = |total: i64| {
            if moves == 0 {
                0.0
            } else {
                total as f64 / moves as f64
            }
        };
        let spreads: Vec<f64> = counted
            .iter()
            .filter(|s| s.think_mean_ms > 0)
            .map(|s| s.think_sd_ms as f64 / s.think_mean_ms as f64)
            .collect();
        PlayerFigures {
            games: counted.len(),
            moves,
            agreement: per_move(counted.iter().map(|s| s.agreed).sum()),
            average_loss_men: per_move(counted.iter().map(|s| s.loss_cm).sum()) / 100.0,
            time_spread: if spreads.is_empty() {
                0.0
            } else {
                spreads.iter().sum::<f64>() / spreads.len() as f64
            },
        }
    }

    /// Whether a side's game counts for its player: enough of its moves were scored.
    pub fn counts(&self, side: &SideScore) -> bool {
        side.moves >= self.min_moves
    }

    /// Whether `figures` go to the moderators: enough games, the engine's first choice often
    /// enough, and little lost.
    pub fn beyond(&self, figures: &PlayerFigures) -> bool {
        figures.games >= self.min_games
            && figures.agreement >= self.agreement
            && figures.average_loss_men <= self.average_loss_men
    }
}

impl ScreenRow {
    /// The side's scores.
    pub fn score(&self) -> SideScore {
        SideScore {
            moves: self.moves,
            agreed: self.agreed,
            loss_cm: self.loss_cm,
            think_mean_ms: self.think_mean_ms,
            think_sd_ms: self.think_sd_ms,
        }
    }
}

/// How often the games that ended unscreened are looked for while the server runs.
const CATCH_UP_EVERY: Duration = Duration::from_secs(600);

/// A claim older than this is taken over (the process that made it died).
const STALE_CLAIM: Duration = Duration::from_secs(3600);

/// Games looked at per round of a catch-up.
const CATCH_UP_BATCH: i64 = 100;

/// A game for the screen's thread, and where its scores go.
type Job = (Game, Vec<i64>, oneshot::Sender<ByColor<SideScore>>);

/// Screens the server's rated games as they end (and those that ended unscreened in the last
/// [`ScreenSettings::catch_up`], at start and every ten minutes) on one thread of its own at
/// the lowest priority, and reports the players beyond `settings` to the moderators.
pub fn follow(online: &Online, settings: ScreenSettings) -> tokio::task::JoinHandle<()> {
    let mut ended = online.finished_games();
    let online = online.clone();
    let (jobs, inbox) = mpsc::channel::<Job>();
    let depth_settings = settings.clone();
    let spawned = std::thread::Builder::new()
        .name("fair-play".into())
        .spawn(move || {
            lowest_priority();
            let mut engine = Engine::new(EngineOptions {
                hash_mb: 16,
                threads: 1,
            });
            for (game, think, answer) in inbox {
                let _ = answer.send(screen_game(&mut engine, &game, &think, &depth_settings));
            }
        });
    if let Err(e) = spawned {
        eprintln!("damasi: fair-play: cannot start its thread, no screening: {e}");
    }
    tokio::spawn(async move {
        let screen = Screen {
            online,
            settings,
            jobs,
        };
        let mut tick = tokio::time::interval(CATCH_UP_EVERY);
        loop {
            tokio::select! {
                _ = tick.tick() => screen.catch_up().await,
                game = ended.recv() => match game {
                    Ok(g) if g.rated => screen.take(&g.id).await,
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => screen.catch_up().await,
                    Err(RecvError::Closed) => return,
                },
            }
        }
    })
}

/// Puts the calling thread at the lowest CPU priority (Linux keeps a nice value per thread).
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its integer arguments; `who` 0 is the calling thread.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 19);
    }
}

/// The screen's side on the async runtime.
struct Screen {
    online: Online,
    settings: ScreenSettings,
    jobs: mpsc::Sender<Job>,
}

impl Screen {
    async fn catch_up(&self) {
        let now = now_ms();
        let since = now - self.settings.catch_up.as_millis() as i64;
        let stale = now - STALE_CLAIM.as_millis() as i64;
        loop {
            let ids = match self
                .online
                .db()
                .unscreened_games(since, stale, CATCH_UP_BATCH)
                .await
            {
                Ok(ids) => ids,
                Err(e) => {
                    eprintln!("damasi: fair-play: cannot catch up: {e:?}");
                    return;
                }
            };
            for id in &ids {
                self.take(id).await;
            }
            if (ids.len() as i64) < CATCH_UP_BATCH {
                return;
            }
        }
    }

    /// Screens game `id` unless another process does or did, and reports its players if
    /// their figures call for it.
    async fn take(&self, id: &str) {
        if let Err(e) = self.screen(id).await {
            eprintln!("damasi: fair-play: game {id}: {e:?}");
        }
    }

    async fn screen(&self, id: &str) -> Result<(), ApiError> {
        let db = self.online.db();
        let now = now_ms();
        if !db
            .claim_screen(id, now, now - STALE_CLAIM.as_millis() as i64)
            .await?
        {
            return Ok(());
        }
        let Some((row, moves)) = db.game(id).await? else {
            return Ok(());
        };
        let finished = row.status == "over" && row.outcome.as_deref() != Some("aborted");
        if !row.rated || !finished {
            return db.finish_screen(id, Vec::new(), now_ms()).await;
        }
        let record = Record::replay(
            damasi::Position::start(),
            row.rules,
            None,
            moves.iter().map(|(t, _)| (t.as_str(), 0)),
        )?;
        let think: Vec<i64> = moves.iter().map(|(_, ms)| *ms).collect();
        let stopped = || ApiError::Internal("the fair-play thread has stopped".into());
        let (answer, scores) = oneshot::channel();
        self.jobs
            .send((record.into_game(), think, answer))
            .map_err(|_| stopped())?;
        let scores = scores.await.map_err(|_| stopped())?;
        let at = now_ms();
        let mut rows = Vec::new();
        for side in Color::BOTH {
            let score = scores[side];
            let Some(user) = row.players[side.index()] else {
                continue;
            };
            // BOT accounts are programs by their own word.
            if db.user(user).await?.is_none_or(|u| u.bot || u.guest) {
                continue;
            }
            rows.push(ScreenRow {
                game_id: id.to_string(),
                color: side.index() as i64,
                user_id: user,
                at_ms: at,
                moves: score.moves,
                agreed: score.agreed,
                loss_cm: score.loss_cm,
                think_mean_ms: score.think_mean_ms,
                think_sd_ms: score.think_sd_ms,
            });
        }
        let users: Vec<i64> = rows.iter().map(|r| r.user_id).collect();
        db.finish_screen(id, rows, at).await?;
        for user in users {
            self.consider(db, user).await?;
        }
        Ok(())
    }

    /// Reports `user` to the moderators when their last games are beyond the settings, unless
    /// a report of the screen is open, or one was made and fewer than a window of games were
    /// screened since.
    async fn consider(&self, db: &OnlineDb, user: i64) -> Result<(), ApiError> {
        let rows = db.screens_of(user, self.settings.window as i64 * 3).await?;
        // The games the figures are made of, newest first (as `ScreenSettings::figures` picks them).
        let counted: Vec<&ScreenRow> = rows
            .iter()
            .filter(|r| self.settings.counts(&r.score()))
            .take(self.settings.window)
            .collect();
        let scores: Vec<SideScore> = counted.iter().map(|r| r.score()).collect();
        let figures = self.settings.figures(&scores);
        if !self.settings.beyond(&figures) {
            return Ok(());
        }
        let by_screen = |r: &&ReportRow| r.reporter.is_none();
        if db
            .reports(true, Some(user), crate::moderation::QUEUE)
            .await?
            .iter()
            .any(|r| by_screen(&r))
        {
            return Ok(());
        }
        let closed = db
            .reports(false, Some(user), crate::moderation::QUEUE)
            .await?;
        if let Some(last) = closed.iter().filter(by_screen).map(|r| r.created_ms).max() {
            let since = rows.iter().filter(|r| r.at_ms > last).count();
            if since < self.settings.window {
                return Ok(());
            }
        }
        let note = format!(
            "fair-play screen: {:.0}% of {} moves were the engine's first choice (depth {}), \
             {:.3} men lost a move on average, over {} games",
            figures.agreement * 100.0,
            figures.moves,
            self.settings.depth,
            figures.average_loss_men,
            figures.games
        );
        let evidence = json!({
            "screen": {
                "depth": self.settings.depth,
                "games": figures.games,
                "moves": figures.moves,
                "agreement": figures.agreement,
                "averageLossMen": figures.average_loss_men,
                "timeSpread": figures.time_spread,
                "thresholds": {
                    "agreement": self.settings.agreement,
                    "averageLossMen": self.settings.average_loss_men,
                    "minGames": self.settings.min_games,
                },
                "perGame": counted.iter().map(|r| json!({
                    "game": r.game_id,
                    "color": if r.color == 0 { "white" } else { "black" },
                    "moves": r.moves,
                    "agreed": r.agreed,
                    "lossCm": r.loss_cm,
                    "thinkMeanMs": r.think_mean_ms,
                    "thinkSdMs": r.think_sd_ms,
                })).collect::<Vec<_>>(),
            }
        });
        db.add_report(ReportRow {
            id: 0,
            created_ms: now_ms(),
            reporter: None,
            reported: user,
            game_id: counted.first().map(|r| r.game_id.clone()),
            reason: "cheating".into(),
            note,
            evidence: evidence.to_string(),
            closed_ms: None,
        })
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damasi::{Position, RuleSet};

    fn engine() -> Engine {
        Engine::new(EngineOptions {
            hash_mb: 4,
            threads: 1,
        })
    }

    /// Eight men each; White's d4 faces Black's d6 with d5 between. Worked by hand: d4-d5
    /// lets d6 take it (d6xd4, forced) and no white man can take back (c3 and e3 are beside
    /// d4's file, not on it, and men do not take diagonally), so it loses a man; any other
    /// move keeps the men even.
    const HANGING: &str = "W:Wa3,b3,c3,e3,f3,g3,h3,d4:Ba6,b6,c6,d6,f6,g6,h6,a7";

    fn settings() -> ScreenSettings {
        ScreenSettings {
            depth: 6,
            opening_plies: 0,
            ..ScreenSettings::default()
        }
    }

    #[test]
    fn a_move_that_hangs_a_man_loses_about_a_man_and_forced_moves_are_not_scored() {
        let start = Position::from_fen(HANGING).unwrap();
        let mut game = Game::from_position(start, RuleSet::default());
        game.play_text("d4-d5").unwrap();
        game.play_text("d6xd4").unwrap();
        let ByColor { white, black } = screen_game(&mut engine(), &game, &[900, 400], &settings());
        assert_eq!((white.moves, white.agreed), (1, 0));
        assert!(white.loss_cm >= 70, "{white:?}");
        assert_eq!((white.think_mean_ms, white.think_sd_ms), (900, 0));
        // Black's capture was its only move.
        assert_eq!(black, SideScore::default());
    }

    #[test]
    fn the_engines_own_choice_loses_nothing() {
        let start = Position::from_fen(HANGING).unwrap();
        let mut e = engine();
        let request = SearchRequest::new(SearchRoot::new(start), Limits::depth(6));
        let best = e
            .search(&request, &Arc::new(SearchControl::new()), &mut |_| {})
            .best
            .unwrap();
        let mut game = Game::from_position(start, RuleSet::default());
        game.play(&best).unwrap();
        let ByColor { white, .. } = screen_game(&mut e, &game, &[], &settings());
        assert_eq!((white.moves, white.agreed, white.loss_cm), (1, 1, 0));
    }

    #[test]
    fn figures_count_the_last_games_with_enough_moves() {
        let side = |moves, agreed, loss_cm, mean, sd| SideScore {
            moves,
            agreed,
            loss_cm,
            think_mean_ms: mean,
            think_sd_ms: sd,
        };
        let s = ScreenSettings {
            window: 2,
            min_games: 2,
            ..ScreenSettings::default()
        };
        // Newest first; the 5-move game is too short to count, the last is past the window.
        let rows = [
            side(20, 18, 60, 1000, 500),
            side(5, 5, 0, 1000, 0),
            side(10, 9, 30, 2000, 0),
            side(30, 0, 3000, 1000, 1000),
        ];
        let f = s.figures(&rows);
        // By hand: 27 of 30 moves, 90 centi-men over 30 moves, spreads 0.5 and 0.
        assert_eq!((f.games, f.moves), (2, 30));
        assert!((f.agreement - 0.9).abs() < 1e-9);
        assert!((f.average_loss_men - 0.03).abs() < 1e-9);
        assert!((f.time_spread - 0.25).abs() < 1e-9);
        assert!(s.beyond(&f));
        // One game is not enough, however good.
        assert!(!s.beyond(&s.figures(&rows[..2])));
        // Too much lost (0.2 men a move).
        assert!(!s.beyond(&s.figures(&[side(20, 18, 400, 0, 0), side(20, 18, 400, 0, 0)])));
        // Too few of the engine's choices (80%).
        assert!(!s.beyond(&s.figures(&[side(20, 16, 0, 0, 0), side(20, 16, 0, 0, 0)])));
    }
}
