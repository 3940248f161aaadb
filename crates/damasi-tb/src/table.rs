//! One signature's table, in memory or memory-mapped.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memmap2::Mmap;

use crate::error::TbError;
use crate::file::{Kind, Layout, BLOCK_ENTRIES};
use crate::index::Indexer;
use crate::signature::{Signature, MAX_PIECES};
use crate::wdl;
use damasi::Wdl;

/// Slots of a memory-mapped table's block cache (each holds one block: 16 KiB of values or
/// 64 KiB of distances).
const CACHE_SLOTS: usize = 64;

/// One cache slot: a block number and its decompressed bytes.
type CacheSlot = Mutex<Option<(usize, Arc<Vec<u8>>)>>;

enum Storage {
    /// All values decompressed: 2 bits an entry.
    Memory(Vec<u8>),
    /// The file mapped; blocks decompressed on demand into a small direct-mapped cache.
    Mapped {
        map: Mmap,
        layout: Layout,
        path: PathBuf,
        cache: Vec<CacheSlot>,
    },
}

/// The values of one signature, White to move: win/draw/loss, or distances to conversion.
pub struct Table {
    indexer: Indexer,
    kind: Kind,
    storage: Storage,
}

/// The 2-bit code of entry `i` in packed values (four entries a byte, the first in the low
/// bits).
#[inline]
pub(crate) fn code_at(packed: &[u8], i: u64) -> u8 {
    packed[(i / 4) as usize] >> ((i % 4) * 2) & 3
}

impl Table {
    /// A table from packed 2-bit values (as the builder makes them).
    pub fn from_packed(sig: Signature, packed: Vec<u8>) -> Table {
        let indexer = Indexer::new(sig);
        assert_eq!(packed.len() as u64, indexer.size().div_ceil(4));
        Table {
            indexer,
            kind: Kind::Wdl,
            storage: Storage::Memory(packed),
        }
    }

    /// Opens a table file: read whole into memory, or memory-mapped with a block cache when
    /// `map` is true. The header and index are checked here, blocks when they are read.
    pub fn open(path: &Path, map: bool) -> Result<Table, TbError> {
        Table::open_kind(path, map, Kind::Wdl)
    }

    /// Opens a file of the given kind (as [`Table::open`] does); a file of the other kind
    /// is refused.
    pub fn open_kind(path: &Path, map: bool, kind: Kind) -> Result<Table, TbError> {
        let file = std::fs::File::open(path).map_err(|e| TbError::io(path, e))?;
        // SAFETY: the tables are written once (to a temporary name, then renamed) and never
        // modified in place; a file changed under the mapping could at worst give wrong
        // values, which every block's checksum is there to catch.
        let bytes = unsafe { Mmap::map(&file) }.map_err(|e| TbError::io(path, e))?;
        let layout = Layout::parse(&bytes, path)?;
        if layout.kind != kind {
            let what = match layout.kind {
                Kind::Wdl => "a win/draw/loss table, not distances to conversion",
                Kind::Dtc => "distances to conversion, not a win/draw/loss table",
            };
            return Err(TbError::corrupt(path, what));
        }
        let sig = layout.signature;
        let sane = sig.pieces() <= MAX_PIECES
            && sig.wm + sig.wk > 0
            && sig.bm + sig.bk > 0
            && [sig.wm, sig.wk, sig.bm, sig.bk].iter().all(|&k| k <= 5);
        if !sane {
            return Err(TbError::corrupt(
                path,
                format!("impossible signature {sig}"),
            ));
        }
        let indexer = Indexer::new(sig);
        if indexer.size() != layout.entries {
            return Err(TbError::corrupt(
                path,
                format!("{} entries, {sig} has {}", layout.entries, indexer.size()),
            ));
        }
        let storage = if map {
            Storage::Mapped {
                map: bytes,
                layout,
                path: path.to_path_buf(),
                cache: (0..CACHE_SLOTS).map(|_| Mutex::new(None)).collect(),
            }
        } else {
            Storage::Memory(layout.read_all(&bytes, path)?)
        };
        Ok(Table {
            indexer,
            kind,
            storage,
        })
    }

    /// The signature of the table.
    pub fn signature(&self) -> Signature {
        self.indexer.signature()
    }

    /// The table's index.
    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// Whether the table is kept whole in memory.
    pub fn is_in_memory(&self) -> bool {
        matches!(self.storage, Storage::Memory(_))
    }

    /// The stored value of entry `i` (meaningless for capture positions and unused entries).
    pub fn get(&self, i: u64) -> Result<Wdl, TbError> {
        debug_assert_eq!(self.kind, Kind::Wdl);
        let code = self.raw(i, code_at)?;
        // Code 3 never appears in a valid file; treat it as damage rather than guess.
        wdl::from_code(code).ok_or_else(|| match &self.storage {
            Storage::Mapped { path, .. } => TbError::corrupt(path, "value code 3"),
            Storage::Memory(_) => TbError::corrupt(Path::new("(memory)"), "value code 3"),
        })
    }

    /// The distance to conversion stored at entry `i` of a distance file (see
    /// [`crate::file`]).
    pub fn distance(&self, i: u64) -> Result<u8, TbError> {
        debug_assert_eq!(self.kind, Kind::Dtc);
        self.raw(i, |bytes, i| bytes[i as usize])
    }

    /// Entry `i` read by `at` from the bytes that hold it (the whole table, or its block).
    fn raw(&self, i: u64, at: fn(&[u8], u64) -> u8) -> Result<u8, TbError> {
        Ok(match &self.storage {
            Storage::Memory(packed) => at(packed, i),
            Storage::Mapped {
                map,
                layout,
                path,
                cache,
            } => {
                let b = (i / BLOCK_ENTRIES) as usize;
                let within = i % BLOCK_ENTRIES;
                let slot = &cache[b % CACHE_SLOTS];
                let hit = match &*slot.lock().unwrap_or_else(|p| p.into_inner()) {
                    Some((cached, data)) if *cached == b => Some(Arc::clone(data)),
                    _ => None,
                };
                let data = match hit {
                    Some(d) => d,
                    None => {
                        let d = Arc::new(layout.read_block(map, b, path)?);
                        *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some((b, Arc::clone(&d)));
                        d
                    }
                };
                at(&data, within)
            }
        })
    }

    /// Calls `f` with the bytes of block `b` as the file stores them decompressed (entries
    /// `b * 65536` on; 2 bits or a byte an entry), read once for a walk over the whole
    /// block: a memory-mapped table decompresses it outside its cache, so that threads
    /// walking different blocks never meet on a cache slot.
    pub fn with_block<R>(&self, b: usize, f: impl FnOnce(&[u8]) -> R) -> Result<R, TbError> {
        Ok(match &self.storage {
            Storage::Memory(packed) => {
                let per_block = self.kind.bytes(BLOCK_ENTRIES) as usize;
                let start = (b * per_block).min(packed.len());
                f(&packed[start..((b + 1) * per_block).min(packed.len())])
            }
            Storage::Mapped {
                map, layout, path, ..
            } => f(&layout.read_block(map, b, path)?),
        })
    }

    /// The packed values of an in-memory table (for writing it out).
    pub fn packed(&self) -> Option<&[u8]> {
        match &self.storage {
            Storage::Memory(p) => Some(p),
            Storage::Mapped { .. } => None,
        }
    }
}
