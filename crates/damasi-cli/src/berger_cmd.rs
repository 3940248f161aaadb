//! `damasi berger --players N --round R [--double]`: a round of an all-play-all tournament by
//! FIDE's Berger tables (C.05 Annex 1), printed as `damasi swiss pair` prints its pairings.

use std::io::Write;

use anyhow::Result;
use clap::Args;

/// Arguments of `damasi berger`.
#[derive(Args)]
pub struct BergerArgs {
    /// Number of players, 3 to 24 (with an odd number, whoever the table pairs against the
    /// missing number N + 1 has the bye).
    #[arg(long)]
    players: u32,
    /// The round to print: 1 to N - 1 for an even number of players, 1 to N for an odd one,
    /// twice as many with --double.
    #[arg(long)]
    round: u32,
    /// A double round robin: the table twice, the second cycle with colours reversed (the
    /// last two rounds of the first cycle swapped, as Annex 1 recommends).
    #[arg(long)]
    double: bool,
}

/// `damasi berger`: prints the number of pairs (a bye counts as one), then `WHITE BLACK` a
/// line in the order of the table's boards, a bye as `P 0`.
pub fn berger(a: BergerArgs) -> Result<()> {
    let pairing = damasi_swiss::berger::pair_round(a.players, a.round, a.double)?;
    std::io::stdout().write_all(pairing.to_pairs_format().as_bytes())?;
    Ok(())
}
