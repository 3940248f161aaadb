//! `damasi fair-play-trial`: measures the server's fair-play screen on games made here. The
//! full-strength engine plays as a "person" against levels 3 to 6 (it must be reported), and
//! engine levels 1 to 6 play each other, standing in for people (they must mostly not be).
//! Every game is screened with the server's own settings, each side's games are grouped into
//! accounts of the fewest games the screen reports on, and the two error rates are printed
//! as Markdown, per game and per account.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use damasi::Game;
use damasi_engine::{
    Engine, EngineOptions, Level, Limits, SearchControl, SearchRequest, SearchRoot,
};
use damasi_online::fair_play::{screen_game, ScreenSettings, SideScore};

/// Arguments of `damasi fair-play-trial`.
#[derive(Args)]
pub struct FairPlayTrialArgs {
    /// Games of the full-strength engine against levels 3 to 6.
    #[arg(long, default_value_t = 60)]
    engine_games: usize,
    /// Games between levels 1 to 6.
    #[arg(long, default_value_t = 120)]
    people_games: usize,
    /// Thinking time per move of the players (ms).
    #[arg(long, default_value_t = 100)]
    move_ms: u64,
    /// Games played and screened at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// The screen's search depth (default: the server's).
    #[arg(long)]
    depth: Option<u32>,
    /// Also write every screened side to this CSV file (player, moves, agreed, loss in
    /// hundredths of a man, mean and deviation of the thinking time), to try other
    /// thresholds on the same games.
    #[arg(long, value_name = "FILE")]
    csv: Option<std::path::PathBuf>,
}

/// Who plays a side in the trial.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Player {
    /// The engine at full strength, as a person would pass it off.
    Engine,
    /// The engine at a level 1..=6, for a person.
    Person(u8),
}

/// One game to play: White, Black.
type Pairing = [Player; 2];

/// A played and screened side.
struct Side {
    player: Player,
    score: SideScore,
}

/// `damasi fair-play-trial`.
pub fn fair_play_trial(a: FairPlayTrialArgs) -> Result<()> {
    let mut settings = ScreenSettings::default();
    if let Some(d) = a.depth {
        settings.depth = d;
    }
    let mut pairings: Vec<Pairing> = Vec::new();
    for k in 0..a.engine_games {
        let opponent = Player::Person(3 + (k % 4) as u8);
        pairings.push(if k % 2 == 0 {
            [Player::Engine, opponent]
        } else {
            [opponent, Player::Engine]
        });
    }
    for k in 0..a.people_games {
        // Every ordered pair of levels in turn (a level against itself too).
        let (x, y) = ((k % 6) as u8 + 1, ((k / 6 + k) % 6) as u8 + 1);
        pairings.push([Player::Person(x), Player::Person(y)]);
    }
    let next = AtomicUsize::new(0);
    let sides = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..a.jobs.max(1) {
            s.spawn(|| {
                let mut screen = Engine::new(EngineOptions {
                    hash_mb: 16,
                    threads: 1,
                });
                let mut players = [
                    Engine::new(EngineOptions::default()),
                    Engine::new(EngineOptions::default()),
                ];
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(pairing) = pairings.get(i) else {
                        return;
                    };
                    let (game, think) = play(&mut players, *pairing, a.move_ms);
                    let scores = screen_game(&mut screen, &game, &think, &settings);
                    let done: Vec<Side> = pairing
                        .iter()
                        .zip([scores.white, scores.black])
                        .map(|(&player, score)| Side { player, score })
                        .collect();
                    let mut all = sides.lock().expect("no thread panics holding it");
                    all.extend(done);
                    eprintln!(
                        "game {}/{} ({:?} - {:?}, {} plies) screened, {:.0} s so far",
                        all.len() / 2,
                        pairings.len(),
                        pairing[0],
                        pairing[1],
                        game.ply(),
                        started.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });
    let sides = sides.into_inner().expect("no thread panicked");
    if let Some(path) = &a.csv {
        let mut out = String::from("player,moves,agreed,loss_cm,think_mean_ms,think_sd_ms\n");
        for side in &sides {
            let s = side.score;
            let player = match side.player {
                Player::Engine => "engine".to_string(),
                Player::Person(n) => format!("level{n}"),
            };
            out += &format!(
                "{player},{},{},{},{},{}\n",
                s.moves, s.agreed, s.loss_cm, s.think_mean_ms, s.think_sd_ms
            );
        }
        std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))?;
    }
    report(&sides, &settings, &a, started.elapsed());
    Ok(())
}

