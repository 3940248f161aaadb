//! # damasi-tools: measuring and tuning the damasi engine
//!
//! What is needed to prove that a change of the engine wins, kept out of the engine itself:
//! engine-against-engine matches over the Hub protocol ([`match_runner`], `damasi match`),
//! the statistics that decide them ([`sprt`]: Elo, error bars, the sequential probability
//! ratio test), the balanced opening set they start from ([`openings`], `data/openings.txt`),
//! Texel tuning of the evaluation weights with an in-process self-play match ([`tune`]), and
//! the data and trainers of the learned evaluations ([`train`] for the pattern tables,
//! [`train_net`] for the network; `damasi train`).
//!
//! ```
//! use damasi_tools::openings::{parse_openings, DEFAULT_OPENINGS};
//! use damasi_tools::sprt::{Sprt, Verdict};
//!
//! let openings = parse_openings(DEFAULT_OPENINGS).unwrap();
//! assert_eq!(openings.len(), 100);
//! let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05);
//! assert_eq!(sprt.verdict(0.0), Verdict::Continue);
//! ```
//!
//! The examples: `cargo run --release -p damasi-tools --example tune` (fit the weights, then
//! play the fitted against the current ones) and `--example make_openings` (remake the
//! opening set).

pub mod bot;
pub mod data_run;
pub mod hub_client;
pub mod match_runner;
pub mod openings;
pub mod puzzles;
pub mod sprt;
pub mod train;
pub mod train_net;
pub mod tune;
