//! A small fuzzer on stable Rust: the seeds of a target, then random mutations of them (bit
//! and byte changes, insertions of the target's tokens, deletions, duplications, splices of
//! two seeds, long repeats), for a given time. Not coverage guided (libFuzzer, through
//! `cargo fuzz`, is the tool for long runs); it is the CI's smoke run, and it needs nothing
//! but a Rust toolchain.
//!
//! A panic or an input that runs longer than [`HANG`] is a failure: the input is written to
//! `fuzz/artifacts/<target>/` (where `cargo fuzz` writes its own) and reported.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::Target;

/// Longest an input may run before it counts as a hang.
pub const HANG: Duration = Duration::from_secs(20);

/// Longest input made by mutation, in bytes (longer inputs come from the seeds only).
pub const MAX_INPUT: usize = 16 * 1024;

/// Tokens mutations insert: notation, PDN, FEN, Hub and HTTP words, so that random inputs
/// reach past the first check of each parser.
const TOKENS: &[&str] = &[
    "x",
    "-",
    ":",
    ">",
    "=K",
    "K",
    "W",
    "B",
    "a1",
    "h8",
    "d3",
    "d4",
    "e6",
    "e5",
    "64",
    "1",
    "0",
    ",",
    ";",
    " ",
    "\n",
    "\r\n",
    "\"",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    "$1",
    "*",
    "1-0",
    "0-1",
    "1/2-1/2",
    "1.",
    "12...",
    "%",
    "[Event \"",
    "[FEN \"W:Wa3:Bh6\"]",
    "[GameType \"30\"]",
    "[Rules \"turkish; no-capture-limit 5\"]",
    "[Termination \"time\"]",
    "startpos",
    "W:W",
    ":B",
    "turkish",
    "no-capture-limit",
    "king-beats-lone-man",
    "|",
    "#",
    "pos",
    "pos=",
    "moves=\"",
    "go",
    "think",
    "ponder",
    "analyze",
    "stop",
    "ping",
    "level",
    "depth=",
    "nodes=",
    "move-time=",
    "time=",
    "inc=",
    "infinite",
    "set-param",
    "name=",
    "value=",
    "hash",
    "threads",
    "variant",
    "new-game",
    "ponder-hit",
    "hub",
    "init",
    "quit",
    "=",
    "/api/",
    "games",
    "games/1",
    "/move",
    "/engine",
    "/takeback",
    "/resign",
    "/draw",
    "/draw/answer",
    "/flag",
    "/pdn",
    "pdn/import",
    "analyze",
    "moves?fen=",
    "?",
    "&",
    "%3A",
    "{\"fen\":\"",
    "\"moves\":[",
    "\"move\":\"",
    "\"level\":",
    "\"move_time_ms\":",
    "\"pdn\":\"",
    "\"side\":\"white\"",
    "\"accept\":true",
    "null",
    "true",
    "-1",
    "18446744073709551616",
    "99999999999",
    "\u{feff}",
    "é",
    "\u{0}",
];

/// xorshift64*: a fast generator; the seed is printed so that a run can be repeated.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (0 is replaced, xorshift needs a non-zero state).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// The seed files of `target` under `dir` (`fuzz/seeds/<target>/`), sorted by name; an empty
/// input when there are none.
pub fn load_seeds(dir: &Path) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut seeds: Vec<Vec<u8>> = files.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    if seeds.is_empty() {
        seeds.push(Vec::new());
    }
    seeds
}

/// A mutation of a random seed: one to eight random changes.
pub fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(8) {
        let len = data.len();
        match rng.below(10) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = rng.next_u64() as u8;
            }
            2 => {
                let i = rng.below(len + 1);
                data.insert(i, rng.next_u64() as u8);
            }
            3 | 4 => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                let i = rng.below(len + 1);
                data.splice(i..i, token.iter().copied());
            }
            5 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(16));
                data.drain(i..i + n);
            }
            6 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(32));
                let copy = data[i..i + n].to_vec();
                let at = rng.below(len + 1);
                data.splice(at..at, copy);
            }
            7 => {
                let other = &seeds[rng.below(seeds.len())];
                let cut = rng.below(len + 1);
                let from = rng.below(other.len() + 1);
                data.truncate(cut);
                data.extend_from_slice(&other[from..]);
            }
            8 if len > 0 => {
                // A long run: the same piece repeated, for length limits.
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(8));
                let piece = data[i..i + n].to_vec();
                let times = 1 + rng.below(2000);
                let at = rng.below(len + 1);
                let run: Vec<u8> = piece.iter().copied().cycle().take(n * times).collect();
                data.splice(at..at, run);
            }
            _ if len > 0 => {
                let i = rng.below(len);
                data.truncate(i);
            }
            _ => {}
        }
    }
    data.truncate(MAX_INPUT);
    data
}

