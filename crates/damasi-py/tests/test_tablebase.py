"""Endgame tablebases: values of hand-analysed endings from tables built in a temporary
directory, the per-move helper, and what happens without tables."""

import itertools

import pytest

import damasi

SQUARES = [f + r for r in "12345678" for f in "abcdefgh"]


@pytest.fixture(scope="module")
def tb(tmp_path_factory):
    # Every 3-piece table (a second or two).
    return damasi.Tablebase.build(tmp_path_factory.mktemp("tables"), pieces=3)


def test_built_tables_are_found_again_on_disk(tb):
    assert tb.is_complete_to(3)
    assert not tb.is_complete_to(4)
    assert len(tb) == len(tb.signatures) > 0
    again = damasi.Tablebase(tb.directory)
    assert again.signatures == tb.signatures


def test_no_pieces_or_one_each_need_no_table(tmp_path):
    empty = damasi.Tablebase(tmp_path / "nothing-here")
    assert len(empty) == 0
    # The side with no piece has lost.
    assert empty.probe(damasi.Position("W:Wa2:B")) == "win"
    assert empty.probe(damasi.Position("B:Wa2:B")) == "loss"
    # One piece each is a draw, a man against a king too (default rules).
    assert empty.probe(damasi.Position("W:WKa1:BKh8")) == "draw"
    assert empty.probe(damasi.Position("W:Wa2:BKh8")) == "draw"
    # Three pieces need a table this directory does not have.
    assert empty.probe(damasi.Position("W:WKa1,Kb2:BKh8")) is None


def test_two_kings_against_one_draw_unless_a_capture_or_a_trap(tb):
    # With a capture on the board White takes the lone king and Black has nothing: a win.
    # Without one, two kings cannot force a lone flying king, which always has a square off
    # their lines, except near an edge, where it can be trapped (next test): such wins are
    # rare.
    quiet = quiet_wins = 0
    for i, (a, b) in enumerate(itertools.combinations(SQUARES, 2)):
        for c in SQUARES[i % 5 :: 5]:
            if c in (a, b):
                continue
            pos = damasi.Position(f"W:WK{a},K{b}:BK{c}")
            value = tb.probe(pos)
            if any(m.is_capture for m in pos.legal_moves()):
                assert value == "win", pos.fen()
            else:
                assert value in ("win", "draw"), pos.fen()
                quiet += 1
                quiet_wins += value == "win"
    assert quiet > 10_000
    assert 0 < quiet_wins < quiet // 100, (quiet_wins, quiet)
    for fen in ["W:WKa1,Kb2:BKh8", "B:WKa1,Kb2:BKh8", "W:WKd4,Ke5:BKa8", "W:WKc3,Kf6:BKh1"]:
        assert tb.probe(damasi.Position(fen)) == "draw", fen


def test_a_lone_king_on_the_edge_is_trapped(tb):
    # White's kings on a1 and h1, Black's king on a8, White to move, no capture: h1-h8 shuts
    # the king in. It can neither take h8 nor a1 (no square behind them); down the a-file
    # the king on a1 takes it, along the eighth rank the king on h8 does: White wins.
    pos = damasi.Position("W:WKa1,Kh1:BKa8")
    assert not any(m.is_capture for m in pos.legal_moves())
    assert tb.probe(pos) == "win"
    values = {str(m): v for m, v in tb.probe_moves(pos)}
    assert values["h1-h8"] == "win"
    assert values["h1-h5"] == "draw"


def test_a_lone_king_in_the_corner_between_two_kings_loses(tb):
    # Black's king on a1, White's kings on a8 and h1, Black to move. Black has no capture
    # (nothing lies beyond a8 or h1). Up the a-file the king on a8 takes it (landing on a1 or
    # below it), along the first rank the king on h1 does: every move loses.
    pos = damasi.Position("B:WKa8,Kh1:BKa1")
    assert not any(m.is_capture for m in pos.legal_moves())
    assert tb.probe(pos) == "loss"
    moves = tb.probe_moves(pos)
    assert len(moves) == len(pos.legal_moves()) == 12
    assert all(v == "loss" for _, v in moves)
    # White to move in the same placement: no capture, so two kings against one draw.
    assert tb.probe(damasi.Position("W:WKa8,Kh1:BKa1")) == "draw"


def test_per_move_values_put_the_winning_capture_first(tb):
    # White's king on a1 takes Black's king on a5 (landing a6, a7 or a8): captures are
    # forced, and each leaves Black with nothing.
    pos = damasi.Position("W:WKa1,Kc3:BKa5")
    moves = tb.probe_moves(pos)
    assert sorted(str(m) for m, _ in moves) == ["a1xa6", "a1xa7", "a1xa8"]
    assert all(v == "win" for _, v in moves)
    assert tb.probe(pos) == "win"
    # A game's current position is probed like a position.
    game = damasi.Game("W:WKa1,Kc3:BKa5")
    assert tb.probe(game) == "win"


def test_a_draw_is_kept_by_some_moves_and_lost_by_others(tb):
    # Black's king on b1 against White's kings on a8 and h1, Black to move. Along the first
    # rank (c1..g1) the king on h1 takes it; on b8 the king on a8 does; on b2..b7 nothing
    # can; and b1-a1 leaves White to move with no capture (the corner of the previous test,
    # but White to move): a draw. Best moves come first.
    pos = damasi.Position("B:WKa8,Kh1:BKb1")
    assert not any(m.is_capture for m in pos.legal_moves())
    values = {str(m): v for m, v in tb.probe_moves(pos)}
    assert values["b1-a1"] == "draw"
    assert values["b1-b5"] == "draw"
    assert values["b1-c1"] == "loss"
    assert values["b1-b8"] == "loss"
    assert tb.probe(pos) == "draw"
    ranks = [v for _, v in tb.probe_moves(pos)]
    assert ranks == sorted(ranks, key=["win", "draw", "loss", None].index)


def test_positions_beyond_the_tables_give_none(tb):
    assert tb.probe(damasi.Position("W:WKa1,Kb2:BKh8,Kg8")) is None
    assert tb.probe(damasi.Position()) is None
    assert all(v is None for _, v in tb.probe_moves(damasi.Position()))


def test_bad_arguments_raise(tb, tmp_path):
    with pytest.raises(ValueError):
        tb.probe("W:WKa1:BKh8")
    with pytest.raises(ValueError):
        damasi.Tablebase.build(tmp_path, pieces=7)
    with pytest.raises(ValueError):
        damasi.Tablebase.build(tmp_path, pieces=2)
    # A damaged table file is refused, never trusted.
    bad = tmp_path / "bad"
    bad.mkdir()
    name = next(p.name for p in tb.directory.iterdir() if p.suffix == ".dtb")
    (bad / name).write_bytes(b"not a table")
    with pytest.raises(OSError):
        damasi.Tablebase(bad)
