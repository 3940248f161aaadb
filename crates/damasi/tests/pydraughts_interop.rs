//! Interoperability with pydraughts 0.6.7 (PyPI), the Python draughts library whose PDN reader
//! and writer know GameType 30 (Turkish draughts).
//!
//! - damasi writes random legal games (captures, multi-captures, promotions, a set-up start
//!   with kings) as PDN; pydraughts reads them and replays every move to the same final
//!   position (`interop/read_pdn.py`).
//! - pydraughts plays the same games on its own board and writes them, once as a board (its
//!   algebraic squares) and once from its move strings (squares numbered 1..64 from a1);
//!   damasi reads both back to the same moves (`interop/write_pdn.py`).
//!
//! Without pydraughts (`python3 -c "import draughts"` fails) the test says why and passes,
//! unless `DAMASI_REQUIRE_PYDRAUGHTS=1` is set: then it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use damasi::pdn::{read_games, write_games, PdnGame};
use damasi::{Game, Move, Notation, Position, RuleSet};

/// Whether pydraughts can be used; `Err` says why not.
fn pydraughts_available() -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", "import draughts"])
        .output()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "python3 cannot import draughts (pip install pydraughts==0.6.7): {}",
            // The last line of a Python traceback is the error itself.
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
                .trim()
        ))
    }
}

fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop")
}

/// Runs a script of `tests/interop` and returns its standard output; panics with its
/// standard error when it fails.
fn run_script(script: &str, args: &[&Path]) -> String {
    let out = Command::new("python3")
        .arg(interop_dir().join(script))
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{script} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// xorshift64*: reproducible random games without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn random_game(start: Position, rng: &mut Rng, max_plies: usize) -> Game {
    let mut g = Game::from_position(start, RuleSet::default());
    for _ in 0..max_plies {
        let moves = g.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[(rng.next() % moves.len() as u64) as usize];
        g.play(&m).expect("a legal move");
    }
    g
}

/// The games both libraries exchange: random games from the start, and from a set-up position
/// with kings on both sides and Black to move.
fn sample_games() -> Vec<Game> {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut games: Vec<Game> = (0..6)
        .map(|_| random_game(Position::start(), &mut rng, 100))
        .collect();
    let setup = Position::from_fen("B:WKa1,c3,d3,e3,f4,g2:BKh8,b6,c6,d7,e6,g6").unwrap();
    games.push(random_game(setup, &mut rng, 60));
    games
}

/// `from-to-c1.c2..` with pydraughts' square numbers (a1 = 1).
fn move_spec(m: &Move) -> String {
    let caught: Vec<String> = m.captured().map(|sq| sq.number().to_string()).collect();
    format!(
        "{}-{}-{}",
        m.from().number(),
        m.to().number(),
        caught.join(".")
    )
}

#[test]
fn pydraughts_reads_and_writes_the_same_games() {
    if let Err(why) = pydraughts_available() {
        if std::env::var("DAMASI_REQUIRE_PYDRAUGHTS").as_deref() == Ok("1") {
            panic!("DAMASI_REQUIRE_PYDRAUGHTS=1 but {why}");
        }
        eprintln!("skipping the pydraughts interoperability test: {why}");
        return;
    }
    let games = sample_games();
    // The sample must exercise what is hard to exchange.
    let all: Vec<&Move> = games.iter().flat_map(|g| g.history()).collect();
    assert!(all.iter().any(|m| m.is_promotion()), "no promotion");
    assert!(
        all.iter().any(|m| m.capture_count() >= 2),
        "no multi-capture"
    );
    assert!(
        games.iter().any(|g| {
            let mut pos = *g.initial_position();
            g.history().iter().any(|m| {
                let king = pos.kings() & m.from().bit() != 0;
                pos = pos.play(m);
                king && m.is_capture()
            })
        }),
        "no king capture"
    );

    let dir = std::env::temp_dir().join(format!("damasi-interop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // damasi writes, pydraughts reads and replays.
    let records: Vec<PdnGame> = games.iter().cloned().map(PdnGame::new).collect();
    let damasi_pdn = dir.join("damasi.pdn");
    std::fs::write(&damasi_pdn, write_games(&records, Notation::Landing)).unwrap();
    let replies = run_script("read_pdn.py", &[&damasi_pdn]);
    let replies: Vec<&str> = replies.lines().collect();
    assert_eq!(replies.len(), games.len(), "{replies:?}");
    for (i, (g, reply)) in games.iter().zip(&replies).enumerate() {
        let fen = reply
            .strip_prefix("OK turkish ")
            .unwrap_or_else(|| panic!("game {i}: pydraughts says {reply}"));
        let theirs = Position::from_fen(fen)
            .unwrap_or_else(|e| panic!("game {i}: pydraughts' final FEN {fen}: {e}"));
        assert_eq!(&theirs, g.position(), "game {i}: final positions differ");
    }

    // pydraughts writes the same games, damasi reads them.
    let mut spec = String::new();
    for g in &games {
        let moves: Vec<String> = g.history().iter().map(move_spec).collect();
        let result = g.outcome().map_or("*", |o| o.pdn_result());
        spec.push_str(&format!(
            "{}|{result}|{}\n",
            g.initial_position().to_fen(),
            moves.join(" ")
        ));
    }
    let spec_path = dir.join("games.txt");
    std::fs::write(&spec_path, spec).unwrap();
    let (board_pdn, numbers_pdn) = (dir.join("board.pdn"), dir.join("numbers.pdn"));
    run_script("write_pdn.py", &[&spec_path, &board_pdn, &numbers_pdn]);
    for path in [&board_pdn, &numbers_pdn] {
        let text = std::fs::read_to_string(path).unwrap();
        let read: Vec<_> = read_games(text.as_bytes()).collect();
        assert_eq!(read.len(), games.len(), "{}", path.display());
        for (i, (g, r)) in games.iter().zip(read).enumerate() {
            let r = r.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(r.game.initial_position(), g.initial_position(), "game {i}");
            assert_eq!(
                r.game.history(),
                g.history(),
                "game {i}, {}",
                path.display()
            );
            assert_eq!(r.game.outcome(), g.outcome(), "game {i}");
            assert_eq!(r.tag("Event"), Some("pydraughts interop"));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
