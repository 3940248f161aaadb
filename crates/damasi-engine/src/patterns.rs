//! Pattern evaluation: learned tables over windows of 12 squares, added to the feature
//! evaluation of [`crate::eval`].
//!
//! # Windows
//!
//! A window is 4 files by 3 ranks. Men stand only on ranks 2 to 7, so the windows cover
//! exactly those six ranks: rank bands 2-4, 3-5, 4-6 and 5-7 (four bands, each rank in up to
//! three of them) times file groups a-d, c-f and e-h (each file in one or two of them), twelve
//! windows that cover every square a man can stand on. Overlapping windows let the tables see
//! the relations between neighbouring squares across window borders (a window that only
//! tiled the board would miss every pair cut by a border).
//!
//! Each square has 3 states: empty (kings count as empty: they are global features), own
//! man, opponent man, so a window has 3^12 = 531,441 states and a table as many entries.
//!
//! # Symmetries, shared weights
//!
//! - Colour flip (ranks reflected, colours swapped, the other side to move) is exact: each
//!   window is read once from White's view (own = White's men, ranks counted from rank 1) and
//!   once from Black's (own = Black's men, ranks counted from rank 8) in the same tables, and
//!   the pattern score is White's sum minus Black's.
//! - Left-right mirror is exact: the a-d window is read from file a towards d and the e-h
//!   window from file h towards e into the same table ("edge" tables); the c-f window, its
//!   own mirror image, is read in both directions and the smaller of the two indices is used
//!   (a canonical form: a window and its mirror image share one entry; "centre" tables).
//!   Adding both readings' entries would be exact too, but costs a third more lookups.
//!
//! So there are 4 bands x 2 file groups = [`TABLES`] tables, 12 lookups a side.
//!
//! # Phases
//!
//! One pattern set for the whole game: with the data this project can make today (hundreds
//! of thousands of positions) a second set would halve the samples each entry sees. The game
//! phase enters through the global features, which are [`crate::eval`]'s features with their
//! middlegame and endgame weights blended by the number of men (material, kings,
//! advancement, king mobility, the side to move and the others listed in
//! [`crate::eval::feature`]).
//!
//! # Index computation
//!
//! A row of a window is 4 bits of own men and 4 bits of opponent men, shifted out of the
//! bitboards; a 256-entry table turns the 8 bits into the row's base-3 value (and a second
//! one into the value read right to left). The window's index is `row0 + 81 row1 + 6561 row2`.
//!
//! # Weights file
//!
//! Little-endian: magic `DMPW`, version `u32` (1), tables `u32` (8), entries per table `u32`
//! (531,441), global features `u32` (22); the middlegame then the endgame weights of the global
//! features as `i32`; the pattern entries as `i16` (table after table, centi-men); an FNV-1a
//! 64-bit checksum of everything before it as `u64`. See `docs/training.md`.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use damasi::{Color, Piece, Position, Role, Square};

use crate::eval::{feature, Weights};

/// Squares in a window.
pub const WINDOW_SQUARES: usize = 12;
/// Entries of one table: 3^12.
pub const TABLE_SIZE: usize = 531_441;
/// Rank bands: relative ranks 2-4, 3-5, 4-6, 5-7.
pub const BANDS: usize = 4;
/// File groups up to the mirror: 0 = edge (a-d, and e-h mirrored), 1 = centre (c-f).
pub const GROUPS: usize = 2;
/// Tables: one per band and file group (`band * GROUPS + group`).
pub const TABLES: usize = BANDS * GROUPS;
/// Entries in all tables.
pub const ENTRIES: usize = TABLES * TABLE_SIZE;
/// Table lookups per position: 12 per side (4 bands x (a-d, e-h, c-f)).
pub const LOOKUPS: usize = 24;

