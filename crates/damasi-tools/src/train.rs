//! Training data and the trainer of the pattern evaluation ([`damasi_engine::patterns`]).
//!
//! - [`generate`]: self-play games of the engine at a fixed depth (or node count) from the
//!   balanced openings plus random plies, keeping the quiet positions (no capture for the side
//!   to move, none threatened against it) with the game result and the search score, as
//!   [`Record`]s. With endgame tables, a game ends as soon as it reaches a position they know,
//!   with their exact result.
//! - [`fit`]: logistic regression of the game's outcome on the evaluation,
//!   `p = sigmoid(eval_white / K)`, against the label
//!   `y = lambda * result + (1 - lambda) * sigmoid(score / K)`, by mini-batch Adam that updates
//!   only the pattern entries a batch touches (lazy Adam), with the global feature weights
//!   (except the man's, which fixes the scale of 100 = one man) fitted alongside.
//!
//! The formats are described in `docs/training.md`.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use damasi::{Color, Game, Position, RuleSet, Wdl};
use damasi_engine::eval::{feature, is_threatened, Weights};
use damasi_engine::oracle::EndgameOracle;
use damasi_engine::patterns::{self, PatternTables, ENTRIES, LOOKUPS};
use damasi_engine::{Engine, EngineOptions, Limits};

use crate::openings::Opening;
use crate::tune::Sample as FeatureSample;

/// Magic and version at the start of a data file.
pub const DATA_MAGIC: &[u8; 4] = b"DMTD";
/// Data format version.
pub const DATA_VERSION: u32 = 1;
/// Bytes of the data file header (magic, version).
pub const DATA_HEADER: usize = 8;
/// Bytes of one record.
pub const RECORD_SIZE: usize = 32;
/// Search scores are stored clamped to this many centi-men either way.
pub const SCORE_CLAMP: i32 = 3000;

/// One training position: 32 bytes on disk, little-endian, in this order.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Record {
    /// White's pieces, bit `8 * rank + file` (rank 0 = rank 1).
    pub white: u64,
    /// Black's pieces.
    pub black: u64,
    /// Kings of either colour.
    pub kings: u64,
    /// The search score from White's view in centi-men, clamped to ±[`SCORE_CLAMP`].
    pub score: i16,
    /// The game's result: 0 Black won, 1 draw, 2 White won.
    pub result: u8,
    /// Bit 0: Black to move. Other bits zero.
    pub flags: u8,
    /// Ply of the game at which the position stood.
    pub ply: u16,
}

impl Record {
    /// The record of `pos` with White's score `score` and White's result (`0.0`, `0.5`, `1.0`).
    pub fn new(pos: &Position, score_white: i32, result_white: f32, ply: usize) -> Record {
        Record {
            white: pos.pieces_of(Color::White),
            black: pos.pieces_of(Color::Black),
            kings: pos.kings(),
            score: score_white.clamp(-SCORE_CLAMP, SCORE_CLAMP) as i16,
            result: (result_white * 2.0).round().clamp(0.0, 2.0) as u8,
            flags: (pos.side_to_move() == Color::Black) as u8,
            ply: ply.min(u16::MAX as usize) as u16,
        }
    }

    /// The position (`None` if the bits describe no legal position).
    pub fn position(&self) -> Option<Position> {
        let side = if self.flags & 1 == 1 {
            Color::Black
        } else {
            Color::White
        };
        patterns::position_from_bits(self.white, self.black, self.kings, side)
    }

    /// The game's result for White: 0, 0.5 or 1.
    pub fn result_white(&self) -> f32 {
        self.result as f32 / 2.0
    }

    /// The 32 bytes of the record.
    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let mut b = [0u8; RECORD_SIZE];
        b[0..8].copy_from_slice(&self.white.to_le_bytes());
        b[8..16].copy_from_slice(&self.black.to_le_bytes());
        b[16..24].copy_from_slice(&self.kings.to_le_bytes());
        b[24..26].copy_from_slice(&self.score.to_le_bytes());
        b[26] = self.result;
        b[27] = self.flags;
        b[28..30].copy_from_slice(&self.ply.to_le_bytes());
        b
    }

    /// A record from its bytes (no check of the contents; see [`Record::position`]).
    pub fn from_bytes(b: &[u8; RECORD_SIZE]) -> Record {
        let u64_at = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(a)
        };
        Record {
            white: u64_at(0),
            black: u64_at(8),
            kings: u64_at(16),
            score: i16::from_le_bytes([b[24], b[25]]),
            result: b[26],
            flags: b[27],
            ply: u16::from_le_bytes([b[28], b[29]]),
        }
    }
}

