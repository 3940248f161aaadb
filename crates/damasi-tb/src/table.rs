//! One signature's table, in memory or memory-mapped.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memmap2::Mmap;

use crate::error::TbError;
use crate::file::{Layout, BLOCK_ENTRIES};
use crate::index::Indexer;
use crate::signature::{Signature, MAX_PIECES};
use crate::wdl::Wdl;

/// Slots of a memory-mapped table's block cache (each holds one 16 KiB block).
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

/// The values of one signature, White to move.
pub struct Table {
    indexer: Indexer,
    storage: Storage,
}

#[inline]
fn code_at(packed: &[u8], i: u64) -> u8 {
    packed[(i / 4) as usize] >> ((i % 4) * 2) & 3
}

impl Table {
    /// A table from packed 2-bit values (as the builder makes them).
    pub fn from_packed(sig: Signature, packed: Vec<u8>) -> Table {
        let indexer = Indexer::new(sig);
        assert_eq!(packed.len() as u64, indexer.size().div_ceil(4));
        Table {
            indexer,
            storage: Storage::Memory(packed),
        }
    }

    /// Opens a table file: read whole into memory, or memory-mapped with a block cache when
    /// `map` is true. The header and index are checked here, blocks when they are read.
    pub fn open(path: &Path, map: bool) -> Result<Table, TbError> {
        let file = std::fs::File::open(path).map_err(|e| TbError::io(path, e))?;
        // SAFETY: the tables are written once (to a temporary name, then renamed) and never
        // modified in place; a file changed under the mapping could at worst give wrong
        // values, which every block's checksum is there to catch.
        let bytes = unsafe { Mmap::map(&file) }.map_err(|e| TbError::io(path, e))?;
        let layout = Layout::parse(&bytes, path)?;
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
        Ok(Table { indexer, storage })
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
        let code = match &self.storage {
            Storage::Memory(packed) => code_at(packed, i),
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
                code_at(&data, within)
            }
        };
        // Code 3 never appears in a valid file; treat it as damage rather than guess.
        Wdl::from_code(code).ok_or_else(|| match &self.storage {
            Storage::Mapped { path, .. } => TbError::corrupt(path, "value code 3"),
            Storage::Memory(_) => TbError::corrupt(Path::new("(memory)"), "value code 3"),
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
