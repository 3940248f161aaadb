"""Board planes, the action space and its mask, VecGames, self-play data."""

import random

import numpy as np
import pytest

import damasi

FILES = "abcdefgh"


def view_index(square, turn):
    """The square's index from the side to move's view (ranks reversed for Black)."""
    file, rank = FILES.index(square[0]), int(square[1]) - 1
    if turn == "black":
        rank = 7 - rank
    return rank * 8 + file


def random_positions(games=30, seed=11, max_plies=200):
    rng = random.Random(seed)
    for _ in range(games):
        pos = damasi.Position()
        for _ in range(max_plies):
            yield pos
            moves = pos.legal_moves()
            if not moves or pos.outcome() is not None:
                break
            pos = pos.play(rng.choice(moves))


def test_planes_show_the_pieces_from_the_side_to_move():
    pos = damasi.Position("B:Wd4,Kh1:Bc6,Ka8")
    planes = pos.planes()
    assert planes.shape == (4, 8, 8) and planes.dtype == np.float32
    # Black to move: own man c6 -> row 7-5 = 2, file 2; own king a8 -> row 0, file 0;
    # White man d4 -> row 4, file 3; White king h1 -> row 7, file 7.
    expected = np.zeros((4, 8, 8), dtype=np.float32)
    expected[0, 2, 2] = 1
    expected[1, 0, 0] = 1
    expected[2, 4, 3] = 1
    expected[3, 7, 7] = 1
    assert np.array_equal(planes, expected)
    # The start position looks the same to both sides (the setup is symmetric).
    start = damasi.Position()
    assert np.array_equal(start.planes(), start.with_turn("black").planes())


def test_mask_equals_the_legal_moves_over_random_games():
    checked = 0
    for pos in random_positions():
        mask = pos.action_mask()
        assert mask.shape == (4096,) and mask.dtype == np.bool_
        moves = pos.legal_moves()
        expected = {
            view_index(m.from_square, pos.turn) * 64 + view_index(m.to_square, pos.turn)
            for m in moves
        }
        assert set(np.flatnonzero(mask).tolist()) == expected
        for a in expected:
            m = pos.action_to_move(a)
            assert m in moves
            assert m.action == a
        checked += 1
    assert checked > 500


def test_illegal_actions_are_refused():
    pos = damasi.Position()
    legal = set(np.flatnonzero(pos.action_mask()).tolist())
    illegal = next(a for a in range(4096) if a not in legal)
    with pytest.raises(damasi.MoveError, match="not legal"):
        pos.action_to_move(illegal)
    with pytest.raises(damasi.MoveError):
        pos.action_to_move(-1)
    with pytest.raises(damasi.MoveError):
        pos.action_to_move(4096)


def test_captures_sharing_from_and_to_take_the_smallest_captured_set():
    # The king on h6 can take d6, c4, e1 or d6, b4, e1 and land on f1, g1 or h1 either way:
    # two moves per landing square, one action each.
    pos = damasi.Position("W:WKh6:Bc4,d6,b4,Ke1,Kg8,g7,Ke7")
    moves = pos.legal_moves()
    assert len(moves) == 6
    assert int(pos.action_mask().sum()) == 3
    for to in ["f1", "g1", "h1"]:
        pair = [m for m in moves if m.to_square == to]
        assert len(pair) == 2
        small = min(pair, key=lambda m: m.captured_mask)
        large = max(pair, key=lambda m: m.captured_mask)
        assert sorted(small.captured) == ["b4", "d6", "e1"]  # b4 has a lower index than c4
        a = view_index("h6", "white") * 64 + view_index(to, "white")
        assert small.action == a
        assert pos.action_to_move(a) == small
        with pytest.raises(damasi.MoveError, match="no action"):
            pos.move_to_action(large)