/// What a smoke run of one target did.
pub struct Report {
    /// Inputs run.
    pub runs: u64,
    /// The failing input and why, if one failed.
    pub failure: Option<(Vec<u8>, String)>,
}

/// Runs `target` on each of `seeds`, then on mutations, until `time` has passed or an input
/// fails. Panic messages are kept quiet here (the failure carries the message).
pub fn run(target: &Target, seeds: &[Vec<u8>], time: Duration, seed: u64) -> Report {
    let mut rng = Rng::new(seed);
    let start = Instant::now();
    let mut runs = 0u64;
    // The input being run, for the watchdog.
    let current: Arc<Mutex<(Vec<u8>, Option<Instant>)>> = Arc::default();
    let hung: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
    let finished = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let (current, hung, finished) = (current.clone(), hung.clone(), finished.clone());
        let name = target.name;
        std::thread::spawn(move || {
            while !finished.load(std::sync::atomic::Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(200));
                let Ok(cur) = current.lock() else { return };
                if let Some(since) = cur.1 {
                    if since.elapsed() > HANG {
                        let input = cur.0.clone();
                        drop(cur);
                        let path = save_artifact(name, "hang", &input);
                        eprintln!(
                            "fuzz-smoke: {name}: an input ran more than {} s; saved as {}",
                            HANG.as_secs(),
                            path.display()
                        );
                        if let Ok(mut h) = hung.lock() {
                            *h = Some(input);
                        }
                        // A hang cannot be interrupted from here: end the process.
                        std::process::exit(1);
                    }
                }
            }
        })
    };
    let mut failure = None;
    let mut next_seed = 0;
    while failure.is_none() && (next_seed < seeds.len() || start.elapsed() < time) {
        let input = if next_seed < seeds.len() {
            next_seed += 1;
            seeds[next_seed - 1].clone()
        } else {
            mutate(&mut rng, seeds)
        };
        if let Ok(mut cur) = current.lock() {
            cur.0.clone_from(&input);
            cur.1 = Some(Instant::now());
        }
        let result = catch_unwind(AssertUnwindSafe(|| (target.run)(&input)));
        if let Ok(mut cur) = current.lock() {
            cur.1 = None;
        }
        runs += 1;
        if let Err(panic) = result {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".to_string());
            failure = Some((input, message));
        }
    }
    finished.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = watchdog.join();
    Report { runs, failure }
}

/// Writes a failing input to `fuzz/artifacts/<target>/<kind>-<hash>` and returns the path.
pub fn save_artifact(target: &str, kind: &str, input: &[u8]) -> PathBuf {
    // FNV-1a: a stable name for the same input.
    let hash = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let dir = repository_root()
        .join("fuzz")
        .join("artifacts")
        .join(target);
    let path = dir.join(format!("{kind}-{hash:016x}"));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(&path, input);
    path
}

/// The repository's root: the workspace holding this crate.
pub fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The seed folder of `target`: `fuzz/seeds/<target>/`.
pub fn seed_dir(target: &str) -> PathBuf {
    repository_root().join("fuzz").join("seeds").join(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_bounded_and_vary() {
        let seeds = vec![b"d3-d4".to_vec(), b"[Event \"x\"]\n1. d3-d4 *\n".to_vec()];
        let mut rng = Rng::new(7);
        let outputs: Vec<Vec<u8>> = (0..500).map(|_| mutate(&mut rng, &seeds)).collect();
        assert!(outputs.iter().all(|o| o.len() <= MAX_INPUT));
        let distinct: std::collections::HashSet<_> = outputs.iter().collect();
        assert!(distinct.len() > 400, "{}", distinct.len());
    }

    #[test]
    fn a_panicking_target_is_reported_with_its_input() {
        fn picky(data: &[u8]) {
            assert!(!data.contains(&b'!'), "a bang");
        }
        let target = Target {
            name: "picky",
            about: "test",
            run: picky,
        };
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let report = run(
            &target,
            &[b"ok".to_vec(), b"no!".to_vec()],
            Duration::ZERO,
            1,
        );
        std::panic::set_hook(quiet);
        let (input, message) = report.failure.expect("the second seed fails");
        assert_eq!(input, b"no!");
        assert!(message.contains("a bang"), "{message}");
        assert_eq!(report.runs, 2);
    }
}
