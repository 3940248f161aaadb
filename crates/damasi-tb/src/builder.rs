//! The retrograde builder: solves a pair of signatures `{s, s.flip()}` given every table it
//! can reach by a capture or a promotion.
//!
//! Technique: retrograde analysis with move counters (as in checkers and chess endgame
//! databases).
//! 1. Initialisation, one pass over every entry: positions with a capture take the best value
//!    over their captures (looked up in smaller tables: captures are forced and maximal, so
//!    the legal move list has only the allowed ones); blocked positions lose, or draw if the
//!    other side is blocked too; promotions are looked up in the table with one man fewer. The
//!    other quiet moves lead into the pair: the entry counts its distinct successor entries.
//! 2. Propagation, wave after wave from every position found won or lost: undo the quiet moves
//!    into it ([`crate::unmove`]). A parent of a lost position is won; a parent of a won
//!    position has one successor fewer to refute, and when none is left it is lost (or drawn
//!    if a promotion keeps a draw).
//! 3. Whatever is still open is a draw: neither side can force the game out of its cycles, and
//!    repetition is a draw.
//!
//! Counters count successor *entries*, not moves, because the mirror maps a position and its
//! mirror image to one entry; undoing from one representative and de-duplicating the parent
//! entries decrements each parent once per successor entry, which keeps the two in step.
//!
//! Both cores work on every pass (rayon); state lives in atomics. Memory: two bytes an entry
//! plus the frontier (four bytes a position found in one wave).

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use damasi::{Color, MoveList};
use rayon::prelude::*;

use crate::error::ProbeError;
use crate::index::Indexer;
use crate::placement::Placement;
use crate::probe::Tablebase;
use crate::signature::Signature;
use crate::unmove::for_each_parent;
use crate::wdl::Wdl;

const UNKNOWN: u8 = 0;
const LOSS: u8 = 1;
const DRAW: u8 = 2;
const WIN: u8 = 3;
const UNUSED: u8 = 4;
const VALUE: u8 = 7;
/// The position has a capture: its value is not stored (don't care in the file).
const CAPTURE: u8 = 0x40;
/// An open position with a promotion that draws: it cannot lose any more.
const DRAW_FLOOR: u8 = 0x80;

/// Largest table the builder solves in one piece: entry numbers are kept as `u32` in the
/// frontier. The largest six-piece table (w1m2k-b1m2k, 4.76 G entries) needs the men-rank
/// slicing the builder does not have yet.
pub const MAX_ENTRIES: u64 = u32::MAX as u64;

/// Whether the builder can solve `pair`.
pub fn fits(pair: &[Signature]) -> bool {
    pair.iter().all(|&s| Indexer::new(s).size() < MAX_ENTRIES)
}

/// Entries handled by one rayon task.
const CHUNK: usize = 1 << 12;

/// One table being solved.
struct Work {
    indexer: Indexer,
    state: Vec<AtomicU8>,
    counter: Vec<AtomicU8>,
}

/// What `init_entry` found.
enum Init {
    Unused,
    Solved(u8),
    Open { successors: u8, draw_floor: bool },
}

/// Solves the signatures of `pair` (`[s]` or `[s, s.flip()]`) and returns their packed 2-bit
/// values in the same order. `tb` must hold every table a capture or promotion reaches, and
/// each table must be smaller than [`MAX_ENTRIES`] (see [`fits`]).
pub fn build_pair(tb: &Tablebase, pair: &[Signature]) -> Result<Vec<Vec<u8>>, ProbeError> {
    assert!(
        pair.len() == 1 && pair[0].flip() == pair[0]
            || pair.len() == 2 && pair[1] == pair[0].flip()
    );
    let work: Vec<Work> = pair
        .iter()
        .map(|&s| {
            let indexer = Indexer::new(s);
            let n = indexer.size() as usize;
            assert!((n as u64) < MAX_ENTRIES, "{s} is too large: see `fits`");
            Work {
                indexer,
                state: (0..n).map(|_| AtomicU8::new(UNKNOWN)).collect(),
                counter: (0..n).map(|_| AtomicU8::new(0)).collect(),
            }
        })
        .collect();
    // The quiet moves of table t lead into table `other(t)`.
    let other = |t: usize| if pair.len() == 2 { 1 - t } else { 0 };

    // 1. Initialisation.
    let mut frontier: Vec<Vec<u32>> = Vec::new();
    for t in 0..work.len() {
        let w = &work[t];
        let succ = &work[other(t)].indexer;
        let n = w.state.len();
        let found: Vec<Vec<u32>> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| -> Result<Vec<u32>, ProbeError> {
                let mut solved = Vec::new();
                for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                    match init_entry(tb, &w.indexer, succ, i as u64)? {
                        Init::Unused => w.state[i].store(UNUSED, Relaxed),
                        Init::Solved(s) => {
                            w.state[i].store(s, Relaxed);
                            if matches!(s & VALUE, WIN | LOSS) {
                                solved.push(i as u32);
                            }
                        }
                        Init::Open {
                            successors,
                            draw_floor,
                        } => {
                            w.counter[i].store(successors, Relaxed);
                            let s = if draw_floor { DRAW_FLOOR } else { UNKNOWN };
                            w.state[i].store(s, Relaxed);
                        }
                    }
                }
                Ok(solved)
            })
            .collect::<Result<_, _>>()?;
        frontier.push(found.concat());
    }

    // 2. Propagation: the frontier of table t feeds parents in table other(t).
    while frontier.iter().any(|f| !f.is_empty()) {
        let mut next: Vec<Vec<u32>> = vec![Vec::new(); work.len()];
        for (t, f) in frontier.iter().enumerate() {
            let (child, parent) = (&work[t], &work[other(t)]);
            let found: Vec<Vec<u32>> = f
                .par_chunks(CHUNK)
                .map(|chunk| propagate(child, parent, chunk))
                .collect();
            next[other(t)].extend(found.concat());
        }
        frontier = next;
    }

    // 3. Pack: open positions are draws; don't-care entries repeat the value before them.
    Ok(work.iter().map(pack).collect())
}

