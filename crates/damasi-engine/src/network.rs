//! A small NNUE-style network added to the feature evaluation of [`crate::eval`] (issue #10's
//! fallback when the pattern tables stopped improving).
//!
//! # Inputs
//!
//! The position is seen from the side to move: when Black is to move the board is turned
//! over (ranks reflected, colours swapped), so one set of weights serves both sides (the
//! colour flip is exact). Each piece lights one of [`INPUTS`] binary inputs: own man, opponent
//! man, own king, opponent king, times the 64 squares (a man never stands on its first or
//! last rank, so 32 of them stay dark; keeping them makes the index a shift and an or).
//!
//! # Layers
//!
//! `inputs (256, about 2 to 32 lit) -> HIDDEN (256, clipped ReLU to [0, 1]) -> 1`, the output in
//! centi-men from the side to move's view, added to the feature evaluation (the network
//! learns what the hand-written features miss, as the pattern tables did). The first layer is
//! a sum of one weight column per piece, the "efficiently updatable" part of NNUE: the search
//! keeps it in an [`Accumulator`] per ply and brings one up to date by adding and removing
//! the columns of the few pieces in which two positions differ ([`Network::update`]), instead
//! of summing every piece's column at every evaluation.
//!
//! The first layer is summed in fixed point ([`Q`] units to 1, `i32`), so that sums taken in
//! any order, incrementally or afresh, are equal to the bit.
//!
//! The left-right mirror is not built into the weights: the trainer sees every position and
//! its mirror image (`damasi_tools::train_net`).
//!
//! # File
//!
//! Little-endian: magic `DMNN`, version `u32` (1), inputs `u32` (256), hidden `u32` (256), then
//! `f32` values: the first layer's weights (input after input, [`HIDDEN`] each), its biases,
//! the output weights and the output bias; an FNV-1a 64-bit checksum of everything before it
//! as `u64`. See `docs/training.md`.

use std::sync::{Arc, OnceLock};

use damasi::{Color, Position};

use crate::patterns::{fnv1a, WeightsFileError};

/// The network shipped with damasi (`nets/damasi.nn`; how it was made: docs/training.md).
const SHIPPED: &[u8] = include_bytes!("../nets/damasi.nn");

/// The network shipped with damasi, part of the engine's default evaluation
/// ([`crate::eval::Weights::shipped`]).
pub fn shipped() -> Arc<Network> {
    static NET: OnceLock<Arc<Network>> = OnceLock::new();
    NET.get_or_init(|| Arc::new(decode(SHIPPED).expect("the shipped network is valid")))
        .clone()
}

/// Binary inputs: 4 kinds of piece x 64 squares.
pub const INPUTS: usize = 256;
/// Neurons of the hidden layer.
pub const HIDDEN: usize = 256;

/// The file's magic.
pub const MAGIC: &[u8; 4] = b"DMNN";
const VERSION: u32 = 1;
const HEADER: usize = 16;
/// Parameters: first layer, its biases, output weights, output bias.
pub const PARAMETERS: usize = INPUTS * HIDDEN + HIDDEN + HIDDEN + 1;
/// Size of a network file in bytes.
pub const FILE_SIZE: usize = HEADER + PARAMETERS * 4 + 8;

/// Calls `f(input)` for every lit input of `pos`, seen from the side to move.
#[inline]
pub fn inputs(pos: &Position, mut f: impl FnMut(usize)) {
    let us = pos.side_to_move();
    // Seen from Black, square s is square s ^ 56 (ranks reflected, files kept).
    let flip = if us == Color::White { 0 } else { 56 };
    let groups = [
        pos.men_of(us),
        pos.men_of(!us),
        pos.kings_of(us),
        pos.kings_of(!us),
    ];
    for (kind, mut set) in groups.into_iter().enumerate() {
        while set != 0 {
            let sq = set.trailing_zeros() as usize;
            set &= set - 1;
            f(kind << 6 | (sq ^ flip));
        }
    }
}

