//! Engine commands: `hub`, `analyze`, `bench`, `match`. (Being built: the engine issue.)

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use damasi::RuleSet;
use damasi_engine::hub::HubConfig;
use damasi_tools::match_runner::{split_command, EngineSpec, MatchConfig, MoveLimit};
use damasi_tools::openings::{parse_openings, DEFAULT_OPENINGS};
use damasi_tools::sprt::Sprt;

/// Arguments of `damasi hub`.
#[derive(Args)]
pub struct HubArgs {
    /// Playing strength from 1 to 10 (10 = full strength); the `level` parameter.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u8).range(1..=10))]
    level: u8,
    /// Hash table size in MiB; the `hash` parameter.
    #[arg(long, default_value_t = 64)]
    hash: usize,
    /// Search threads; the `threads` parameter.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Rule set, e.g. "turkish; no-capture-limit 50" (the `no-capture-limit` and
    /// `king-beats-lone-man` parameters).
    #[arg(long, default_value = "turkish")]
    rules: RuleSet,
    /// Endgame table directory, or `none` (default: `tablebases/` in the user's data
    /// directory, used if tables are there); the `tablebases` parameter.
    #[arg(long, value_name = "DIR")]
    tb_dir: Option<PathBuf>,
    /// Start with the opening book off even where it is on by default (the `book` parameter
    /// turns it on or off; see docs/book.md).
    #[arg(long)]
    no_book: bool,
    /// How much less than nothing a draw is worth to the engine in its games, in centi-men
    /// (the `contempt` parameter; `go analyze` always uses 0).
    #[arg(long, default_value_t = damasi_engine::PLAY_CONTEMPT,
          value_parser = clap::value_parser!(i32).range(0..=300))]
    contempt: i32,
}

/// Arguments of `damasi analyze`.
#[derive(Args)]
pub struct AnalyzeArgs {
    /// Start position (FEN or `startpos`).
    #[arg(long)]
    fen: Option<String>,
    /// Moves played from the start position before analysing, in any notation.
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    /// Search to this depth.
    #[arg(long, conflicts_with = "time")]
    depth: Option<u32>,
    /// Think this many seconds (default: 5 when no depth is given).
    #[arg(long)]
    time: Option<f64>,
    /// Number of best lines to show.
    #[arg(long, default_value_t = 1)]
    multipv: usize,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Hash table size in MiB.
    #[arg(long, default_value_t = 64)]
    hash: usize,
    /// Rule set, e.g. "turkish; no-capture-limit 50".
    #[arg(long, default_value = "turkish")]
    rules: RuleSet,
    /// Endgame table directory, or `none` (default: `tablebases/` in the user's data
    /// directory, used if tables are there).
    #[arg(long, value_name = "DIR")]
    tb_dir: Option<PathBuf>,
}

/// Arguments of `damasi bench`.
#[derive(Args)]
pub struct BenchArgs {
    /// Search depth (default: the bench's own fixed depth).
    #[arg(long)]
    depth: Option<u32>,
    /// Weights or network file to evaluate with, or `features` for the feature evaluation
    /// alone (default: the shipped evaluation, features and network).
    #[arg(long, value_name = "FILE")]
    eval: Option<String>,
}

/// Arguments of `damasi match` (boxed: they are many, and the command enum stays small).
#[derive(Args)]
pub struct MatchArgs {
    #[command(flatten)]
    options: Box<MatchOptions>,
}

