//! The retrograde builder: solves a pair of signatures `{s, s.flip()}` given every table it
//! can reach by a capture or a promotion.
//!
//! Technique: retrograde analysis with move counters (as in checkers and chess endgame
//! databases), one slice of the men's ranks at a time ([`crate::slice`]).
//!
//! The pair is cut into units: a slice of `s` together with the same slice seen from the other
//! side in `s.flip()` (quiet moves that keep the men's ranks lead from one to the other).
//! Units are solved most advanced first, so a man's forward step always leads into a unit
//! already solved. Inside a unit:
//! 1. Initialisation, one pass over every entry: positions with a capture take the best value
//!    over their captures (looked up in smaller tables: captures are forced and maximal, so
//!    the legal move list has only the allowed ones); blocked positions lose, or draw if the
//!    other side is blocked too; promotions are looked up in the table with one man fewer and
//!    forward steps in the slices already solved. The other quiet moves stay in the unit: the
//!    entry counts its distinct successor entries.
//! 2. Propagation, wave after wave from every position found won or lost: undo the quiet moves
//!    into it that keep the ranks ([`crate::unmove`]). A parent of a lost position is won; a
//!    parent of a won position has one successor fewer to refute, and when none is left it is
//!    lost (or drawn if a move out of the unit keeps a draw).
//! 3. Whatever is still open is a draw: neither side can force the game out of its cycles, and
//!    repetition is a draw. The unit's values go into the pair's 2-bit tables.
//!
//! Counters count successor *entries*, not moves, because a position and its mirror image
//! share an entry; undoing from one representative and de-duplicating the parent entries
//! decrements each parent once per successor entry, which keeps the two in step.
//!
//! Both cores work on every pass (rayon); state lives in atomics. Memory: the pair's tables at
//! 2 bits an entry, plus two bytes an entry of the unit being solved and its frontier (four
//! bytes a position found in one wave). Only kings-only units are as large as their tables.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

use damasi::{Color, MoveList, Position, Wdl};
use rayon::prelude::*;

use crate::error::ProbeError;
use crate::file::BLOCK_BYTES;
use crate::index::Indexer;
use crate::placement::Placement;
use crate::probe::Tablebase;
use crate::signature::Signature;
use crate::slice::{SliceIndexer, SliceKey};
use crate::stats::{positions_of, Stats};
use crate::unmove::for_each_parent_set;
use crate::wdl;

const UNKNOWN: u8 = 0;
const LOSS: u8 = 1;
const DRAW: u8 = 2;
const WIN: u8 = 3;
const UNUSED: u8 = 4;
const VALUE: u8 = 7;
/// The position has a capture: its value is not stored (don't care in the file).
const CAPTURE: u8 = 0x40;
/// An open position with a move out of the unit that draws: it cannot lose any more.
const DRAW_FLOOR: u8 = 0x80;

/// A 2-bit code in the pair's tables while they are built: not solved yet, or a capture
/// position or unused entry (don't care). Never in a file.
const NOT_STORED: u8 = 3;

/// Entries handled by one rayon task.
const CHUNK: usize = 1 << 12;

/// One table of the pair: its values so far, 2 bits an entry ([`NOT_STORED`] until solved),
/// and, if asked for, its distances to conversion, a byte an entry.
struct Output {
    indexer: Indexer,
    codes: Vec<AtomicU8>,
    distances: Option<Vec<AtomicU8>>,
    /// The longest distance to conversion of a won or lost position.
    longest: AtomicU8,
    /// Positions (mirror images apart, capture positions included) lost, drawn and won
    /// for White, as [`crate::stats`] counts them.
    counts: [AtomicU64; 3],
}

/// A solved table.
pub struct Solved {
    /// Win/draw/loss, 2 bits an entry, as the file stores them.
    pub wdl: Vec<u8>,
    /// Distance to conversion, a byte an entry, if asked for (see [`crate::file`]).
    pub dtc: Option<Vec<u8>>,
    /// The longest distance to conversion of a won or lost position, in plies (255 for 255
    /// or more).
    pub longest: u8,
    /// Its statistics, counted while it was solved: the same as [`crate::signature_stats`]
    /// of the finished table, without the hours that takes at six pieces.
    pub stats: Stats,
}

