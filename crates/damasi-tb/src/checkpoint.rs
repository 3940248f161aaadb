//! Checkpoints of a pair being built, so that an interrupted build resumes inside the pair
//! instead of starting it over (a six-piece pair takes up to an hour or more).
//!
//! Between two units the state of a [`PairBuild`] is only its tables so far (2-bit codes,
//! distances if kept, the longest distance), so that is what a checkpoint holds. The file,
//! `<first signature>.checkpoint` next to the tables, is one zstd frame with a content
//! checksum, holding (little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `DAMASICP` |
//! | 4 | version, 1 |
//! | 1 | signatures in the pair `k` (1 or 2) |
//! | 4k | the signatures: white men, white kings, black men, black kings |
//! | 1 | 1 if distances to conversion are kept |
//! | 4 | units of the pair |
//! | 4 | units solved |
//! | 8 | a checksum of the units in solving order (a builder that cuts the pair otherwise refuses the file) |
//! | 33k | per table: entries (8 bytes), the longest distance so far (1 byte), and the positions lost, drawn and won so far (8 bytes each, for the statistics) |
//! | then | per table: the codes (a quarter byte an entry), then the distances if kept |
//!
//! It is written through a temporary name and renamed, so a checkpoint is always whole; one
//! that does not match the pair being built, or is damaged, is refused with a reason and the
//! pair starts over.

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;

use crate::builder::PairBuild;
use crate::error::TbError;
use crate::file::write_through_part;
use crate::probe::Tablebase;
use crate::signature::Signature;

/// The first eight bytes of a checkpoint (inside its zstd frame).
pub const CHECKPOINT_MAGIC: [u8; 8] = *b"DAMASICP";
/// The checkpoint format version this code writes and reads.
pub const CHECKPOINT_VERSION: u32 = 2;
/// A fast level: a checkpoint is written every few minutes and read back at most once.
const ZSTD_LEVEL: i32 = 1;
/// Bytes copied out of (or into) the atomics at a time.
const BUFFER: usize = 1 << 20;

/// Where the checkpoint of `pair` lives in `dir`.
pub fn checkpoint_path(dir: &Path, pair: &[Signature]) -> PathBuf {
    dir.join(format!("{}.checkpoint", pair[0]))
}

/// Saves `build` to `path` (through a temporary name, synced before the rename).
pub fn write_checkpoint(path: &Path, build: &PairBuild<'_>) -> Result<(), TbError> {
    write_through_part(path, |file| {
        let mut z = zstd::stream::write::Encoder::new(file, ZSTD_LEVEL)?;
        z.include_checksum(true)?;
        let mut head = Vec::new();
        head.extend_from_slice(&CHECKPOINT_MAGIC);
        head.extend_from_slice(&CHECKPOINT_VERSION.to_le_bytes());
        head.push(build.pair.len() as u8);
        for s in &build.pair {
            head.extend_from_slice(&[s.wm, s.wk, s.bm, s.bk]);
        }
        head.push(u8::from(build.with_dtc));
        head.extend_from_slice(&(build.units() as u32).to_le_bytes());
        head.extend_from_slice(&(build.units_done() as u32).to_le_bytes());
        head.extend_from_slice(&build.units_fingerprint().to_le_bytes());
        for t in build.tables() {
            head.extend_from_slice(&t.entries.to_le_bytes());
            head.push(t.longest);
            for n in t.counts {
                head.extend_from_slice(&n.to_le_bytes());
            }
        }
        z.write_all(&head)?;
        let mut buf = Vec::with_capacity(BUFFER);
        for t in build.tables() {
            for data in std::iter::once(t.codes).chain(t.distances) {
                for chunk in data.chunks(BUFFER) {
                    buf.clear();
                    buf.extend(chunk.iter().map(|b| b.load(Relaxed)));
                    z.write_all(&buf)?;
                }
            }
        }
        z.finish()
    })
}

