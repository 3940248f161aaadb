//! Match statistics: Elo from a score, error bars, likelihood of superiority and the
//! sequential probability ratio test (SPRT) that stops a match as soon as its result is clear.
//!
//! Elo is the logistic model: a player `e` Elo stronger scores `1 / (1 + 10^(-e/400))`.
//! The SPRT is the generalised SPRT of chess engine testing (fishtest): its log-likelihood
//! ratio between "the true Elo difference is `elo0`" (H0) and "it is `elo1`" (H1) compares
//! the most likely outcome distributions whose expected scores are those the two hypotheses
//! predict (`s0`, `s1`). Given observed outcome frequencies `f_i` with scores `x_i`, the most
//! likely distribution with expected score `s` is `f_i / (1 + lambda (x_i - s))`, with
//! `lambda` found by bisection (the empirical-likelihood solution). Outcome classes never
//! seen get a tiny count (fishtest's regularisation), so that one-sided results such as
//! "every game won" still give a finite ratio. Unlike the common normal approximation
//! `N (s1 - s0) (2 m - s0 - s1) / (2 v)`, this stays sound far from `s0` and `s1`: a few
//! won games do not decide a test of 0 against 5 Elo. The test accepts H1 once the ratio
//! passes `ln((1 - beta) / alpha)` and H0 once it falls below `ln(beta / (1 - alpha))`.
//!
//! Samples are either single games (trinomial: win, draw, loss) or, better for paired
//! openings, game pairs (pentanomial: 0, 1/2, 1, 3/2 or 2 points out of 2), which removes the
//! noise the openings add.
//!
//! ```
//! use damasi_tools::sprt::{MatchScore, Sprt, Verdict};
//!
//! let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
//! let results = MatchScore { wins: 60, draws: 20, losses: 20 };
//! let llr = sprt.llr(&results.samples());
//! assert!((llr - 0.7072).abs() < 1e-3);
//! assert_eq!(sprt.verdict(llr), Verdict::Continue);
//! ```

/// 97.5% quantile of the standard normal distribution: 95% two-sided error bars.
const Z_95: f64 = 1.959_963_984_540_054;

/// Count given to an outcome class never seen (fishtest's regularisation): without it a
/// one-sided result has no distribution with the hypotheses' expected scores.
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

/// Number, mean and variance of samples; `None` without any.
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
    Some((n, mean, var))
}