impl Output {
    fn code(&self, i: u64) -> u8 {
        self.codes[(i / 4) as usize].load(Relaxed) >> ((i % 4) * 2) & 3
    }

    fn set(&self, i: u64, code: u8) {
        let shift = (i % 4) * 2;
        let keep = !(3u8 << shift) | (code << shift);
        self.codes[(i / 4) as usize].fetch_and(keep, Relaxed);
    }
}

/// One slice being solved.
struct SliceWork {
    /// Which table of the pair.
    table: usize,
    indexer: SliceIndexer,
    state: Vec<AtomicU8>,
    counter: Vec<AtomicU8>,
}

/// What `init_entry` found.
enum Init {
    Unused,
    /// Blocked: decided with no move (distance 0).
    Blocked(u8),
    /// Decided by moves out of the unit (distance 1).
    Solved(u8),
    Open {
        successors: u8,
        draw_floor: bool,
    },
}

/// Everything the entries of a pair look up while they are solved.
struct Pair<'a> {
    tb: &'a Tablebase,
    outputs: Vec<Output>,
}

impl Pair<'_> {
    /// The table of the pair that quiet moves from table `t` lead into.
    fn other(&self, t: usize) -> usize {
        if self.outputs.len() == 2 {
            1 - t
        } else {
            0
        }
    }

    /// The value of a position reached by a man's forward step from table `t` (side to
    /// move: the opponent), from the slices already solved or, with a capture on the
    /// board, from the smaller tables.
    fn solved_value(&self, t: usize, child: &Position) -> Result<Wdl, ProbeError> {
        if child.has_capture() {
            return self.tb.probe(child);
        }
        let out = &self.outputs[self.other(t)];
        let code = out.code(out.indexer.index(&Placement::of(child)));
        Ok(wdl::from_code(code).expect("forward steps lead into slices already solved"))
    }
}

/// How far the solving of a pair has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Entries of the pair in the units finished so far (in the tables' own numbering).
    pub done: u64,
    /// Entries of the pair.
    pub entries: u64,
    /// The unit being solved (from 1), or the last one finished.
    pub unit: usize,
    /// Units of the pair (a slice of the men's ranks with its counterpart).
    pub units: usize,
    /// The propagation wave the unit has reached (the plies to conversion solved so far),
    /// `None` once the unit is finished. Kings-only pairs are one unit of up to 2.6 G
    /// entries, so the waves are their only sign of life.
    pub wave: Option<u32>,
}

/// A pair being solved one unit at a time. Between units its whole state is the pair's
/// tables so far, so it can be saved and resumed ([`crate::checkpoint`]): an interrupted
/// six-piece pair need not start over.
pub struct PairBuild<'a> {
    ctx: Pair<'a>,
    pub(crate) pair: Vec<Signature>,
    pub(crate) with_dtc: bool,
    units: Vec<Vec<(usize, SliceKey)>>,
    /// Units solved so far (the first ones in solving order).
    units_done: usize,
    /// Slice entries of every unit, and of the units solved (for the progress report).
    slice_total: u64,
    slice_done: u64,
}

