//! The table file format (version 1), little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `DAMASITB` |
//! | 8..12 | version, 1 |
//! | 12..16 | signature: white men, white kings, black men, black kings |
//! | 16..24 | number of entries |
//! | 24..28 | entries per block (65,536) |
//! | 28..32 | number of blocks `n` |
//! | 32..40 | checksum of bytes 0..32 and of the block index |
//! | 40..40+16n | block index: for each block the end offset of its compressed bytes (counted from the start of the data) and their checksum |
//! | then | the blocks, each zstd-compressed on its own |
//!
//! A block holds 2-bit values (four entries a byte, the first in the low bits): 0 loss,
//! 1 draw, 2 win, for White to move. Entries whose value is never read (capture positions,
//! unused entries) repeat the value before them, which costs zstd almost nothing.
//! Independent blocks let a memory-mapped table decompress only what a probe touches.
//!
//! Distance-to-conversion files (`.dtc`, magic `DAMASIDC`, used only at the root) have the
//! same layout with a byte an entry: for a won or lost position, the plies until the next
//! capture, promotion or forward step of a man with best play (the winner hurrying, the loser
//! delaying; 255 for 255 or more; 0 for a position with no legal move), 0 for draws and
//! entries never read.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::TbError;
use crate::signature::Signature;

/// The first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"DAMASITB";
/// The first eight bytes of every distance-to-conversion file.
pub const DTC_MAGIC: [u8; 8] = *b"DAMASIDC";

/// What a file holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// Win/draw/loss, 2 bits an entry (`.dtb`).
    Wdl,
    /// Distance to conversion, a byte an entry (`.dtc`).
    Dtc,
}

impl Kind {
    const fn magic(self) -> [u8; 8] {
        match self {
            Kind::Wdl => MAGIC,
            Kind::Dtc => DTC_MAGIC,
        }
    }

    /// Bytes that hold `entries` entries.
    pub const fn bytes(self, entries: u64) -> u64 {
        match self {
            Kind::Wdl => entries.div_ceil(4),
            Kind::Dtc => entries,
        }
    }
}
/// The format version this code writes and reads.
pub const VERSION: u32 = 1;
/// Entries per compressed block.
pub const BLOCK_ENTRIES: u64 = 1 << 16;
/// Bytes of a full block before compression.
pub const BLOCK_BYTES: usize = (BLOCK_ENTRIES / 4) as usize;
const HEADER: usize = 40;
/// zstd level: high levels cost build time for a few percent of disk.
const ZSTD_LEVEL: i32 = 9;

/// A checksum of bytes: a multiply-rotate hash over 8-byte words (in the style of FxHash).
/// It detects damaged or truncated data; it is not meant to resist forgery.
pub fn checksum(data: &[u8]) -> u64 {
    let mut h: u64 = 0x9E37_79B9_7F4A_7C15 ^ data.len() as u64;
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h ^ w).wrapping_mul(0x5851_F42D_4C95_7F2D).rotate_left(29);
    }
    let mut last = [0u8; 8];
    let rem = chunks.remainder();
    last[..rem.len()].copy_from_slice(rem);
    h = (h ^ u64::from_le_bytes(last)).wrapping_mul(0x5851_F42D_4C95_7F2D);
    h ^ (h >> 31)
}

/// Number of blocks for `entries` entries.
pub fn block_count(entries: u64) -> u64 {
    entries.div_ceil(BLOCK_ENTRIES)
}

/// Writes a table: `packed` holds `entries` 2-bit values. Written to a temporary name first
/// and renamed, so a file with the final name is always complete.
pub fn write_table(
    path: &Path,
    sig: Signature,
    entries: u64,
    packed: &[u8],
) -> Result<(), TbError> {
    write_file(path, Kind::Wdl, sig, entries, packed)
}

/// Writes a file of either kind (`data` holds `entries` entries), through a temporary name.
pub fn write_file(
    path: &Path,
    kind: Kind,
    sig: Signature,
    entries: u64,
    data: &[u8],
) -> Result<(), TbError> {
    debug_assert_eq!(data.len() as u64, kind.bytes(entries));
    let blocks: Vec<Vec<u8>> = data
        .par_chunks(kind.bytes(BLOCK_ENTRIES) as usize)
        .map(|raw| zstd::bulk::compress(raw, ZSTD_LEVEL))
        .collect::<Result<_, _>>()
        .map_err(|e| TbError::io(path, e))?;
    let mut index = Vec::with_capacity(blocks.len() * 16);
    let mut end = 0u64;
    for b in &blocks {
        end += b.len() as u64;
        index.extend_from_slice(&end.to_le_bytes());
        index.extend_from_slice(&checksum(b).to_le_bytes());
    }
    let mut head = Vec::with_capacity(HEADER);
    head.extend_from_slice(&kind.magic());
    head.extend_from_slice(&VERSION.to_le_bytes());
    head.extend_from_slice(&[sig.wm, sig.wk, sig.bm, sig.bk]);
    head.extend_from_slice(&entries.to_le_bytes());
    head.extend_from_slice(&(BLOCK_ENTRIES as u32).to_le_bytes());
    head.extend_from_slice(&(blocks.len() as u32).to_le_bytes());
    let mut summed = head.clone();
    summed.extend_from_slice(&index);
    head.extend_from_slice(&checksum(&summed).to_le_bytes());

    write_through_part(path, |mut f| {
        f.write_all(&head)?;
        f.write_all(&index)?;
        for b in &blocks {
            f.write_all(b)?;
        }
        Ok(f)
    })
}