/// Plays one game of `pairing` with the `players`' engines; answers it and each move's time.
fn play(players: &mut [Engine; 2], pairing: Pairing, move_ms: u64) -> (Game, Vec<i64>) {
    let mut game = Game::new();
    let mut think = Vec::new();
    for e in players.iter_mut() {
        e.new_game();
    }
    while !game.is_over() && game.ply() < 400 {
        let side = game.position().side_to_move().index();
        let (level, book) = match pairing[side] {
            Player::Engine => (Level::MAX, true),
            Player::Person(n) => (Level::new(n), false),
        };
        let request = SearchRequest::new(
            SearchRoot::from_game(&game),
            Limits::move_time(Duration::from_millis(move_ms)),
        )
        .with_level(level)
        .with_book(book);
        let at = Instant::now();
        let result = players[side].search(&request, &Arc::new(SearchControl::new()), &mut |_| {});
        let Some(m) = result.best else { break };
        think.push(at.elapsed().as_millis() as i64);
        if game.play(&m).is_err() {
            break;
        }
    }
    (game, think)
}

/// Prints the trial's figures and error rates as Markdown.
fn report(sides: &[Side], settings: &ScreenSettings, a: &FairPlayTrialArgs, took: Duration) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    println!(
        "Fair-play trial: {} games of the full-strength engine against levels 3-6, {} games \
         between levels 1-6, {} ms a move; screen depth {}, reported at >= {:.0}% agreement \
         and <= {:.2} men lost a move over >= {} games. Took {:.0} s on {} ({} jobs).\n",
        a.engine_games,
        a.people_games,
        a.move_ms,
        settings.depth,
        settings.agreement * 100.0,
        settings.average_loss_men,
        settings.min_games,
        took.as_secs_f64(),
        cpu,
        a.jobs
    );
    println!("| player | sides | agreement | loss (men/move) | time spread | games beyond | accounts of {} games beyond |", settings.min_games);
    println!("|---|---|---|---|---|---|---|");
    let mut kinds = vec![Player::Engine];
    kinds.extend((1..=6).map(Player::Person));
    let mut rates = Vec::new();
    for kind in kinds {
        let scores: Vec<SideScore> = sides
            .iter()
            .filter(|s| s.player == kind)
            .map(|s| s.score)
            .collect();
        if scores.is_empty() {
            continue;
        }
        // Over every counted game of this kind of player, not the screen's window of 10.
        let all = ScreenSettings {
            window: usize::MAX,
            ..settings.clone()
        }
        .figures(&scores);
        let one_game = ScreenSettings {
            min_games: 1,
            window: 1,
            ..settings.clone()
        };
        let counted: Vec<&SideScore> = scores.iter().filter(|s| settings.counts(s)).collect();
        let games_beyond = counted
            .iter()
            .filter(|s| one_game.beyond(&one_game.figures(&[***s])))
            .count();
        let accounts: Vec<Vec<SideScore>> = counted
            .chunks_exact(settings.min_games)
            .map(|c| c.iter().map(|s| **s).collect())
            .collect();
        let accounts_beyond = accounts
            .iter()
            .filter(|acc| settings.beyond(&settings.figures(acc)))
            .count();
        let name = match kind {
            Player::Engine => "full-strength engine".to_string(),
            Player::Person(n) => format!("level {n}"),
        };
        println!(
            "| {name} | {} | {:.1}% | {:.3} | {:.2} | {}/{} | {}/{} |",
            scores.len(),
            all.agreement * 100.0,
            all.average_loss_men,
            all.time_spread,
            games_beyond,
            counted.len(),
            accounts_beyond,
            accounts.len()
        );
        rates.push((
            kind,
            games_beyond,
            counted.len(),
            accounts_beyond,
            accounts.len(),
        ));
    }
    let sum = |engine: bool| {
        rates
            .iter()
            .filter(|r| (r.0 == Player::Engine) == engine)
            .fold((0, 0, 0, 0), |t, r| {
                (t.0 + r.1, t.1 + r.2, t.2 + r.3, t.3 + r.4)
            })
    };
    let pct = |n: usize, d: usize| {
        if d == 0 {
            0.0
        } else {
            100.0 * n as f64 / d as f64
        }
    };
    let (eg, egn, ea, ean) = sum(true);
    let (pg, pgn, pa, pan) = sum(false);
    println!();
    println!(
        "- **Missed engine** (false negatives): {:.1}% of accounts ({}/{}), {:.1}% of games ({}/{}).",
        pct(ean - ea, ean),
        ean - ea,
        ean,
        pct(egn - eg, egn),
        egn - eg,
        egn
    );
    println!(
        "- **People reported** (false positives): {:.1}% of accounts ({}/{}), {:.1}% of games ({}/{}).",
        pct(pa, pan),
        pa,
        pan,
        pct(pg, pgn),
        pg,
        pgn
    );
}