/// Base-3 value of a row of 4 squares, file offset 0 = digit 0: index `own | opp << 4`.
const fn row_table(reversed: bool) -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let (own, opp) = (i & 15, i >> 4);
        let mut v = 0u32;
        let mut f = 0;
        while f < 4 {
            let digit = if own >> f & 1 == 1 {
                1
            } else if opp >> f & 1 == 1 {
                2
            } else {
                0
            };
            let place = if reversed { 3 - f } else { f };
            v += digit * 3u32.pow(place as u32);
            f += 1;
        }
        t[i] = v;
        i += 1;
    }
    t
}

static ROW: [u32; 256] = row_table(false);
static ROW_REV: [u32; 256] = row_table(true);

/// The 8-bit row key of rank `rank` (0 = rank 1), files `file .. file + 4`.
#[inline(always)]
fn row_bits(own: u64, opp: u64, rank: usize, file: usize) -> usize {
    let s = rank * 8 + file;
    ((own >> s) & 15 | ((opp >> s) & 15) << 4) as usize
}

/// Calls `f(entry, sign)` for the [`LOOKUPS`] table entries of `pos`: `entry` indexes all
/// tables (`table * TABLE_SIZE + index`), `sign` is +1 for White's windows and -1 for Black's.
/// The pattern score from White's view is `sum(sign * table[entry])`.
#[inline(always)]
pub fn entries(pos: &Position, mut f: impl FnMut(usize, i32)) {
    for (c, sign) in [(Color::White, 1), (Color::Black, -1)] {
        let own = pos.men_of(c);
        let opp = pos.men_of(!c);
        // The four readings (a-d, e-h reversed, c-f, c-f reversed) of each relative rank 1 to
        // 6 (0 = the own back rank), read once for the three bands that share a rank.
        let mut rows = [[0usize; 4]; 7];
        for (rel, row) in rows.iter_mut().enumerate().skip(1) {
            let rank = if c == Color::White { rel } else { 7 - rel };
            let centre = row_bits(own, opp, rank, 2);
            *row = [
                ROW[row_bits(own, opp, rank, 0)] as usize,
                ROW_REV[row_bits(own, opp, rank, 4)] as usize,
                ROW[centre] as usize,
                ROW_REV[centre] as usize,
            ];
        }
        for band in 0..BANDS {
            let (r0, r1, r2) = (&rows[band + 1], &rows[band + 2], &rows[band + 3]);
            let idx = |j: usize| r0[j] + 81 * r1[j] + 6561 * r2[j];
            let edge = (band * GROUPS) * TABLE_SIZE;
            let centre = (band * GROUPS + 1) * TABLE_SIZE;
            f(edge + idx(0), sign);
            f(edge + idx(1), sign);
            f(centre + idx(2).min(idx(3)), sign);
        }
    }
}

/// The learned tables, [`ENTRIES`] values in centi-men.
#[derive(Clone, PartialEq, Eq)]
pub struct PatternTables {
    values: Vec<i16>,
}

impl fmt::Debug for PatternTables {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nonzero = self.values.iter().filter(|v| **v != 0).count();
        write!(f, "PatternTables {{ {nonzero} of {ENTRIES} entries set }}")
    }
}

impl Default for PatternTables {
    fn default() -> Self {
        PatternTables::zero()
    }
}

impl PatternTables {
    /// Tables of zeros (the pattern score is 0 everywhere).
    pub fn zero() -> PatternTables {
        PatternTables {
            values: vec![0; ENTRIES],
        }
    }

    /// Tables from [`ENTRIES`] values (`None` for another length).
    pub fn from_values(values: Vec<i16>) -> Option<PatternTables> {
        (values.len() == ENTRIES).then_some(PatternTables { values })
    }

    /// All entries, table after table.
    pub fn values(&self) -> &[i16] {
        &self.values
    }

    /// The pattern score of `pos` from White's view, in centi-men.
    #[inline]
    pub fn score_white(&self, pos: &Position) -> i32 {
        let mut s = 0i32;
        let v = &self.values;
        entries(pos, |e, sign| s += sign * v[e] as i32);
        s
    }
}

