//! Texel tuning of the evaluation weights: self-play games, logistic regression, then a
//! self-play match of the fitted weights against the current ones.
//!
//! `cargo run --release -p damasi-tools --example tune -- [games] [nodes] [epochs] [match-nodes]`
//! fits; `... --example tune -- match [nodes]` only plays the current weights against the
//! hand-set ones; `... --features tune --example tune -- ab <part> [nodes]` measures a part of
//! the search (its switches are constants without the `tune` feature).

use damasi_engine::eval::Weights;
#[cfg(feature = "tune")]
use damasi_engine::{Engine, EngineOptions};
use damasi_tools::openings::{parse_openings, DEFAULT_OPENINGS};
use damasi_tools::tune;

fn main() {
    let openings: Vec<_> = parse_openings(DEFAULT_OPENINGS)
        .expect("the built-in openings parse")
        .into_iter()
        .map(|o| o.moves)
        .collect();
    if std::env::args().nth(1).as_deref() == Some("match") {
        let nodes = std::env::args()
            .nth(2)
            .map_or(3000, |n| n.parse().expect("nodes"));
        let wdl =
            tune::self_play_match(&Weights::default(), &Weights::hand_set(), &openings, nodes);
        println!(
            "match current vs hand-set at {nodes} nodes: +{} ={} -{} score {:.3} elo {:+.0}",
            wdl.wins,
            wdl.draws,
            wdl.losses,
            wdl.score(),
            wdl.elo()
        );
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("ab") {
        ablation(&openings);
        return;
    }
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: games nodes epochs match-nodes"))
        .collect();
    let games = *args.first().unwrap_or(&256) as usize;
    let nodes = *args.get(1).unwrap_or(&2000);
    let epochs = *args.get(2).unwrap_or(&300) as usize;
    let match_nodes = *args.get(3).unwrap_or(&3000);

    let base = Weights::default();
    let t = std::time::Instant::now();
    let samples = tune::generate(&base, &openings, games, nodes, 0x5EED);
    println!(
        "{} positions from {games} games in {:.1} s",
        samples.len(),
        t.elapsed().as_secs_f64()
    );
    let k = tune::fit_k(&samples, &base);
    println!("k = {k:.6}, error {:.6}", tune::error(&samples, &base, k));
    let fitted = tune::fit(&samples, &base, k, epochs);
    println!("fitted error {:.6}", tune::error(&samples, &fitted, k));
    println!("{}", tune::weights_source(&fitted));
    let wdl = tune::self_play_match(&fitted, &base, &openings, match_nodes);
    println!(
        "match fitted vs current: +{} ={} -{} score {:.3} elo {:+.0}",
        wdl.wins,
        wdl.draws,
        wdl.losses,
        wdl.score(),
        wdl.elo()
    );
}

/// `ab <rfp|probcut|lmp|lmr|threat_qs|iir|history_lmr> [nodes]`: the full search against one
/// without that part (with the `tune`
/// feature, which makes the search's switches settable).
#[cfg(feature = "tune")]
fn ablation(openings: &[Vec<damasi::Move>]) {
    use damasi_engine::search::SearchParams;
    let part = std::env::args().nth(2).unwrap_or_default();
    let nodes = std::env::args()
        .nth(3)
        .map_or(3000, |n| n.parse().expect("nodes"));
    let mut off = SearchParams::default();
    match part.as_str() {
        "rfp" => off.rfp = false,
        "probcut" => off.probcut = false,
        "lmp" => off.lmp = false,
        "lmr" => off.lmr = false,
        // Not on by default: measure turning it on.
        "threat_qs" => off.threat_qs = true,
        "iir" => off.iir = false,
        "history_lmr" => off.history_lmr = true,
        _ => panic!("ab needs one of rfp, probcut, lmp, lmr, threat_qs, iir, history_lmr"),
    }
    let opts = EngineOptions {
        hash_mb: 8,
        threads: 1,
    };
    let mut full = Engine::new(opts);
    let mut without = Engine::new(opts);
    without.set_search_params(off);
    let wdl = tune::match_engines(&mut full, &mut without, openings, nodes);
    println!(
        "match full vs without {part} at {nodes} nodes: +{} ={} -{} score {:.3} elo {:+.0}",
        wdl.wins,
        wdl.draws,
        wdl.losses,
        wdl.score(),
        wdl.elo()
    );
}

#[cfg(not(feature = "tune"))]
fn ablation(_: &[Vec<damasi::Move>]) {
    eprintln!("ab needs the search's switches settable: run with --features tune");
    std::process::exit(2);
}
