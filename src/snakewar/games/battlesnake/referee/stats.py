"""Summaries of refereed games: per-snake outcomes, latency percentiles, batch totals.

A :class:`GameSummary` is the small, picklable digest of a :class:`GameRecord`
that batch evaluation moves between processes; :class:`BatchStats` adds them up
per seat (the snake given in position ``i``) with Wilson 95% intervals.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from snakewar.games.battlesnake.records import CallStatus, GameRecord
from snakewar.referee.intervals import wilson_interval

__all__ = [
    "BatchStats",
    "GameSummary",
    "SeatStats",
    "SnakeOutcome",
    "percentile",
    "summarize",
    "wilson_interval",
]


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) with linear interpolation; 0 for no values.

    >>> percentile([1, 2, 3, 4], 50)
    2.5
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclass(frozen=True, slots=True)
class SnakeOutcome:
    """How one snake did in one game."""

    seat: int
    id: str
    name: str
    result: str
    """``"win"``, ``"draw"``, ``"loss"`` or ``"unfinished"`` (turn limit with several alive)."""
    length: int
    health: int
    cause: str
    """The elimination cause, ``""`` if it survived."""
    eliminated_by: str
    eliminated_on_turn: int
    latencies: tuple[int, ...]
    statuses: dict[str, int]
    """Count of each non-OK :class:`CallStatus` of its ``/move`` calls."""


@dataclass(frozen=True, slots=True)
class GameSummary:
    """The digest of one game."""

    seed: int
    turns: int
    winner_seat: int | None
    is_draw: bool
    reason: str
    snakes: tuple[SnakeOutcome, ...]


def summarize(record: GameRecord) -> GameSummary:
    """Digest a finished game record."""
    result = record.result
    final = record.final_state
    winner = result.winner if result else None
    draw = bool(result and result.is_draw)
    latencies: dict[str, list[int]] = {e.id: [] for e in record.snakes}
    statuses: dict[str, Counter[str]] = {e.id: Counter() for e in record.snakes}
    for turn in record.turns:
        for sid, call in turn.calls.items():
            latencies[sid].append(call.latency_ms)
            if call.status is not CallStatus.OK:
                statuses[sid][str(call.status)] += 1
    outcomes = []
    winner_seat = None
    alive_count = sum(1 for s in final.snakes if not s.eliminated_cause)
    for seat, entry in enumerate(record.snakes):
        snake = final.snake(entry.id)
        if winner == entry.id:
            outcome = "win"
            winner_seat = seat
        elif draw:
            outcome = "draw"
        elif not snake.eliminated_cause and alive_count > 1:
            outcome = "unfinished"
        else:
            outcome = "loss" if (winner or snake.eliminated_cause) else "unfinished"
        outcomes.append(
            SnakeOutcome(
                seat=seat,
                id=entry.id,
                name=entry.name,
                result=outcome,
                length=len(snake.body),
                health=snake.health,
                cause=snake.eliminated_cause,
                eliminated_by=snake.eliminated_by,
                eliminated_on_turn=snake.eliminated_on_turn,
                latencies=tuple(latencies[entry.id]),
                statuses=dict(statuses[entry.id]),
            )
        )
    return GameSummary(
        seed=record.config.seed,
        turns=final.turn,
        winner_seat=winner_seat,
        is_draw=draw,
        reason=result.reason if result else "unfinished",
        snakes=tuple(outcomes),
    )


@dataclass(slots=True)
class SeatStats:
    """Totals for the snake in one seat over a batch."""

    seat: int
    name: str
    source: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    unfinished: int = 0
    causes: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    length_total: int = 0
    latencies: list[int] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        """Wins per game played."""
        return self.wins / self.games if self.games else 0.0

    @property
    def win_interval(self) -> tuple[float, float]:
        """Wilson 95% interval of the win rate."""
        return wilson_interval(self.wins, self.games)

    @property
    def mean_length(self) -> float:
        """Average final length."""
        return self.length_total / self.games if self.games else 0.0

    def latency(self, q: float) -> float:
        """Latency percentile in ms over all its moves."""
        return percentile(self.latencies, q)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        lo, hi = self.win_interval
        return {
            "seat": self.seat,
            "name": self.name,
            "source": self.source,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "unfinished": self.unfinished,
            "win_rate": self.win_rate,
            "win_rate_ci95": [lo, hi],
            "mean_length": self.mean_length,
            "eliminations": dict(self.causes),
            "failures": dict(self.statuses),
            "latency_ms": {
                "p50": self.latency(50),
                "p95": self.latency(95),
                "max": max(self.latencies, default=0),
            },
        }


@dataclass(slots=True)
class BatchStats:
    """Totals over a batch of games between the same seats."""

    seats: list[SeatStats]
    games: int = 0
    draws: int = 0
    turns_total: int = 0
    turns: list[int] = field(default_factory=list)

    @classmethod
    def empty(cls, names: Sequence[str], sources: Sequence[str]) -> BatchStats:
        """Stats with no games yet for these seats."""
        return cls(
            [SeatStats(i, n, s) for i, (n, s) in enumerate(zip(names, sources, strict=True))]
        )

    def add(self, summary: GameSummary) -> None:
        """Count one more game."""
        self.games += 1
        self.draws += summary.is_draw
        self.turns_total += summary.turns
        self.turns.append(summary.turns)
        for outcome in summary.snakes:
            seat = self.seats[outcome.seat]
            seat.games += 1
            if outcome.result == "win":
                seat.wins += 1
            elif outcome.result == "draw":
                seat.draws += 1
            elif outcome.result == "loss":
                seat.losses += 1
            else:
                seat.unfinished += 1
            if outcome.cause:
                seat.causes[outcome.cause] += 1
            seat.statuses.update(outcome.statuses)
            seat.length_total += outcome.length
            seat.latencies.extend(outcome.latencies)

    def extend(self, summaries: Iterable[GameSummary]) -> None:
        """Count several games."""
        for summary in summaries:
            self.add(summary)

    @property
    def mean_turns(self) -> float:
        """Average game length in turns."""
        return self.turns_total / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "games": self.games,
            "draws": self.draws,
            "mean_turns": self.mean_turns,
            "seats": [s.to_json() for s in self.seats],
        }
