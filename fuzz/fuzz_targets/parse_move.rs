//! Move reading never panics, in positions with men, kings, loops and straight-on captures;
//! a move it returns is legal and reads back from its own text in both notations.
#![no_main]

use damasi::{Notation, Position};
use libfuzzer_sys::fuzz_target;

const FENS: [&str; 5] = [
    "startpos",
    "W:WKc3:Bc5,d3,e6,f4",
    "B:Wa3,b3,c4:Bd4,Ka8",
    "W:WKa1:Ba3,a6,h7",
    "W:WKd4,Ka1,b3:BKd6,Kd2,Kb7,Kh8,c5",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for fen in FENS {
        let p = Position::from_fen(fen).expect("valid FEN");
        if let Ok(m) = p.parse_move(text) {
            assert!(p.legal_moves().contains(&m));
            for notation in [Notation::Landing, Notation::Captured] {
                assert_eq!(p.parse_move(&p.write_move(&m, notation)), Ok(m));
            }
        }
    }
});
