//! The `damasi` command: wires the libraries together. It holds no rules of its own.

use clap::{Parser, Subcommand};

/// mimalloc rather than the system's allocator: the server's many small allocations per
/// move cost a quarter of its time with glibc's (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod berger_cmd;
mod book_cmds;
mod engine_cmds;
mod explorer_cmd;
mod fair_play_cmd;
mod online_cmds;
mod play_cmd;
mod puzzle_cmds;
mod rules_cmds;
mod serve_cmd;
mod site_cmd;
mod swiss_cmd;
mod tb_cmds;
mod train_cmd;

/// Turkish draughts (Dama): play, analyse, and test the rules.
#[derive(Parser)]
#[command(name = "damasi", version, about, long_about = None, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// With no command, `damasi` serves the web app and takes `serve`'s options
    /// (`damasi --port 9000` is `damasi serve --port 9000`).
    #[command(flatten)]
    serve: serve_cmd::ServeArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Start the web app on localhost (the default when no command is given).
    Serve(serve_cmd::ServeArgs),
    /// Play in the terminal against the engine or another person.
    Play(play_cmd::PlayArgs),
    /// Count the leaf nodes of the legal move tree (perft).
    Perft(rules_cmds::PerftArgs),
    /// List the legal moves, one per line.
    Moves(rules_cmds::MovesArgs),
    /// Show a board diagram, the side to move and the game state.
    Show(rules_cmds::ShowArgs),
    /// Speak the Hub protocol on stdin/stdout (engine mode for GUIs and match runners).
    Hub(engine_cmds::HubArgs),
    /// Analyse a position with the engine.
    Analyze(engine_cmds::AnalyzeArgs),
    /// Search fixed positions to a fixed depth; prints `<nodes> nodes <nps> nps`.
    Bench(engine_cmds::BenchArgs),
    /// Play engine against engine and test the result statistically (SPRT).
    Match(engine_cmds::MatchArgs),
    /// The opening book: build one, or show a position's book moves.
    Book(book_cmds::BookArgs),
    /// Write the offline page and the main page (`DIR/app/`) as static files: engine in
    /// WebAssembly, games in the browser.
    ExportSite(site_cmd::ExportSiteArgs),
    /// Endgame tablebases: build, probe, stats, verify.
    Tb(tb_cmds::TbArgs),
    /// Learned evaluation: make self-play data (`train data`), fit pattern weights (`train fit`).
    Train(train_cmd::TrainArgs),
    /// Accounts of the online server: `damasi user add NAME` prints a new API token.
    User(online_cmds::UserArgs),
    /// Print a new API token for an account of the online server.
    Token(online_cmds::TokenArgs),
    /// Connect a Hub engine to a damasi server as a player (Board API).
    Bot(online_cmds::BotArgs),
    /// The opening explorer: `damasi explorer import FILE.pdn` adds master games.
    Explorer(explorer_cmd::ExplorerArgs),
    /// Measure the fair-play screen: the full-strength engine passed off as a person against
    /// levels 3-6, and levels 1-6 for people; prints both error rates as Markdown.
    FairPlayTrial(fair_play_cmd::FairPlayTrialArgs),
    /// Tactics puzzles: `damasi puzzles generate` finds them in engine self-play.
    Puzzles(puzzle_cmds::PuzzlesArgs),
    /// Swiss tournaments: `damasi swiss pair --trf FILE` pairs the next round (FIDE Dutch).
    Swiss(swiss_cmd::SwissArgs),
    /// Round robins: `damasi berger --players N --round R [--double]` prints round R's pairs
    /// by FIDE's Berger tables.
    Berger(berger_cmd::BergerArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        None => serve_cmd::serve(cli.serve),
        Some(Command::Serve(a)) => serve_cmd::serve(a),
        Some(Command::Play(a)) => play_cmd::play(a),
        Some(Command::Perft(a)) => rules_cmds::perft(a),
        Some(Command::Moves(a)) => rules_cmds::moves(a),
        Some(Command::Show(a)) => rules_cmds::show(a),
        Some(Command::Hub(a)) => engine_cmds::hub(a),
        Some(Command::Analyze(a)) => engine_cmds::analyze(a),
        Some(Command::Bench(a)) => engine_cmds::bench(a),
        Some(Command::Match(a)) => engine_cmds::run_match(a),
        Some(Command::Book(a)) => book_cmds::book(a),
        Some(Command::ExportSite(a)) => site_cmd::export_site(a),
        Some(Command::Tb(a)) => tb_cmds::tb(a),
        Some(Command::Train(a)) => train_cmd::train(a),
        Some(Command::User(a)) => online_cmds::user(a),
        Some(Command::Token(a)) => online_cmds::token(a),
        Some(Command::Bot(a)) => online_cmds::bot(a),
        Some(Command::Explorer(a)) => explorer_cmd::explorer(a),
        Some(Command::FairPlayTrial(a)) => fair_play_cmd::fair_play_trial(a),
        Some(Command::Puzzles(a)) => puzzle_cmds::puzzles(a),
        Some(Command::Swiss(a)) => swiss_cmd::swiss(a),
        Some(Command::Berger(a)) => berger_cmd::berger(a),
    };
    if let Err(e) = result {
        if reader_went_away(&e) {
            return;
        }
        eprintln!("damasi: error: {e:#}");
        std::process::exit(1);
    }
}

/// Whether the command stopped because its output's reader closed the pipe
/// (`damasi tb stats | head`): the reader has what it wanted, so that is no error.
fn reader_went_away(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
