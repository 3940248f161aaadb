//! Verification: every stored value equals the best value over the position's moves, with the
//! successors read from the tables (a check of the retrograde solution's local consistency).

use std::sync::Mutex;

use damasi::{Color, MoveList, Position, Wdl};
use rayon::prelude::*;

use crate::error::ProbeError;
use crate::probe::Tablebase;
use crate::signature::Signature;
use crate::table::Table;

/// What a verification found.
#[derive(Clone, Debug, Default)]
pub struct Verified {
    /// Positions checked (capture positions and unused entries have no stored value).
    pub checked: u64,
    /// Positions whose stored value disagrees with their moves: FEN, stored, computed (at
    /// most 20 kept).
    pub mismatches: Vec<(String, Wdl, Wdl)>,
    /// Number of disagreements in all.
    pub mismatch_count: u64,
}

/// What checking one stored entry found.
enum Check {
    /// Nothing to check there.
    Skipped,
    /// The stored entry agrees with the moves.
    Agrees,
    /// It does not: what to show, stored and computed.
    Differs(String, Wdl, Wdl),
}

/// Runs `check` on every quiet position of `sig`'s table (positions with a capture are not
/// stored), on both cores, and gathers what it found.
fn check_table(
    tb: &Tablebase,
    sig: Signature,
    check: impl Fn(&Table, u64, &Position) -> Result<Check, ProbeError> + Sync,
) -> Result<Verified, ProbeError> {
    let table = tb.table(sig).ok_or(ProbeError::MissingTable(sig))?;
    let ix = table.indexer();
    let n = ix.size();
    let out = Mutex::new(Verified::default());
    (0..n.div_ceil(4096))
        .into_par_iter()
        .try_for_each(|c| -> Result<(), ProbeError> {
            let (mut checked, mut bad) = (0u64, Vec::new());
            for i in c * 4096..((c + 1) * 4096).min(n) {
                let Some(p) = ix.decode(i) else { continue };
                let pos = p.to_position().expect("decoded placements are valid");
                if pos.has_capture() {
                    continue;
                }
                match check(table, i, &pos)? {
                    Check::Skipped => {}
                    Check::Agrees => checked += 1,
                    Check::Differs(what, stored, computed) => {
                        checked += 1;
                        bad.push((what, stored, computed));
                    }
                }
            }
            let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
            o.checked += checked;
            o.mismatch_count += bad.len() as u64;
            for b in bad {
                if o.mismatches.len() < 20 {
                    o.mismatches.push(b);
                }
            }
            Ok(())
        })?;
    Ok(out.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// The tables that the quiet moves of `sig`'s positions lead into, which verifying `sig`
/// reads at random: `sig` with the colours exchanged (the other side is to move) and, when
/// White has a man, the same after that man's promotion.
pub fn tables_after_quiet_moves(sig: Signature) -> Vec<Signature> {
    let mut after = vec![sig.flip()];
    if sig.wm > 0 {
        after.push(Signature::new(sig.wm - 1, sig.wk + 1, sig.bm, sig.bk).flip());
    }
    after
}

/// Checks every stored entry of `sig` against its moves.
pub fn verify_table(tb: &Tablebase, sig: Signature) -> Result<Verified, ProbeError> {
    check_table(tb, sig, |table, i, pos| {
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        let computed = if moves.is_empty() {
            if pos.with_side_to_move(Color::Black).has_legal_move() {
                Wdl::Loss
            } else {
                Wdl::Draw
            }
        } else {
            let mut best = Wdl::Loss;
            for m in moves.iter() {
                best = best.max(tb.probe(&pos.play(m))?.negate());
            }
            best
        };
        let stored = table.get(i)?;
        Ok(if stored == computed {
            Check::Agrees
        } else {
            Check::Differs(pos.to_fen(), stored, computed)
        })
    })
}

use damasi_engine::oracle::converts;

/// Checks every stored distance to conversion of `sig` against its moves: a won position is
/// one ply more than the quickest of its winning moves (a move that converts counts one), a
/// lost one one more than the slowest of its moves, a blocked one 0. A mismatch shows the
/// FEN with the stored and the computed distance.
pub fn verify_distances(tb: &Tablebase, sig: Signature) -> Result<Verified, ProbeError> {
    check_table(tb, sig, |table, i, pos| {
        let value = table.get(i)?;
        if value == Wdl::Draw {
            return Ok(Check::Skipped);
        }
        let stored = tb.probe_dtc(pos)?.ok_or(ProbeError::MissingTable(sig))?;
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        let mut plies: Option<u32> = None;
        for m in moves.iter() {
            let child = pos.play(m);
            if tb.probe(&child)?.negate() != value {
                continue;
            }
            let d = if converts(pos, &child) {
                1
            } else {
                1 + tb.probe_dtc(&child)?.ok_or(ProbeError::MissingTable(sig))?
            };
            plies = Some(match (plies, value) {
                (None, _) => d,
                (Some(x), Wdl::Win) => x.min(d),
                (Some(x), _) => x.max(d),
            });
        }
        let computed = plies.unwrap_or(0).min(255);
        Ok(if stored == computed {
            Check::Agrees
        } else {
            let what = format!("{} at {stored}, not {computed}", pos.to_fen());
            Check::Differs(what, value, value)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_moves_lead_to_the_other_side_to_move_and_to_a_promotion() {
        // King and man against a king: Black to move against them, or against two kings.
        assert_eq!(
            tables_after_quiet_moves(Signature::new(1, 1, 0, 1)),
            vec![Signature::new(0, 1, 1, 1), Signature::new(0, 1, 0, 2)]
        );
        // No white man, no promotion.
        assert_eq!(
            tables_after_quiet_moves(Signature::new(0, 2, 1, 0)),
            vec![Signature::new(1, 0, 0, 2)]
        );
    }
}
