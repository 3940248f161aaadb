//! The tables up to four pieces, built once per test binary into a temporary directory.

use std::path::PathBuf;
use std::sync::OnceLock;

use damasi::Position;
use damasi_tb::{build_all, Tablebase, Wdl};

/// The directory the tables were built in.
pub fn dir() -> PathBuf {
    std::env::temp_dir().join(format!("damasi-tb-tests-{}", std::process::id()))
}

/// Every table with 3 or 4 pieces, built by the builder, then read back from its files.
pub fn tables() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| {
        let dir = dir();
        build_all(&dir, 4, |_| {}).expect("the tables build");
        let tb = Tablebase::open(&dir).expect("the files read back");
        assert!(tb.is_complete_to(4));
        tb
    })
}

/// The value of a FEN.
pub fn value(fen: &str) -> Wdl {
    let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    tables()
        .probe(&pos)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}
