//! Match statistics: Elo from a score, error bars, likelihood of superiority and the
//! sequential probability ratio test (SPRT) that stops a match as soon as its result is clear.
//!
//! Elo is the logistic model: a player `e` Elo stronger scores `1 / (1 + 10^(-e/400))`.
//! The SPRT is the generalised SPRT of chess engine testing (fishtest, cutechess): its
//! log-likelihood ratio between "the true Elo is `elo0`" (H0) and "it is `elo1`" (H1) is the
//! normal approximation `N (s1 - s0) (2 m - s0 - s1) / (2 v)`, with `m` and `v` the mean and
//! variance of the observed scores and `s0`, `s1` the scores the two hypotheses predict. The
//! test accepts H1 once the ratio passes `ln((1 - beta) / alpha)` and H0 once it falls below
//! `ln(beta / (1 - alpha))`.
//!
//! Samples are either single games (trinomial: win, draw, loss) or, better for paired
//! openings, game pairs (pentanomial: 0, 1/2, 1, 3/2 or 2 points out of 2), which removes the
//! noise the openings add.
//!
//! ```
//! use damasi_engine::sprt::{Sprt, Verdict, Wdl};
//!
//! let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
//! let results = Wdl { wins: 60, draws: 20, losses: 20 };
//! let llr = sprt.llr(&results.samples());
//! assert!((llr - 0.8832).abs() < 1e-3);
//! assert_eq!(sprt.verdict(llr), Verdict::Continue);
//! ```

/// 97.5% quantile of the standard normal distribution: 95% two-sided error bars.
const Z_95: f64 = 1.959_963_984_540_054;

/// Count given to an empty outcome class when every sample is the same (fishtest's
/// regularisation); without it the variance is zero and the ratio undefined.
const EMPTY_CLASS: f64 = 1e-3;

/// The expected score of a player `elo` points stronger.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference that predicts `score` (0..1); infinite at 0 and 1.
pub fn score_to_elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Observed scores: each distinct score (0..1) with how often it occurred.
pub type Samples = Vec<(f64, f64)>;

/// Mean and variance of samples, with empty classes filled in when all samples agree.
fn moments(samples: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let n: f64 = samples.iter().map(|s| s.1).sum();
    if n <= 0.0 {
        return None;
    }
    let mean = samples.iter().map(|(x, c)| x * c).sum::<f64>() / n;
    let var = samples
        .iter()
        .map(|(x, c)| c * (x - mean) * (x - mean))
        .sum::<f64>()
        / n;
    if var > 1e-12 {
        return Some((n, mean, var));
    }
    let filled: Samples = samples
        .iter()
        .map(|&(x, c)| (x, if c > 0.0 { c } else { EMPTY_CLASS }))
        .collect();
    let n2: f64 = filled.iter().map(|s| s.1).sum();
    let mean2 = filled.iter().map(|(x, c)| x * c).sum::<f64>() / n2;
    let var2 = filled
        .iter()
        .map(|(x, c)| c * (x - mean2) * (x - mean2))
        .sum::<f64>()
        / n2;
    (var2 > 1e-12).then_some((n, mean2, var2))
}

/// Game results from one engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Wdl {
    /// Number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points scored (a draw is half a point).
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// The results as trinomial samples (scores 1, 1/2, 0).
    pub fn samples(&self) -> Samples {
        vec![
            (1.0, self.wins as f64),
            (0.5, self.draws as f64),
            (0.0, self.losses as f64),
        ]
    }
}

/// Results of game pairs (one opening played with both colours), counted by the points the
/// engine scored in the pair: `counts[i]` pairs scored `i / 2` points out of 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// Pairs by points scored: 0, 1/2, 1, 3/2, 2.
    pub counts: [u64; 5],
}

