"""The rules API: positions, moves, outcomes, games, PDN, perft, errors."""

import copy
import pickle
import gc
import random
import sys
import threading
import weakref

import pytest

import damasi

# Start-position perft, legal moves, from RULES.md (reproduced by independent implementations).
START_PERFT = [8, 64, 708, 7538, 85090]


@pytest.mark.parametrize("depth,expected", list(enumerate(START_PERFT, start=1)))
def test_perft_matches_rules_md(depth, expected):
    assert damasi.perft(damasi.Position(), depth) == expected


def test_perft_with_threads_matches_and_releases_the_gil():
    results = {}

    def run():
        results["one"] = damasi.perft(damasi.Position.start(), 7)

    t = threading.Thread(target=run)
    t.start()
    # The main thread keeps running Python while perft counts (the GIL is released).
    ticks = 0
    while t.is_alive():
        ticks += 1
    t.join()
    assert results["one"] == 10_782_308
    assert ticks > 1000
    assert damasi.perft(damasi.Position.start(), 6, threads=2) == 931_312


def test_king_loop_is_one_move_per_end_square():
    # RULES.md "Move identity": the king going round the loop ends on six squares, c3 (its own
    # start square) reached both ways round being one move.
    pos = damasi.Position("W:WKc3:Bc5,d3,e6,f4")
    moves = pos.legal_moves()
    assert sorted(m.to_square for m in moves) == ["a3", "b3", "c1", "c2", "c3", "c4"]
    assert all(sorted(m.captured) == ["c5", "d3", "e6", "f4"] for m in moves)
    assert damasi.perft(pos, 1) == 6
    assert pos.parse_move("c3xc6xf6xf3xc3") == pos.parse_move("c3xf3xf6xc6xc3")


def test_captures_are_forced_and_maximal():
    # The README's example: d4 must take d5 and go on to d6.
    pos = damasi.Position.from_fen("W:Wd4,a3:Bd5,h7")
    moves = pos.legal_moves()
    assert [str(m) for m in moves] == ["d4xd6"]
    m = moves[0]
    assert m.is_capture and m.captured == ["d5"]
    assert (m.from_square, m.to_square, m.from_index, m.to_index) == ("d4", "d6", 27, 43)
    assert pos.has_capture()
    # Two men in a row: the man on b3 must take both (b3xd3xd5), not one.
    pos = damasi.Position("W:Wb3:Bc3,d4,h7")
    assert [str(m) for m in pos.legal_moves()] == ["b3xd3xd5"]


def test_both_notations_and_hub_numbers():
    pos = damasi.Position("B:Wa3,b3,c4:Bd4,Ka8")
    m = pos.parse_move("d4xc4xb3")  # the federation's example 9
    assert m.notation("landing") == "d4xb4xb2"
    assert m.notation("captured") == "d4xc4xb3"
    assert m.route == ["d4", "b4", "b2"]
    assert m.captured == ["c4", "b3"]
    assert pos.parse_move("d4xb2") == m
    # pydraughts numbering: a1 = 1, so d4 = 28, b2 = 10, c4 = 27, b3 = 18.
    assert set(m.hub().split("x")) == {"28", "10", "27", "18"}
    with pytest.raises(ValueError):
        m.notation("pdn")


def test_promotion():
    pos = damasi.Position("W:Wc7:Bh6")
    m = pos.parse_move("c7-c8")
    assert m.is_promotion
    assert str(m) == "c7-c8=K"
    after = pos.play(m)
    assert after.piece_at("c8") == ("white", "king")
    assert after.turn == "black"


def test_fen_round_trip_and_equality():
    fen = "W:Wa2,b2,Kc4:Bd6,Ke8"
    pos = damasi.Position(fen)
    assert damasi.Position(pos.fen()) == pos
    assert hash(damasi.Position(fen)) == hash(pos)
    assert pos.count("white") == 3 and pos.count("black") == 2
    assert dict(pos.pieces())["c4"] == ("white", "king")
    assert pos.piece_at("h8") is None
    assert pos.piece_at(26) == ("white", "king")  # c4 = 3 * 8 + 2
    assert damasi.Position("startpos") == damasi.Position.start()
    assert pickle.loads(pickle.dumps(pos)) == pos
    assert copy.deepcopy(pos) == pos


def test_key_is_zobrist_of_the_placement_and_side():
    a = damasi.Position().play("d3-d4").play("d6-d5")
    b = damasi.Position().play("d3-d4").play("d6-d5")
    c = damasi.Position().play("e3-e4").play("d6-d5")
    assert a.key == b.key
    assert a.key != c.key
    assert a.key != a.with_turn("black").key


