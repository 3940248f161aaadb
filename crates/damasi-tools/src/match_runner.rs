//! Engine-against-engine matches over the Hub protocol: `damasi match`.
//!
//! Each engine runs as a subprocess that speaks Hub (any Hub engine for Turkish draughts, or
//! `damasi hub` with different settings). Games start from an opening set, each opening
//! played twice with the colours swapped (a game pair), from the opening's start position
//! with the whole move list sent on every move, as pydraughts does. The referee is the rules
//! library: every move an engine sends is checked, and a game ends when
//! [`damasi::Game::outcome`] says so (no pieces, blocked, mutual block, one piece each,
//! threefold repetition, the no-capture limit of the rule set), or as a draw at the ply cap.
//! An illegal or unreadable move, a crash (also an output line over 64 KiB, which is never
//! held in memory), a silence past the time-out or a flag fall loses the game; a crashed
//! engine is restarted for the next one.
//!
//! Results are counted from the first engine's view, as single games (win, draw, loss) and
//! as game pairs (pentanomial), and an optional [`Sprt`] stops the match as soon as it
//! decides.
//!
//! From the command line:
//!
//! ```text
//! damasi match --engine1 "damasi hub" --engine2 "damasi hub --level 8" --move-time 0.05 \
//!     --sprt 0,50 --games 200 --pdn games.pdn
//! damasi match --engine2 "/opt/scan/scan hub" --param2 hash=128 --tc 10+0.1
//! ```

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use damasi::pdn::{write_game, PdnGame};
use damasi::{Color, DrawReason, Game, Move, Notation, Outcome, Position, RuleSet, WinReason};

pub use crate::hub_client::{split_command, EngineSpec};
use crate::hub_client::{Failure, HubProcess};
use crate::openings::Opening;
use crate::sprt::{EloEstimate, MatchScore, Pentanomial, Sprt, Verdict};
use damasi::hub::parse_hub_move;
use damasi_engine::protocol::Line;

/// What limits each move's search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLimit {
    /// A fixed depth in plies.
    Depth(u32),
    /// A fixed number of nodes.
    Nodes(u64),
    /// A fixed time per move.
    MoveTime(Duration),
    /// A clock per player: starting time and increment per move (Fischer).
    Clock {
        /// Time on each clock at the start.
        time: Duration,
        /// Added after each move.
        inc: Duration,
    },
}

impl MoveLimit {
    /// The `level` line for a move, given the mover's remaining clock time.
    pub fn level_line(&self, remaining: Duration) -> Line {
        match *self {
            MoveLimit::Depth(d) => Line::new("level").arg("depth", d),
            MoveLimit::Nodes(n) => Line::new("level").arg("nodes", n),
            MoveLimit::MoveTime(t) => Line::new("level").arg("move-time", secs(t)),
            // The Hub convention (as pydraughts sends it): `time` is the clock minus the
            // increment, and the engine adds the increment back.
            MoveLimit::Clock { inc, .. } => Line::new("level")
                .arg("time", secs(remaining.saturating_sub(inc)))
                .arg("inc", secs(inc)),
        }
    }
}

impl std::fmt::Display for MoveLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            MoveLimit::Depth(d) => write!(f, "depth {d}"),
            MoveLimit::Nodes(n) => write!(f, "{n} nodes"),
            MoveLimit::MoveTime(t) => write!(f, "{}s per move", secs(t)),
            MoveLimit::Clock { time, inc } => write!(f, "{}+{}", secs(time), secs(inc)),
        }
    }
}

/// Seconds with up to three decimals, without trailing zeros.
fn secs(d: Duration) -> String {
    let s = format!("{:.3}", d.as_secs_f64());
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The two engines; results are counted from the first one's view.
    pub engines: [EngineSpec; 2],
    /// The opening set, used in order and again from the top when exhausted.
    pub openings: Vec<Opening>,
    /// The search limit per move.
    pub limit: MoveLimit,
    /// The rules the games are played and adjudicated under (sent to engines that advertise
    /// the matching parameters).
    pub rules: RuleSet,
    /// A game still going after this many plies (opening included) is a draw.
    pub max_plies: usize,
    /// Stop after this many games (`None`: two per opening without an SPRT, unlimited with).
    pub max_games: Option<u64>,
    /// The sequential test that may stop the match early.
    pub sprt: Option<Sprt>,
    /// Games played at once (each with its own two engine processes).
    pub concurrency: usize,
    /// Longest wait for a move without a clock (with a clock, the clock decides).
    pub move_timeout: Duration,
    /// A move may overrun the clock by this much before it counts as a loss on time.
    pub time_margin: Duration,
}