impl Pentanomial {
    /// Adds a pair in which the engine scored `half_points` half-points (0..=4).
    pub fn add(&mut self, half_points: usize) {
        if let Some(c) = self.counts.get_mut(half_points) {
            *c += 1;
        }
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The pairs as samples of the mean score per game (0, 1/4, 1/2, 3/4, 1).
    pub fn samples(&self) -> Samples {
        self.counts
            .iter()
            .enumerate()
            .map(|(i, &c)| (i as f64 / 4.0, c as f64))
            .collect()
    }
}

/// An Elo difference with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The most likely Elo difference.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl EloEstimate {
    /// From samples; `None` without any.
    pub fn from_samples(samples: &[(f64, f64)]) -> Option<EloEstimate> {
        let n: f64 = samples.iter().map(|s| s.1).sum();
        if n <= 0.0 {
            return None;
        }
        let mean = samples.iter().map(|(x, c)| x * c).sum::<f64>() / n;
        let var = moments(samples).map_or(0.0, |m| m.2);
        let margin = Z_95 * (var / n).sqrt();
        Some(EloEstimate {
            elo: score_to_elo(mean),
            low: score_to_elo(mean - margin),
            high: score_to_elo(mean + margin),
        })
    }

    /// Half the width of the interval, the `±` figure (infinite for a one-sided result).
    pub fn error(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

/// Likelihood of superiority: the probability that the engine is the stronger one, from
/// wins and losses (draws carry no information), by the normal approximation.
pub fn likelihood_of_superiority(wdl: &Wdl) -> Option<f64> {
    let decisive = (wdl.wins + wdl.losses) as f64;
    if decisive == 0.0 {
        return None;
    }
    let z = (wdl.wins as f64 - wdl.losses as f64) / (2.0 * decisive).sqrt();
    Some(0.5 * (1.0 + erf(z)))
}

/// The error function, Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x >= 0.0 {
        y
    } else {
        -y
    }
}

/// What the test says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Not clear yet: keep playing.
    Continue,
    /// H0 accepted: the Elo difference is `elo0` or less, rather than `elo1` (the change
    /// fails).
    H0,
    /// H1 accepted: the Elo difference is `elo1` or more, rather than `elo0` (the change
    /// passes).
    H1,
}

/// A sequential probability ratio test between two Elo hypotheses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo difference under H0.
    pub elo0: f64,
    /// Elo difference under H1 (above `elo0`).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 is true.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 is true.
    pub beta: f64,
}

