//! The trainer of the NNUE-style network ([`damasi_engine::network`]): the same data and the
//! same loss as the pattern tables ([`crate::train`]), with a dense mini-batch Adam.
//!
//! The network is added to the built-in feature evaluation, whose weights stay as they are,
//! so the model is `p = sigmoid((features + network) / K)` from the side to move's view,
//! against the record's label seen from the same side. Each position is also trained as its
//! mirror image (files reflected), which the network's inputs do not share by construction.

use damasi::{Color, Position};
use damasi_engine::eval::{evaluate, Weights};
use damasi_engine::network::{
    self, b1_at, w1_at, w2_at, Network, B2_AT, HIDDEN, INPUTS, PARAMETERS,
};
use damasi_engine::patterns::position_from_bits;

use crate::train::{mean_cross_entropy, sigmoid, EpochLoss, Rng};

/// Most pieces on a board.
const MAX_PIECES: usize = 32;

/// One position ready for the network's trainer.
#[derive(Clone, Debug)]
pub struct NetSample {
    inputs: [u16; MAX_PIECES],
    lit: u8,
    /// The feature evaluation, centi-men from the side to move's view.
    base: f32,
    /// Target probability that the side to move wins.
    label: f32,
}

impl NetSample {
    /// The sample of `pos` with `label_white`, the target probability of a White win.
    pub fn new(pos: &Position, label_white: f32) -> NetSample {
        let mut inputs = [0u16; MAX_PIECES];
        let mut lit = 0;
        network::inputs(pos, |i| {
            inputs[lit] = i as u16;
            lit += 1;
        });
        let white = pos.side_to_move() == Color::White;
        NetSample {
            inputs,
            lit: lit as u8,
            base: evaluate(pos, &Weights::default()) as f32,
            label: if white {
                label_white
            } else {
                1.0 - label_white
            },
        }
    }

    fn lit(&self) -> &[u16] {
        &self.inputs[..self.lit as usize]
    }
}

/// `pos` with its files reflected (a to h), the same side to move.
pub fn mirror(pos: &Position) -> Position {
    // reverse_bits reflects ranks and files; swap_bytes puts the ranks back.
    let m = |b: u64| b.reverse_bits().swap_bytes();
    position_from_bits(
        m(pos.pieces_of(Color::White)),
        m(pos.pieces_of(Color::Black)),
        m(pos.kings()),
        pos.side_to_move(),
    )
    .expect("a mirror image of a position is a position")
}

/// Settings of [`fit`].
#[derive(Clone, Debug)]
pub struct NetConfig {
    /// Passes over the training samples.
    pub epochs: usize,
    /// Samples per Adam step.
    pub batch: usize,
    /// Adam step size of the first layer (its sums are clipped to [0, 1]).
    pub lr_hidden: f32,
    /// Adam step size of the output layer (centi-men).
    pub lr_output: f32,
    /// Weight decay per step, relative (AdamW style), of every weight but the biases.
    pub decay: f32,
    /// Factor of both step sizes after each epoch (1: constant; below 1 the steps shrink
    /// as the fit settles, so the last epochs average out the noise of the mini-batches).
    pub lr_gamma: f32,
    /// The scale `K`: `p = sigmoid(eval / K)`.
    pub k: f32,
    /// Seed of the starting weights and the order of the samples.
    pub seed: u64,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            epochs: 10,
            batch: 256,
            lr_hidden: 1e-3,
            lr_output: 0.5,
            decay: 0.0,
            lr_gamma: 1.0,
            k: 200.0,
            seed: 1,
        }
    }
}

/// The network being trained, as a flat parameter vector in file order.
struct Model(Vec<f32>);

impl Model {
    /// The hidden sums of a sample.
    fn accumulate(&self, s: &NetSample) -> [f32; HIDDEN] {
        let mut acc: [f32; HIDDEN] = self.0[b1_at(0)..b1_at(0) + HIDDEN]
            .try_into()
            .expect("HIDDEN biases");
        for &i in s.lit() {
            let col = &self.0[w1_at(i as usize, 0)..w1_at(i as usize, 0) + HIDDEN];
            for (a, w) in acc.iter_mut().zip(col) {
                *a += w;
            }
        }
        acc
    }

    /// The evaluation (features + network), centi-men, and the hidden sums.
    fn eval(&self, s: &NetSample) -> (f32, [f32; HIDDEN]) {
        let acc = self.accumulate(s);
        let w2 = &self.0[w2_at(0)..w2_at(0) + HIDDEN];
        let out: f32 = acc.iter().zip(w2).map(|(a, w)| a.clamp(0.0, 1.0) * w).sum();
        (s.base + self.0[B2_AT] + out, acc)
    }
}

/// Mean binary cross-entropy of `sigmoid(eval / k)` against the labels.
fn loss(model: &Model, samples: &[NetSample], k: f32) -> f64 {
    mean_cross_entropy(samples.iter().map(|s| (model.eval(s).0, s.label)), k)
}

/// Mean cross-entropy of the feature evaluation plus `net` against the labels of `samples`.
pub fn loss_of(net: &Network, samples: &[NetSample], k: f32) -> f64 {
    loss(&Model(net.parameters()), samples, k)
}