/// Writes the data file header.
pub fn write_header(out: &mut impl Write) -> io::Result<()> {
    out.write_all(DATA_MAGIC)?;
    out.write_all(&DATA_VERSION.to_le_bytes())
}

/// Reads a whole data file: the header, then records. Errors (never panics) on a bad header,
/// a partial record at the end or a record that is no legal position.
pub fn read_records(input: &mut impl Read) -> Result<Vec<Record>, String> {
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the data: {e}"))?;
    if bytes.len() < DATA_HEADER || &bytes[..4] != DATA_MAGIC {
        return Err("not a damasi training data file (no DMTD header)".into());
    }
    let version = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    if version != DATA_VERSION {
        return Err(format!(
            "data format version {version}, this program reads {DATA_VERSION}"
        ));
    }
    let body = &bytes[DATA_HEADER..];
    if body.len() % RECORD_SIZE != 0 {
        return Err(format!(
            "data truncated: {} bytes after the header is not a whole number of {RECORD_SIZE}-byte records",
            body.len()
        ));
    }
    let mut out = Vec::with_capacity(body.len() / RECORD_SIZE);
    for (i, chunk) in body.chunks_exact(RECORD_SIZE).enumerate() {
        let mut b = [0u8; RECORD_SIZE];
        b.copy_from_slice(chunk);
        let r = Record::from_bytes(&b);
        if r.result > 2 || r.position().is_none() {
            return Err(format!("record {i} is not a valid position and result"));
        }
        out.push(r);
    }
    Ok(out)
}

/// Settings of [`generate`].
#[derive(Clone, Debug)]
pub struct DataConfig {
    /// Games to play.
    pub games: usize,
    /// Search depth per move.
    pub depth: u32,
    /// Nodes per move instead of a depth, when given.
    pub nodes: Option<u64>,
    /// Threads, each playing whole games with its own engine.
    pub threads: usize,
    /// Up to this many random plies after the opening (uniformly 0..=n).
    pub random_plies: usize,
    /// Seed of the random plies.
    pub seed: u64,
    /// Plies after which a game is scored a draw.
    pub max_plies: usize,
}

/// A small xorshift generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number in `0..n` (0 if `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// Whether a position is quiet: no capture for the side to move, none threatened against it.
pub fn is_quiet(pos: &Position) -> bool {
    !pos.has_capture() && !is_threatened(pos)
}

/// The tables' result of `pos` from White's view (1 White wins, 1/2 draw, 0 Black wins), if
/// they cover it (default rules only).
pub fn table_result_white(oracle: &dyn EndgameOracle, pos: &Position) -> Option<f32> {
    let pieces = pos.count(Color::White) + pos.count(Color::Black);
    if pieces > oracle.max_pieces() {
        return None;
    }
    let mover = match oracle.probe_wdl(pos)? {
        Wdl::Win => 1.0,
        Wdl::Draw => 0.5,
        Wdl::Loss => 0.0,
    };
    Some(if pos.side_to_move() == Color::White {
        mover
    } else {
        1.0 - mover
    })
}

/// Plays game `index` and returns its records.
fn play_one(
    engine: &mut Engine,
    openings: &[Opening],
    cfg: &DataConfig,
    oracle: Option<&dyn EndgameOracle>,
    index: usize,
) -> Vec<Record> {
    let mut rng = Rng::new(cfg.seed ^ (index as u64).wrapping_mul(0x2545_F491_4F6C_DD1D));
    let mut game = match openings.get(index % openings.len().max(1)) {
        Some(o) => {
            let mut g = Game::from_position(o.start, RuleSet::default());
            for m in &o.moves {
                if g.play(m).is_err() {
                    break;
                }
            }
            g
        }
        None => Game::with_rules(RuleSet::default()),
    };
    for _ in 0..rng.below(cfg.random_plies + 1) {
        if game.outcome().is_some() {
            break;
        }
        let legal = game.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.below(legal.len())];
        let _ = game.play(&m);
    }
    engine.new_game();
    let limits = match cfg.nodes {
        Some(n) => Limits::nodes(n),
        None => Limits::depth(cfg.depth),
    };
    let mut seen: Vec<(Position, i32, usize)> = Vec::new();
    let mut known: Option<f32> = None;
    while game.outcome().is_none() && game.ply() < cfg.max_plies {
        let pos = *game.position();
        // A position the tables know ends the game with its true result.
        known = oracle.and_then(|o| table_result_white(o, &pos));
        if known.is_some() {
            break;
        }
        let r = crate::tune::search_game(engine, &game, limits.clone());
        let Some(m) = r.best else { break };
        if is_quiet(&pos) {
            let white = if pos.side_to_move() == Color::White {
                r.score.0
            } else {
                -r.score.0
            };
            seen.push((pos, white, game.ply()));
        }
        if game.play(&m).is_err() {
            break;
        }
    }
    let result = known.unwrap_or(match game.outcome().and_then(|o| o.winner()) {
        Some(Color::White) => 1.0,
        Some(Color::Black) => 0.0,
        None => 0.5,
    });
    seen.iter()
        .map(|(p, s, ply)| Record::new(p, *s, result, *ply))
        .collect()
}

