//! Statistics of a table: wins, draws and losses for White to move over every placement.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::error::{ProbeError, TbError};
use crate::file::BLOCK_ENTRIES;
use crate::placement::Placement;
use crate::probe::Tablebase;
use crate::signature::Signature;
use crate::table::code_at;
use crate::wdl;
use damasi::Wdl;

/// Counts of one signature, White to move, over every placement of its pieces with men on
/// the ranks they can stand on (mirror images counted separately, capture positions
/// included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// The signature.
    pub signature: Option<Signature>,
    /// Positions counted.
    pub positions: u64,
    /// Won for White.
    pub win: u64,
    /// Drawn.
    pub draw: u64,
    /// Lost for White.
    pub loss: u64,
}

/// The positions an entry stands for: a position and its mirror image share the entry, so
/// two unless the placement is its own mirror image.
pub(crate) fn positions_of(p: &Placement) -> u64 {
    if p.mirror() == *p {
        1
    } else {
        2
    }
}

/// The statistics of one signature's table (which must be loaded in `tb`, with every table
/// its captures reach).
pub fn signature_stats(tb: &Tablebase, sig: Signature) -> Result<Stats, ProbeError> {
    let table = tb.table(sig).ok_or(ProbeError::MissingTable(sig))?;
    let ix = table.indexer();
    let counts = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];
    let n = ix.size();
    // A block at a time: its values are decompressed once, not looked up entry by entry.
    (0..n.div_ceil(BLOCK_ENTRIES))
        .into_par_iter()
        .try_for_each(|b| -> Result<(), ProbeError> {
            let first = b * BLOCK_ENTRIES;
            let local = table.with_block(b as usize, |codes| {
                let mut local = [0u64; 3];
                for i in first..(first + BLOCK_ENTRIES).min(n) {
                    let Some(p) = ix.decode(i) else { continue };
                    let pos = p.to_position().expect("decoded placements are valid");
                    // A quiet position's value is its entry; a capture position's, the best
                    // over its captures.
                    let value = if pos.has_capture() {
                        tb.probe_captures(&pos)?
                    } else {
                        wdl::from_code(code_at(codes, i - first)).ok_or_else(|| {
                            let file = sig.file_name();
                            ProbeError::File(TbError::corrupt(file.as_ref(), "value code 3"))
                        })?
                    };
                    local[value as usize] += positions_of(&p);
                }
                Ok::<_, ProbeError>(local)
            })??;
            for (c, l) in counts.iter().zip(local) {
                c.fetch_add(l, Relaxed);
            }
            Ok(())
        })?;
    let [loss, draw, win] = counts.map(|c| c.into_inner());
    Ok(Stats {
        signature: Some(sig),
        positions: loss + draw + win,
        win,
        draw,
        loss,
    })
}

impl Stats {
    /// Share of a value among the positions, in percent.
    pub fn percent(&self, v: Wdl) -> f64 {
        let k = match v {
            Wdl::Win => self.win,
            Wdl::Draw => self.draw,
            Wdl::Loss => self.loss,
        };
        100.0 * k as f64 / self.positions.max(1) as f64
    }
}
