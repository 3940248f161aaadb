"""The engine: analysis, play, limits, errors."""

import pytest

import damasi


def test_engine_finds_the_only_winning_capture_and_reports_lines():
    # White's man on d4 takes d5 and goes on: the only legal move.
    engine = damasi.Engine(threads=1, hash_mb=4)
    pos = damasi.Position("W:Wd4,a3:Bd5,h7")
    a = engine.analyse(pos, depth=4)
    assert str(a.best) == "d4xd6"
    assert a.depth >= 1 and a.nodes > 0
    assert a.pv[0] == a.best


def test_engine_sees_a_win():
    # A white king against a lone black man on the board's edge, White to move: with
    # king-beats-lone-man the position is already over; under the default rules, a king and a
    # man against one man wins by capturing it. The king on a1 takes the man on a5 at once.
    engine = damasi.Engine(hash_mb=4)
    pos = damasi.Position("W:WKa1,h2:Ba5,h7")
    a = engine.analyse(pos, depth=6)
    assert a.best.is_capture
    assert a.score > 0.5


def test_multipv_lines_are_distinct_and_ordered():
    engine = damasi.Engine(hash_mb=4)
    a = engine.analyse(damasi.Position(), depth=5, multipv=3)
    assert len(a.lines) == 3
    firsts = [str(line.pv[0]) for line in a.lines]
    assert len(set(firsts)) == 3
    assert all(f in [str(m) for m in damasi.Position().legal_moves()] for f in firsts)
    assert [line.multipv for line in a.lines] == [1, 2, 3]
    assert a.lines[0].score >= a.lines[1].score >= a.lines[2].score


def test_pv_is_a_legal_line():
    engine = damasi.Engine(hash_mb=4)
    a = engine.analyse(damasi.Position(), nodes=20_000)
    pos = damasi.Position()
    for m in a.pv:
        pos = pos.play(m.notation())
    assert a.nodes >= 1


def test_play_from_a_game_and_levels():
    game = damasi.Game()
    engine = damasi.Engine(level=3, hash_mb=4)
    for _ in range(6):
        m = engine.play(game, nodes=2000)
        game.play(m)
    assert game.ply == 6
    strong = damasi.Engine(level=10, hash_mb=4)
    assert strong.play(damasi.Position(), time=0.05) in damasi.Position().legal_moves()
    # No legal move: None.
    assert strong.play(damasi.Position("B:Wa6,a5,b7,c7:Ba7"), depth=2) is None


def test_bad_engine_arguments():
    with pytest.raises(ValueError):
        damasi.Engine(level=0)
    with pytest.raises(ValueError):
        damasi.Engine(threads=0)
    engine = damasi.Engine(hash_mb=1)
    with pytest.raises(ValueError, match="limit"):
        engine.analyse(damasi.Position())
    with pytest.raises(ValueError):
        engine.analyse(damasi.Position(), time=-1)
    with pytest.raises(ValueError):
        engine.analyse("W:Wa2:Bh7", depth=2)
    with pytest.raises(ValueError):
        engine.analyse(damasi.Position(), depth=2, multipv=0)


def test_threads_give_legal_moves():
    engine = damasi.Engine(threads=2, hash_mb=4)
    a = engine.analyse(damasi.Position(), depth=6)
    assert a.best in damasi.Position().legal_moves()