/// The options of `damasi match`.
#[derive(Args)]
struct MatchOptions {
    /// First engine: a Hub engine command; results are counted from its view. A command
    /// starting with `damasi` runs this very program.
    #[arg(long, default_value = "damasi hub")]
    engine1: String,
    /// Second engine.
    #[arg(long, default_value = "damasi hub")]
    engine2: String,
    /// Name of the first engine in reports and records (default: its command).
    #[arg(long)]
    name1: Option<String>,
    /// Name of the second engine.
    #[arg(long)]
    name2: Option<String>,
    /// A parameter for the first engine, NAME=VALUE, sent with set-param (repeatable).
    #[arg(long = "param1", value_name = "NAME=VALUE")]
    params1: Vec<String>,
    /// A parameter for the second engine (repeatable).
    #[arg(long = "param2", value_name = "NAME=VALUE")]
    params2: Vec<String>,
    /// Opening file, one opening per line (default: the built-in balanced set).
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Fixed depth per move.
    #[arg(long, group = "limit")]
    depth: Option<u32>,
    /// Fixed nodes per move.
    #[arg(long, group = "limit")]
    nodes: Option<u64>,
    /// Fixed seconds per move [default when no other limit is given: 0.1].
    #[arg(long, group = "limit")]
    move_time: Option<f64>,
    /// Clock per player as SECONDS+INCREMENT, e.g. 10+0.1.
    #[arg(long, group = "limit")]
    tc: Option<String>,
    /// Rule set the games are played and adjudicated under, e.g. "turkish; no-capture-limit 50".
    #[arg(long, default_value = "turkish")]
    rules: RuleSet,
    /// A game still going after this many plies is adjudicated a draw.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// Stop after this many games [default: two per opening; unlimited with --sprt].
    #[arg(long)]
    games: Option<u64>,
    /// Run a sequential probability ratio test with these Elo bounds, e.g. 0,5; the match
    /// stops as soon as it decides.
    #[arg(long, value_name = "ELO0,ELO1")]
    sprt: Option<String>,
    /// SPRT false positive rate.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// SPRT false negative rate.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Seconds an engine may think without a clock before it loses the game.
    #[arg(long, default_value_t = 60.0)]
    move_timeout: f64,
    /// Write the games to this PDN file.
    #[arg(long)]
    pdn: Option<PathBuf>,
    /// Print only the final report, no line per game.
    #[arg(long)]
    quiet: bool,
}

/// `damasi hub`: the Hub protocol on stdin/stdout.
pub fn hub(a: HubArgs) -> Result<()> {
    let config = HubConfig {
        hash_mb: a.hash.max(1),
        threads: a.threads.max(1),
        level: a.level,
        rules: a.rules,
        book: damasi_engine::book::USE_BY_DEFAULT && !a.no_book,
        contempt: a.contempt,
    };
    let tablebases = damasi_engine::hub::HubTablebases {
        dir: crate::tb_cmds::tables_dir(a.tb_dir.as_deref()),
        loader: Some(crate::tb_cmds::hub_loader()),
    };
    damasi_engine::hub::run_with_tablebases(
        std::io::stdin().lock(),
        std::io::stdout(),
        config,
        tablebases,
    )
    .context("reading the protocol input")
}

/// Writes a line of moves from `pos` in landing notation.
fn line_text(pos: &damasi::Position, moves: &[damasi::Move]) -> String {
    let mut p = *pos;
    let mut out = Vec::with_capacity(moves.len());
    for m in moves {
        if !p.legal_moves().contains(m) {
            break;
        }
        out.push(p.write_move(m, damasi::Notation::Landing));
        p = p.play(m);
    }
    out.join(" ")
}

/// `damasi analyze`: info lines as the search deepens, then the best move, its score and the
/// principal variation.
pub fn analyze(a: AnalyzeArgs) -> Result<()> {
    use damasi_engine::{Engine, EngineOptions, Limits, SearchControl, SearchRequest, SearchRoot};
    let start = crate::rules_cmds::position_arg(a.fen.as_deref())?;
    let mut game = damasi::Game::from_position(start, a.rules);
    for text in &a.moves {
        game.play_text(text)
            .with_context(|| format!("cannot play '{text}'"))?;
    }
    let root = SearchRoot::from_game(&game);
    let pos = root.position;
    let limits = match (a.depth, a.time) {
        (Some(d), _) => Limits::depth(d.max(1)),
        (None, Some(t)) if t.is_finite() && t > 0.0 => {
            Limits::move_time(Duration::from_secs_f64(t.min(1e6)))
        }
        (None, Some(t)) => bail!("--time must be a positive number of seconds, not {t}"),
        (None, None) => Limits::move_time(Duration::from_secs(5)),
    };
    if let Some(outcome) = game.outcome() {
        println!("game over: {outcome}");
    }
    let mut engine = Engine::new(EngineOptions {
        hash_mb: a.hash.max(1),
        threads: a.threads.max(1),
    });
    let oracle = crate::tb_cmds::open_oracle(a.tb_dir.as_deref())?;
    let mut out = std::io::stdout().lock();
    if let Some(o) = &oracle {
        if root.rules == RuleSet::default() {
            let dir = o.dir().map(|d| d.display().to_string()).unwrap_or_default();
            let _ = writeln!(out, "using {} in {dir}", crate::tb_cmds::describe(o));
        }
        engine.set_endgame_oracle(Some(o.clone()));
    }
    let control = std::sync::Arc::new(SearchControl::new());
    let result = engine.search(
        &SearchRequest::new(root.clone(), limits.clone()).with_multipv(a.multipv.max(1)),
        &control,
        &mut |info| {
            let _ = writeln!(
                out,
                "info depth {} seldepth {} multipv {} score {} nodes {} time {:.3} nps {} pv {}",
                info.depth,
                info.seldepth,
                info.multipv,
                info.score,
                info.nodes,
                info.time.as_secs_f64(),
                info.nps,
                line_text(&pos, &info.pv)
            );
        },
    );
    match result.best {
        None => println!(
            "no legal move: {} is blocked or has no pieces",
            pos.side_to_move()
        ),
        Some(best) => {
            println!("best {}", pos.write_move(&best, damasi::Notation::Landing));
            let s = result.score;
            if let Some(n) = s.plies_to_end() {
                // A won or lost position: its distance, not a score in men.
                let (what, n) = if n > 0 { ("a win", n) } else { ("a loss", -n) };
                let plies = if n == 1 { "ply" } else { "plies" };
                println!("score {s} ({what} in {n} {plies})");
            } else if s.is_tb_win() || s.is_tb_loss() {
                let what = if s.is_tb_win() { "won" } else { "lost" };
                println!("score {s} ({what} by the endgame tables)");
            } else {
                println!("score {s} ({:+.2} men)", s.to_men());
            }
            println!("pv {}", line_text(&pos, &result.pv));
        }
    }
    Ok(())
}

