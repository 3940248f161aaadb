"""The Gymnasium and PettingZoo environments: random agents play whole games."""

import numpy as np
import pytest

import damasi

gym_env = pytest.importorskip("damasi.gym_env")
aec_env = pytest.importorskip("damasi.aec_env")


@pytest.mark.parametrize("agent", ["white", "black", "random"])
def test_gymnasium_random_agent_plays_complete_games(agent):
    env = gym_env.DamasiEnv(opponent="random", agent=agent, max_plies=400)
    rng = np.random.default_rng(0)
    ends = 0
    for episode in range(4):
        obs, info = env.reset(seed=episode)
        assert env.observation_space.contains(obs)
        steps = 0
        while True:
            mask = info["action_mask"]
            assert np.array_equal(mask, env.action_masks())
            assert mask.any()
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, terminated, truncated, info = env.step(action)
            assert env.observation_space.contains(obs)
            steps += 1
            if terminated:
                outcome = env.game.outcome()
                expected = 0.0 if outcome.winner is None else (1.0 if outcome.winner == env.agent else -1.0)
                assert reward == expected
                ends += 1
                break
            assert reward == 0.0
            if truncated:
                assert env.game.ply >= 400
                break
        assert steps > 0
    assert ends >= 1


def test_gymnasium_env_passes_the_env_checker():
    from gymnasium.utils.env_checker import check_env

    check_env(gym_env.DamasiEnv(), skip_render_check=True)


def test_gymnasium_illegal_action_loses_or_raises():
    env = gym_env.DamasiEnv()
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert env.game.ply == 0 and not env.action_masks().any()
    env = gym_env.DamasiEnv(illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(damasi.MoveError):
        env.step(illegal)


def test_gymnasium_engine_opponent():
    env = gym_env.DamasiEnv(opponent=damasi.Engine(level=1, hash_mb=1), opponent_nodes=200)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.game.ply == 2  # the agent's move and the engine's reply


def test_pettingzoo_api_test():
    from pettingzoo.test import api_test

    api_test(aec_env.env(), num_cycles=200)


def test_pettingzoo_random_agents_play_complete_games():
    e = aec_env.env(max_plies=400)
    rng = np.random.default_rng(1)
    decided = 0
    for game in range(4):
        e.reset(seed=game)
        totals = {"white": 0, "black": 0}
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, info = e.last()
            totals[agent] += reward
            if terminated or truncated:
                action = None
            else:
                mask = obs["action_mask"]
                assert mask.dtype == np.int8 and mask.any()
                action = int(rng.choice(np.flatnonzero(mask)))
            e.step(action)
        assert totals["white"] == -totals["black"]
        decided += totals["white"] != 0
    assert e.unwrapped.game.ply > 0