impl<'a> PairBuild<'a> {
    /// Starts solving `pair` (`[s]` or `[s, s.flip()]`), with distances to conversion if
    /// `with_dtc`. `tb` must hold every table a capture or promotion reaches.
    pub fn new(tb: &'a Tablebase, pair: &[Signature], with_dtc: bool) -> PairBuild<'a> {
        assert!(
            pair.len() == 1 && pair[0].flip() == pair[0]
                || pair.len() == 2 && pair[1] == pair[0].flip()
        );
        let ctx = Pair {
            tb,
            outputs: pair
                .iter()
                .map(|&s| {
                    let indexer = Indexer::new(s);
                    let bytes = indexer.size().div_ceil(4) as usize;
                    let distances =
                        with_dtc.then(|| (0..indexer.size()).map(|_| AtomicU8::new(0)).collect());
                    Output {
                        indexer,
                        codes: (0..bytes).map(|_| AtomicU8::new(0xFF)).collect(),
                        distances,
                        longest: AtomicU8::new(0),
                        counts: Default::default(),
                    }
                })
                .collect(),
        };
        let units = units(pair);
        let slice_total = units.iter().map(|u| unit_entries(pair, u)).sum();
        PairBuild {
            ctx,
            pair: pair.to_vec(),
            with_dtc,
            units,
            units_done: 0,
            slice_total,
            slice_done: 0,
        }
    }

    /// Units of the pair (a slice of the men's ranks with its counterpart).
    pub fn units(&self) -> usize {
        self.units.len()
    }

    /// Units solved so far.
    pub fn units_done(&self) -> usize {
        self.units_done
    }

    /// A checksum of the units in their solving order: a checkpoint saved by a builder that
    /// cut or ordered the pair differently does not match it.
    pub(crate) fn units_fingerprint(&self) -> u64 {
        let mut bytes = Vec::new();
        for unit in &self.units {
            for (table, key) in unit {
                bytes.push(*table as u8);
                bytes.extend_from_slice(&key.white);
                bytes.extend_from_slice(&key.black);
            }
            bytes.push(0xFF);
        }
        crate::file::checksum(&bytes)
    }

    /// Whether every unit is solved.
    pub fn is_finished(&self) -> bool {
        self.units_done == self.units.len()
    }

    /// How far the pair has come: the units solved so far.
    pub fn progress(&self) -> Step {
        // Slice entries count twice the positions (mirror images apart): scale them to the
        // tables' numbering.
        let total: u64 = self.ctx.outputs.iter().map(|o| o.indexer.size()).sum();
        Step {
            done: (self.slice_done as f64 / self.slice_total as f64 * total as f64) as u64,
            entries: total,
            unit: self.units_done.max(1),
            units: self.units.len(),
            wave: None,
        }
    }

    /// Solves the next unit; `progress` is called after its initialisation, after each of
    /// its waves, and when it is finished.
    pub fn solve_next_unit(&mut self, progress: &mut dyn FnMut(Step)) -> Result<(), ProbeError> {
        let unit = &self.units[self.units_done];
        let step = Step {
            unit: self.units_done + 1,
            ..self.progress()
        };
        self.slice_done += solve_unit(&self.ctx, &self.pair, unit, &mut |wave| {
            progress(Step {
                wave: Some(wave),
                ..step
            })
        })?;
        self.units_done += 1;
        progress(self.progress());
        Ok(())
    }

    /// The pair's tables, in the order of the signatures. Call it once every unit is solved.
    pub fn finish(self) -> Vec<Solved> {
        assert!(
            self.is_finished(),
            "a pair is finished only after its last unit"
        );
        self.ctx.outputs.into_iter().map(pack).collect()
    }

    /// For each table of the pair: its 2-bit codes so far, its distances (if kept) and the
    /// longest distance so far. The codes use [`NOT_STORED`] for entries not solved yet.
    pub(crate) fn tables(&self) -> impl Iterator<Item = TableState<'_>> {
        self.ctx.outputs.iter().map(|o| TableState {
            entries: o.indexer.size(),
            codes: &o.codes,
            distances: o.distances.as_deref(),
            longest: o.longest.load(Relaxed),
            counts: o.counts.each_ref().map(|c| c.load(Relaxed)),
        })
    }

    /// Marks the first `units_done` units solved, their values already restored into the
    /// tables (see [`PairBuild::tables`]), with each table's longest distance and counts.
    pub(crate) fn restore(&mut self, units_done: usize, tallies: &[(u8, [u64; 3])]) {
        assert!(units_done <= self.units.len());
        self.units_done = units_done;
        self.slice_done = self.units[..units_done]
            .iter()
            .map(|u| unit_entries(&self.pair, u))
            .sum();
        for (o, &(longest, counts)) in self.ctx.outputs.iter().zip(tallies) {
            o.longest.store(longest, Relaxed);
            for (c, n) in o.counts.iter().zip(counts) {
                c.store(n, Relaxed);
            }
        }
    }
}

/// One table of a pair being built, as a checkpoint saves it.
pub(crate) struct TableState<'a> {
    pub entries: u64,
    pub codes: &'a [AtomicU8],
    pub distances: Option<&'a [AtomicU8]>,
    pub longest: u8,
    /// Positions lost, drawn and won so far (see [`Solved::stats`]).
    pub counts: [u64; 3],
}

/// Slice entries of a unit.
fn unit_entries(pair: &[Signature], unit: &[(usize, SliceKey)]) -> u64 {
    unit.iter()
        .map(|&(t, k)| SliceIndexer::new(pair[t], k).size())
        .sum()
}