/// `damasi bench`: fixed positions to a fixed depth; the last line is
/// `<nodes> nodes <nps> nps`.
pub fn bench(a: BenchArgs) -> Result<()> {
    let name = a.eval.as_deref().unwrap_or("none");
    let weights =
        damasi_engine::eval::weights_named(name).with_context(|| format!("reading {name}"))?;
    let (nodes, time) = damasi_engine::bench::bench_with(a.depth, &weights);
    let nps = (nodes as u128 * 1_000_000_000 / time.as_nanos().max(1)) as u64;
    println!("time {:.3} s", time.as_secs_f64());
    println!("{nodes} nodes {nps} nps");
    Ok(())
}

/// An engine command from `--engine1`/`--engine2`: words, with `damasi` meaning this program.
pub(crate) fn engine_spec(
    command: &str,
    name: Option<String>,
    params: &[String],
) -> Result<EngineSpec> {
    let mut words = split_command(command).map_err(|e| anyhow!("engine command: {e}"))?;
    let program = words.remove(0);
    let is_damasi = program == "damasi";
    let program = if is_damasi {
        std::env::current_exe()
            .context("finding this program")?
            .to_string_lossy()
            .into_owned()
    } else {
        program
    };
    let params = params
        .iter()
        .map(|p| {
            p.split_once('=')
                .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| anyhow!("engine parameter '{p}' is not NAME=VALUE"))
        })
        .collect::<Result<Vec<_>>>()?;
    // Default name: the command, with `damasi hub` shortened to `damasi`.
    let name = name.unwrap_or_else(|| {
        let mut n = if is_damasi {
            let rest = words
                .strip_prefix(&["hub".to_string()][..])
                .unwrap_or(&words);
            std::iter::once("damasi".to_string())
                .chain(rest.iter().cloned())
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            command.trim().to_string()
        };
        for (k, v) in &params {
            n.push_str(&format!(" {k}={v}"));
        }
        n
    });
    Ok(EngineSpec {
        name,
        program,
        args: words,
        params,
    })
}

/// Seconds from the command line as a duration.
fn seconds(what: &str, s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| anyhow!("{what} must be a number of seconds >= 0, not {s}"))
}

/// The search limit per move from the command line.
fn move_limit(a: &MatchOptions) -> Result<MoveLimit> {
    Ok(if let Some(d) = a.depth {
        MoveLimit::Depth(d.max(1))
    } else if let Some(n) = a.nodes {
        MoveLimit::Nodes(n.max(1))
    } else if let Some(tc) = &a.tc {
        let (time, inc) = tc.split_once('+').unwrap_or((tc, "0"));
        let parse = |t: &str| -> Result<Duration> {
            let s: f64 = t
                .trim()
                .parse()
                .map_err(|_| anyhow!("--tc '{tc}': expected SECONDS+INCREMENT, e.g. 10+0.1"))?;
            seconds("--tc", s)
        };
        MoveLimit::Clock {
            time: parse(time)?,
            inc: parse(inc)?,
        }
    } else {
        MoveLimit::MoveTime(seconds("--move-time", a.move_time.unwrap_or(0.1))?)
    })
}