def test_mirror_and_flip_map_the_legal_moves():
    rng = random.Random(7)
    pos = damasi.Position()
    for _ in range(40):
        moves = pos.legal_moves()
        if not moves:
            break
        mirrored = pos.mirror()
        flipped = pos.flip()
        mirror_sq = lambda s: "abcdefgh"[7 - "abcdefgh".index(s[0])] + s[1]
        flip_sq = lambda s: s[0] + str(9 - int(s[1]))
        assert sorted((mirror_sq(m.from_square), mirror_sq(m.to_square)) for m in moves) == sorted(
            (m.from_square, m.to_square) for m in mirrored.legal_moves()
        )
        assert sorted((flip_sq(m.from_square), flip_sq(m.to_square)) for m in moves) == sorted(
            (m.from_square, m.to_square) for m in flipped.legal_moves()
        )
        assert flipped.turn != pos.turn
        assert flipped.flip() == pos and mirrored.mirror() == pos
        pos = pos.play(rng.choice(moves))


def test_position_outcomes_with_rule_sets():
    # One piece each: a draw under the default rules.
    lone = damasi.Position("W:WKa1:Bh7")
    o = lone.outcome()
    assert o.is_draw and o.reason == "one-piece-each" and o.result == "1/2-1/2"
    # King against lone man wins for the king with the option.
    o = lone.outcome("turkish; king-beats-lone-man")
    assert o.winner == "white" and o.reason == "king-beats-lone-man" and o.result == "1-0"
    # The side to move with no pieces has lost.
    o = damasi.Position("B:Wa2,b2:B").outcome()
    assert o.winner == "white" and o.reason == "no-pieces"
    # A blocked side to move loses: the black man on a7 can neither step (a6, b7 taken) nor
    # jump (a5 and c7 taken), while White can move.
    o = damasi.Position("B:Wa6,a5,b7,c7:Ba7").outcome()
    assert o is not None and o.winner == "white" and o.reason == "blocked"
    assert damasi.Position().outcome() is None
    with pytest.raises(damasi.RulesError):
        lone.outcome("checkers")


def test_bad_input_raises_clear_exceptions():
    with pytest.raises(damasi.FenError, match="3 fields"):
        damasi.Position("not a fen")
    with pytest.raises(damasi.FenError):
        damasi.Position("W:Wa1:Bh7")  # a white man on rank 1
    with pytest.raises(damasi.MoveError, match="legal moves"):
        damasi.Position().play("a1-a2")
    with pytest.raises(damasi.MoveError):
        damasi.Position().parse_move("zz")
    with pytest.raises(damasi.MoveError):
        damasi.Position().play(5000)
    with pytest.raises(damasi.MoveError):
        damasi.Position().play(None)
    with pytest.raises(ValueError):
        damasi.Position().piece_at("z9")
    with pytest.raises(ValueError):
        damasi.Position().count("red")
    with pytest.raises(damasi.PdnError):
        damasi.Game.from_pdn("1. zz-zz *")
    with pytest.raises(ValueError):
        damasi.perft(damasi.Position(), 30)
    # A move of another position is refused unless it is legal here too.
    other = damasi.Position("W:Wd4,a3:Bd5,h7").legal_moves()[0]
    with pytest.raises(damasi.MoveError):
        damasi.Position().play(other)
    # All of them are ValueErrors.
    assert issubclass(damasi.FenError, ValueError) and issubclass(damasi.MoveError, ValueError)


def walk(pos, depth):
    moves = pos.legal_moves()
    if depth == 1:
        return len(moves)
    return sum(walk(pos.play(m), depth - 1) for m in moves)


def test_python_walk_over_legal_moves_and_play_counts_perft():
    # legal_moves() and play() make their objects without PyO3's general path (src/fastobj.rs):
    # the objects must be whole, and freed with their type's reference given back.
    assert walk(damasi.Position(), 4) == START_PERFT[3]
    pos = damasi.Position("W:WKh6:Bc4,d6,b4,Ke1,Kg8,g7,Ke7")
    moves = pos.legal_moves()
    assert type(moves) is list and all(type(m) is damasi.Move for m in moves)
    assert all(m.position == pos and m.is_capture and len(m.captured) == 3 for m in moves)
    assert [pos.play(m) for m in moves] == [pos.play(str(m)) for m in moves]
    assert pos.play(moves[0]).turn == "black"
    before = (sys.getrefcount(damasi.Move), sys.getrefcount(damasi.Position))
    for _ in range(1000):
        start = damasi.Position()
        start.play(start.legal_moves()[0])
    del start
    gc.collect()
    assert (sys.getrefcount(damasi.Move), sys.getrefcount(damasi.Position)) == before
    with pytest.raises(TypeError):
        weakref.ref(moves[0])  # no weak-reference slot: the object is header + value
    with pytest.raises(AttributeError):
        moves[0].anything = 1  # no __dict__