/// Writes `path` through a temporary name (`path` + `.part`): `write` fills the file, which
/// is synced and renamed only if it succeeds, so a file with the final name is always
/// whole. On failure the temporary file is removed.
pub(crate) fn write_through_part(
    path: &Path,
    write: impl FnOnce(BufWriter<File>) -> std::io::Result<BufWriter<File>>,
) -> Result<(), TbError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = PathBuf::from(tmp);
    let written = || -> std::io::Result<()> {
        let f = write(BufWriter::new(File::create(&tmp)?))?;
        f.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    written().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        TbError::io(path, e)
    })
}

/// The table files in `dir` (`*.dtb` values, `*.dtc` distances, named by their signature as
/// [`Signature::file_name`] and [`Signature::dtc_file_name`] write them): signature, kind and
/// path of each, other files left out. A directory that does not exist holds none.
pub fn table_files(dir: &Path) -> Result<Vec<(Signature, Kind, PathBuf)>, TbError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(TbError::io(dir, e)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| TbError::io(dir, e))?;
        let name = entry.file_name();
        let Some((stem, kind)) = name.to_str().and_then(|n| {
            n.strip_suffix(".dtb")
                .map(|s| (s, Kind::Wdl))
                .or_else(|| n.strip_suffix(".dtc").map(|s| (s, Kind::Dtc)))
        }) else {
            continue;
        };
        if let Ok(sig) = stem.parse::<Signature>() {
            files.push((sig, kind, entry.path()));
        }
    }
    Ok(files)
}

/// A table file's header and block index, checked.
#[derive(Clone, Debug)]
pub struct Layout {
    /// What the file holds.
    pub kind: Kind,
    /// The material the file holds.
    pub signature: Signature,
    /// Number of entries.
    pub entries: u64,
    /// For each block: start and end of its compressed bytes in the file, and the checksum.
    blocks: Vec<(usize, usize, u64)>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl Layout {
    /// Reads and checks the header and block index of a file's bytes (the blocks themselves
    /// are checked when they are read).
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Layout, TbError> {
        if bytes.len() < HEADER {
            return Err(TbError::corrupt(
                path,
                "shorter than the header (truncated?)",
            ));
        }
        let kind = match bytes[0..8].try_into().expect("8 bytes") {
            MAGIC => Kind::Wdl,
            DTC_MAGIC => Kind::Dtc,
            _ => return Err(TbError::corrupt(path, "wrong magic bytes")),
        };
        let version = u32_at(bytes, 8);
        if version != VERSION {
            return Err(TbError::corrupt(
                path,
                format!("format version {version}, this program reads {VERSION}"),
            ));
        }
        let signature = Signature::new(bytes[12], bytes[13], bytes[14], bytes[15]);
        let entries = u64_at(bytes, 16);
        let block_entries = u32_at(bytes, 24) as u64;
        let n = u32_at(bytes, 28) as usize;
        if block_entries != BLOCK_ENTRIES || n as u64 != block_count(entries) {
            return Err(TbError::corrupt(path, "inconsistent block layout"));
        }
        let data = HEADER + 16 * n;
        if bytes.len() < data {
            return Err(TbError::corrupt(path, "truncated block index"));
        }
        let mut summed = bytes[0..32].to_vec();
        summed.extend_from_slice(&bytes[HEADER..data]);
        if checksum(&summed) != u64_at(bytes, 32) {
            return Err(TbError::corrupt(path, "header checksum mismatch"));
        }
        let mut blocks = Vec::with_capacity(n);
        let mut start = data;
        for b in 0..n {
            let end = u64_at(bytes, HEADER + 16 * b) as usize;
            let end = data
                .checked_add(end)
                .filter(|&e| e >= start && e <= bytes.len());
            let Some(end) = end else {
                return Err(TbError::corrupt(
                    path,
                    format!("block {b} lies outside the file (truncated?)"),
                ));
            };
            blocks.push((start, end, u64_at(bytes, HEADER + 16 * b + 8)));
            start = end;
        }
        if start != bytes.len() {
            return Err(TbError::corrupt(
                path,
                "trailing bytes after the last block",
            ));
        }
        Ok(Layout {
            kind,
            signature,
            entries,
            blocks,
        })
    }

    /// Bytes of block `b` once decompressed.
    fn raw_len(&self, b: usize) -> usize {
        let first = b as u64 * BLOCK_ENTRIES;
        let n = (self.entries - first).min(BLOCK_ENTRIES);
        self.kind.bytes(n) as usize
    }

    /// Decompresses block `b` of the file's `bytes`, checking its checksum and length.
    pub fn read_block(&self, bytes: &[u8], b: usize, path: &Path) -> Result<Vec<u8>, TbError> {
        let (start, end, sum) = self.blocks[b];
        let compressed = &bytes[start..end];
        if checksum(compressed) != sum {
            return Err(TbError::corrupt(
                path,
                format!("block {b} checksum mismatch"),
            ));
        }
        let want = self.raw_len(b);
        let raw = zstd::bulk::decompress(compressed, want)
            .map_err(|e| TbError::corrupt(path, format!("block {b} does not decompress: {e}")))?;
        if raw.len() != want {
            return Err(TbError::corrupt(
                path,
                format!("block {b} has the wrong length"),
            ));
        }
        Ok(raw)
    }

    /// Every block decompressed into one array (for tables kept in memory).
    pub fn read_all(&self, bytes: &[u8], path: &Path) -> Result<Vec<u8>, TbError> {
        let parts: Vec<Vec<u8>> = (0..self.blocks.len())
            .into_par_iter()
            .map(|b| self.read_block(bytes, b, path))
            .collect::<Result<_, _>>()?;
        Ok(parts.concat())
    }
}