impl MatchConfig {
    /// The game limit actually used.
    pub fn game_limit(&self) -> u64 {
        match (self.max_games, self.sprt) {
            (Some(n), _) => n,
            (None, None) => 2 * self.openings.len() as u64,
            (None, Some(_)) => u64::MAX,
        }
    }
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The rules ended it.
    Rules(Outcome),
    /// It reached the ply cap: adjudicated a draw.
    MaxPlies,
    /// An engine (index 0 or 1) sent a move that is not legal or not readable.
    IllegalMove {
        /// Which engine.
        engine: usize,
        /// What it sent.
        text: String,
        /// Why it was rejected.
        reason: String,
    },
    /// An engine overran its clock.
    Time {
        /// Which engine.
        engine: usize,
    },
    /// An engine crashed, did not start or did not answer.
    Failure {
        /// Which engine.
        engine: usize,
        /// What happened.
        reason: String,
    },
}

/// How one engine used its time in a game (or, summed, in a match): the runner's own wall-clock
/// measure from sending `go` to reading the move, so it includes the pipes' delay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveTiming {
    /// Moves the engine made.
    pub moves: u64,
    /// The longest time it took for one move.
    pub longest: Duration,
    /// Moves at a fixed time per move that took longer than that time plus the margin (the
    /// moves a strict referee would forfeit).
    pub late: u64,
    /// With a clock, the least time it had left after a move.
    pub lowest_clock: Option<Duration>,
}

impl MoveTiming {
    /// Adds one move that took `elapsed`: `late` if it overran a fixed move time, with the
    /// clock `clock_left` after it when there is a clock.
    fn add(&mut self, elapsed: Duration, late: bool, clock_left: Option<Duration>) {
        self.merge(&MoveTiming {
            moves: 1,
            longest: elapsed,
            late: u64::from(late),
            lowest_clock: clock_left,
        });
    }

