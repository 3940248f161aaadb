//! Two table directories agree: `cargo run --release -p damasi-tb --example compare_tables --
//! DIR_A DIR_B`. For every signature in both, every stored value (positions without a
//! capture) is compared; prints a line per signature and exits non-zero on a difference.
//! Used to check a new builder against tables built by an earlier one.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use damasi_tb::Tablebase;
use rayon::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [a, b] = args.as_slice() else {
        return Err("usage: compare_tables DIR_A DIR_B".into());
    };
    let (ta, tb) = (
        Tablebase::open(Path::new(a))?,
        Tablebase::open(Path::new(b))?,
    );
    let mut differ = 0u64;
    for sig in ta.signatures() {
        let (Some(x), Some(y)) = (ta.table(sig), tb.table(sig)) else {
            continue;
        };
        let ix = x.indexer();
        let (checked, diffs) = (AtomicU64::new(0), AtomicU64::new(0));
        (0..ix.size().div_ceil(4096)).into_par_iter().for_each(|c| {
            for i in c * 4096..((c + 1) * 4096).min(ix.size()) {
                let Some(p) = ix.decode(i) else { continue };
                let pos = p.to_position().expect("decoded placements are valid");
                if pos.has_capture() {
                    continue;
                }
                checked.fetch_add(1, Relaxed);
                if x.get(i).ok() != y.get(i).ok() && diffs.fetch_add(1, Relaxed) < 3 {
                    eprintln!("{sig}: {} differs", pos.to_fen());
                }
            }
        });
        let d = diffs.load(Relaxed);
        println!("{sig}: {} positions, {d} differ", checked.load(Relaxed));
        differ += d;
    }
    if differ > 0 {
        return Err(format!("{differ} values differ").into());
    }
    println!("all equal");
    Ok(())
}