/// Reads the checkpoint at `path` into a build of `pair` that goes on from the units it
/// had solved. A file that belongs to another pair, or to a build with or without
/// distances when this one is the other way, or that is damaged, is refused
/// ([`TbError::Corrupt`] says why).
pub fn read_checkpoint<'a>(
    path: &Path,
    tb: &'a Tablebase,
    pair: &[Signature],
    with_dtc: bool,
) -> Result<PairBuild<'a>, TbError> {
    let file = File::open(path).map_err(|e| TbError::io(path, e))?;
    let mut z =
        zstd::stream::read::Decoder::new(BufReader::new(file)).map_err(|e| TbError::io(path, e))?;
    let bad = |what: String| TbError::corrupt(path, what);
    // A short read or a zstd error (a truncated or damaged frame) is a damaged file.
    let mut read = |buf: &mut [u8]| {
        z.read_exact(buf)
            .map_err(|e| bad(format!("cannot be read to its end ({e})")))
    };

    let mut fixed = [0u8; 13];
    read(&mut fixed)?;
    if fixed[..8] != CHECKPOINT_MAGIC {
        return Err(bad("wrong magic".into()));
    }
    let version = u32::from_le_bytes(fixed[8..12].try_into().expect("4 bytes"));
    if version != CHECKPOINT_VERSION {
        return Err(bad(format!(
            "version {version}, this program reads version {CHECKPOINT_VERSION}"
        )));
    }
    let k = fixed[12] as usize;
    if !(1..=2).contains(&k) {
        return Err(bad(format!("{k} signatures in a pair")));
    }
    let mut sigs = vec![0u8; 4 * k];
    read(&mut sigs)?;
    let sigs: Vec<Signature> = sigs
        .chunks(4)
        .map(|c| Signature::new(c[0], c[1], c[2], c[3]))
        .collect();
    if sigs != pair {
        let names: Vec<String> = sigs.iter().map(|s| s.to_string()).collect();
        return Err(bad(format!("it belongs to {}", names.join(" "))));
    }
    let mut rest = [0u8; 17];
    read(&mut rest)?;
    if (rest[0] == 1) != with_dtc {
        return Err(bad(if with_dtc {
            "it has no distances to conversion".into()
        } else {
            "it has distances to conversion".into()
        }));
    }
    let mut build = PairBuild::new(tb, pair, with_dtc);
    let units = u32::from_le_bytes(rest[1..5].try_into().expect("4 bytes")) as usize;
    let units_done = u32::from_le_bytes(rest[5..9].try_into().expect("4 bytes")) as usize;
    if units != build.units() || units_done > units {
        return Err(bad(format!(
            "{units_done} of {units} units, the pair has {}",
            build.units()
        )));
    }
    let fingerprint = u64::from_le_bytes(rest[9..17].try_into().expect("8 bytes"));
    if fingerprint != build.units_fingerprint() {
        return Err(bad("its units are not this builder's".into()));
    }
    let mut tallies = Vec::new();
    for (s, want) in pair.iter().zip(build.tables().map(|t| t.entries)) {
        let mut t = [0u8; 33];
        read(&mut t)?;
        let entries = u64::from_le_bytes(t[..8].try_into().expect("8 bytes"));
        if entries != want {
            return Err(bad(format!(
                "{entries} entries for {s}, the table has {want}"
            )));
        }
        let count = |k: usize| u64::from_le_bytes(t[9 + 8 * k..17 + 8 * k].try_into().expect("8"));
        tallies.push((t[8], [count(0), count(1), count(2)]));
    }
    let mut buf = vec![0u8; BUFFER];
    for t in build.tables() {
        for data in std::iter::once(t.codes).chain(t.distances) {
            for chunk in data.chunks(BUFFER) {
                let buf = &mut buf[..chunk.len()];
                read(buf)?;
                for (a, &b) in chunk.iter().zip(buf.iter()) {
                    a.store(b, Relaxed);
                }
            }
        }
    }
    // The frame's checksum is checked when its end is read: nothing may follow.
    let mut end = [0u8; 1];
    match z.read(&mut end) {
        Ok(0) => {}
        Ok(_) => return Err(bad("bytes after the tables".into())),
        Err(e) => return Err(bad(format!("cannot be read to its end ({e})"))),
    }
    build.restore(units_done, &tallies);
    Ok(build)
}