/// The position with White's pieces `white`, Black's `black`, kings `kings` (bit `8 * rank +
/// file`, rank 0 = rank 1) and `side` to move, checked like [`Position::from_pieces`]
/// (`None` if it cannot occur). For reading training records.
pub fn position_from_bits(white: u64, black: u64, kings: u64, side: Color) -> Option<Position> {
    if white & black != 0 || kings & !(white | black) != 0 {
        return None;
    }
    let pieces = (0..64u8).filter_map(|i| {
        let sq = Square::new(i)?;
        let color = if white & sq.bit() != 0 {
            Color::White
        } else if black & sq.bit() != 0 {
            Color::Black
        } else {
            return None;
        };
        let role = if kings & sq.bit() != 0 {
            Role::King
        } else {
            Role::Man
        };
        Some((sq, Piece { color, role }))
    });
    Position::from_pieces(pieces, side).ok()
}

/// Why a weights file was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightsFileError {
    /// The file could not be read.
    Io(String),
    /// The file is shorter than its header says (or than a header).
    Truncated {
        /// Bytes expected.
        expected: usize,
        /// Bytes found.
        found: usize,
    },
    /// The file does not start with `DMPW` (pattern tables) or `DMNN` (a network).
    BadMagic,
    /// A version, table count, table size or feature count this engine does not know.
    BadHeader(String),
    /// The checksum does not match the contents.
    BadChecksum,
    /// Bytes after the checksum.
    TrailingBytes(usize),
}

impl fmt::Display for WeightsFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsFileError::Io(e) => write!(f, "cannot read the weights file: {e}"),
            WeightsFileError::Truncated { expected, found } => write!(
                f,
                "weights file truncated: {found} bytes, {expected} expected"
            ),
            WeightsFileError::BadMagic => {
                write!(f, "not a damasi weights file (no DMPW or DMNN magic)")
            }
            WeightsFileError::BadHeader(e) => write!(f, "weights file header: {e}"),
            WeightsFileError::BadChecksum => write!(f, "weights file corrupt: checksum mismatch"),
            WeightsFileError::TrailingBytes(n) => {
                write!(f, "weights file has {n} bytes after its checksum")
            }
        }
    }
}

impl std::error::Error for WeightsFileError {}

const MAGIC: &[u8; 4] = b"DMPW";
/// Every table entry written out, two bytes each.
const DENSE: u32 = 1;
/// Only the non-zero entries, as (entry, value) records: learned tables are mostly zero
/// (positions never seen in training keep 0), so these files are a few hundred kilobytes
/// instead of 8.5 MB, small enough to build into the engine.
const SPARSE: u32 = 2;
const HEADER: usize = 20;
/// Bytes of the global weights.
const GLOBALS: usize = 2 * feature::COUNT * 4;
/// Bytes of one sparse record: entry `u32`, value `i16`.
const RECORD: usize = 6;

/// FNV-1a, 64 bits: the checksum of weights and network files.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Size of a dense weights file in bytes (every entry written).
pub const FILE_SIZE: usize = HEADER + GLOBALS + ENTRIES * 2 + 8;

/// The largest weights file this engine reads: a sparse one with every entry non-zero.
pub const MAX_FILE_SIZE: usize = HEADER + GLOBALS + 4 + ENTRIES * RECORD + 8;

/// Size of a sparse weights file with `n` non-zero entries.
const fn sparse_size(n: usize) -> usize {
    HEADER + GLOBALS + 4 + n * RECORD + 8
}

