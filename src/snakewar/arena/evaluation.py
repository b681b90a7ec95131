"""A/B evaluation: paired seeds, every seating, a crosstable and a sequential test.

:func:`run_eval` plays bots against each other in any registered game (through the
game's adapter, by an arena :class:`~snakewar.arena.executors.Executor`): every seed is
played once with every seating of the bots (all permutations), so that no bot gains by
its start position, and the seeds' groups are counted whole.  After each group the SPRT
"the second bot (B) is better than the first (A)" is checked (:mod:`snakewar.arena.evalstats`);
the run stops when it accepts or rejects, or at the game cap.  Head-to-head results
come from the games' ranks: of two bots, the better-ranked one wins, the same rank draws.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from snakewar.arena.config import MatchConfig
from snakewar.arena.evalstats import Sprt, SprtState, Trinomial, elo_from_score, elo_interval
from snakewar.arena.executors import Executor, GameJob, GameOutcome
from snakewar.engine.protocol import Entrant, PlayedGame
from snakewar.errors import SnakewarError

__all__ = [
    "MAX_BOTS",
    "EvalError",
    "EvalResult",
    "launch_version_key",
    "pair_results",
    "run_eval",
    "seatings",
    "version_key",
]

MAX_BOTS = 4
"""At most this many bots: every seating of four is 24 games per seed already."""


class EvalError(SnakewarError, ValueError):
    """An evaluation that cannot run (too few bots, a bad option, every game failing)."""


def seatings(count: int) -> list[tuple[int, ...]]:
    """Every seating of ``count`` bots: ``seating[seat]`` is the bot in that seat."""
    return list(itertools.permutations(range(count)))


def pair_results(
    game: PlayedGame, seating: Sequence[int], count: int
) -> dict[tuple[int, int], int]:
    """For each pair of bots ``(i, j)``, ``i < j``: 1 if i ranked better, 0 tie, -1 worse."""
    rank = [0] * count
    for result in game.results:
        rank[seating[result.seat]] = result.rank
    return {
        (i, j): (rank[i] < rank[j]) - (rank[i] > rank[j])
        for i, j in itertools.combinations(range(count), 2)
    }


def version_key(entrant: Entrant, reach_kind: str, fetch: Callable[[str], bytes] | None) -> str:
    """What identifies this version of a bot, for the report.

    A built-in bot: its source and Snakewar's version.  A bot on the network: the
    ``version`` its ``GET /`` gives (``fetch`` reads the URL), else a hash of that reply.
    A program: a hash of its command and of the files the command names.
    """
    from pathlib import Path

    import snakewar

    if reach_kind == "builtin":
        return f"{entrant.source} (snakewar {snakewar.__version__})"
    digest = hashlib.sha256(entrant.source.encode())
    if reach_kind == "remote" and fetch is not None:
        try:
            body = fetch(entrant.source)
        except OSError as exc:
            return f"unreachable ({type(exc).__name__})"
        try:
            info = json.loads(body)
        except ValueError:
            info = None
        if isinstance(info, dict) and isinstance(info.get("version"), str) and info["version"]:
            return f"version {info['version'][:100]}"
        digest.update(body)
        return f"sha256:{digest.hexdigest()[:16]} of GET /"
    base = Path(entrant.workdir or ".")
    for token in entrant.source.split():
        path = base / token
        if path.is_file() and path.stat().st_size < 50_000_000:
            digest.update(path.read_bytes())
    return f"sha256:{digest.hexdigest()[:16]}"


SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
     ".tox", ".nox", ".venv", "venv", "node_modules", ".cache", "target", ".idea", ".vscode"}
)  # fmt: skip
"""Folders a launched bot's version key skips: version control, caches, environments."""

MAX_HASHED_BYTES = 64 * 1024 * 1024
"""A launched bot's version key reads at most this much of its folder's files."""

MAX_HASHED_FILES = 20_000
"""... and at most this many files."""