/// Classifies entry `i` of a table and counts its successor entries in table `succ`.
fn init_entry(tb: &Tablebase, ix: &Indexer, succ: &Indexer, i: u64) -> Result<Init, ProbeError> {
    let Some(p) = ix.decode(i) else {
        return Ok(Init::Unused);
    };
    let pos = p.to_position().expect("decoded placements are valid");
    // Filled in place: returning a move list by value copies its whole inline array.
    let mut moves = MoveList::new();
    pos.legal_moves_into(&mut moves);
    if moves.is_empty() {
        let other_blocked = !pos.with_side_to_move(Color::Black).has_legal_move();
        return Ok(Init::Solved(if other_blocked { DRAW } else { LOSS }));
    }
    if moves.as_slice()[0].is_capture() {
        let mut best = Wdl::Loss;
        for m in moves.iter() {
            best = best.max(tb.probe(&pos.play(m))?.negate());
            if best == Wdl::Win {
                break;
            }
        }
        return Ok(Init::Solved(CAPTURE | state_of(best)));
    }
    let mut successors = [0u32; 256];
    let mut n = 0;
    let mut draw_floor = false;
    for m in moves.iter() {
        let child = pos.play(m);
        if m.is_promotion() {
            match tb.probe(&child)?.negate() {
                Wdl::Win => return Ok(Init::Solved(WIN)),
                Wdl::Draw => draw_floor = true,
                Wdl::Loss => {}
            }
        } else {
            // At most 5 kings x 14 squares = 70 quiet moves in a six-piece position.
            successors[n] = succ.index(&Placement::of(&child)) as u32;
            n += 1;
        }
    }
    let successors = &mut successors[..n];
    successors.sort_unstable();
    let distinct = successors.windows(2).filter(|w| w[0] != w[1]).count() + usize::from(n > 0);
    if distinct == 0 {
        return Ok(Init::Solved(if draw_floor { DRAW } else { LOSS }));
    }
    Ok(Init::Open {
        successors: u8::try_from(distinct).expect("fewer than 256 quiet moves"),
        draw_floor,
    })
}

fn state_of(v: Wdl) -> u8 {
    match v {
        Wdl::Loss => LOSS,
        Wdl::Draw => DRAW,
        Wdl::Win => WIN,
    }
}

/// Undoes the moves into each solved entry of `chunk` (in `child`) and updates the parents
/// (in `parent`); returns the parents solved as won or lost.
fn propagate(child: &Work, parent: &Work, chunk: &[u32]) -> Vec<u32> {
    let mut solved = Vec::new();
    let mut parents: Vec<u32> = Vec::with_capacity(128);
    for &i in chunk {
        let value = child.state[i as usize].load(Relaxed) & VALUE;
        let p = child
            .indexer
            .decode(i as u64)
            .expect("solved entries are used");
        parents.clear();
        for_each_parent(&p, |q| parents.push(parent.indexer.index(&q) as u32));
        parents.sort_unstable();
        parents.dedup();
        for &e in &parents {
            let e = e as usize;
            let s = parent.state[e].load(Relaxed);
            if s & VALUE != UNKNOWN {
                continue;
            }
            if value == LOSS {
                if parent.state[e]
                    .compare_exchange(s, WIN, Relaxed, Relaxed)
                    .is_ok()
                {
                    solved.push(e as u32);
                }
            } else if parent.counter[e].fetch_sub(1, Relaxed) == 1 {
                if s & DRAW_FLOOR != 0 {
                    let _ = parent.state[e].compare_exchange(s, DRAW, Relaxed, Relaxed);
                } else if parent.state[e]
                    .compare_exchange(s, LOSS, Relaxed, Relaxed)
                    .is_ok()
                {
                    solved.push(e as u32);
                }
            }
        }
    }
    solved
}

/// The 2-bit file values of a solved table.
fn pack(w: &Work) -> Vec<u8> {
    let n = w.state.len();
    let mut packed = vec![0u8; n.div_ceil(4)];
    packed
        .par_chunks_mut(crate::file::BLOCK_BYTES)
        .enumerate()
        .for_each(|(b, bytes)| {
            let first = b * crate::file::BLOCK_BYTES * 4;
            let mut prev = Wdl::Draw.code();
            for (j, byte) in bytes.iter_mut().enumerate() {
                for k in 0..4 {
                    let i = first + j * 4 + k;
                    if i >= n {
                        break;
                    }
                    let s = w.state[i].load(Relaxed);
                    let code = if s & CAPTURE != 0 || s & VALUE == UNUSED {
                        prev
                    } else {
                        match s & VALUE {
                            LOSS => Wdl::Loss.code(),
                            WIN => Wdl::Win.code(),
                            _ => Wdl::Draw.code(),
                        }
                    };
                    prev = code;
                    *byte |= code << (2 * k);
                }
            }
        });
    packed
}