/// Encodes `w` (global weights and pattern tables, zeros if it has none) as a weights file:
/// sparse when that is smaller (trained tables), dense otherwise.
pub fn encode(w: &Weights) -> Vec<u8> {
    // No tables: no non-zero entry, so written sparse.
    let values = w.patterns.as_ref().map_or(&[][..], |p| p.values());
    let non_zero = values.iter().filter(|x| **x != 0).count();
    let sparse = sparse_size(non_zero) < FILE_SIZE;
    let mut out = Vec::with_capacity(if sparse {
        sparse_size(non_zero)
    } else {
        FILE_SIZE
    });
    out.extend_from_slice(MAGIC);
    for n in [
        if sparse { SPARSE } else { DENSE },
        TABLES as u32,
        TABLE_SIZE as u32,
        feature::COUNT as u32,
    ] {
        out.extend_from_slice(&n.to_le_bytes());
    }
    for v in w.mg.iter().chain(w.eg.iter()) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    if sparse {
        out.extend_from_slice(&(non_zero as u32).to_le_bytes());
        for (i, v) in values.iter().enumerate().filter(|(_, v)| **v != 0) {
            out.extend_from_slice(&(i as u32).to_le_bytes());
            out.extend_from_slice(&v.to_le_bytes());
        }
    } else {
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Decodes a weights file (dense or sparse) into evaluation weights with pattern tables, or a
/// network file ([`crate::network`], magic `DMNN`) into the built-in weights with the network.
pub fn decode(bytes: &[u8]) -> Result<Weights, WeightsFileError> {
    if bytes.starts_with(crate::network::MAGIC) {
        let net = crate::network::decode(bytes)?;
        return Ok(Weights {
            network: Some(Arc::new(net)),
            ..Weights::default()
        });
    }
    let truncated = |expected: usize| WeightsFileError::Truncated {
        expected,
        found: bytes.len(),
    };
    if bytes.len() < HEADER {
        return Err(truncated(HEADER));
    }
    if &bytes[..4] != MAGIC {
        return Err(WeightsFileError::BadMagic);
    }
    let u32_at =
        |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let (version, tables, size, globals) = (u32_at(4), u32_at(8), u32_at(12), u32_at(16));
    if version != DENSE && version != SPARSE {
        return Err(WeightsFileError::BadHeader(format!(
            "version {version}, this engine reads {DENSE} and {SPARSE}"
        )));
    }
    if (tables, size, globals) != (TABLES as u32, TABLE_SIZE as u32, feature::COUNT as u32) {
        return Err(WeightsFileError::BadHeader(format!(
            "{tables} tables of {size} entries and {globals} features, expected {TABLES} of \
             {TABLE_SIZE} and {}",
            feature::COUNT
        )));
    }
    let expected = if version == DENSE {
        FILE_SIZE
    } else {
        // The record count follows the globals.
        let count_at = HEADER + GLOBALS;
        if bytes.len() < count_at + 4 {
            return Err(truncated(count_at + 4));
        }
        let n = u32_at(count_at) as usize;
        if n > ENTRIES {
            return Err(WeightsFileError::BadHeader(format!(
                "{n} non-zero entries, the tables have {ENTRIES}"
            )));
        }
        sparse_size(n)
    };
    if bytes.len() < expected {
        return Err(truncated(expected));
    }
    if bytes.len() > expected {
        return Err(WeightsFileError::TrailingBytes(bytes.len() - expected));
    }
    let body = &bytes[..expected - 8];
    let mut sum = [0u8; 8];
    sum.copy_from_slice(&bytes[expected - 8..]);
    if fnv1a(body) != u64::from_le_bytes(sum) {
        return Err(WeightsFileError::BadChecksum);
    }
    let mut w = Weights::default();
    let mut at = HEADER;
    for v in w.mg.iter_mut().chain(w.eg.iter_mut()) {
        *v = u32_at(at) as i32;
        at += 4;
    }
    let values: Vec<i16> = if version == DENSE {
        body[at..]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect()
    } else {
        let mut values = vec![0i16; ENTRIES];
        let mut next = 0usize;
        for (k, r) in body[at + 4..].chunks_exact(RECORD).enumerate() {
            let i = u32::from_le_bytes([r[0], r[1], r[2], r[3]]) as usize;
            // Entries in increasing order, each once: a file that breaks this was not
            // written by `encode` (and its checksum was forged or recomputed).
            if i < next || i >= ENTRIES {
                return Err(WeightsFileError::BadHeader(format!(
                    "record {k}: entry {i} out of order or beyond {ENTRIES}"
                )));
            }
            values[i] = i16::from_le_bytes([r[4], r[5]]);
            next = i + 1;
        }
        values
    };
    // Tables of zeros add nothing: without them the evaluation is the same, without the
    // lookups (a file of refitted global weights alone runs at full speed).
    w.patterns = if values.iter().all(|v| *v == 0) {
        None
    } else {
        PatternTables::from_values(values).map(Arc::new)
    };
    Ok(w)
}

/// Reads a weights file ([`decode`]). Anything but a regular file of at most
/// [`MAX_FILE_SIZE`] bytes is refused before it is read (so a device or a huge file cannot
/// hang the engine).
pub fn load(path: &Path) -> Result<Weights, WeightsFileError> {
    let io = |e: std::io::Error| WeightsFileError::Io(format!("{}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(WeightsFileError::Io(format!(
            "{}: not a regular file",
            path.display()
        )));
    }
    let len = usize::try_from(meta.len()).unwrap_or(usize::MAX);
    if len > MAX_FILE_SIZE {
        return Err(WeightsFileError::TrailingBytes(len - MAX_FILE_SIZE));
    }
    let bytes = std::fs::read(path).map_err(io)?;
    decode(&bytes)
}