def test_vec_games_step_in_rust_and_reset_at_the_end():
    n = 8
    games = damasi.VecGames(n, max_plies=300, seed=5)
    assert len(games) == n
    obs = games.reset()
    assert obs.shape == (n, 4, 8, 8)
    assert np.array_equal(obs[0], damasi.Position().planes())
    finished = 0
    for _ in range(400):
        masks = games.action_masks()
        actions = games.random_actions()
        assert masks[np.arange(n), actions].all()
        before = games.positions()
        obs, rewards, terminated, truncated = games.step(actions)
        after = games.positions()
        for i in range(n):
            if terminated[i] or truncated[i]:
                finished += 1
                assert after[i] == damasi.Position()
                assert games.last_outcomes()[i] in (-1, 0, 1)
            else:
                assert rewards[i] == 0
                assert after[i] == before[i].play(int(actions[i]))
                assert np.array_equal(obs[i], after[i].planes())
            if terminated[i] and rewards[i] != 0:
                # The mover won: its winner code matches the colour that moved.
                assert games.last_outcomes()[i] == (1 if before[i].turn == "white" else -1)
    assert finished > 0


def test_vec_games_refuse_bad_actions_and_change_nothing():
    games = damasi.VecGames(2)
    ok = games.random_actions()
    with pytest.raises(damasi.MoveError, match="game 1"):
        games.step([int(ok[0]), 0])
    assert games.positions() == [damasi.Position(), damasi.Position()]
    with pytest.raises(ValueError):
        games.step([int(ok[0])])
    with pytest.raises(ValueError):
        damasi.VecGames(0)


def test_selfplay_data(tmp_path):
    data = damasi.selfplay(2, nodes=300, random_plies=4, max_plies=120, seed=1)
    m = len(data["fens"])
    assert m > 20
    assert data["planes"].shape == (m, 4, 8, 8)
    for key in ["scores", "actions", "results", "games", "plies"]:
        assert data[key].shape == (m,)
    assert set(np.unique(data["games"]).tolist()) == {0, 1}
    assert data["plies"].min() >= 4
    for i in range(0, m, 7):
        pos = damasi.Position(data["fens"][i])
        assert np.array_equal(data["planes"][i], pos.planes())
        assert pos.action_mask()[data["actions"][i]] or data["actions"][i] == -1
    # Results are per side to move: within a decided game, the two sides have opposite signs.
    for g in (0, 1):
        rows = np.flatnonzero(data["games"] == g)
        results = data["results"][rows]
        turns = [damasi.Position(data["fens"][i]).turn for i in rows]
        white = {r for r, t in zip(results, turns) if t == "white"}
        black = {r for r, t in zip(results, turns) if t == "black"}
        assert len(white) == 1 and len(black) == 1 and white.pop() == -black.pop()
    path = tmp_path / "selfplay.npz"
    damasi.save_selfplay(path, data)
    loaded = np.load(path)
    assert np.array_equal(loaded["planes"], data["planes"])
    assert list(loaded["fens"]) == data["fens"]


def reward_for(outcome, mover):
    if outcome.winner is None:
        return 0.0
    return 1.0 if outcome.winner == mover else -1.0


def king_shuffle(game, actions):
    """The lowest-numbered quiet king move if there is one (kings shuttle and repeat), else
    the action drawn by the batch."""
    pos = game.position
    for a in np.flatnonzero(pos.action_mask()).tolist():
        m = pos.action_to_move(a)
        if not m.is_capture and pos.piece_at(m.from_index)[1] == "king":
            return a
    return int(actions)