/// The distribution over the scores of `freq` closest to it (maximum likelihood) whose
/// expected score is `mean`: `f_i / (1 + lambda (x_i - mean))`, where `lambda` makes the
/// expected score right. `None` when `mean` lies outside the observed scores.
fn most_likely_with_mean(freq: &[(f64, f64)], mean: f64) -> Option<Vec<f64>> {
    let lowest = freq.iter().map(|s| s.0).fold(f64::INFINITY, f64::min);
    let highest = freq.iter().map(|s| s.0).fold(f64::NEG_INFINITY, f64::max);
    if !(lowest < mean && mean < highest) {
        return None;
    }
    // All weights stay positive for lambda strictly inside (lo, hi); the expected-score error
    // falls as lambda grows, so bisection finds its zero.
    let mut lo = -1.0 / (highest - mean);
    let mut hi = 1.0 / (mean - lowest);
    let error = |lambda: f64| -> f64 {
        freq.iter()
            .map(|&(x, f)| f * (x - mean) / (1.0 + lambda * (x - mean)))
            .sum()
    };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if error(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let lambda = 0.5 * (lo + hi);
    Some(
        freq.iter()
            .map(|&(x, f)| f / (1.0 + lambda * (x - mean)))
            .collect(),
    )
}

/// The games of a match from one player's point of view: wins, draws and losses counted,
/// with its score and Elo (the match runner's summary, the tuner's self-play matches).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchScore {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl MatchScore {
    /// Counts one game that scored `points`: 1 a win, 1/2 a draw, 0 a loss (nearest wins).
    pub fn add(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points scored (a draw is half a point).
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Points per game, 0..=1 (0 without games).
    pub fn score(&self) -> f64 {
        self.points() / self.games().max(1) as f64
    }

    /// The Elo difference the score predicts ([`score_to_elo`]), kept within ±1000 so that a
    /// match won or lost in every game still prints a number.
    pub fn elo(&self) -> f64 {
        score_to_elo(self.score().clamp(0.001, 0.999)).clamp(-1000.0, 1000.0)
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
        let (n, mean, var) = moments(samples)?;
        let elo = score_to_elo(mean);
        if var <= 1e-12 {
            // Identical results say nothing about the spread: the interval is open.
            return Some(EloEstimate {
                elo,
                low: f64::NEG_INFINITY,
                high: f64::INFINITY,
            });
        }
        let margin = Z_95 * (var / n).sqrt();
        Some(EloEstimate {
            elo,
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
pub fn likelihood_of_superiority(wdl: &MatchScore) -> Option<f64> {
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
        let n: f64 = samples.iter().map(|s| s.1).sum();
        if n <= 0.0 || samples.len() < 2 {
            return 0.0;
        }
        let counts: Samples = samples
            .iter()
            .map(|&(x, c)| (x, if c > 0.0 { c } else { EMPTY_CLASS }))
            .collect();
        let total: f64 = counts.iter().map(|s| s.1).sum();
        let freq: Samples = counts.iter().map(|&(x, c)| (x, c / total)).collect();
        let (Some(p0), Some(p1)) = (
            most_likely_with_mean(&freq, elo_to_score(self.elo0)),
            most_likely_with_mean(&freq, elo_to_score(self.elo1)),
        ) else {
            return 0.0;
        };
        counts
            .iter()
            .zip(p0.iter().zip(&p1))
            .map(|(&(_, c), (&a, &b))| c * (b.ln() - a.ln()))
            .sum()
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
    fn wins_and_losses_only_give_the_binomial_ratio() {
        // Without draws the most likely distribution with expected score s wins with
        // probability s, so LLR = W ln(s1 / s0) + L ln((1 - s1) / (1 - s0)). With s0 = 0.5,
        // s1 = 1 / (1 + 10^(-5/400)) = 0.507195, W = 60, L = 40:
        // 60 ln(1.014390) + 40 ln(0.985610) = 0.277468.
        let wl = MatchScore {
            wins: 60,
            draws: 0,
            losses: 40,
        };
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
        assert!(close(elo_to_score(5.0), 0.507_195, 1e-6));
        let llr = sprt.llr(&wl.samples());
        // The empty draw class gets a count of 1e-3, which moves the ratio by about 3e-6.
        assert!(close(llr, 0.277_468, 1e-4), "{llr}");
        assert_eq!(sprt.verdict(llr), Verdict::Continue);
    }

    #[test]
    fn trinomial_llr() {
        // 60 wins, 20 draws, 20 losses (mean score 0.7). Reference value from an independent
        // implementation of the same maximum-likelihood ratio (Python, bisection).
        let wdl = MatchScore {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
        let llr = sprt.llr(&wdl.samples());
        assert!(close(llr, 0.707_247, 1e-5), "{llr}");
        assert_eq!(sprt.verdict(llr), Verdict::Continue);
        // Ten times the games, ten times the ratio: now clear.
        let big = MatchScore {
            wins: 600,
            draws: 200,
            losses: 200,
        };
        let llr = sprt.llr(&big.samples());
        assert!(close(llr, 7.072_47, 1e-4), "{llr}");
        assert_eq!(sprt.verdict(llr), Verdict::H1);
        // Mirror image: accepts H0.
        let bad = MatchScore {
            wins: 200,
            draws: 200,
            losses: 600,
        };
        assert_eq!(sprt.verdict(sprt.llr(&bad.samples())), Verdict::H0);
    }

    #[test]
    fn near_the_hypotheses_it_matches_the_normal_approximation() {
        // Close to s0 and s1 the ratio is about N (s1 - s0) (2 m - s0 - s1) / (2 v).
        let wdl = MatchScore {
            wins: 5_100,
            draws: 10_000,
            losses: 4_900,
        };
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
        let (n, m, v) = moments(&wdl.samples()).unwrap();
        let (s0, s1) = (elo_to_score(0.0), elo_to_score(5.0));
        let approx = n * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * v);
        let llr = sprt.llr(&wdl.samples());
        assert!(close(llr, approx, 0.02 * approx.abs()), "{llr} {approx}");
    }

    #[test]
    fn even_results_lean_to_h0_for_positive_bounds() {
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
        let even = MatchScore {
            wins: 100,
            draws: 100,
            losses: 100,
        };
        assert!(sprt.llr(&even.samples()) < 0.0);
        assert_eq!(sprt.llr(&MatchScore::default().samples()), 0.0);
    }

    #[test]
    fn pentanomial_llr() {
        // Pairs scoring 0, 1/2, 1, 3/2, 2 points: 5, 10, 30, 35, 20 (100 pairs); reference
        // value from the independent implementation.
        let p = Pentanomial {
            counts: [5, 10, 30, 35, 20],
        };
        assert_eq!(p.pairs(), 100);
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
        let llr = sprt.llr(&p.samples());
        assert!(close(llr, 0.995_386, 1e-5), "{llr}");
        // Mean per game 0.6375, variance 0.07171875: Elo 98.07 in (59.65, 138.99).
        let e = EloEstimate::from_samples(&p.samples()).unwrap();
        assert!(close(e.elo, 98.069, 1e-3));
        assert!(close(e.low, 59.651, 1e-3));
        assert!(close(e.high, 138.986, 1e-3));
    }

    #[test]
    fn elo_interval_worked_by_hand() {
        // Mean 0.7 with standard error sqrt(0.16 / 100) = 0.04: 0.7 +- 1.96 * 0.04.
        let wdl = MatchScore {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let e = EloEstimate::from_samples(&wdl.samples()).unwrap();
        assert!(close(e.elo, 147.191, 1e-3));
        assert!(close(e.low, 86.225, 1e-3));
        assert!(close(e.high, 218.252, 1e-3));
        assert!(EloEstimate::from_samples(&MatchScore::default().samples()).is_none());
        // Two draws: Elo 0, but nothing is known about the spread yet.
        let draws = MatchScore {
            wins: 0,
            draws: 2,
            losses: 0,
        };
        let e = EloEstimate::from_samples(&draws.samples()).unwrap();
        assert_eq!((e.elo, e.error()), (0.0, f64::INFINITY));
    }

    #[test]
    fn one_sided_results_decide_only_with_enough_games() {
        // Every pair won: a finite ratio (about 0.0143 a pair for 0 against 5 Elo, the most
        // likely H0 world being half wins, half losses), so a handful of games decides nothing.
        let mut p = Pentanomial::default();
        for _ in 0..10 {
            p.add(4);
        }
        let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
        let llr = sprt.llr(&p.samples());
        assert!(close(llr, 0.142_904, 1e-4), "{llr}");
        assert_eq!(sprt.verdict(llr), Verdict::Continue);
        for _ in 0..200 {
            p.add(4);
        }
        assert_eq!(sprt.verdict(sprt.llr(&p.samples())), Verdict::H1);
        // Wider bounds decide sooner: 0 against 50 Elo.
        let wide = Sprt::new(0.0, 50.0, 0.05, 0.05);
        let mut q = Pentanomial::default();
        for _ in 0..25 {
            q.add(4);
        }
        assert_eq!(wide.verdict(wide.llr(&q.samples())), Verdict::H1);
        p.add(9); // out of range: ignored, never panics
        assert_eq!(p.pairs(), 210);
    }

    #[test]
    fn likelihood_of_superiority_worked_by_hand() {
        // 4 wins, 1 loss: z = 3 / sqrt(10); LOS = (1 + erf(0.948683)) / 2 = 0.910144.
        let wdl = MatchScore {
            wins: 4,
            draws: 7,
            losses: 1,
        };
        assert!(close(
            likelihood_of_superiority(&wdl).unwrap(),
            0.910_144,
            1e-5
        ));
        assert_eq!(likelihood_of_superiority(&MatchScore::default()), None);
        assert!(close(erf(0.0), 0.0, 1e-7));
        assert!(close(erf(-1.0), -0.842_700_8, 1e-6));
    }
}
