//! Start-position perft against the table in docs/rules.md.
use damasi::{perft_with, Counting, Position};

#[test]
fn start_position_moves_to_depth_6() {
    let expected = [8u64, 64, 708, 7_538, 85_090, 931_312];
    for (i, &n) in expected.iter().enumerate() {
        assert_eq!(
            perft_with(&Position::start(), i as u32 + 1, Counting::Moves),
            n,
            "depth {}",
            i + 1
        );
    }
}

#[test]
fn start_position_depth_7() {
    assert_eq!(
        perft_with(&Position::start(), 7, Counting::Moves),
        10_782_308
    );
    assert_eq!(
        perft_with(&Position::start(), 7, Counting::Routes),
        10_782_382
    );
}

#[test]
fn parallel_perft_with_more_threads_than_root_moves() {
    // The start has 8 root moves (docs/rules.md, depth 1): asking for more threads than that,
    // however many, must neither fail to start threads nor change the count.
    for threads in [9, usize::MAX] {
        assert_eq!(
            damasi::perft_parallel(&Position::start(), 4, Counting::Moves, threads),
            7_538,
            "{threads} threads"
        );
    }
}