@pytest.mark.parametrize("threads", [1, 2, None])
@pytest.mark.parametrize(
    "rules,policy,ending",
    [("turkish", king_shuffle, "repetition"), ("turkish; no-capture-limit 12", None, "no-capture-limit")],
)
def test_vec_games_step_equals_each_game_stepped_alone(threads, rules, policy, ending):
    # The batch, stepped in Rust (in parallel unless threads=1), against damasi.Game objects
    # stepped one by one in Python on the same actions: same positions, observations, masks,
    # rewards, ends (a win, the one-piece-each draw, and `ending`) and auto-resets.
    n, max_plies = 16, 150
    games = damasi.VecGames(n, rules=rules, max_plies=max_plies, seed=3, threads=threads)
    alone = [damasi.Game(rules=rules) for _ in range(n)]
    obs_buf, masks_buf = games.observations(copy=False), games.action_masks(copy=False)
    reasons = set()
    for _ in range(600):
        actions = games.random_actions()
        if policy is not None:
            actions = np.array([policy(g, a) for g, a in zip(alone, actions)])
        obs, rewards, terminated, truncated = games.step(actions, copy=False)
        assert obs is obs_buf
        last = games.last_outcomes()
        for i, g in enumerate(alone):
            mover = g.turn
            g.play(int(actions[i]))
            outcome = g.outcome()
            if outcome is not None:
                reasons.add(outcome.reason)
                assert terminated[i] and not truncated[i]
                assert rewards[i] == reward_for(outcome, mover)
                assert last[i] == {"white": 1, "black": -1, None: 0}[outcome.winner]
                alone[i] = g = damasi.Game(rules=rules)
            elif g.ply >= max_plies:
                assert truncated[i] and not terminated[i] and rewards[i] == 0 and last[i] == 0
                alone[i] = g = damasi.Game(rules=rules)
            else:
                assert not terminated[i] and not truncated[i] and rewards[i] == 0
        positions = games.positions()
        assert positions == [g.position for g in alone]
        assert games.plies().tolist() == [g.ply for g in alone]
        for i, g in enumerate(alone):
            assert np.array_equal(obs[i], g.position.planes())
            assert np.array_equal(masks_buf[i], g.position.action_mask())
    assert {"no-pieces", ending} <= reasons


def test_vec_games_are_the_same_on_any_number_of_threads():
    runs = []
    for threads in (1, 2, 3):
        games = damasi.VecGames(300, max_plies=80, seed=9, threads=threads)
        trace = []
        for _ in range(120):
            obs, rewards, terminated, truncated = games.step(games.random_actions())
            trace.append((obs.sum(axis=(1, 2, 3)), rewards, terminated, truncated))
        runs.append((trace, games.action_masks(), games.observations()))
    for trace, masks, obs in runs[1:]:
        assert np.array_equal(masks, runs[0][1]) and np.array_equal(obs, runs[0][2])
        for a, b in zip(trace, runs[0][0]):
            assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_vec_games_buffers_are_read_only_and_copies_are_fresh():
    games = damasi.VecGames(4, seed=1)
    obs, rewards, terminated, truncated = games.step(games.random_actions(), copy=False)
    assert obs is games.observations(copy=False)
    masks = games.action_masks(copy=False)
    assert masks is games.action_masks(copy=False)
    for a in (obs, rewards, terminated, truncated, masks):
        assert not a.flags.writeable and a.flags.c_contiguous
    with pytest.raises(ValueError):
        obs[0, 0, 0, 0] = 5
    kept = games.observations()
    copied = games.step(games.random_actions())
    assert all(a.flags.writeable for a in copied)
    assert copied[0] is not obs and np.array_equal(copied[0], obs)  # the buffer moved on too
    assert not np.array_equal(kept, obs)  # the earlier copy did not
    assert masks.shape == (4, 4096) and masks.dtype == np.bool_
    assert [int(m.sum()) for m in masks] == [len(set(np.flatnonzero(p.action_mask()))) for p in games.positions()]


def test_vec_games_take_lists_and_int32_or_int64_arrays():
    results = []
    for convert in (list, lambda a: np.asarray(a, dtype=np.int32), lambda a: a):
        games = damasi.VecGames(8, seed=2)
        for _ in range(30):
            actions = games.random_actions()
            assert actions.dtype == np.int64
            games.step(convert(actions.tolist() if convert is list else actions))
        results.append(games.observations())
    assert np.array_equal(results[0], results[1]) and np.array_equal(results[0], results[2])


def test_vec_games_refused_step_leaves_the_buffers_alone():
    games = damasi.VecGames(3, seed=4)
    games.step(games.random_actions())
    obs, masks = games.observations(), games.action_masks()
    actions = games.random_actions()
    actions[2] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(damasi.MoveError, match="game 2"):
        games.step(actions)
    assert np.array_equal(games.observations(copy=False), obs)
    assert np.array_equal(games.action_masks(copy=False), masks)
    with pytest.raises(ValueError):
        damasi.VecGames(2, threads=0)