/// Writes a weights file ([`encode`]).
pub fn save(path: &Path, w: &Weights) -> std::io::Result<()> {
    std::fs::write(path, encode(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::evaluate;

    fn collect(pos: &Position) -> Vec<(usize, i32)> {
        let mut v = Vec::new();
        entries(pos, |e, s| v.push((e, s)));
        v
    }

    /// Flips colours: ranks reflected, colours swapped, the other side to move.
    fn flip(pos: &Position) -> Position {
        let refl = |b: u64| b.swap_bytes();
        position_from_bits(
            refl(pos.pieces_of(Color::Black)),
            refl(pos.pieces_of(Color::White)),
            refl(pos.kings()),
            !pos.side_to_move(),
        )
        .unwrap()
    }

    /// Mirrors files a <-> h.
    fn mirror(pos: &Position) -> Position {
        let m = |b: u64| {
            let mut r = 0u64;
            for sq in 0..64 {
                if b >> sq & 1 == 1 {
                    r |= 1 << (sq / 8 * 8 + 7 - sq % 8);
                }
            }
            r
        };
        position_from_bits(
            m(pos.pieces_of(Color::White)),
            m(pos.pieces_of(Color::Black)),
            m(pos.kings()),
            pos.side_to_move(),
        )
        .unwrap()
    }

    #[test]
    fn empty_windows_are_entry_zero_of_each_table() {
        // Kings only: every window is empty, index 0 of its table.
        let pos = Position::from_fen("W:WKa1:BKh8").unwrap();
        let e = collect(&pos);
        assert_eq!(e.len(), LOOKUPS);
        for (i, (entry, sign)) in e.iter().enumerate() {
            assert_eq!(entry % TABLE_SIZE, 0);
            assert_eq!(*sign, if i < 12 { 1 } else { -1 });
        }
    }

    #[test]
    fn one_man_gives_hand_computed_indices() {
        // White man on b2 (rank index 1, file 1). From White's view, band 0 (ranks 2-4) has it
        // in row 0: a-d window digit at file offset 1 -> 1 * 3^1 = 3; the c-f and e-h windows
        // do not contain b2. Bands 1.. do not contain rank 2.
        // From Black's view it is an opponent man (digit 2) on relative rank 7 - 1 = 6, row 2
        // of band 3 (relative ranks 5-7 = indices 4..6): a-d index 2 * 3^1 * 81^2 = 39366.
        let pos = Position::from_fen("W:Wb2:BKh8").unwrap();
        let e = collect(&pos);
        let white: Vec<usize> = e.iter().filter(|x| x.1 == 1).map(|x| x.0).collect();
        let black: Vec<usize> = e.iter().filter(|x| x.1 == -1).map(|x| x.0).collect();
        // band 0: a-d, e-h reversed, c-f
        assert_eq!(white[0], 3);
        assert_eq!(white[1], 0);
        assert_eq!(white[2], TABLE_SIZE);
        // Black's band 3 a-d window: table 3 * 2 = 6.
        assert_eq!(black[9], 6 * TABLE_SIZE + 39_366);
        // e-h read reversed: b2 is not in it.
        assert_eq!(black[10], 6 * TABLE_SIZE);
    }

    #[test]
    fn centre_window_takes_the_smaller_reading() {
        // White man on c3 (rank index 2, file 2): band 0 row 1, band 1 row 0.
        // c-f window: offset 0 -> forward digit 1 * 3^0 * 81 = 81, reversed 1 * 3^3 * 81 = 2187:
        // the entry is 81.
        let pos = Position::from_fen("W:Wc3:BKh8").unwrap();
        let e = collect(&pos);
        assert_eq!(e[2], (TABLE_SIZE + 81, 1));
        // band 1 (table 2 edge, 3 centre): a-d digit at offset 2 -> 9; c-f min(1, 27) = 1.
        assert_eq!(e[3], (2 * TABLE_SIZE + 9, 1));
        assert_eq!(e[5], (3 * TABLE_SIZE + 1, 1));
        // The mirror image (man on f3) reads the same centre entries.
        let m = collect(&Position::from_fen("W:Wf3:BKh8").unwrap());
        assert_eq!(m[2], e[2]);
        assert_eq!(m[5], e[5]);
    }

    fn random_tables(seed: u64) -> Arc<PatternTables> {
        let mut x = seed | 1;
        let values = (0..ENTRIES)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 201) as i16 - 100
            })
            .collect();
        Arc::new(PatternTables::from_values(values).unwrap())
    }

    #[test]
    fn colour_flip_and_mirror_are_exact_symmetries() {
        let w = Weights {
            patterns: Some(random_tables(99)),
            ..Weights::default()
        };
        for fen in [
            "W:Wa3,Kd4,e5,b2,c2:Ba6,h7,g6,f5",
            "B:Wa2,b3,c4,d4,f3:Bb6,c6,Kh1,e7",
            "W:Wa2,b2,c2,d2,f2,g2,h2,a3,b3,d3,e3,g3,d4,e4,f4,h4:Ba5,b5,e5,g5,c6,d6,e6,g6,h6,a7,b7,c7,d7,e7,f7,h7",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let p = w.patterns.as_ref().unwrap();
            // The pattern score of the flipped position is the negation, from White's view.
            assert_eq!(p.score_white(&flip(&pos)), -p.score_white(&pos), "{fen}");
            assert_eq!(p.score_white(&mirror(&pos)), p.score_white(&pos), "{fen}");
            // So the evaluation (side to move's view) is the same for both.
            let v = evaluate(&pos, &w);
            assert_eq!(evaluate(&flip(&pos), &w), v, "{fen}");
            assert_eq!(evaluate(&mirror(&pos), &w), v, "{fen}");
        }
    }

    #[test]
    fn a_known_entry_moves_the_evaluation_by_its_value() {
        // Tables zero except the entry of White's a-d window in band 0 with a man on b2
        // (index 3, see above): White to move gains exactly that value; Black to move loses it.
        let mut values = vec![0i16; ENTRIES];
        values[3] = 37;
        let w = Weights {
            patterns: Some(Arc::new(PatternTables::from_values(values).unwrap())),
            ..Weights::default()
        };
        let plain = Weights::default();
        let pos = Position::from_fen("W:Wb2:BKh8").unwrap();
        assert_eq!(evaluate(&pos, &w), evaluate(&pos, &plain) + 37);
        let b = pos.with_side_to_move(Color::Black);
        assert_eq!(evaluate(&b, &w), evaluate(&b, &plain) - 37);
    }

    #[test]
    fn weights_file_round_trip() {
        let mut w = Weights {
            patterns: Some(random_tables(5)),
            ..Weights::default()
        };
        w.mg[3] = -77;
        w.eg[21] = 1234;
        // Random tables are dense: every entry written.
        let bytes = encode(&w);
        assert_eq!(bytes.len(), FILE_SIZE);
        assert_eq!(decode(&bytes).unwrap(), w);
        // Trained tables are mostly zero: only the non-zero entries are written.
        let mut values = vec![0i16; ENTRIES];
        for (i, v) in [(0, 5), (1, -3), (777_777, 12), (ENTRIES - 1, -32768)] {
            values[i] = v;
        }
        let sparse = Weights {
            patterns: PatternTables::from_values(values).map(Arc::new),
            ..w.clone()
        };
        let bytes = encode(&sparse);
        assert_eq!(bytes.len(), HEADER + GLOBALS + 4 + 4 * 6 + 8);
        assert_eq!(decode(&bytes).unwrap(), sparse);
        // A file whose tables are all zero is read as global weights alone.
        let zeros = Weights {
            patterns: PatternTables::from_values(vec![0; ENTRIES]).map(Arc::new),
            ..w.clone()
        };
        let bytes = encode(&zeros);
        assert_eq!(bytes.len(), HEADER + GLOBALS + 4 + 8);
        let globals = decode(&bytes).unwrap();
        assert!(globals.patterns.is_none());
        assert_eq!((globals.mg, globals.eg), (w.mg, w.eg));
    }

    #[test]
    fn bad_weights_files_are_errors_not_panics() {
        let w = Weights {
            patterns: Some(random_tables(7)),
            ..Weights::default()
        };
        let bytes = encode(&w);
        for cut in [0, 3, 4, 19, 20, 100, FILE_SIZE - 9, FILE_SIZE - 1] {
            let e = decode(&bytes[..cut]).unwrap_err();
            assert!(
                matches!(e, WeightsFileError::Truncated { .. }),
                "{cut}: {e}"
            );
            assert!(e.to_string().contains("truncated"));
        }
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert_eq!(decode(&bad).unwrap_err(), WeightsFileError::BadMagic);
        let mut bad = bytes.clone();
        bad[4] = 9;
        assert!(matches!(decode(&bad), Err(WeightsFileError::BadHeader(_))));
        let mut bad = bytes.clone();
        bad[1000] ^= 1;
        assert_eq!(decode(&bad).unwrap_err(), WeightsFileError::BadChecksum);
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(
            decode(&long).unwrap_err(),
            WeightsFileError::TrailingBytes(1)
        );
        // Sparse files: cut anywhere, records out of order or beyond the tables.
        let mut values = vec![0i16; ENTRIES];
        values[10] = 1;
        values[20] = 2;
        let sparse = encode(&Weights {
            patterns: PatternTables::from_values(values).map(Arc::new),
            ..Weights::default()
        });
        for cut in [HEADER + GLOBALS + 2, sparse.len() - 9, sparse.len() - 1] {
            let e = decode(&sparse[..cut]).unwrap_err();
            assert!(
                matches!(e, WeightsFileError::Truncated { .. }),
                "{cut}: {e}"
            );
        }
        let records = HEADER + GLOBALS + 4;
        let resum = |mut b: Vec<u8>| {
            let n = b.len() - 8;
            let sum = fnv1a(&b[..n]);
            b[n..].copy_from_slice(&sum.to_le_bytes());
            b
        };
        let mut swapped = sparse.clone();
        swapped[records] = 30; // 30 then 20: out of order
        let e = decode(&resum(swapped)).unwrap_err();
        assert!(e.to_string().contains("record 1"), "{e}");
        let mut beyond = sparse.clone();
        beyond[records + 6..records + 10].copy_from_slice(&(ENTRIES as u32).to_le_bytes());
        assert!(matches!(
            decode(&resum(beyond)),
            Err(WeightsFileError::BadHeader(_))
        ));
        let mut huge = sparse.clone();
        huge[records - 4..records].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(decode(&huge), Err(WeightsFileError::BadHeader(_))));
        let e = load(Path::new("/nonexistent/damasi.weights")).unwrap_err();
        assert!(e.to_string().contains("cannot read"));
    }
}
