"""A Gymnasium environment: one agent plays Turkish draughts against an opponent.

Observations are the board planes of :meth:`damasi.Position.planes` (``float32``,
``(4, 8, 8)``, from the agent's view), actions the 4096 from-to actions of
:meth:`damasi.Position.move_to_action`; ``info["action_mask"]`` (and the
``action_masks()`` method, as sb3-contrib's MaskablePPO expects) gives the legal ones. The
reward is +1 when the agent wins, -1 when it loses, 0 otherwise (draws included); an episode
is truncated after ``max_plies`` plies. An illegal action loses the episode at once (reward
-1, ``info["illegal_action"]`` true, the board unchanged), or raises
:class:`damasi.MoveError` with ``illegal_action="raise"``.

>>> from damasi.gym_env import DamasiEnv
>>> env = DamasiEnv(opponent="random")
>>> obs, info = env.reset(seed=1)
>>> import numpy as np
>>> action = int(np.flatnonzero(info["action_mask"])[0])
>>> obs, reward, terminated, truncated, info = env.step(action)
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from . import Engine, Game, Move, Position

Opponent = Union[str, Engine, Callable[[Game], Any]]


class DamasiEnv(gym.Env):
    """Turkish draughts against ``opponent``.

    ``opponent`` is ``"random"`` (uniform over the legal moves), a :class:`damasi.Engine`
    (searching ``opponent_nodes`` nodes a move) or a callable taking the :class:`damasi.Game`
    and returning a move (a ``Move``, a move text or an action). ``agent`` is the colour the
    agent plays, ``"white"``, ``"black"`` or ``"random"`` (drawn at each reset).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        opponent: Opponent = "random",
        agent: str = "white",
        rules: str = "turkish",
        max_plies: int = 500,
        opponent_nodes: int = 1000,
        render_mode: Optional[str] = None,
        illegal_action: str = "lose",
    ):
        if illegal_action not in ("lose", "raise"):
            raise ValueError("illegal_action must be 'lose' or 'raise'")
        self.illegal_action = illegal_action
        if agent not in ("white", "black", "random"):
            raise ValueError("agent must be 'white', 'black' or 'random'")
        if render_mode not in (None, "ansi"):
            raise ValueError("render_mode must be None or 'ansi'")
        self.opponent = opponent
        self.agent_choice = agent
        self.rules = rules
        self.max_plies = max_plies
        self.opponent_nodes = opponent_nodes
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, shape=(4, 8, 8), dtype=np.float32)
        self.action_space = spaces.Discrete(4096)
        self.game = Game(rules=rules)
        self.agent = "white"
        self._lost_by_illegal_action = False

    def _opponent_move(self):
        if self.opponent == "random":
            moves = self.game.legal_moves()
            return moves[int(self.np_random.integers(len(moves)))]
        if isinstance(self.opponent, Engine):
            return self.opponent.play(self.game, nodes=self.opponent_nodes)
        return self.opponent(self.game)

    def _play_opponent(self) -> None:
        while not self.game.is_over and self.game.turn != self.agent:
            self.game.play(self._opponent_move())

    def _observation(self) -> np.ndarray:
        return self.game.position.with_turn(self.agent).planes()

    def action_masks(self) -> np.ndarray:
        """The legal actions for the agent (all false once the episode is over)."""
        if self.game.is_over or self._lost_by_illegal_action:
            return np.zeros(4096, dtype=bool)
        return self.game.position.action_mask()

    def _info(self) -> dict:
        return {"action_mask": self.action_masks(), "fen": self.game.position.fen()}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        fen = (options or {}).get("fen")
        self.game = Game(fen, rules=self.rules)
        self._lost_by_illegal_action = False
        if self.agent_choice == "random":
            self.agent = "white" if self.np_random.integers(2) == 0 else "black"
        else:
            self.agent = self.agent_choice
        self._play_opponent()
        return self._observation(), self._info()

    def step(self, action):
        if self.game.is_over or self._lost_by_illegal_action:
            raise RuntimeError("the episode is over: call reset()")
        action = int(action)
        if self.illegal_action == "lose" and not self.game.position.action_mask()[action]:
            self._lost_by_illegal_action = True
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), -1.0, True, False, info
        self.game.play(action)
        self._play_opponent()
        terminated = self.game.is_over
        reward = 0.0
        if terminated:
            winner = self.game.outcome().winner
            reward = 0.0 if winner is None else (1.0 if winner == self.agent else -1.0)
        truncated = not terminated and self.game.ply >= self.max_plies
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self):
        if self.render_mode == "ansi":
            return self.game.position.diagram()
        return None