    /// Adds another game's (or match's) figures to these.
    pub fn merge(&mut self, other: &MoveTiming) {
        self.moves += other.moves;
        self.longest = self.longest.max(other.longest);
        self.late += other.late;
        if let Some(c) = other.lowest_clock {
            self.lowest_clock = Some(self.lowest_clock.map_or(c, |l| l.min(c)));
        }
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Game number, from 1.
    pub number: u64,
    /// Index of the opening in the set.
    pub opening: usize,
    /// Which engine (0 or 1) played White.
    pub white: usize,
    /// The position the game started from.
    pub start: Position,
    /// All moves, the opening's included.
    pub moves: Vec<Move>,
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
    /// Why it ended.
    pub termination: Termination,
    /// The rules it was played under.
    pub rules: RuleSet,
    /// How each engine (0 and 1) used its time.
    pub timing: [MoveTiming; 2],
}

impl GameRecord {
    /// Points (1, 1/2 or 0) that engine `e` scored.
    pub fn points_for(&self, e: usize) -> f64 {
        match self.winner {
            None => 0.5,
            Some(c) => {
                let e_color = if self.white == e {
                    Color::White
                } else {
                    Color::Black
                };
                if c == e_color {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// The PDN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub fn result_token(&self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// A short reason for reports: `Black is blocked: White wins`, `ply cap`, ...
    pub fn describe(&self, names: &[String; 2]) -> String {
        match &self.termination {
            Termination::Rules(o) => o.describe(),
            Termination::MaxPlies => "draw: ply cap reached".to_string(),
            Termination::IllegalMove {
                engine,
                text,
                reason,
            } => format!("{} sent an illegal move '{text}': {reason}", names[*engine]),
            Termination::Time { engine } => format!("{} lost on time", names[*engine]),
            Termination::Failure { engine, reason } => format!("{}: {reason}", names[*engine]),
        }
    }

    /// How the game ended, as the rules library names it: the board's outcome, or a forfeit
    /// (illegal move, time, a failed engine) for the other side, or the ply cap's adjudicated
    /// draw.
    pub fn outcome(&self) -> Outcome {
        let forfeit = |reason: WinReason| match self.winner {
            Some(winner) => Outcome::Win { winner, reason },
            None => Outcome::Draw(DrawReason::Adjudication),
        };
        match &self.termination {
            Termination::Rules(o) => *o,
            Termination::MaxPlies => Outcome::Draw(DrawReason::Adjudication),
            Termination::IllegalMove { .. } => forfeit(WinReason::IllegalMove),
            Termination::Time { .. } => match self.winner {
                Some(_) => forfeit(WinReason::Time),
                None => Outcome::Draw(DrawReason::TimeoutCannotWin),
            },
            Termination::Failure { .. } => forfeit(WinReason::EngineFailure),
        }
    }

    /// The game as a PDN record ([`damasi::pdn`]): `[GameType "30"]`, the players, the
    /// result, the rule set, a `Termination` tag with the outcome's code (`time`,
    /// `illegal-move`, `engine-failure`, `adjudication`, or the board's reason) and a
    /// `TerminationDetail` tag saying what happened in words.
    pub fn to_pdn(&self, names: &[String; 2], event: &str) -> String {
        let mut game = Game::from_position(self.start, self.rules);
        for m in &self.moves {
            if game.play(m).is_err() {
                break;
            }
        }
        if game.outcome().is_none() {
            let _ = game.end(self.outcome());
        }
        let mut record = PdnGame::new(game);
        record.set_tag("Event", event);
        record.set_tag("Date", &today());
        record.set_tag("Round", &self.number.to_string());
        record.set_tag("White", &names[self.white]);
        record.set_tag("Black", &names[1 - self.white]);
        record.set_tag("TerminationDetail", &self.describe(names));
        write_game(&record, Notation::Landing)
    }
}

/// Today's date (UTC) as PDN writes dates: `2026.11.21`.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    damasi::pdn::pdn_date(secs as i64)
}

/// The score of a match so far.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchSummary {
    /// The engines' names.
    pub names: [String; 2],
    /// Games finished.
    pub games: u64,
    /// Results from the first engine's view.
    pub score: MatchScore,
    /// Finished game pairs from the first engine's view.
    pub pairs: Pentanomial,
    /// The test, if one runs: its log-likelihood ratio and verdict so far.
    pub sprt: Option<(Sprt, f64, Verdict)>,
    /// Games lost by illegal moves, time or failures, per engine.
    pub forfeits: [u64; 2],
    /// How each engine used its time over all games.
    pub timing: [MoveTiming; 2],
}

impl MatchSummary {
    fn new(names: [String; 2], sprt: Option<Sprt>) -> MatchSummary {
        MatchSummary {
            names,
            games: 0,
            score: MatchScore::default(),
            pairs: Pentanomial::default(),
            sprt: sprt.map(|s| (s, 0.0, Verdict::Continue)),
            forfeits: [0; 2],
            timing: [MoveTiming::default(); 2],
        }
    }

    /// The Elo difference of the first engine over the second with its 95% interval: from
    /// game pairs when every game so far belongs to a finished pair, else from single games.
    pub fn elo(&self) -> Option<EloEstimate> {
        if self.pairs.pairs() > 1 && 2 * self.pairs.pairs() == self.games {
            EloEstimate::from_samples(&self.pairs.samples())
        } else {
            EloEstimate::from_samples(&self.score.samples())
        }
    }

    /// One line for progress reports: score, Elo and the test's state.
    pub fn progress(&self) -> String {
        let w = &self.score;
        let mut s = format!(
            "{} - {}: {:.1}/{} (+{} ={} -{})",
            self.names[0],
            self.names[1],
            w.points(),
            self.games,
            w.wins,
            w.draws,
            w.losses
        );
        if let Some(e) = self.elo() {
            let _ = write!(s, ", Elo {}", format_elo(&e));
        }
        if let Some((sprt, llr, _)) = self.sprt {
            let (lo, hi) = sprt.bounds();
            let _ = write!(s, ", LLR {llr:.2} ({lo:.2}, {hi:.2})");
        }
        s
    }

    /// The full report printed at the end.
    pub fn report(&self) -> String {
        let mut s = String::new();
        let w = &self.score;
        let _ = writeln!(
            s,
            "{} vs {}: {} games, {} wins, {} draws, {} losses for {} ({:.1}%)",
            self.names[0],
            self.names[1],
            self.games,
            w.wins,
            w.draws,
            w.losses,
            self.names[0],
            if self.games > 0 {
                100.0 * w.points() / self.games as f64
            } else {
                0.0
            }
        );
        let c = self.pairs.counts;
        let _ = writeln!(
            s,
            "game pairs (points 0, 1/2, 1, 3/2, 2 out of 2): {} {} {} {} {}",
            c[0], c[1], c[2], c[3], c[4]
        );
        match self.elo() {
            Some(e) => {
                let _ = writeln!(s, "Elo difference: {} (95%)", format_elo(&e));
            }
            None => s.push_str("Elo difference: no games\n"),
        }
        if let Some(los) = crate::sprt::likelihood_of_superiority(w) {
            let _ = writeln!(s, "likelihood of superiority: {:.1}%", 100.0 * los);
        }
        if let Some((sprt, llr, verdict)) = self.sprt {
            let (lo, hi) = sprt.bounds();
            let v = match verdict {
                Verdict::H1 => format!("H1 accepted: {} is stronger", self.names[0]),
                Verdict::H0 => format!("H0 accepted: {} is not stronger", self.names[0]),
                Verdict::Continue => "no decision yet".to_string(),
            };
            let _ = writeln!(
                s,
                "SPRT elo0={} elo1={} alpha={} beta={}: LLR {llr:.2} ({lo:.2}, {hi:.2}), {v}",
                sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
            );
        }
        for (name, t) in self.names.iter().zip(&self.timing) {
            let _ = write!(
                s,
                "{name}: {} moves, longest {:.3} s, {} over the move time by more than the margin",
                t.moves,
                t.longest.as_secs_f64(),
                t.late
            );
            if let Some(c) = t.lowest_clock {
                let _ = write!(s, ", least clock left {:.3} s", c.as_secs_f64());
            }
            s.push('\n');
        }
        for e in 0..2 {
            if self.forfeits[e] > 0 {
                let _ = writeln!(
                    s,
                    "{} lost {} game(s) by illegal move, time or failure",
                    self.names[e], self.forfeits[e]
                );
            }
        }
        s
    }
}

/// `+12.3 ± 45.6`, or the interval's ends when one is open: `+190.8 (-57.3 to +inf)`.
fn format_elo(e: &EloEstimate) -> String {
    let err = e.error();
    // Rounded first, so that a tiny negative value does not print as -0.0.
    let e = EloEstimate {
        elo: (e.elo * 10.0).round() / 10.0 + 0.0,
        ..*e
    };
    let bound = |x: f64| {
        if x.is_finite() {
            format!("{x:+.1}")
        } else if x > 0.0 {
            "+inf".to_string()
        } else {
            "-inf".to_string()
        }
    };
    if e.elo.is_finite() && err.is_finite() {
        format!("{:+.1} ± {:.1}", e.elo, err)
    } else if e.elo.is_finite() {
        format!("{:+.1} ({} to {})", e.elo, bound(e.low), bound(e.high))
    } else if e.elo > 0.0 {
        "+inf".to_string()
    } else {
        "-inf".to_string()
    }
}

/// Why a match could not run at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchError(pub String);

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MatchError {}

/// Plays the match, calling `on_game` after each finished game with the game and the score
/// so far (on the calling thread, in the order games finish). Returns the final score.
pub fn run_match(
    config: &MatchConfig,
    on_game: &mut dyn FnMut(&GameRecord, &MatchSummary),
) -> Result<MatchSummary, MatchError> {
    if config.openings.is_empty() {
        return Err(MatchError("the opening set is empty".to_string()));
    }
    // Fail early and clearly if an engine cannot even start.
    let mut names = [String::new(), String::new()];
    for (e, spec) in config.engines.iter().enumerate() {
        let p = HubProcess::start(spec, &config.rules)
            .map_err(|m| MatchError(format!("engine {} ({}): {m}", e + 1, spec.name)))?;
        names[e] = spec.name.clone();
        p.quit();
    }
    if names[0] == names[1] {
        names[0].push_str(" (1)");
        names[1].push_str(" (2)");
    }
    let limit = config.game_limit();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let mut summary = MatchSummary::new(names, config.sprt);
    // Each finished game goes to this thread with a channel to acknowledge it: a worker
    // starts its next game only once the result is counted, so that no game is started after
    // the test has decided.
    let (tx, rx) = mpsc::channel::<(GameRecord, mpsc::Sender<()>)>();
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.max(1) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                let mut engines: [Option<HubProcess>; 2] = [None, None];
                let (ack_tx, ack_rx) = mpsc::channel();
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= limit {
                        break;
                    }
                    let record = play_game(config, &mut engines, g);
                    if tx.send((record, ack_tx.clone())).is_err() || ack_rx.recv().is_err() {
                        break;
                    }
                }
                for p in engines.into_iter().flatten() {
                    p.quit();
                }
            });
        }
        drop(tx);
        let mut open_pairs: HashMap<u64, (usize, u32)> = HashMap::new();
        for (record, ack) in rx {
            summary.games += 1;
            let points = record.points_for(0);
            summary.score.add(points);
            if let Some(e) = forfeiter(&record.termination) {
                summary.forfeits[e] += 1;
            }
            for e in 0..2 {
                summary.timing[e].merge(&record.timing[e]);
            }
            let pair = (record.number - 1) / 2;
            let entry = open_pairs.entry(pair).or_insert((0, 0));
            entry.0 += (points * 2.0) as usize;
            entry.1 += 1;
            if entry.1 == 2 {
                summary.pairs.add(entry.0);
                open_pairs.remove(&pair);
            }
            // Once decided, the verdict stands; games still running when it came (with more
            // than one at a time) are counted but do not reopen the test.
            if let Some((sprt, llr, verdict)) = summary
                .sprt
                .as_mut()
                .filter(|(_, _, v)| *v == Verdict::Continue)
            {
                // The test counts finished game pairs, in which the openings' bias cancels
                // out (the pentanomial model).
                *llr = if summary.pairs.pairs() > 0 {
                    sprt.llr(&summary.pairs.samples())
                } else {
                    0.0
                };
                *verdict = sprt.verdict(*llr);
                if *verdict != Verdict::Continue {
                    stop.store(true, Ordering::Relaxed);
                }
            }
            on_game(&record, &summary);
            // The worker may have gone already; nothing to do then.
            let _ = ack.send(());
        }
    });
    Ok(summary)
}

