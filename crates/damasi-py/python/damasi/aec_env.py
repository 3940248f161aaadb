"""A PettingZoo AEC environment: two agents, ``"white"`` and ``"black"``, take turns.

``observe(agent)`` returns ``{"observation": planes, "action_mask": mask}``: the planes of
:meth:`damasi.Position.planes` seen from ``agent`` (``float32``, ``(4, 8, 8)``) and, for the
agent to move, the ``int8`` mask of its legal actions among the 4096 from-to actions of
:meth:`damasi.Position.move_to_action` (all zero for the other agent). The winner gets +1,
the loser -1, both 0 on a draw; the game is truncated after ``max_plies`` plies. An illegal
action raises :class:`damasi.MoveError`.

>>> from damasi.aec_env import env
>>> e = env()
>>> e.reset(seed=0)
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     if terminated or truncated:
...         action = None
...     else:
...         action = int(obs["action_mask"].nonzero()[0][0])
...     e.step(action)
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import Game


def env(**kwargs):
    """The environment with PettingZoo's order-enforcing and bounds-checking wrappers."""
    e = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):
    """Turkish draughts for two agents (see the module docs)."""

    metadata = {"render_modes": ["ansi"], "name": "damasi_v0", "is_parallelizable": False}

    def __init__(
        self, rules: str = "turkish", max_plies: int = 500, render_mode: Optional[str] = None
    ):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError("render_mode must be None or 'ansi'")
        self.rules = rules
        self.max_plies = max_plies
        self.render_mode = render_mode
        self.possible_agents = ["white", "black"]
        self.agents = self.possible_agents[:]
        self._observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, shape=(4, 8, 8), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(4096,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._action_spaces = {a: spaces.Discrete(4096) for a in self.possible_agents}
        self.game = Game(rules=rules)

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    def observe(self, agent):
        position = self.game.position
        planes = position.with_turn(agent).planes()
        if agent == position.turn and not self.game.is_over:
            mask = position.action_mask().astype(np.int8)
        else:
            mask = np.zeros(4096, dtype=np.int8)
        return {"observation": planes, "action_mask": mask}

    def reset(self, seed=None, options=None):
        fen = (options or {}).get("fen")
        self.game = Game(fen, rules=self.rules)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.game.turn

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.game.play(int(action))
        self.rewards = {a: 0 for a in self.agents}
        outcome = self.game.outcome()
        if outcome is not None:
            for a in self.agents:
                self.terminations[a] = True
                if outcome.winner is not None:
                    self.rewards[a] = 1 if a == outcome.winner else -1
        elif self.game.ply >= self.max_plies:
            for a in self.agents:
                self.truncations[a] = True
        self.agent_selection = self.game.turn
        self._accumulate_rewards()

    def render(self):
        if self.render_mode == "ansi":
            return self.game.position.diagram()
        return None

    def close(self):
        pass