/// Fixed-point units to 1 of the first layer's sums: a weight is stored as
/// `round(w * Q)` (a step of 1.5e-5), clamped to ±[`W1_LIMIT`] so that no sum of a bias and
/// 32 columns can overflow an `i32`.
pub const Q: f32 = 65536.0;
/// Largest first-layer weight or bias kept exactly (larger ones are clamped when quantised).
pub const W1_LIMIT: f32 = 512.0;

fn quantise(w: f32) -> i32 {
    (w.clamp(-W1_LIMIT, W1_LIMIT) * Q).round() as i32
}

/// The network's weights (see the module documentation). Every value is finite (so networks
/// compare as equal or not, like the other weights).
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// First layer: `w1[input]` is the column added when the input is lit.
    w1: Vec<[f32; HIDDEN]>,
    /// First layer's biases.
    b1: [f32; HIDDEN],
    /// Output weights, centi-men per unit of a hidden neuron.
    w2: [f32; HIDDEN],
    /// Output bias, centi-men.
    b2: f32,
    /// `w1` in fixed point (what the engine sums).
    w1q: Vec<[i32; HIDDEN]>,
    /// `b1` in fixed point.
    b1q: [i32; HIDDEN],
    /// `w2 / Q`: the output weights per fixed-point unit.
    w2q: [f32; HIDDEN],
}

/// The first layer's sums of one position, kept by the search from ply to ply. It remembers
/// the pieces and the side to move it was summed for, so that [`Network::update`] can bring
/// it to any other position with the same side to move by the pieces that differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    /// White's men, Black's men, White's kings, Black's kings.
    sets: [u64; 4],
    /// The side to move, whose view the sums take.
    side: Color,
    /// The hidden neurons' sums in fixed point ([`Q`] = 1), bias included.
    sums: [i32; HIDDEN],
}

impl Accumulator {
    /// The pieces of `pos` as the accumulator keeps them.
    #[inline]
    fn sets_of(pos: &Position) -> [u64; 4] {
        [
            pos.men_of(Color::White),
            pos.men_of(Color::Black),
            pos.kings_of(Color::White),
            pos.kings_of(Color::Black),
        ]
    }

    /// How many columns [`Network::update`] would add or remove to bring this accumulator to
    /// `pos`, or `None` if `pos` has the other side to move (then it cannot).
    #[inline]
    pub fn distance(&self, pos: &Position) -> Option<u32> {
        if self.side != pos.side_to_move() {
            return None;
        }
        let now = Accumulator::sets_of(pos);
        Some((0..4).map(|k| (self.sets[k] ^ now[k]).count_ones()).sum())
    }

    /// Whether the accumulator is that of `pos`.
    #[inline]
    pub fn is_of(&self, pos: &Position) -> bool {
        self.side == pos.side_to_move() && self.sets == Accumulator::sets_of(pos)
    }
}

// Sound: `from_parameters` refuses NaN, the only value not equal to itself.
impl Eq for Network {}

/// Where the first layer's weight from `input` to neuron `j` is in [`Network::parameters`].
pub const fn w1_at(input: usize, j: usize) -> usize {
    input * HIDDEN + j
}
/// Where the first layer's bias of neuron `j` is in [`Network::parameters`].
pub const fn b1_at(j: usize) -> usize {
    INPUTS * HIDDEN + j
}
/// Where the output weight of neuron `j` is in [`Network::parameters`].
pub const fn w2_at(j: usize) -> usize {
    INPUTS * HIDDEN + HIDDEN + j
}
/// Where the output bias is in [`Network::parameters`].
pub const B2_AT: usize = PARAMETERS - 1;

impl Network {
    /// A network whose output is 0 everywhere.
    pub fn zero() -> Network {
        Network::from_parameters(&vec![0.0; PARAMETERS]).expect("zeros are finite")
    }

    /// The first layer's sums for `pos`, from nothing.
    #[inline]
    pub fn refresh(&self, pos: &Position) -> Accumulator {
        let mut sums = self.b1q;
        inputs(pos, |i| {
            for (a, w) in sums.iter_mut().zip(&self.w1q[i]) {
                *a += w;
            }
        });
        Accumulator {
            sets: Accumulator::sets_of(pos),
            side: pos.side_to_move(),
            sums,
        }
    }