impl Sprt {
    /// A test of `elo0` against `elo1` with error rates `alpha` and `beta`.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Sprt {
        Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        }
    }

    /// The lower (accept H0) and upper (accept H1) bounds of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 given the samples (0 without data).
    pub fn llr(&self, samples: &[(f64, f64)]) -> f64 {
        let Some((n, mean, var)) = moments(samples) else {
            return 0.0;
        };
        let s0 = elo_to_score(self.elo0);
        let s1 = elo_to_score(self.elo1);
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The decision for a log-likelihood ratio.
    pub fn verdict(&self, llr: f64) -> Verdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::H1
        } else if llr <= lower {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    #[test]
    fn elo_and_score_are_inverse() {
        assert_eq!(elo_to_score(0.0), 0.5);
        // 400 Elo stronger: odds 10 to 1.
        assert!(close(elo_to_score(400.0), 10.0 / 11.0, 1e-12));
        assert!(close(score_to_elo(10.0 / 11.0), 400.0, 1e-9));
        assert!(close(score_to_elo(0.75), 190.848, 1e-3));
        assert_eq!(score_to_elo(1.0), f64::INFINITY);
        assert_eq!(score_to_elo(0.0), f64::NEG_INFINITY);
        for e in [-300.0, -5.0, 0.0, 5.0, 123.0] {
            assert!(close(score_to_elo(elo_to_score(e)), e, 1e-9));
        }
    }

    #[test]
    fn bounds_for_five_percent_errors() {
        let (lo, hi) = Sprt::new(0.0, 5.0, 0.05, 0.05).bounds();
        // ln(0.05 / 0.95) = -2.944439.
        assert!(close(lo, -2.944_439, 1e-6));
        assert!(close(hi, 2.944_439, 1e-6));
    }

    #[test]
    fn trinomial_llr_worked_by_hand() {
        // 60 wins, 20 draws, 20 losses: mean 0.7, variance
        // (60 * 0.3^2 + 20 * 0.2^2 + 20 * 0.7^2) / 100 = 0.16; s0 = 0.5,
        // s1 = 1 / (1 + 10^(-5/400)) = 0.507195; LLR = 100 * 0.007195 * 0.392805 / 0.32.
        let wdl = Wdl {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
        assert!(close(elo_to_score(5.0), 0.507_195, 1e-6));
        let llr = sprt.llr(&wdl.samples());
        assert!(close(llr, 0.883_207, 1e-5), "{llr}");
        assert_eq!(sprt.verdict(llr), Verdict::Continue);
        // Ten times the games, ten times the ratio: now clear.
        let big = Wdl {
            wins: 600,
            draws: 200,
            losses: 200,
        };
        let llr = sprt.llr(&big.samples());
        assert!(close(llr, 8.832_07, 1e-4));
        assert_eq!(sprt.verdict(llr), Verdict::H1);
        // Mirror image: accepts H0.
        let bad = Wdl {
            wins: 200,
            draws: 200,
            losses: 600,
        };
        assert_eq!(sprt.verdict(sprt.llr(&bad.samples())), Verdict::H0);
    }

    #[test]
    fn even_results_lean_to_h0_for_positive_bounds() {
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
        let even = Wdl {
            wins: 100,
            draws: 100,
            losses: 100,
        };
        assert!(sprt.llr(&even.samples()) < 0.0);
        assert_eq!(sprt.llr(&Wdl::default().samples()), 0.0);
    }

    #[test]
    fn pentanomial_llr_worked_by_hand() {
        // Pairs scoring 0, 1/2, 1, 3/2, 2 points: 5, 10, 30, 35, 20 (100 pairs).
        // Mean per game 0.6375, variance 0.07171875.
        let p = Pentanomial {
            counts: [5, 10, 30, 35, 20],
        };
        assert_eq!(p.pairs(), 100);
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
        let llr = sprt.llr(&p.samples());
        assert!(close(llr, 1.343_357, 1e-5), "{llr}");
        let e = EloEstimate::from_samples(&p.samples()).unwrap();
        assert!(close(e.elo, 98.069, 1e-3));
        assert!(close(e.low, 59.651, 1e-3));
        assert!(close(e.high, 138.986, 1e-3));
    }

    #[test]
    fn elo_interval_worked_by_hand() {
        // Mean 0.7 with standard error sqrt(0.16 / 100) = 0.04: 0.7 +- 1.96 * 0.04.
        let wdl = Wdl {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let e = EloEstimate::from_samples(&wdl.samples()).unwrap();
        assert!(close(e.elo, 147.191, 1e-3));
        assert!(close(e.low, 86.225, 1e-3));
        assert!(close(e.high, 218.252, 1e-3));
        assert!(EloEstimate::from_samples(&Wdl::default().samples()).is_none());
    }

    #[test]
    fn one_sided_results_still_decide() {
        // All pairs won: the variance is zero without regularisation.
        let mut p = Pentanomial::default();
        for _ in 0..10 {
            p.add(4);
        }
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
        let llr = sprt.llr(&p.samples());
        assert!(llr.is_finite() && llr > 0.0);
        assert_eq!(sprt.verdict(llr), Verdict::H1);
        p.add(9); // out of range: ignored, never panics
        assert_eq!(p.pairs(), 10);
    }

    #[test]
    fn likelihood_of_superiority_worked_by_hand() {
        // 4 wins, 1 loss: z = 3 / sqrt(10); LOS = (1 + erf(0.948683)) / 2 = 0.910144.
        let wdl = Wdl {
            wins: 4,
            draws: 7,
            losses: 1,
        };
        assert!(close(
            likelihood_of_superiority(&wdl).unwrap(),
            0.910_144,
            1e-5
        ));
        assert_eq!(likelihood_of_superiority(&Wdl::default()), None);
        assert!(close(erf(0.0), 0.0, 1e-7));
        assert!(close(erf(-1.0), -0.842_700_8, 1e-6));
    }
}
