//! The tables up to four pieces, built once per test binary into cargo's directory for
//! test files (`target/tmp`), where the next run builds them again over the old ones.

use std::path::PathBuf;
use std::sync::OnceLock;

use damasi::{Position, Wdl};
use damasi_tb::{build_all, BuildEvent, Stats, Tablebase};

/// The directory the tables were built in: one per test binary, so binaries run at the same
/// time do not share it.
pub fn dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let binary = exe.file_stem().expect("a file name").to_string_lossy();
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("tables-to-4-{binary}"))
}

/// The statistics the build counted while solving, one per table.
static BUILT_STATS: OnceLock<Vec<Stats>> = OnceLock::new();

/// Every table with 3 or 4 pieces, built by the builder, then read back from its files.
pub fn tables() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| {
        let dir = dir();
        // Built from nothing: the builder keeps finished tables it finds.
        let _ = std::fs::remove_dir_all(&dir);
        let mut stats = Vec::new();
        build_all(&dir, 4, |e| {
            if let BuildEvent::Built { stats: s, .. } = e {
                stats.extend_from_slice(s);
            }
        })
        .expect("the tables build");
        BUILT_STATS.set(stats).expect("built once");
        let tb = Tablebase::open(&dir).expect("the files read back");
        assert!(tb.is_complete_to(4));
        tb
    })
}

/// The statistics of every table up to four pieces as the build counted them.
#[allow(dead_code)] // not every test binary looks at them
pub fn built_stats() -> &'static [Stats] {
    tables();
    BUILT_STATS.get().expect("set by the build")
}

/// The value of a FEN.
pub fn value(fen: &str) -> Wdl {
    let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    tables()
        .probe(&pos)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}
