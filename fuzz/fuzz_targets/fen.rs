//! FEN reading never panics; whatever it accepts writes back to a FEN that reads the same.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = damasi::Position::from_fen(text) {
        assert_eq!(p.key(), p.compute_key());
        assert_eq!(damasi::Position::from_fen(&p.to_fen()), Ok(p));
    }
});