/// Small random first-layer and output weights drawn from `seed`, the biases in the middle of
/// the clipped range and the output centred on 0 (parameters in file order).
fn random_start(seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    let mut uniform =
        |scale: f32| (rng.below(1 << 20) as f32 / (1 << 20) as f32 * 2.0 - 1.0) * scale;
    let mut params = vec![0f32; PARAMETERS];
    for i in 0..INPUTS {
        for j in 0..HIDDEN {
            params[w1_at(i, j)] = uniform(0.1);
        }
    }
    for j in 0..HIDDEN {
        // Biases in the middle of the clipped range, so every neuron starts in its linear part.
        params[b1_at(j)] = 0.5;
        params[w2_at(j)] = uniform(1.0);
    }
    // The outputs start near 0: centre them on 0 exactly for the mean hidden value 0.5.
    params[B2_AT] = -(0..HIDDEN).map(|j| params[w2_at(j)] * 0.5).sum::<f32>();
    params
}

/// Trains a network on `train` from `start`, or from small random weights (output 0 at the
/// start, so epoch 0 is the feature evaluation's loss), reporting the losses on `train` and
/// `valid` before training and after every epoch through `report`. Returns the network of the
/// epoch with the lowest validation loss.
pub fn fit(
    start: Option<&Network>,
    train: &[NetSample],
    valid: &[NetSample],
    cfg: &NetConfig,
    mut report: impl FnMut(EpochLoss),
) -> Network {
    let mut model = Model(start.map_or_else(|| random_start(cfg.seed), Network::parameters));
    let lr: Vec<f32> = (0..PARAMETERS)
        .map(|p| {
            if p >= w2_at(0) {
                cfg.lr_output
            } else {
                cfg.lr_hidden
            }
        })
        .collect();
    let decays = |p: usize| p < b1_at(0) || (w2_at(0)..B2_AT).contains(&p);
    let (mut m, mut v) = (vec![0f32; PARAMETERS], vec![0f32; PARAMETERS]);
    let mut grad = vec![0f32; PARAMETERS];
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut t = 0i32;
    let mut best = (loss(&model, valid, cfg.k), model.0.clone());
    report(EpochLoss {
        epoch: 0,
        train: loss(&model, train, cfg.k),
        valid: best.0,
    });
    let mut shuffle = Rng::new(cfg.seed ^ 0x5DEE_CE66);
    for epoch in 1..=cfg.epochs {
        let step = cfg.lr_gamma.powi(epoch as i32 - 1);
        for i in (1..order.len()).rev() {
            order.swap(i, shuffle.below(i + 1));
        }
        for batch in order.chunks(cfg.batch.max(1)) {
            t += 1;
            grad.iter_mut().for_each(|g| *g = 0.0);
            let scale = 1.0 / batch.len() as f32;
            for &i in batch {
                let s = &train[i];
                let (eval, acc) = model.eval(s);
                // d(cross-entropy)/d(eval) = (p - y) / K
                let d = (sigmoid(eval / cfg.k) - s.label) / cfg.k * scale;
                grad[B2_AT] += d;
                let mut dacc = [0f32; HIDDEN];
                for j in 0..HIDDEN {
                    let a = acc[j];
                    grad[w2_at(j)] += d * a.clamp(0.0, 1.0);
                    if a > 0.0 && a < 1.0 {
                        dacc[j] = d * model.0[w2_at(j)];
                    }
                }
                for (g, da) in grad[b1_at(0)..b1_at(0) + HIDDEN].iter_mut().zip(&dacc) {
                    *g += da;
                }
                for &input in s.lit() {
                    let at = w1_at(input as usize, 0);
                    for (g, da) in grad[at..at + HIDDEN].iter_mut().zip(&dacc) {
                        *g += da;
                    }
                }
            }
            let c1 = 1.0 - b1.powi(t);
            let c2 = 1.0 - b2.powi(t);
            for p in 0..PARAMETERS {
                let g = grad[p];
                if g == 0.0 && m[p] == 0.0 {
                    continue; // an input no sample of the run has lit yet
                }
                m[p] = b1 * m[p] + (1.0 - b1) * g;
                v[p] = b2 * v[p] + (1.0 - b2) * g * g;
                let rate = lr[p] * step;
                let mut w = model.0[p] - rate * (m[p] / c1) / ((v[p] / c2).sqrt() + eps);
                if decays(p) {
                    w -= rate * cfg.decay * model.0[p];
                }
                model.0[p] = w;
            }
        }
        let valid_loss = loss(&model, valid, cfg.k);
        report(EpochLoss {
            epoch,
            train: loss(&model, train, cfg.k),
            valid: valid_loss,
        });
        if valid_loss < best.0 {
            best = (valid_loss, model.0.clone());
        }
    }
    Network::from_parameters(&best.1).expect("training keeps the weights finite")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_reflects_files_and_keeps_the_side_to_move() {
        let pos = Position::from_fen("B:Wa3,Kd4,e5:Bb6,Kh1").unwrap();
        let want = Position::from_fen("B:Wh3,Ke4,d5:Bg6,Ka1").unwrap();
        assert_eq!(mirror(&pos), want);
        assert_eq!(mirror(&mirror(&pos)), pos);
    }

    /// Samples of `(FEN, probability of a White win)` pairs.
    fn samples_of(labelled: &[(&str, f32)]) -> Vec<NetSample> {
        labelled
            .iter()
            .map(|(f, y)| NetSample::new(&Position::from_fen(f).unwrap(), *y))
            .collect()
    }

    #[test]
    fn samples_are_seen_from_the_side_to_move() {
        let w = Position::from_fen("W:Wa3,b3,c3:Ba6,b6").unwrap();
        let b = Position::from_fen("B:Ba6,b6,c6:Wa3,b3").unwrap();
        let (sw, sb) = (NetSample::new(&w, 0.8), NetSample::new(&b, 0.2));
        assert_eq!(sw.lit(), sb.lit());
        assert_eq!(sw.base, sb.base);
        assert!(sw.base > 50.0, "a man up");
        assert_eq!((sw.label, sb.label), (0.8, 0.8));
    }

    /// The trainer learns what the features miss: here every position whose side to move has
    /// a king on a1 is won, every other one lost, which none of the hand-written features
    /// tells apart.
    #[test]
    fn training_learns_a_rule_the_features_do_not_know() {
        let fens = [
            ("W:Wc3,Ka1:Bc6,Kh8", 1.0),
            ("W:Wd3,Ka1:Bd6,Kg8", 1.0),
            ("W:We3,Ka1:Be6,Kf8", 1.0),
            ("W:Wf3,Ka1:Bf6,Ke8", 1.0),
            ("W:Wc3,Kb1:Bc6,Kh8", 0.0),
            ("W:Wd3,Kb1:Bd6,Kg8", 0.0),
            ("W:We3,Kb1:Be6,Kf8", 0.0),
            ("W:Wf3,Kb1:Bf6,Ke8", 0.0),
        ];
        let samples = samples_of(&fens);
        let cfg = NetConfig {
            epochs: 300,
            batch: 8,
            lr_hidden: 0.01,
            lr_output: 2.0,
            ..NetConfig::default()
        };
        let mut losses = Vec::new();
        let net = fit(None, &samples, &samples, &cfg, |l| losses.push(l.valid));
        let first = losses[0];
        let last = *losses.last().unwrap();
        assert!(last < first / 4.0, "loss {first} -> {last}");
        // The engine's network scores the won ones well above the lost ones.
        let score = |f: &str| net.score(&Position::from_fen(f).unwrap());
        assert!(score("W:Wc3,Ka1:Bc6,Kh8") > score("W:Wc3,Kb1:Bc6,Kh8") + 200);
        // Its loss is what the trainer reported for the best epoch.
        let best = losses.iter().cloned().fold(f64::INFINITY, f64::min);
        assert!((loss_of(&net, &samples, cfg.k) - best).abs() < 1e-4);
    }

    /// `lr_gamma` shrinks the steps epoch after epoch: at 0 only the first epoch moves the
    /// weights, so every later epoch reports the first one's loss.
    #[test]
    fn a_step_factor_of_zero_stops_training_after_the_first_epoch() {
        let samples = samples_of(&[("W:Wc3,Ka1:Bc6,Kh8", 1.0), ("W:Wc3,Kb1:Bc6,Kh8", 0.0)]);
        let cfg = NetConfig {
            epochs: 4,
            batch: 2,
            lr_hidden: 0.01,
            lr_output: 2.0,
            lr_gamma: 0.0,
            ..NetConfig::default()
        };
        let mut losses = Vec::new();
        fit(None, &samples, &samples, &cfg, |l| losses.push(l.valid));
        assert_ne!(losses[1], losses[0], "the first epoch trains");
        assert!(losses[2..].iter().all(|&l| l == losses[1]), "{losses:?}");
    }

    /// Trained further from a given network, the fit starts where that network is (epoch 0
    /// reports its loss) and goes on learning from there.
    #[test]
    fn a_fit_from_a_network_starts_at_that_network() {
        let samples = samples_of(&[("W:Wc3,Ka1:Bc6,Kh8", 1.0), ("W:Wc3,Kb1:Bc6,Kh8", 0.0)]);
        let cfg = NetConfig {
            epochs: 40,
            batch: 2,
            lr_hidden: 0.01,
            lr_output: 2.0,
            ..NetConfig::default()
        };
        let mut first = Vec::new();
        let net = fit(None, &samples, &samples, &cfg, |l| first.push(l.valid));
        let mut again = Vec::new();
        let further = fit(Some(&net), &samples, &samples, &cfg, |l| {
            again.push(l.valid)
        });
        let best = first.iter().cloned().fold(f64::INFINITY, f64::min);
        assert!(
            (again[0] - best).abs() < 1e-6,
            "{} against {best}",
            again[0]
        );
        assert!(again[0] < first[0] / 2.0, "{again:?} {first:?}");
        assert!(loss_of(&further, &samples, cfg.k) < again[0], "{again:?}");
    }
}