def launch_version_key(
    command: str,
    cwd: str,
    *,
    max_bytes: int = MAX_HASHED_BYTES,
    max_files: int = MAX_HASHED_FILES,
    exclude: Collection[str] = (),
) -> str:
    """The version key of a launched bot: a hash of its command and its folder's files.

    Every regular file under ``cwd`` counts, by its path relative to ``cwd`` and its
    bytes, in path order, except those under :data:`SKIPPED_DIRS` and symbolic links
    (not followed: a link out of the folder is not the bot's).  Past ``max_bytes`` bytes
    or ``max_files`` files the rest is left out and the key says ``(capped)``: two
    versions that differ only there then share a key.  ``exclude``: paths (files or
    folders) left out too, such as the run's own logs and reports when they are
    written into the bot's folder.

    >>> launch_version_key("true", "/nonexistent-folder").startswith("sha256:")
    True
    """
    import os
    from pathlib import Path

    digest = hashlib.sha256(b"launch\0" + command.encode() + b"\0")
    base = Path(cwd)
    skipped = {os.path.realpath(p) for p in exclude}
    used_bytes = used_files = 0
    capped = False
    for root, dirs, files in os.walk(base, followlinks=False):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIPPED_DIRS and os.path.realpath(Path(root, d)) not in skipped
        )
        for name in sorted(files):
            path = Path(root, name)
            if path.is_symlink() or not path.is_file() or os.path.realpath(path) in skipped:
                continue
            try:
                size = path.stat().st_size
                if used_files >= max_files or used_bytes + size > max_bytes:
                    capped = True
                    continue
                data = path.read_bytes()
            except OSError:
                continue  # unreadable: not part of what the bot can run either
            used_files += 1
            used_bytes += len(data)
            relative = path.relative_to(base).as_posix()
            digest.update(f"{relative}\0{len(data)}\0".encode())
            digest.update(data)
    return f"sha256:{digest.hexdigest()[:16]} of launch" + (" (capped)" if capped else "")


@dataclass
class EvalResult:
    """An evaluation's outcome: the counts, the test, and what was played."""

    names: list[str]
    sources: list[str]
    versions: list[str]
    config: MatchConfig
    sprt: Sprt
    first_seed: int
    max_games: int
    pairs: dict[tuple[int, int], Trinomial] = field(default_factory=dict)
    state: SprtState | None = None
    games_used: int = 0
    games_played: int = 0
    errors: list[str] = field(default_factory=list)

    def head_to_head(self, i: int, j: int) -> Trinomial:
        """Bot ``i``'s wins, draws and losses against bot ``j``."""
        if i < j:
            return self.pairs.get((i, j), Trinomial())
        return self.pairs.get((j, i), Trinomial()).flipped()

    def to_dict(self) -> dict[str, Any]:
        """The JSON report."""
        cross: dict[str, dict[str, Any]] = {}
        for i, a in enumerate(self.names):
            row: dict[str, Any] = {}
            for j, b in enumerate(self.names):
                if i == j:
                    continue
                t = self.head_to_head(i, j)
                row[b] = {
                    "wins": t.wins,
                    "draws": t.draws,
                    "losses": t.losses,
                    "games": t.games,
                    "score": t.score,
                    "elo": _finite(elo_from_score(t.score)),
                    "elo_ci95": [_finite(x) for x in elo_interval(t)],
                }
            cross[a] = row
        state = self.state
        return {
            "bots": [
                {"name": n, "source": s, "version": v}
                for n, s, v in zip(self.names, self.sources, self.versions, strict=True)
            ],
            "config": self.config.to_dict(),
            "first_seed": self.first_seed,
            "seatings_per_seed": len(seatings(len(self.names))),
            "max_games": self.max_games,
            "games_played": self.games_played,
            "games_used": self.games_used,
            "errors": self.errors[:20],
            "error_count": len(self.errors),
            "crosstable": cross,
            "sprt": {
                "hypothesis": f"{self.names[1]} is better than {self.names[0]}",
                "elo0": self.sprt.elo0,
                "elo1": self.sprt.elo1,
                "alpha": self.sprt.alpha,
                "beta": self.sprt.beta,
                "llr": state.llr if state else 0.0,
                "lower": state.lower if state else None,
                "upper": state.upper if state else None,
                "decision": (state.decision if state else "") or "inconclusive",
                "games": self.games_used,
            },
        }