/// The SPRT from `--sprt ELO0,ELO1`.
fn sprt_arg(a: &MatchOptions) -> Result<Option<Sprt>> {
    let Some(text) = &a.sprt else {
        return Ok(None);
    };
    let bounds: Vec<f64> = text
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow!("--sprt '{text}': expected two Elo values, e.g. 0,5"))?;
    let [elo0, elo1] = bounds[..] else {
        bail!("--sprt '{text}': expected two Elo values, e.g. 0,5");
    };
    if elo0 >= elo1 || elo0.is_nan() || elo1.is_nan() {
        bail!("--sprt '{text}': the first bound must be below the second");
    }
    for (name, p) in [("--alpha", a.alpha), ("--beta", a.beta)] {
        if !(p > 0.0 && p < 0.5) {
            bail!("{name} must be between 0 and 0.5, not {p}");
        }
    }
    Ok(Some(Sprt::new(elo0, elo1, a.alpha, a.beta)))
}

/// Largest opening file read, in bytes: opening sets are a few KiB; a device or an endless
/// file (`/dev/zero`) cannot make `damasi match` read without end.
const MAX_OPENINGS_FILE: u64 = 16 << 20;

/// Reads an opening file of at most [`MAX_OPENINGS_FILE`] bytes, as UTF-8.
fn read_openings_file(path: &std::path::Path) -> Result<String> {
    use std::io::Read;
    let file = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_OPENINGS_FILE + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    if bytes.len() as u64 > MAX_OPENINGS_FILE {
        bail!(
            "{} is larger than {} MiB: not an opening set",
            path.display(),
            MAX_OPENINGS_FILE >> 20
        );
    }
    String::from_utf8(bytes).map_err(|_| anyhow!("{} is not UTF-8 text", path.display()))
}

/// `damasi match`: two Hub engines play each other; a line per game, then a report.
pub fn run_match(args: MatchArgs) -> Result<()> {
    let a = *args.options;
    let openings = match &a.openings {
        Some(path) => {
            let text = read_openings_file(path)?;
            parse_openings(&text).with_context(|| format!("in {}", path.display()))?
        }
        None => parse_openings(DEFAULT_OPENINGS).context("the built-in opening set")?,
    };
    let config = MatchConfig {
        engines: [
            engine_spec(&a.engine1, a.name1.clone(), &a.params1)?,
            engine_spec(&a.engine2, a.name2.clone(), &a.params2)?,
        ],
        openings,
        limit: move_limit(&a)?,
        rules: a.rules,
        max_plies: a.max_plies.max(1),
        max_games: a.games,
        sprt: sprt_arg(&a)?,
        concurrency: a.concurrency.clamp(1, 64),
        move_timeout: seconds("--move-timeout", a.move_timeout)?,
        time_margin: Duration::from_millis(100),
    };
    let mut pdn = match &a.pdn {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        )),
        None => None,
    };
    let limit = config.game_limit();
    println!(
        "{} vs {}: {}, {} openings, rules {}{}",
        config.engines[0].name,
        config.engines[1].name,
        config.limit,
        config.openings.len(),
        config.rules,
        match limit {
            u64::MAX => String::new(),
            n => format!(", {n} games"),
        }
    );
    let event = format!("damasi match ({})", config.limit);
    let mut write_error = None;
    let summary = damasi_tools::match_runner::run_match(&config, &mut |record, summary| {
        if let Some(out) = pdn.as_mut() {
            // Games are separated by a blank line.
            let text = record.to_pdn(&summary.names, &event) + "\n";
            if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                write_error.get_or_insert(e);
            }
        }
        if !a.quiet {
            let total = if limit == u64::MAX {
                String::new()
            } else {
                format!("/{limit}")
            };
            println!(
                "game {}{total}: {} - {} {} ({}) | {}",
                record.number,
                summary.names[record.white],
                summary.names[1 - record.white],
                record.result_token(),
                record.describe(&summary.names),
                summary.progress()
            );
        }
    })?;
    println!();
    print!("{}", summary.report());
    if let Some(e) = write_error {
        bail!("writing the PDN file: {e}");
    }
    Ok(())
}