/// The engine that lost a game by forfeit, if it was lost that way.
fn forfeiter(t: &Termination) -> Option<usize> {
    match t {
        Termination::IllegalMove { engine, .. }
        | Termination::Time { engine }
        | Termination::Failure { engine, .. } => Some(*engine),
        Termination::Rules(_) | Termination::MaxPlies => None,
    }
}

/// Plays game number `g` (from 0): pair `g / 2`, the first engine White in even games.
fn play_game(config: &MatchConfig, engines: &mut [Option<HubProcess>; 2], g: u64) -> GameRecord {
    let opening_index = ((g / 2) % config.openings.len() as u64) as usize;
    let opening = &config.openings[opening_index];
    let white = (g % 2) as usize;
    let mut game = Game::from_position(opening.start, config.rules);
    for m in &opening.moves {
        // Checked when the set was read; an opening that ends the game just ends it here.
        if game.play(m).is_err() {
            break;
        }
    }
    let mut record = GameRecord {
        number: g + 1,
        opening: opening_index,
        white,
        start: opening.start,
        moves: Vec::new(),
        winner: None,
        termination: Termination::MaxPlies,
        rules: config.rules,
        timing: [MoveTiming::default(); 2],
    };
    let engine_of = |c: Color| if c == Color::White { white } else { 1 - white };
    let color_of = |e: usize| {
        if e == white {
            Color::White
        } else {
            Color::Black
        }
    };
    let forfeit = |record: &mut GameRecord, game: &Game, e: usize, t: Termination| {
        record.moves = game.history().to_vec();
        record.winner = Some(!color_of(e));
        record.termination = t;
    };
    for (e, slot) in engines.iter_mut().enumerate() {
        if slot.is_none() {
            match HubProcess::start(&config.engines[e], &config.rules) {
                Ok(p) => *slot = Some(p),
                Err(reason) => {
                    forfeit(
                        &mut record,
                        &game,
                        e,
                        Termination::Failure { engine: e, reason },
                    );
                    return record;
                }
            }
        }
        if let Some(p) = slot.as_mut() {
            if let Err(reason) = p.send(&Line::new("new-game")) {
                *slot = None;
                forfeit(
                    &mut record,
                    &game,
                    e,
                    Termination::Failure { engine: e, reason },
                );
                return record;
            }
        }
    }
    let mut clocks = match config.limit {
        MoveLimit::Clock { time, .. } => [time, time],
        _ => [Duration::ZERO; 2],
    };
    loop {
        if let Some(o) = game.outcome() {
            record.moves = game.history().to_vec();
            record.winner = o.winner();
            record.termination = Termination::Rules(o);
            return record;
        }
        if game.ply() >= config.max_plies {
            record.moves = game.history().to_vec();
            record.termination = Termination::MaxPlies;
            return record;
        }
        let pos = *game.position();
        let e = engine_of(pos.side_to_move());
        let (deadline, clocked) = match config.limit {
            MoveLimit::Clock { .. } => (clocks[e].saturating_add(config.time_margin), true),
            MoveLimit::MoveTime(t) => (t.saturating_add(config.move_timeout), false),
            _ => (config.move_timeout, false),
        };
        let level = config.limit.level_line(clocks[e]);
        let Some(process) = engines[e].as_mut() else {
            let reason = "the engine is not running".to_string();
            forfeit(
                &mut record,
                &game,
                e,
                Termination::Failure { engine: e, reason },
            );
            return record;
        };
        let answer = process.think(&opening.start, game.history(), &level, deadline);
        let (text, elapsed) = match answer {
            Ok(a) => a,
            Err(Failure::Timeout) if clocked => {
                engines[e] = None;
                forfeit(&mut record, &game, e, Termination::Time { engine: e });
                return record;
            }
            Err(f) => {
                engines[e] = None;
                let reason = f.to_string();
                forfeit(
                    &mut record,
                    &game,
                    e,
                    Termination::Failure { engine: e, reason },
                );
                return record;
            }
        };
        match config.limit {
            MoveLimit::Clock { inc, .. } => {
                if elapsed > clocks[e].saturating_add(config.time_margin) {
                    forfeit(&mut record, &game, e, Termination::Time { engine: e });
                    return record;
                }
                let left = clocks[e].saturating_sub(elapsed);
                record.timing[e].add(elapsed, false, Some(left));
                clocks[e] = left.saturating_add(inc);
            }
            MoveLimit::MoveTime(t) => {
                let late = elapsed > t.saturating_add(config.time_margin);
                record.timing[e].add(elapsed, late, None);
            }
            _ => record.timing[e].add(elapsed, false, None),
        }
        let Some(text) = text else {
            let reason = "it sent no move although it has legal moves".to_string();
            forfeit(
                &mut record,
                &game,
                e,
                Termination::Failure { engine: e, reason },
            );
            return record;
        };
        match parse_hub_move(&pos, &text) {
            Ok(m) => {
                // Legal by construction: parse_hub_move only returns legal moves.
                let _ = game.play(&m);
            }
            Err(reason) => {
                let t = Termination::IllegalMove {
                    engine: e,
                    text,
                    reason: reason.to_string(),
                };
                forfeit(&mut record, &game, e, t);
                return record;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damasi_engine::line_reader::MAX_LINE;

    #[test]
    fn level_lines_follow_the_hub_clock_convention() {
        let l = MoveLimit::Clock {
            time: Duration::from_secs(10),
            inc: Duration::from_millis(100),
        };
        assert_eq!(
            l.level_line(Duration::from_millis(5000)).to_string(),
            "level time=4.9 inc=0.1"
        );
        assert_eq!(
            MoveLimit::MoveTime(Duration::from_millis(250))
                .level_line(Duration::ZERO)
                .to_string(),
            "level move-time=0.25"
        );
        assert_eq!(
            MoveLimit::Depth(3).level_line(Duration::ZERO).to_string(),
            "level depth=3"
        );
        assert_eq!(l.to_string(), "10+0.1");
    }

    /// A one-game, one-ply match of two stand-in engines that run `think` (shell) on `go`,
    /// then play a3-a4 (17-25).
    fn one_ply_match(
        think: &str,
        limit: MoveLimit,
        move_timeout: Duration,
        time_margin: Duration,
    ) -> MatchConfig {
        let script = format!(
            "while read l; do case \"$l\" in hub) echo wait;; init) echo ready;; \
             go*) {think} echo done move=17-25;; quit) exit 0;; esac; done"
        );
        let spec = EngineSpec {
            name: "sh".into(),
            program: "sh".into(),
            args: vec!["-c".into(), script],
            params: Vec::new(),
        };
        MatchConfig {
            engines: [spec.clone(), spec],
            openings: crate::openings::parse_openings("W:Wa3,h3:Ba6,h6").unwrap(),
            limit,
            rules: RuleSet::default(),
            max_plies: 1,
            max_games: Some(1),
            sprt: None,
            concurrency: 1,
            move_timeout,
            time_margin,
        }
    }

    #[test]
    fn huge_time_limits_do_not_overflow_the_deadlines() {
        let huge = Duration::from_secs(u64::MAX / 2);
        for limit in [
            MoveLimit::MoveTime(huge),
            MoveLimit::Clock {
                time: huge,
                inc: huge,
            },
        ] {
            let config = one_ply_match("", limit, huge, huge);
            let summary = run_match(&config, &mut |_, _| {}).unwrap();
            assert_eq!(summary.games, 1, "{limit}");
            assert_eq!(summary.forfeits, [0, 0], "{limit}");
        }
    }

    #[test]
    fn slow_moves_are_counted_late_and_the_clock_left_is_kept() {
        // Stand-ins that think 0.3 s.
        let config = |limit| {
            let (timeout, margin) = (Duration::from_secs(30), Duration::from_millis(100));
            one_ply_match("sleep 0.3;", limit, timeout, margin)
        };
        // 0.05 s a move: 0.3 s is over it by more than the 0.1 s margin, and no forfeit.
        let fixed = config(MoveLimit::MoveTime(Duration::from_millis(50)));
        let summary = run_match(&fixed, &mut |_, _| {}).unwrap();
        assert_eq!(summary.forfeits, [0, 0]);
        let t = summary.timing[0];
        assert_eq!((t.moves, t.late, t.lowest_clock), (1, 1, None));
        assert!(t.longest >= Duration::from_millis(300), "{t:?}");
        assert_eq!(
            summary.timing[1],
            MoveTiming::default(),
            "Black never moved"
        );
        assert!(
            summary.report().contains("1 over the move time"),
            "{}",
            summary.report()
        );
        // A 5 s clock: about 4.7 s left after the move, and nothing late.
        let clocked = config(MoveLimit::Clock {
            time: Duration::from_secs(5),
            inc: Duration::ZERO,
        });
        let t = run_match(&clocked, &mut |_, _| {}).unwrap().timing[0];
        assert_eq!((t.moves, t.late), (1, 0));
        let left = t.lowest_clock.expect("a clock was kept");
        assert!(
            left <= Duration::from_millis(4700) && left > Duration::from_secs(3),
            "{left:?}"
        );
    }

    fn record(white: usize, winner: Option<Color>) -> GameRecord {
        GameRecord {
            number: 1,
            opening: 0,
            white,
            start: Position::start(),
            moves: Vec::new(),
            winner,
            termination: Termination::MaxPlies,
            rules: RuleSet::default(),
            timing: [MoveTiming::default(); 2],
        }
    }

    #[test]
    fn elo_figures_for_reports() {
        let e = |elo, low, high| format_elo(&EloEstimate { elo, low, high });
        assert_eq!(e(-1e-12, -10.0, 10.0), "+0.0 ± 10.0");
        assert_eq!(e(12.34, 0.0, 20.0), "+12.3 ± 10.0");
        assert_eq!(
            e(0.0, f64::NEG_INFINITY, f64::INFINITY),
            "+0.0 (-inf to +inf)"
        );
        assert_eq!(e(190.8, -57.26, f64::INFINITY), "+190.8 (-57.3 to +inf)");
        assert_eq!(e(f64::INFINITY, 100.0, f64::INFINITY), "+inf");
        assert_eq!(e(f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0), "-inf");
    }

    #[test]
    fn today_is_a_pdn_date() {
        let t = today();
        assert_eq!(t.len(), 10);
        assert_eq!(&t[4..5], ".");
    }

    #[test]
    fn points_are_counted_for_the_right_engine() {
        assert_eq!(record(0, Some(Color::White)).points_for(0), 1.0);
        assert_eq!(record(0, Some(Color::White)).points_for(1), 0.0);
        assert_eq!(record(1, Some(Color::White)).points_for(0), 0.0);
        assert_eq!(record(1, Some(Color::Black)).points_for(0), 1.0);
        assert_eq!(record(1, None).points_for(0), 0.5);
    }

    #[test]
    fn pdn_records_name_players_result_and_moves() {
        let mut r = record(1, Some(Color::Black));
        let p = Position::start();
        let m1 = p.legal_moves()[0];
        let p2 = p.play(&m1);
        let m2 = p2.legal_moves()[0];
        r.moves = vec![m1, m2];
        r.termination = Termination::Time { engine: 1 };
        let names = ["one".to_string(), "two".to_string()];
        let pdn = r.to_pdn(&names, "test");
        assert!(pdn.contains("[White \"two\"]"), "{pdn}");
        assert!(pdn.contains("[Black \"one\"]"));
        assert!(pdn.contains("[Result \"0-1\"]"));
        assert!(pdn.contains("[GameType \"30\"]"));
        // A loss on time is recorded as one, not as a resignation.
        assert!(pdn.contains("[Termination \"time\"]"), "{pdn}");
        assert!(pdn.contains("[TerminationDetail \"two lost on time\"]"));
        // It reads back: same moves, same result, same reason.
        let read = damasi::pdn::read_game(&pdn).unwrap();
        assert_eq!(read.game.history(), &r.moves[..]);
        assert_eq!(
            read.game.outcome(),
            Some(Outcome::Win {
                winner: Color::Black,
                reason: WinReason::Time
            })
        );
        // A crashed engine and an illegal move are forfeits of their own kind.
        r.termination = Termination::Failure {
            engine: 1,
            reason: "exited".into(),
        };
        assert_eq!(r.outcome().code(), "black:engine-failure");
        r.termination = Termination::IllegalMove {
            engine: 1,
            text: "z9".into(),
            reason: "unreadable".into(),
        };
        assert_eq!(r.outcome().code(), "black:illegal-move");
        r.termination = Termination::MaxPlies;
        assert_eq!(r.outcome().code(), "draw:adjudication");
    }

    #[test]
    fn an_engine_writing_an_endless_line_counts_as_closed() {
        let spec = EngineSpec {
            name: "flood".to_string(),
            program: "sh".to_string(),
            args: vec![
                "-c".to_string(),
                format!("head -c {} /dev/zero; echo; exec sleep 60", 4 * MAX_LINE),
            ],
            params: Vec::new(),
        };
        let Err(e) = HubProcess::start(&spec, &RuleSet::default()) else {
            panic!("the handshake cannot succeed");
        };
        assert!(e.contains("its output closed"), "{e}");
    }
}
