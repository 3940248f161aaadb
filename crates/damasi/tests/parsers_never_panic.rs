//! FEN and move parsing take untrusted text (web requests, PDN files, the command line): they
//! must return an error, never panic, on anything. Arbitrary strings and mutations of valid
//! texts are fed to both (proptest); the same runs as cargo-fuzz targets in /fuzz.

use damasi::{MoveError, Notation, Position};
use proptest::prelude::*;

/// Positions to read moves in: the start, a king loop, a man capture, kings and men mixed.
const FENS: [&str; 5] = [
    "startpos",
    "W:WKc3:Bc5,d3,e6,f4",
    "B:Wa3,b3,c4:Bd4,Ka8",
    "W:WKa1:Ba3,a6,h7",
    "W:WKd4,Ka1,b3:BKd6,Kd2,Kb7,Kh8,c5",
];

/// Valid texts to mutate.
const SEED_TEXTS: [&str; 10] = [
    "W:Wa2,b2,Kc4:Bd6,Ke8",
    "B:W18,19,K27:B44,K63.",
    "startpos",
    "d3-d4",
    "b3xd3xd5",
    "a8xa3>a1",
    "c7-c8=K",
    "c3xc6xf6xf3xc3",
    "D4:C4:B3",
    "  a1xa4xa8 ",
];

fn positions() -> Vec<Position> {
    FENS.iter()
        .map(|f| Position::from_fen(f).expect("valid"))
        .collect()
}

/// Parses `text` as a FEN and as a move in every test position. When a move is read, it must
/// be legal and write back to a text that reads as the same move.
fn exercise(text: &str) {
    if let Ok(p) = Position::from_fen(text) {
        assert_eq!(Position::from_fen(&p.to_fen()), Ok(p), "{text:?}");
    }
    for p in positions() {
        match p.parse_move(text) {
            Ok(m) => {
                assert!(p.legal_moves().contains(&m), "{text:?}");
                let written = p.write_move(&m, Notation::Landing);
                assert_eq!(p.parse_move(&written), Ok(m), "{text:?}");
            }
            Err(MoveError::Syntax { reason, .. }) => assert!(!reason.is_empty()),
            Err(MoveError::Illegal { legal, .. }) => {
                assert_eq!(legal.len(), p.legal_moves().len())
            }
            Err(MoveError::Ambiguous { candidates, .. }) => assert!(candidates.len() >= 2),
        }
    }
}

/// One edit of a text: insert, delete or replace a character, or repeat a slice.
#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, char),
    Delete(usize),
    Replace(usize, char),
    Repeat(usize, usize, usize),
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let n = chars.len();
        match *e {
            Edit::Insert(i, c) => chars.insert(i % (n + 1), c),
            Edit::Delete(i) if n > 0 => {
                chars.remove(i % n);
            }
            Edit::Replace(i, c) if n > 0 => chars[i % n] = c,
            Edit::Repeat(i, len, times) if n > 0 => {
                let start = i % n;
                let end = (start + len % 8 + 1).min(n);
                let piece: Vec<char> = chars[start..end].to_vec();
                for _ in 0..times % 50 {
                    chars.splice(end..end, piece.iter().copied());
                }
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// Characters that matter to the parsers, plus any character at all.
fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        prop::sample::select(vec![
            'a', 'h', 'i', 'A', 'H', 'K', 'k', 'W', 'B', 'w', 'b', 'x', 'X', '-', ':', '>', '=',
            ',', '.', ' ', '0', '1', '8', '9', '6', '4', '×', 'é', '\u{0}', '\u{200b}',
        ]),
        any::<char>(),
    ]
}

fn any_edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), interesting_char()).prop_map(|(i, c)| Edit::Insert(i, c)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), interesting_char()).prop_map(|(i, c)| Edit::Replace(i, c)),
        (any::<usize>(), any::<usize>(), any::<usize>())
            .prop_map(|(i, l, t)| Edit::Repeat(i, l, t)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        exercise(&text);
    }

    #[test]
    fn strings_of_notation_characters_never_panic(
        text in prop::collection::vec(interesting_char(), 0..40)
            .prop_map(|v| v.into_iter().collect::<String>())
    ) {
        exercise(&text);
    }

    #[test]
    fn mutated_valid_texts_never_panic(
        seed in prop::sample::select(SEED_TEXTS.to_vec()),
        edits in prop::collection::vec(any_edit(), 1..6),
    ) {
        exercise(&apply(seed, &edits));
    }
}

#[test]
fn huge_and_odd_inputs_are_errors() {
    let p = Position::start();
    let huge = "a".repeat(1 << 20);
    let squares = "d3-".repeat(100_000) + "d4";
    for text in [
        huge.as_str(),
        squares.as_str(),
        "",
        "\u{0}",
        "🙂",
        "d3-d4\u{0}",
        ">",
        "=K",
        ":::",
        "W::",
        "W:W:B",
        "W:WK:B",
        "W:W99:B",
        "W:W0:B",
        "W:W65:B",
        "W:W256:B",
        "W:W-1:B",
    ] {
        assert!(p.parse_move(text).is_err(), "{text:.20}");
        exercise(text);
    }
    assert!(Position::from_fen(&huge).is_err());
    assert!(Position::from_fen(&squares).is_err());
}