def _finite(x: float) -> float | None:
    # JSON has no infinity: an Elo off the scale (every game won) is null.
    return x if abs(x) != float("inf") else None


def run_eval(
    config: MatchConfig,
    entrants: Sequence[Entrant],
    versions: Sequence[str],
    executor: Executor,
    *,
    sprt: Sprt,
    max_games: int,
    first_seed: int = 1,
    batch_seeds: int = 4,
    on_progress: Callable[[EvalResult], None] | None = None,
    on_game: Callable[[GameOutcome], None] | None = None,
) -> EvalResult:
    """Play until the SPRT decides or ``max_games`` games are used.

    ``on_game`` is called with each game's outcome as it ends (for its bots' logs).

    Games run in batches of ``batch_seeds`` seeds (each with every seating); a batch's
    groups are counted in seed order, and the test is checked after each whole group,
    so that the test never sees a seed with only some of its seatings.

    Raises:
        EvalError: fewer than two or more than :data:`MAX_BOTS` bots, a cap smaller
            than one seed's games, or a batch where every game failed.
    """
    count = len(entrants)
    if not 2 <= count <= MAX_BOTS:
        raise EvalError(f"{count} bots: expected 2 to {MAX_BOTS}")
    seats = seatings(count)
    if max_games < len(seats):
        raise EvalError(
            f"--games {max_games}: one seed is {len(seats)} games (every seating); "
            f"expected at least {len(seats)}"
        )
    if batch_seeds < 1:
        raise EvalError(f"batch of {batch_seeds} seeds: expected at least 1")
    result = EvalResult(
        [e.name for e in entrants],
        [e.source for e in entrants],
        list(versions),
        config,
        sprt,
        first_seed,
        max_games,
    )
    seed_count = max_games // len(seats)
    done = 0
    while done < seed_count and not (result.state and result.state.decision):
        seeds = [first_seed + n for n in range(done, min(done + batch_seeds, seed_count))]
        jobs = [
            GameJob(
                f"eval-{seed}-{k}",
                config.match_spec([entrants[b] for b in seating], source="eval"),
                seed,
            )
            for seed in seeds
            for k, seating in enumerate(seats)
        ]
        outcomes = executor.run(jobs, on_result=on_game)
        result.games_played += len(outcomes)
        if all(not o.ok for o in outcomes):
            raise EvalError(f"every game of the batch failed; the first: {outcomes[0].error}")
        for group in range(len(seeds)):
            _count_group(result, outcomes[group * len(seats) : (group + 1) * len(seats)], seats)
            result.state = sprt.state(result.head_to_head(1, 0))
            if result.state.decision:
                break
        done += len(seeds)
        if on_progress is not None:
            on_progress(result)
    return result


def _count_group(
    result: EvalResult, outcomes: Sequence[GameOutcome], seats: Sequence[tuple[int, ...]]
) -> None:
    count = len(result.names)
    for outcome, seating in zip(outcomes, seats, strict=True):
        if outcome.played is None:
            result.errors.append(f"seed {outcome.seed}: {outcome.error}")
            continue
        result.games_used += 1
        for pair, sign in pair_results(outcome.played, seating, count).items():
            add = Trinomial(int(sign > 0), int(sign == 0), int(sign < 0))
            result.pairs[pair] = result.pairs.get(pair, Trinomial()).plus(add)