    /// Brings `acc` (of a position with the same side to move as `pos`) to `pos` by adding
    /// the columns of the pieces `pos` has and `acc` had not, and removing those it had and
    /// `pos` has not. Equal to [`Network::refresh`] to the bit (integer sums).
    #[inline]
    pub fn update(&self, acc: &mut Accumulator, pos: &Position) {
        debug_assert_eq!(acc.side, pos.side_to_move());
        let now = Accumulator::sets_of(pos);
        let us = pos.side_to_move();
        let flip = if us == Color::White { 0 } else { 56 };
        // The input kind of each set from the side to move's view: own man 0, opponent man
        // 1, own king 2, opponent king 3.
        let kinds = if us == Color::White {
            [0, 1, 2, 3]
        } else {
            [1, 0, 3, 2]
        };
        for k in 0..4 {
            let (before, after) = (acc.sets[k], now[k]);
            let mut gone = before & !after;
            while gone != 0 {
                let sq = gone.trailing_zeros() as usize;
                gone &= gone - 1;
                let col = &self.w1q[kinds[k] << 6 | (sq ^ flip)];
                for (a, w) in acc.sums.iter_mut().zip(col) {
                    *a -= w;
                }
            }
            let mut new = after & !before;
            while new != 0 {
                let sq = new.trailing_zeros() as usize;
                new &= new - 1;
                let col = &self.w1q[kinds[k] << 6 | (sq ^ flip)];
                for (a, w) in acc.sums.iter_mut().zip(col) {
                    *a += w;
                }
            }
        }
        acc.sets = now;
    }

    /// The hidden layer's sums for `pos` (before the activation), as real numbers.
    pub fn accumulate(&self, pos: &Position) -> [f32; HIDDEN] {
        self.refresh(pos).sums.map(|s| s as f32 / Q)
    }

    /// The output for the first layer's sums `acc`, centi-men.
    #[inline]
    pub fn output(&self, acc: &Accumulator) -> f32 {
        // Eight lanes, converted before the clamp: written so that it vectorises.
        let mut sum = [0f32; 8];
        for (a, w) in acc.sums.chunks_exact(8).zip(self.w2q.chunks_exact(8)) {
            for k in 0..8 {
                let x = a[k] as f32;
                let x = if x < 0.0 { 0.0 } else { x };
                let x = if x > Q { Q } else { x };
                sum[k] += x * w[k];
            }
        }
        self.b2 + sum.iter().sum::<f32>()
    }

    /// The network's value for the accumulator of a position, centi-men from the side to
    /// move's view.
    #[inline]
    pub fn score_of(&self, acc: &Accumulator) -> i32 {
        self.output(acc).round() as i32
    }

    /// The network's value of `pos`, centi-men from the side to move's view.
    #[inline]
    pub fn score(&self, pos: &Position) -> i32 {
        self.score_of(&self.refresh(pos))
    }

    /// The parameters in file order (first layer, biases, output weights, output bias).
    pub fn parameters(&self) -> Vec<f32> {
        let mut v = Vec::with_capacity(PARAMETERS);
        for col in &self.w1 {
            v.extend_from_slice(col);
        }
        v.extend_from_slice(&self.b1);
        v.extend_from_slice(&self.w2);
        v.push(self.b2);
        v
    }

    /// The network of `values` in file order, or `None` if there are not [`PARAMETERS`] of
    /// them or one is not finite.
    pub fn from_parameters(values: &[f32]) -> Option<Network> {
        if values.len() != PARAMETERS || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let (w1, rest) = values.split_at(INPUTS * HIDDEN);
        let (b1, rest) = rest.split_at(HIDDEN);
        let (w2, b2) = rest.split_at(HIDDEN);
        let w1: Vec<[f32; HIDDEN]> = w1
            .chunks_exact(HIDDEN)
            .map(|c| c.try_into().expect("HIDDEN values"))
            .collect();
        let b1: [f32; HIDDEN] = b1.try_into().expect("HIDDEN values");
        let w2: [f32; HIDDEN] = w2.try_into().expect("HIDDEN values");
        Some(Network {
            w1q: w1.iter().map(|c| c.map(quantise)).collect(),
            b1q: b1.map(quantise),
            w2q: w2.map(|w| w / Q),
            w1,
            b1,
            w2,
            b2: b2[0],
        })
    }
}