def test_game_history_undo_redo():
    g = damasi.Game()
    assert g.turn == "white" and g.ply == 0
    m1 = g.play("d3-d4")
    m2 = g.play(g.legal_moves()[0])
    assert [str(m) for m in g.history] == [str(m1), str(m2)]
    assert g.history[0].position == damasi.Position()
    assert g.position_at(1) == damasi.Position().play("d3-d4")
    assert g.undo() == m2
    assert g.ply == 1
    assert g.redo() == m2
    assert g.ply == 2
    g.undo()
    g.undo()
    assert g.undo() is None
    assert g.position == damasi.Position()
    with pytest.raises(IndexError):
        g.position_at(5)


def test_threefold_repetition_draws():
    # Two kings each shuffling: the start placement recurs at plies 4 and 8 (third time).
    g = damasi.Game("W:WKa1,Kb1:BKh8,Kg8")
    for _ in range(2):
        for text in ["a1-a2", "h8-h7", "a2-a1", "h7-h8"]:
            assert not g.is_over
            g.play(text)
    assert g.repetition_count() == 3
    o = g.outcome()
    assert o.is_draw and o.reason == "repetition"
    assert g.legal_moves() == []
    with pytest.raises(damasi.MoveError, match="over"):
        g.play("a1-a2")


def test_no_capture_limit_option():
    g = damasi.Game("W:WKa1,Kb1:BKh8,Kg8", rules="turkish; no-capture-limit 4")
    for text in ["a1-a2", "h8-h7", "a2-a3", "h7-h6"]:
        g.play(text)
    assert g.plies_without_capture() == 4
    assert g.outcome().reason == "no-capture-limit"
    assert g.rules == "turkish; no-capture-limit 4"


def test_resign_and_agree():
    g = damasi.Game()
    g.resign("black")
    assert g.outcome().winner == "white" and g.outcome().reason == "resignation"
    g = damasi.Game()
    g.agree_draw()
    assert g.outcome().reason == "agreement"


def test_pdn_round_trip():
    rng = random.Random(3)
    g = damasi.Game()
    g.set_tag("White", "Ayşe")
    for _ in range(30):
        moves = g.legal_moves()
        if not moves:
            break
        g.play(rng.choice(moves))
    for notation in ["landing", "captured"]:
        text = g.pdn(notation)
        assert '[GameType "30"]' in text and '[White "Ayşe"]' in text
        back = damasi.Game.from_pdn(text)
        assert [m.notation() for m in back.history] == [m.notation() for m in g.history]
        assert back.position == g.position
        assert ("White", "Ayşe") in back.tags
    two = damasi.Game.read_all_pdn(g.pdn() + "\n" + damasi.Game().pdn())
    assert len(two) == 2 and two[1].ply == 0


def test_pdn_with_setup_and_result():
    g = damasi.Game("W:WKa1:Bh7")
    assert g.outcome().reason == "one-piece-each"
    text = g.pdn()
    assert '[FEN "W:WKa1:Bh7"]' in text and '[Result "1/2-1/2"]' in text
    assert damasi.Game.from_pdn(text).initial_position == damasi.Position("W:WKa1:Bh7")


def test_arbitrary_text_raises_value_errors_never_panics():
    # A Rust panic would surface as pyo3's PanicException (a BaseException, not a ValueError).
    rng = random.Random(5)
    alphabet = "WBKabcdefgh12345678:,x->=K \n\"[]{}0;*/\\é"
    pieces = ["W:", "B:", "Wa2", "Bh7", "Kc4", ":", ",", "x", "-", "d3", "d4", "1.", "[FEN \"", "\"]"]
    pos = damasi.Position()
    for i in range(3000):
        if i % 2:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        else:
            text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        for call in (
            lambda: damasi.Position(text),
            lambda: pos.parse_move(text),
            lambda: pos.play(text),
            lambda: damasi.Game.from_pdn(text),
            lambda: damasi.Game(rules=text),
            lambda: pos.outcome(text),
        ):
            try:
                call()
            except ValueError:
                pass
