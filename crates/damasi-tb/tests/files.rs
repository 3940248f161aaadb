//! Table files: written, read back, and refused with a clear error (never a panic) when they
//! are damaged or truncated.

use std::path::{Path, PathBuf};

use damasi::{Position, Wdl};
use damasi_tb::{build_all, Signature, Table, Tablebase, TbError};

fn fresh_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("damasi-tb-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A directory with every three-piece table.
fn three_piece_dir(name: &str) -> PathBuf {
    let d = fresh_dir(name);
    build_all(&d, 3, |_| {}).unwrap();
    d
}

const SIG: Signature = Signature::new(0, 2, 0, 1);

fn table_path(dir: &Path) -> PathBuf {
    dir.join(SIG.file_name())
}

fn expect_corrupt(path: &Path, map: bool, what: &str) {
    match Table::open(path, map) {
        Err(TbError::Corrupt { what: w, .. }) => assert!(w.contains(what), "{w}"),
        Err(e) => panic!("expected a corrupt-file error, got {e}"),
        Ok(_) => panic!("a damaged file was accepted"),
    }
}

#[test]
fn a_rebuilt_directory_is_kept_and_reads_back_in_both_modes() {
    let d = three_piece_dir("keep");
    let before = std::fs::read(table_path(&d)).unwrap();
    let mut kept = 0;
    build_all(&d, 3, |e| {
        kept += matches!(e, damasi_tb::BuildEvent::Loaded { .. }) as u32
    })
    .unwrap();
    assert!(kept > 0, "finished signatures are not rebuilt");
    assert_eq!(std::fs::read(table_path(&d)).unwrap(), before);
    let memory = Table::open(&table_path(&d), false).unwrap();
    let mapped = Table::open(&table_path(&d), true).unwrap();
    assert!(memory.is_in_memory() && !mapped.is_in_memory());
    for i in (0..memory.indexer().size()).step_by(7) {
        assert_eq!(memory.get(i).unwrap(), mapped.get(i).unwrap());
    }
    // Opened all memory-mapped (for a few probes), the tables say the same.
    let tb = Tablebase::open(&d).unwrap();
    let mapped = Tablebase::open_mapped(&d).unwrap();
    for s in mapped.signatures() {
        let (m, t) = (mapped.table(s).unwrap(), tb.table(s).unwrap());
        assert!(!m.is_in_memory() && t.is_in_memory(), "{s}");
        for i in (0..m.indexer().size()).step_by(5) {
            assert_eq!(m.get(i).unwrap(), t.get(i).unwrap(), "{s} entry {i}");
        }
        // Statistics read whole blocks, of the file or of memory: the same counts.
        let stats = damasi_tb::signature_stats(&mapped, s).unwrap();
        assert_eq!(stats, damasi_tb::signature_stats(&tb, s).unwrap(), "{s}");
        assert!(stats.positions > 0);
    }
    // Reopened whole or mapped, a table reads the same; a table that is not there is an error.
    let mut reopened = Tablebase::open_mapped(&d).unwrap();
    for whole in [true, false] {
        reopened.reopen(&d, SIG, whole).unwrap();
        let t = reopened.table(SIG).unwrap();
        assert_eq!(t.is_in_memory(), whole);
        for i in (0..t.indexer().size()).step_by(3) {
            assert_eq!(t.get(i).unwrap(), tb.table(SIG).unwrap().get(i).unwrap());
        }
    }
    assert!(reopened
        .reopen(&d, Signature::new(0, 3, 0, 1), true)
        .is_err());
    // d4 takes d6.
    let pos = Position::from_fen("W:WKd4,Ka1:BKd6").unwrap();
    assert_eq!(tb.probe(&pos).unwrap(), Wdl::Win);
    // Four pieces: no table here.
    let pos = Position::from_fen("W:WKa1,Kb2,Kc3:BKh8").unwrap();
    assert!(tb.probe(&pos).is_err());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn truncated_files_are_refused() {
    let d = three_piece_dir("truncated");
    let path = table_path(&d);
    let bytes = std::fs::read(&path).unwrap();
    for keep in [0, 7, 39, 45, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..keep]).unwrap();
        for map in [false, true] {
            assert!(Table::open(&path, map).is_err(), "kept {keep} bytes");
        }
        let e = Tablebase::open(&d).err().expect("the directory is refused");
        assert!(e.to_string().contains(&SIG.file_name()), "{e}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn damaged_bytes_are_refused() {
    let d = three_piece_dir("damaged");
    let path = table_path(&d);
    let bytes = std::fs::read(&path).unwrap();
    let damage = |at: usize| {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        std::fs::write(&path, &b).unwrap();
    };
    damage(0);
    expect_corrupt(&path, false, "magic");
    damage(9);
    expect_corrupt(&path, false, "version");
    damage(17);
    expect_corrupt(&path, false, "");
    damage(44);
    expect_corrupt(&path, false, "checksum");
    // A damaged block: refused when read whole, and by the probe that reads it when mapped.
    damage(bytes.len() - 3);
    expect_corrupt(&path, false, "block");
    let mapped = Table::open(&path, true).unwrap();
    let errors = (0..mapped.indexer().size())
        .filter(|&i| mapped.get(i).is_err())
        .count();
    assert!(errors > 0, "the damaged block is detected");
    // Garbage that is not a table at all.
    std::fs::write(
        &path,
        b"not a table, just some text that is long enough to parse",
    )
    .unwrap();
    expect_corrupt(&path, true, "magic");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn missing_tables_and_large_positions_are_errors_not_guesses() {
    let tb = Tablebase::new();
    let pos = Position::from_fen("W:WKa1,Kb2:BKh8").unwrap();
    assert!(tb.probe(&pos).is_err());
    assert!(tb.probe(&Position::start()).is_err());
    // One piece each needs no table.
    let pos = Position::from_fen("W:WKa1:BKh8").unwrap();
    assert_eq!(tb.probe(&pos).unwrap(), Wdl::Draw);
    // A directory that does not exist holds no tables.
    let tb = Tablebase::open(Path::new("/nonexistent/damasi/tables")).unwrap();
    assert!(tb.signatures().is_empty());
}

#[test]
fn a_build_reports_every_unit_and_wave_of_every_pair() {
    use damasi_tb::BuildEvent;
    let d = fresh_dir("progress");
    // Per pair: the steps reported, then the entries the pair was built with.
    let mut pairs: Vec<(Vec<damasi_tb::Step>, u64)> = Vec::new();
    let mut steps = Vec::new();
    build_all(&d, 3, |e| match e {
        BuildEvent::Progress { step, .. } => steps.push(*step),
        BuildEvent::Built { entries, .. } => pairs.push((std::mem::take(&mut steps), *entries)),
        BuildEvent::Loaded { .. } => panic!("nothing was there to load"),
        BuildEvent::Checkpoint { .. } => {}
    })
    .unwrap();
    assert_eq!(pairs.len(), Signature::build_order(3).len());
    for (steps, entries) in &pairs {
        let last = steps.last().expect("every pair reports");
        assert_eq!(
            (last.done, last.wave, last.unit),
            (*entries, None, last.units)
        );
        for s in steps {
            assert_eq!(s.entries, *entries);
        }
        for w in steps.windows(2) {
            let (a, b) = (w[0], w[1]);
            assert!(b.done >= a.done);
            match (a.wave, b.wave) {
                // Inside a unit the waves count up from the initialisation (wave 0)...
                (Some(x), Some(y)) => assert_eq!((b.unit, y), (a.unit, x + 1)),
                // ...then the unit is finished, and the next one starts at wave 0.
                (Some(_), None) => assert_eq!(b.unit, a.unit),
                (None, Some(y)) => assert_eq!((b.unit, y), (a.unit + 1, 0)),
                (None, None) => panic!("a unit finished twice: {a:?} {b:?}"),
            }
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}