/// Encodes `net` as a network file.
pub fn encode(net: &Network) -> Vec<u8> {
    let mut out = Vec::with_capacity(FILE_SIZE);
    out.extend_from_slice(MAGIC);
    for v in [VERSION, INPUTS as u32, HIDDEN as u32] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in net.parameters() {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Decodes a network file, refusing a wrong magic, header, length or checksum and any value
/// that is not a finite number.
pub fn decode(bytes: &[u8]) -> Result<Network, WeightsFileError> {
    if bytes.len() < HEADER {
        return Err(WeightsFileError::Truncated {
            expected: HEADER,
            found: bytes.len(),
        });
    }
    if &bytes[..4] != MAGIC {
        return Err(WeightsFileError::BadMagic);
    }
    let word = |k: usize| u32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().expect("4"));
    let (version, inputs, hidden) = (word(1), word(2), word(3));
    if version != VERSION || inputs as usize != INPUTS || hidden as usize != HIDDEN {
        return Err(WeightsFileError::BadHeader(format!(
            "network version {version}, {inputs} inputs, {hidden} hidden: this engine reads \
             version {VERSION}, {INPUTS} inputs, {HIDDEN} hidden"
        )));
    }
    if bytes.len() < FILE_SIZE {
        return Err(WeightsFileError::Truncated {
            expected: FILE_SIZE,
            found: bytes.len(),
        });
    }
    if bytes.len() > FILE_SIZE {
        return Err(WeightsFileError::TrailingBytes(bytes.len() - FILE_SIZE));
    }
    let body = &bytes[..FILE_SIZE - 8];
    let sum = u64::from_le_bytes(bytes[FILE_SIZE - 8..].try_into().expect("8 bytes"));
    if fnv1a(body) != sum {
        return Err(WeightsFileError::BadChecksum);
    }
    let values: Vec<f32> = body[HEADER..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    Network::from_parameters(&values)
        .ok_or_else(|| WeightsFileError::BadHeader("a value is not a finite number".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(pos: &Position) -> Vec<usize> {
        let mut v = Vec::new();
        inputs(pos, |i| v.push(i));
        v.sort_unstable();
        v
    }

    /// A network with distinct, deterministic weights.
    fn sample() -> Network {
        let values: Vec<f32> = (0..PARAMETERS)
            .map(|k| ((k * 7919 % 1013) as f32 - 506.0) / 400.0)
            .collect();
        Network::from_parameters(&values).unwrap()
    }

    #[test]
    fn inputs_are_seen_from_the_side_to_move() {
        // White to move: own man a3 = square 16, opponent king h8 = 63.
        let w = Position::from_fen("W:Wa3:BKh8").unwrap();
        assert_eq!(lit(&w), vec![16, 3 * 64 + 63]);
        // Black to move: own king h8 seen from Black is h1 (7), opponent man a3 is a6 (40).
        let b = Position::from_fen("B:Wa3:BKh8").unwrap();
        assert_eq!(lit(&b), vec![64 + 40, 2 * 64 + 7]);
    }

    #[test]
    fn the_colour_flip_gives_the_same_inputs_and_value() {
        let net = sample();
        let a = Position::from_fen("W:Wa3,Kd4,e5:Ba6,h7").unwrap();
        let b = Position::from_fen("B:Ba6,Kd5,e4:Wa3,h2").unwrap();
        assert_eq!(lit(&a), lit(&b));
        assert_eq!(net.score(&a), net.score(&b));
    }

    #[test]
    fn the_value_is_the_hand_computed_sum() {
        // acc = b1 + the lit inputs' columns; output = b2 + sum of w2 * clamp(acc, 0, 1).
        let pos = Position::from_fen("W:Wa3:BKh8").unwrap();
        let mut v = vec![0f32; PARAMETERS];
        v[b1_at(0)] = 0.25;
        v[w1_at(16, 0)] = 0.5; // own man a3: acc 0.75
        v[w1_at(3 * 64 + 63, 1)] = 2.0; // opponent king h8: acc 2.0, clipped to 1
        v[w1_at(16, 2)] = -1.0; // acc -1.0, clipped to 0
        v[w1_at(5, 3)] = 1.0; // an input that is not lit
        v[w2_at(0)] = 100.0;
        v[w2_at(1)] = 30.0;
        v[w2_at(2)] = 1000.0;
        v[w2_at(3)] = 1000.0;
        v[B2_AT] = -5.0;
        let net = Network::from_parameters(&v).unwrap();
        assert_eq!(net.score(&pos), 75 + 30 - 5);
        assert_eq!(net.parameters(), v);
        assert_eq!(Network::zero().score(&pos), 0);
    }

    /// Plays random games and checks at every position that an accumulator brought along
    /// from the one two plies back (same side to move), and one brought from a position of
    /// another game, equal the sums taken afresh, bit for bit.
    #[test]
    fn updated_accumulators_equal_fresh_sums() {
        use damasi::Game;
        let net = sample();
        let shipped = shipped();
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut rand = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut other: Vec<Position> = Vec::new();
        let mut checked = 0;
        for _ in 0..40 {
            let mut game = Game::new();
            let mut history: Vec<Position> = vec![*game.position()];
            while game.outcome().is_none() && game.ply() < 200 {
                let legal = game.legal_moves();
                let m = legal[rand(legal.len())];
                game.play(&m).unwrap();
                let pos = *game.position();
                for net in [&net, &*shipped] {
                    let fresh = net.refresh(&pos);
                    if history.len() >= 2 {
                        let mut acc = net.refresh(&history[history.len() - 2]);
                        net.update(&mut acc, &pos);
                        assert_eq!(acc, fresh);
                        assert!(acc.is_of(&pos));
                    }
                    if let Some(o) = other
                        .iter()
                        .find(|o| o.side_to_move() == pos.side_to_move())
                    {
                        let mut acc = net.refresh(o);
                        net.update(&mut acc, &pos);
                        assert_eq!(acc, fresh);
                    }
                    assert_eq!(net.score_of(&fresh), net.score(&pos));
                }
                history.push(pos);
                checked += 1;
            }
            other = history;
        }
        assert!(checked > 1000);
    }

    #[test]
    fn the_shipped_network_reads_and_keeps_the_colour_flip() {
        let net = shipped();
        let a = Position::from_fen("W:Wa3,Kd4,e5:Ba6,h7").unwrap();
        let b = Position::from_fen("B:Ba6,Kd5,e4:Wa3,h2").unwrap();
        assert_eq!(net.score(&a), net.score(&b));
        assert_ne!(*net, Network::zero());
    }

    #[test]
    fn files_round_trip_and_bad_files_are_refused() {
        let net = sample();
        let bytes = encode(&net);
        assert_eq!(bytes.len(), FILE_SIZE);
        assert_eq!(decode(&bytes).unwrap(), net);
        assert!(matches!(
            decode(&bytes[..100]),
            Err(WeightsFileError::Truncated { .. })
        ));
        let mut extra = bytes.clone();
        extra.push(0);
        assert_eq!(decode(&extra), Err(WeightsFileError::TrailingBytes(1)));
        let mut flipped = bytes.clone();
        flipped[1000] ^= 1;
        assert_eq!(decode(&flipped), Err(WeightsFileError::BadChecksum));
        let mut magic = bytes.clone();
        magic[0] = b'X';
        assert_eq!(decode(&magic), Err(WeightsFileError::BadMagic));
        let mut hidden = bytes.clone();
        hidden[12] = 32;
        assert!(matches!(
            decode(&hidden),
            Err(WeightsFileError::BadHeader(_))
        ));
        // A NaN with a matching checksum is still refused.
        let mut nan = bytes[..FILE_SIZE - 8].to_vec();
        nan[HEADER..HEADER + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        let sum = fnv1a(&nan);
        nan.extend_from_slice(&sum.to_le_bytes());
        assert!(matches!(decode(&nan), Err(WeightsFileError::BadHeader(_))));
    }
}