/// Plays `cfg.games` self-play games with `weights` on `cfg.threads` threads and writes the
/// records of their quiet positions to `out` (the header first). With `oracle` (endgame
/// tables), the engines search with it and a game ends at the first position it knows, scored
/// by it. `progress(games, records)` is called after each game. Returns the number of records
/// written.
pub fn generate(
    cfg: &DataConfig,
    weights: &Weights,
    openings: &[Opening],
    oracle: Option<Arc<dyn EndgameOracle>>,
    out: &mut impl Write,
    mut progress: impl FnMut(usize, usize),
) -> io::Result<usize> {
    write_header(out)?;
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Vec<Record>>();
    let mut written = 0;
    std::thread::scope(|s| -> io::Result<()> {
        for _ in 0..cfg.threads.max(1) {
            let tx = tx.clone();
            let next = &next;
            let oracle = oracle.clone();
            s.spawn(move || {
                let mut engine = Engine::new(EngineOptions {
                    hash_mb: 16,
                    threads: 1,
                });
                engine.set_weights(weights.clone());
                engine.set_endgame_oracle(oracle.clone());
                loop {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= cfg.games {
                        break;
                    }
                    let records = play_one(&mut engine, openings, cfg, oracle.as_deref(), g);
                    if tx.send(records).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut games = 0;
        for recs in rx {
            let mut buf = Vec::with_capacity(recs.len() * RECORD_SIZE);
            for r in &recs {
                buf.extend_from_slice(&r.to_bytes());
            }
            out.write_all(&buf)?;
            games += 1;
            written += recs.len();
            progress(games, written);
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(written)
}

/// One position ready for the trainer: its pattern entries, its global features and label.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Pattern entries; the top bit set means "subtract" (Black's windows).
    pub entries: [u32; LOOKUPS],
    /// Global features, middlegame then endgame share, from White's view (as in
    /// [`crate::tune::Sample`]).
    pub x: Vec<f32>,
    /// The target probability of a White win.
    pub label: f32,
}

const NEG: u32 = 1 << 31;

impl Sample {
    /// The sample of a quiet position with target `label`.
    pub fn new(pos: &Position, label: f32) -> Sample {
        let mut entries = [0u32; LOOKUPS];
        let mut i = 0;
        patterns::entries(pos, |e, sign| {
            entries[i] = e as u32 | if sign < 0 { NEG } else { 0 };
            i += 1;
        });
        Sample {
            entries,
            x: FeatureSample::new(pos, 0.5).x.to_vec(),
            label,
        }
    }
}

/// The trainer's model: global weights and pattern values as floats.
struct Model {
    g: Vec<f32>,
    p: Vec<f32>,
}

impl Model {
    fn from_weights(w: &Weights) -> Model {
        let n = feature::COUNT;
        let mut g = vec![0f32; 2 * n];
        for i in 0..n {
            g[i] = w.mg[i] as f32;
            g[n + i] = w.eg[i] as f32;
        }
        let p = match &w.patterns {
            Some(t) => t.values().iter().map(|v| *v as f32).collect(),
            None => vec![0f32; ENTRIES],
        };
        Model { g, p }
    }

    fn eval(&self, s: &Sample) -> f32 {
        let mut v: f32 = s.x.iter().zip(&self.g).map(|(a, b)| a * b).sum();
        for e in s.entries {
            let val = self.p[(e & !NEG) as usize];
            v += if e & NEG != 0 { -val } else { val };
        }
        v
    }

    fn to_weights(&self) -> Weights {
        let n = feature::COUNT;
        let mut w = Weights::default();
        for i in 0..n {
            w.mg[i] = self.g[i].round() as i32;
            w.eg[i] = self.g[n + i].round() as i32;
        }
        let values = self
            .p
            .iter()
            .map(|v| v.round().clamp(i16::MIN as f32, i16::MAX as f32) as i16)
            .collect();
        w.patterns = PatternTables::from_values(values).map(Arc::new);
        w
    }
}

pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean binary cross-entropy of `sigmoid(eval / k)` against the label, over `(eval, label)`
/// pairs (0 for none).
pub(crate) fn mean_cross_entropy(pairs: impl ExactSizeIterator<Item = (f32, f32)>, k: f32) -> f64 {
    let n = pairs.len().max(1) as f64;
    let sum: f64 = pairs
        .map(|(eval, label)| {
            let p = sigmoid(eval / k).clamp(1e-6, 1.0 - 1e-6) as f64;
            let y = label as f64;
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum();
    sum / n
}

/// Mean binary cross-entropy of `sigmoid(eval / k)` against the labels.
fn loss(model: &Model, samples: &[Sample], k: f32) -> f64 {
    mean_cross_entropy(samples.iter().map(|s| (model.eval(s), s.label)), k)
}

/// Mean cross-entropy of `sigmoid(eval(w) / k)` against the labels of `samples`.
pub fn loss_of(w: &Weights, samples: &[Sample], k: f32) -> f64 {
    loss(&Model::from_weights(w), samples, k)
}

/// The `K` (centi-men) for which `sigmoid(eval / K)` with weights `w` best predicts the game
/// results of `records` (golden-section search over 20..=2000 on the cross-entropy).
pub fn fit_k(records: &[Record], w: &Weights) -> f32 {
    let samples: Vec<Sample> = records
        .iter()
        .filter_map(|r| Some(Sample::new(&r.position()?, r.result_white())))
        .collect();
    let model = Model::from_weights(w);
    let (mut lo, mut hi) = (20f32, 2000f32);
    let g = 0.618_034f32;
    for _ in 0..40 {
        let a = hi - g * (hi - lo);
        let b = lo + g * (hi - lo);
        if loss(&model, &samples, a) < loss(&model, &samples, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// The label of a record: `lambda * result + (1 - lambda) * sigmoid(score / k)`.
pub fn label(r: &Record, lambda: f32, k: f32) -> f32 {
    lambda * r.result_white() + (1.0 - lambda) * sigmoid(r.score as f32 / k)
}

/// Settings of [`fit`].
#[derive(Clone, Debug)]
pub struct FitConfig {
    /// Passes over the training samples.
    pub epochs: usize,
    /// Samples per Adam step.
    pub batch: usize,
    /// Adam step size of the pattern entries (centi-men).
    pub lr_patterns: f32,
    /// Adam step size of the global weights (centi-men).
    pub lr_global: f32,
    /// The scale `K`: `p = sigmoid(eval / K)`.
    pub k: f32,
    /// Whether the global feature weights are fitted too (the man's never are).
    pub fit_global: bool,
    /// L2 pull of the pattern entries towards zero, per touch.
    pub l2: f32,
    /// L2 pull of the global weights towards their starting values, per step. The man, the
    /// advancement buckets and the baseline guard add up to the number of men, so without it
    /// value drifts freely between them (docs/training.md).
    pub l2_global: f32,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            epochs: 10,
            batch: 256,
            lr_patterns: 1.0,
            lr_global: 0.2,
            k: 200.0,
            fit_global: true,
            l2: 1e-4,
            l2_global: 0.0,
        }
    }
}

/// Losses after one epoch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochLoss {
    /// The epoch, 1-based (0 = before training).
    pub epoch: usize,
    /// Mean cross-entropy on the training samples.
    pub train: f64,
    /// Mean cross-entropy on the validation samples.
    pub valid: f64,
}

/// Fits weights starting from `start` (its pattern tables, or zeros) on `train`, reporting the
/// losses on `train` and `valid` before training and after every epoch through `report`.
pub fn fit(
    start: &Weights,
    train: &[Sample],
    valid: &[Sample],
    cfg: &FitConfig,
    mut report: impl FnMut(EpochLoss),
) -> Weights {
    let mut model = Model::from_weights(start);
    let g0 = model.g.clone();
    let n_g = model.g.len();
    let mut mg = vec![0f32; n_g];
    let mut vg = vec![0f32; n_g];
    let mut mp = vec![0f32; ENTRIES];
    let mut vp = vec![0f32; ENTRIES];
    let mut grad_p = vec![0f32; ENTRIES];
    let mut touched: Vec<u32> = Vec::new();
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let fixed = [feature::MAN, feature::COUNT + feature::MAN];
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut rng = Rng::new(12345);
    let mut t = 0i32;
    report(EpochLoss {
        epoch: 0,
        train: loss(&model, train, cfg.k),
        valid: loss(&model, valid, cfg.k),
    });
    for epoch in 1..=cfg.epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        for batch in order.chunks(cfg.batch.max(1)) {
            t += 1;
            let mut grad_g = vec![0f32; n_g];
            let scale = 1.0 / batch.len() as f32;
            for &i in batch {
                let s = &train[i];
                let p = sigmoid(model.eval(s) / cfg.k);
                // d(cross-entropy)/d(eval) = (p - y) / K
                let d = (p - s.label) / cfg.k * scale;
                for (g, x) in grad_g.iter_mut().zip(&s.x) {
                    *g += d * x;
                }
                for e in s.entries {
                    let idx = (e & !NEG) as usize;
                    if grad_p[idx] == 0.0 {
                        touched.push(idx as u32);
                    }
                    grad_p[idx] += if e & NEG != 0 { -d } else { d };
                    if grad_p[idx] == 0.0 {
                        // Keep it marked as touched: a tiny value is as good as zero.
                        grad_p[idx] = f32::MIN_POSITIVE;
                    }
                }
            }
            let c1 = 1.0 - b1.powi(t);
            let c2 = 1.0 - b2.powi(t);
            for &e in &touched {
                let e = e as usize;
                let g = grad_p[e] + cfg.l2 * model.p[e] * scale;
                grad_p[e] = 0.0;
                mp[e] = b1 * mp[e] + (1.0 - b1) * g;
                vp[e] = b2 * vp[e] + (1.0 - b2) * g * g;
                model.p[e] -= cfg.lr_patterns * (mp[e] / c1) / ((vp[e] / c2).sqrt() + eps);
            }
            touched.clear();
            if cfg.fit_global {
                for i in 0..n_g {
                    if fixed.contains(&i) {
                        continue;
                    }
                    let g = grad_g[i] + cfg.l2_global * (model.g[i] - g0[i]);
                    mg[i] = b1 * mg[i] + (1.0 - b1) * g;
                    vg[i] = b2 * vg[i] + (1.0 - b2) * g * g;
                    model.g[i] -= cfg.lr_global * (mg[i] / c1) / ((vg[i] / c2).sqrt() + eps);
                }
            }
        }
        report(EpochLoss {
            epoch,
            train: loss(&model, train, cfg.k),
            valid: loss(&model, valid, cfg.k),
        });
    }
    model.to_weights()
}

#[cfg(test)]
mod tests {
    use super::*;
    use damasi_engine::patterns::TABLE_SIZE;

    #[test]
    fn records_round_trip_and_bad_files_are_errors() {
        let a = Position::from_fen("W:Wa3,Kd4,e5:Ba6,h7").unwrap();
        let b = Position::from_fen("B:Wa2,b3,c4,d4:Bb6,c6,Kh1").unwrap();
        let recs = vec![
            Record::new(&a, 123, 1.0, 17),
            Record::new(&b, -5000, 0.5, 40),
        ];
        assert_eq!(recs[1].score, -3000);
        assert_eq!(recs[1].result, 1);
        let mut bytes = Vec::new();
        write_header(&mut bytes).unwrap();
        for r in &recs {
            bytes.extend_from_slice(&r.to_bytes());
        }
        assert_eq!(bytes.len(), DATA_HEADER + 2 * RECORD_SIZE);
        let back = read_records(&mut bytes.as_slice()).unwrap();
        assert_eq!(back, recs);
        assert_eq!(back[0].position().unwrap(), a);
        assert_eq!(back[1].position().unwrap(), b);
        assert_eq!(back[0].result_white(), 1.0);
        // Truncated in the middle of a record.
        let e = read_records(&mut &bytes[..bytes.len() - 5]).unwrap_err();
        assert!(e.contains("truncated"), "{e}");
        // No header.
        assert!(read_records(&mut &bytes[8..]).is_err());
        assert!(read_records(&mut &bytes[..3]).is_err());
        // A record with a man on the back rank is rejected.
        let mut bad = bytes.clone();
        bad[DATA_HEADER] |= 1; // White piece on a1 ...
        bad[DATA_HEADER + 16] &= !1; // ... as a man
        assert!(read_records(&mut bad.as_slice()).is_err());
    }

    /// Tables that know every position of at most 7 pieces: won for White.
    struct WhiteWinsSmall;
    impl EndgameOracle for WhiteWinsSmall {
        fn max_pieces(&self) -> u32 {
            7
        }
        fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
            Some(match pos.side_to_move() {
                Color::White => Wdl::Win,
                Color::Black => Wdl::Loss,
            })
        }
    }

    #[test]
    fn games_end_at_the_first_position_the_tables_know_with_their_result() {
        let openings = crate::openings::parse_openings("W:Wa3,b3,c3,h3:Ba6,b6,g6,h6").unwrap();
        let cfg = DataConfig {
            games: 2,
            depth: 3,
            nodes: None,
            threads: 1,
            random_plies: 0,
            seed: 1,
            max_plies: 200,
        };
        let generate_with = |oracle: Option<Arc<dyn EndgameOracle>>| {
            let mut out = Vec::new();
            generate(
                &cfg,
                &Weights::default(),
                &openings,
                oracle,
                &mut out,
                |_, _| {},
            )
            .unwrap();
            read_records(&mut out.as_slice()).unwrap()
        };
        let recs = generate_with(Some(Arc::new(WhiteWinsSmall)));
        assert!(!recs.is_empty());
        for r in &recs {
            let pos = r.position().unwrap();
            // Nothing after the first capture (down to 7 pieces) was played or recorded.
            assert_eq!(pos.count(Color::White) + pos.count(Color::Black), 8);
            assert_eq!(r.result_white(), 1.0, "the tables' result, not the board's");
        }
        // Without tables the same games go on past the first capture.
        let plain = generate_with(None);
        assert!(plain.iter().any(|r| {
            let pos = r.position().unwrap();
            pos.count(Color::White) + pos.count(Color::Black) < 8
        }));
    }

    /// Quiet positions with 4 men a side on random squares of ranks 2 to 7: the windows are
    /// sparse, so the same entries recur and can be learned from a few thousand samples.
    fn random_positions(n: usize, seed: u64) -> Vec<Position> {
        let mut rng = Rng::new(seed);
        let mut out = Vec::new();
        while out.len() < n {
            let (mut white, mut black) = (0u64, 0u64);
            while white.count_ones() < 4 {
                white |= 1 << (8 + rng.below(48));
            }
            while black.count_ones() < 4 {
                let b = 1 << (8 + rng.below(48));
                if b & white == 0 {
                    black |= b;
                }
            }
            let side = if rng.below(2) == 0 {
                Color::White
            } else {
                Color::Black
            };
            if let Some(pos) = patterns::position_from_bits(white, black, 0, side) {
                if is_quiet(&pos) {
                    out.push(pos);
                }
            }
        }
        out
    }

    #[test]
    fn the_trainer_scores_positions_as_the_engine_does() {
        // Random tables and the built-in global weights: the model the trainer fits must be
        // the engine's evaluation (White's view), or what it learns would not carry over.
        let mut x = 12345u64;
        let values = (0..ENTRIES)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) % 301) as i16 - 150
            })
            .collect();
        let w = Weights {
            patterns: PatternTables::from_values(values).map(Arc::new),
            ..Weights::default()
        };
        let model = Model::from_weights(&w);
        let mut kings = 0;
        for (i, pos) in random_positions(300, 9).into_iter().enumerate() {
            // Some of them with kings, of either side.
            let pos = if i % 3 == 0 {
                let k = pos.pieces_of(Color::White).trailing_zeros();
                let b = pos.pieces_of(Color::Black).trailing_zeros();
                let kings_bits = 1u64 << k | 1u64 << b;
                kings += 1;
                patterns::position_from_bits(
                    pos.pieces_of(Color::White),
                    pos.pieces_of(Color::Black),
                    kings_bits,
                    pos.side_to_move(),
                )
                .unwrap()
            } else {
                pos
            };
            let engine = damasi_engine::eval::evaluate(&pos, &w);
            let white = if pos.side_to_move() == Color::White {
                engine
            } else {
                -engine
            };
            let trainer = model.eval(&Sample::new(&pos, 0.5));
            // The engine rounds the tapered sums to whole centi-men twice.
            assert!(
                (trainer - white as f32).abs() <= 2.0,
                "{pos:?}: trainer {trainer}, engine {white}"
            );
        }
        assert!(kings > 50);
    }

    #[test]
    fn the_trainer_learns_a_known_pattern_weight() {
        // The truth: no feature weights, +150 for every entry of the band-0 edge
        // table (relative ranks 2-4, files a-d or h-e) whose corner square (a2 or h2 seen by
        // White, a7 or h7 by Black) holds an own man, i.e. base-3 digit 0 is 1. Labels are the
        // exact probabilities, so the loss of the truth is the floor.
        let k = 100.0;
        let zero = Weights {
            mg: [0; feature::COUNT],
            eg: [0; feature::COUNT],
            patterns: None,
            network: None,
        };
        let mut values = vec![0i16; ENTRIES];
        for (i, v) in values.iter_mut().enumerate().take(TABLE_SIZE) {
            if i % 3 == 1 {
                *v = 150;
            }
        }
        let truth = Weights {
            patterns: PatternTables::from_values(values).map(Arc::new),
            ..zero.clone()
        };
        let make = |seed| -> Vec<Sample> {
            random_positions(6000, seed)
                .iter()
                .map(|p| {
                    let t = truth.patterns.as_ref().unwrap().score_white(p) as f32;
                    Sample::new(p, sigmoid(t / k))
                })
                .collect()
        };
        let train = make(1);
        let valid = make(2);
        let cfg = FitConfig {
            epochs: 20,
            batch: 64,
            lr_patterns: 2.0,
            k,
            fit_global: false,
            l2: 0.0,
            ..FitConfig::default()
        };
        let mut history = Vec::new();
        let w = fit(&zero, &train, &valid, &cfg, |l| history.push(l));
        let first = history[0];
        let last = *history.last().unwrap();
        assert!(last.train < first.train, "{history:?}");
        assert!(last.valid < first.valid, "{history:?}");
        // The entropy floor: the loss of the truth itself. Training closes most of the gap on
        // the training samples; entries never seen in training stay 0, so validation gains less.
        let floor = loss_of(&truth, &train, k);
        assert!(
            last.train - floor < 0.5 * (first.train - floor),
            "{history:?} floor {floor}"
        );
        // Over the entries the samples touch, those with an own man in the corner have learnt
        // clearly more than the others (the truth: +150 against 0).
        let p = w.patterns.unwrap();
        let (mut on, mut n_on) = (0f64, 0);
        let (mut off, mut n_off) = (0f64, 0);
        for s in &train {
            for e in s.entries {
                let idx = (e & !NEG) as usize;
                if idx < TABLE_SIZE {
                    if idx % 3 == 1 {
                        on += p.values()[idx] as f64;
                        n_on += 1;
                    } else {
                        off += p.values()[idx] as f64;
                        n_off += 1;
                    }
                }
            }
        }
        assert!(on / n_on as f64 > off / n_off.max(1) as f64 + 10.0);
    }

    #[test]
    fn the_pull_towards_the_starting_weights_holds_the_globals() {
        // Labels that say every position is even: without a pull the fit moves the global
        // weights (the built-in ones score these positions away from even); a strong pull
        // keeps them within a few centi-men of where they started.
        let k = 100.0;
        let start = Weights::default();
        let samples: Vec<Sample> = random_positions(3000, 5)
            .iter()
            .map(|p| Sample::new(p, 0.5))
            .collect();
        let moved = |l2_global: f32| -> i32 {
            let cfg = FitConfig {
                epochs: 3,
                batch: 64,
                lr_patterns: 0.0,
                k,
                l2_global,
                ..FitConfig::default()
            };
            let w = fit(&start, &samples, &samples, &cfg, |_| {});
            (0..feature::COUNT)
                .map(|i| (w.mg[i] - start.mg[i]).abs() + (w.eg[i] - start.eg[i]).abs())
                .max()
                .unwrap()
        };
        let free = moved(0.0);
        let held = moved(10.0);
        assert!(free >= 5, "free fit moved the weights by at most {free}");
        assert!(held * 4 <= free, "held {held}, free {free}");
    }
}