/// The pair's units in solving order: each a slice of table 0 with, if it is another slice,
/// the slice its quiet moves lead into; most advanced first.
fn units(pair: &[Signature]) -> Vec<Vec<(usize, SliceKey)>> {
    let mut units: Vec<Vec<(usize, SliceKey)>> = Vec::new();
    for key in SliceKey::all(pair[0]) {
        if pair.len() == 2 {
            units.push(vec![(0, key), (1, key.flip())]);
        } else if key.flip() == key {
            units.push(vec![(0, key)]);
        } else if key < key.flip() {
            units.push(vec![(0, key), (0, key.flip())]);
        }
    }
    units.sort_by_key(|u| std::cmp::Reverse(u[0].1.advancement()));
    units
}

/// Solves one unit and writes its values into the pair's tables; returns its slice entries.
/// `wave` is called with 0 after the initialisation and with each wave's number after it.
fn solve_unit(
    ctx: &Pair<'_>,
    pair: &[Signature],
    unit: &[(usize, SliceKey)],
    wave: &mut dyn FnMut(u32),
) -> Result<u64, ProbeError> {
    let work: Vec<SliceWork> = unit
        .iter()
        .map(|&(table, key)| {
            let indexer = SliceIndexer::new(pair[table], key);
            let n = indexer.size() as usize;
            // Entry numbers are kept as u32 while counting successors and parents; the
            // largest six-piece slice (three kings against three) has 1.74 G entries.
            assert!(n < u32::MAX as usize, "slice of {} too large", pair[table]);
            SliceWork {
                table,
                indexer,
                state: (0..n).map(|_| AtomicU8::new(UNKNOWN)).collect(),
                counter: (0..n).map(|_| AtomicU8::new(0)).collect(),
            }
        })
        .collect();
    // The quiet moves that keep the ranks lead from slice j into slice succ(j).
    let succ = |j: usize| if work.len() == 2 { 1 - j } else { 0 };

    // 1. Initialisation: blocked positions are lost at once (distance 0); positions decided
    // by a move out of the unit (a capture, a promotion, a forward step) one ply later.
    let mut current: Vec<Bits> = work.iter().map(|w| Bits::new(w.state.len())).collect();
    let mut later: Vec<Bits> = work.iter().map(|w| Bits::new(w.state.len())).collect();
    for (j, w) in work.iter().enumerate() {
        let n = w.state.len();
        (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .try_for_each(|c| -> Result<(), ProbeError> {
                let entries = (c * CHUNK) as u64..((c + 1) * CHUNK).min(n) as u64;
                for (i, p) in w.indexer.walk(entries, true) {
                    let i = i as usize;
                    match init_entry(ctx, w, &work[succ(j)], p)? {
                        Init::Unused => w.state[i].store(UNUSED, Relaxed),
                        Init::Blocked(s) => {
                            w.state[i].store(s, Relaxed);
                            if s == LOSS {
                                current[j].set(i);
                            }
                        }
                        Init::Solved(s) => {
                            w.state[i].store(s, Relaxed);
                            if matches!(s & VALUE, WIN | LOSS) {
                                w.counter[i].store(1, Relaxed);
                                later[j].set(i);
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
                Ok(())
            })?;
    }

    // 2. Propagation, one wave per ply: the positions solved at distance d feed their
    // parents in the other slice, which are solved at distance d + 1 (a solved position's
    // counter is not needed any more and keeps its distance, at most 255).
    wave(0);
    let mut distance: u32 = 0;
    while current.iter().chain(&later).any(Bits::any) {
        let next: Vec<Bits> = std::mem::take(&mut later);
        for (j, f) in current.iter().enumerate() {
            let (child, parent) = (&work[j], &work[succ(j)]);
            f.par_for_each_chunk(|first, bits| {
                propagate(child, parent, first, bits, &next[succ(j)])
            });
        }
        distance += 1;
        let d = distance.min(255) as u8;
        for (w, f) in work.iter().zip(&next) {
            f.par_for_each_chunk(|first, bits| {
                for i in ones(first, bits) {
                    w.counter[i].store(d, Relaxed);
                }
            });
        }
        later = work.iter().map(|w| Bits::new(w.state.len())).collect();
        current = next;
        wave(distance);
    }

    // 3. Store: open positions are draws; capture positions and unused entries stay
    // don't care. Every position is counted for the statistics, capture positions too.
    for w in &work {
        let out = &ctx.outputs[w.table];
        let n = w.state.len();
        (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            let mut counts = [0u64; 3];
            let entries = (c * CHUNK) as u64..((c + 1) * CHUNK).min(n) as u64;
            for (i, p) in w.indexer.walk(entries, false) {
                let i = i as usize;
                let s = w.state[i].load(Relaxed);
                if s & VALUE == UNUSED {
                    continue;
                }
                let code = match s & VALUE {
                    LOSS => wdl::code(Wdl::Loss),
                    WIN => wdl::code(Wdl::Win),
                    _ => wdl::code(Wdl::Draw),
                };
                let p = p.expect("solved entries are used");
                counts[code as usize] += positions_of(&p);
                if s & CAPTURE != 0 {
                    continue;
                }
                let g = out.indexer.index(&p);
                out.set(g, code);
                if code != wdl::code(Wdl::Draw) {
                    let d = w.counter[i].load(Relaxed);
                    out.longest.fetch_max(d, Relaxed);
                    if let Some(distances) = &out.distances {
                        distances[g as usize].store(d, Relaxed);
                    }
                }
            }
            for (total, k) in out.counts.iter().zip(counts) {
                total.fetch_add(k, Relaxed);
            }
        });
    }
    Ok(work.iter().map(|w| w.state.len() as u64).sum())
}

/// Classifies an entry of slice `w`, given its placement (`None`: not a position, or the
/// mirror image holds this position's entry), and counts its successor entries in slice
/// `succ`.
fn init_entry(
    ctx: &Pair<'_>,
    w: &SliceWork,
    succ: &SliceWork,
    p: Option<Placement>,
) -> Result<Init, ProbeError> {
    let Some(p) = p else {
        return Ok(Init::Unused);
    };
    let pos = p.to_position().expect("decoded placements are valid");
    // Captures are forced and lead into smaller tables: the probe's rule for a position with
    // a capture (the best over the captures; a lone opponent piece is lost at once) is its
    // value.
    if pos.has_capture() {
        return Ok(Init::Solved(
            CAPTURE | state_of(ctx.tb.probe_captures(&pos)?),
        ));
    }
    // Filled in place: returning a move list by value copies its whole inline array.
    let mut moves = MoveList::new();
    pos.legal_moves_into(&mut moves);
    if moves.is_empty() {
        let other_blocked = !pos.with_side_to_move(Color::Black).has_legal_move();
        return Ok(Init::Blocked(if other_blocked { DRAW } else { LOSS }));
    }
    // Unless two successors can share an entry, each move reaches an entry of its own and
    // the successors need not be indexed.
    let may_share = p.neighbours_may_share_entries();
    let mut successors = [0u32; 256];
    let mut n = 0;
    let mut draw_floor = false;
    for m in moves.iter() {
        // A man's forward step leaves the slice (sideways steps and king moves stay).
        let forward = p.wm & m.from().bit() != 0 && m.from().rank() != m.to().rank();
        let leaves = m.is_promotion() || forward;
        if !leaves && !may_share {
            debug_assert_eq!(
                SliceKey::of(&Placement::of(&pos.play(m))),
                succ.indexer.key()
            );
            n += 1;
            continue;
        }
        let child = pos.play(m);
        let q = Placement::of(&child);
        // A promotion leaves the table (probed below); any other move leaves the slice
        // exactly when it is a man's forward step.
        debug_assert!(m.is_promotion() || forward == (SliceKey::of(&q) != succ.indexer.key()));
        let leaves = if m.is_promotion() {
            Some(ctx.tb.probe(&child)?)
        } else if forward {
            Some(ctx.solved_value(w.table, &child)?)
        } else {
            None
        };
        match leaves.map(Wdl::negate) {
            Some(Wdl::Win) => return Ok(Init::Solved(WIN)),
            Some(Wdl::Draw) => draw_floor = true,
            Some(Wdl::Loss) => {}
            None => {
                // At most 5 kings x 14 squares = 70 quiet moves in a six-piece position.
                successors[n] = succ.indexer.canonical(&q) as u32;
                n += 1;
            }
        }
    }
    let distinct = if may_share {
        let successors = &mut successors[..n];
        successors.sort_unstable();
        successors.windows(2).filter(|w| w[0] != w[1]).count() + usize::from(n > 0)
    } else {
        n
    };
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

/// Undoes the moves into each solved entry of a chunk of `child`'s frontier and updates the
/// parents (in `parent`); marks the parents solved as won or lost in `solved`.
fn propagate(
    child: &SliceWork,
    parent: &SliceWork,
    first: usize,
    bits: &[AtomicU64],
    solved: &Bits,
) {
    let mut parents: Vec<u32> = Vec::with_capacity(128);
    for i in ones(first, bits) {
        let value = child.state[i].load(Relaxed) & VALUE;
        let p = child
            .indexer
            .decode(i as u64)
            .expect("solved entries are used");
        parents.clear();
        // Every parent is `p.flip()` with one set changed: ranked one group at a time.
        let around = parent.indexer.around(&p.flip());
        for_each_parent_set(&p, true, |moved, set| {
            parents.push(around.canonical_with(moved.which(), set) as u32)
        });
        if p.neighbours_may_share_entries() {
            parents.sort_unstable();
            parents.dedup();
        }
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
                    solved.set(e);
                }
            } else if parent.counter[e].fetch_sub(1, Relaxed) == 1 {
                if s & DRAW_FLOOR != 0 {
                    let _ = parent.state[e].compare_exchange(s, DRAW, Relaxed, Relaxed);
                } else if parent.state[e]
                    .compare_exchange(s, LOSS, Relaxed, Relaxed)
                    .is_ok()
                {
                    solved.set(e);
                }
            }
        }
    }
}

/// A set of entries of a slice, a bit each (a wave's frontier: a bit an entry keeps the
/// frontier small however many positions a wave solves).
#[derive(Default)]
struct Bits(Vec<AtomicU64>);

/// Words of [`Bits`] handled by one rayon task.
const WORDS: usize = CHUNK / 64;

impl Bits {
    fn new(n: usize) -> Bits {
        Bits((0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }

    fn set(&self, i: usize) {
        self.0[i / 64].fetch_or(1 << (i % 64), Relaxed);
    }

    fn any(&self) -> bool {
        self.0.par_iter().any(|w| w.load(Relaxed) != 0)
    }

    /// Calls `f(first entry, words)` for chunks of the set, on both cores.
    fn par_for_each_chunk(&self, f: impl Fn(usize, &[AtomicU64]) + Sync) {
        self.0
            .par_chunks(WORDS)
            .enumerate()
            .for_each(|(c, words)| f(c * WORDS * 64, words));
    }
}

/// The entries set in `words`, the first of which stands for entry `first`.
fn ones(first: usize, words: &[AtomicU64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(move |(k, w)| {
        let mut w = w.load(Relaxed);
        std::iter::from_fn(move || {
            (w != 0).then(|| {
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                first + k * 64 + b
            })
        })
    })
}

/// The 2-bit file values of a solved table: don't-care entries repeat the value before them
/// (from a draw at each block's start), so they compress to almost nothing.
fn pack(out: Output) -> Solved {
    let longest = out.longest.into_inner();
    let [loss, draw, win] = out.counts.map(AtomicU64::into_inner);
    let stats = Stats {
        signature: Some(out.indexer.signature()),
        positions: loss + draw + win,
        win,
        draw,
        loss,
    };
    let dtc = out
        .distances
        .map(|d| d.into_iter().map(AtomicU8::into_inner).collect());
    let mut packed: Vec<u8> = out.codes.into_iter().map(AtomicU8::into_inner).collect();
    packed.par_chunks_mut(BLOCK_BYTES).for_each(|bytes| {
        let mut prev = wdl::code(Wdl::Draw);
        for byte in bytes.iter_mut() {
            let mut b = *byte;
            for k in 0..4 {
                let shift = 2 * k;
                let code = b >> shift & 3;
                if code == NOT_STORED {
                    b = b & !(3 << shift) | prev << shift;
                } else {
                    prev = code;
                }
            }
            *byte = b;
        }
    });
    Solved {
        wdl: packed,
        dtc,
        longest,
        stats,
    }
}
