"""Tournament runs: a :class:`~snakewar.arena.tournaments.Tournament` played with real games.

A :class:`TournamentRun` couples the pure bracket (which never plays a game) with the
snakes (a name and a source each, as on a ladder), one game config
(:class:`~snakewar.arena.ladder.LadderConfig`) and a seed.  Each :meth:`TournamentRun.step`
plays **one game of every pending match** through an
:class:`~snakewar.arena.executors.Executor` (so a round's matches share the executor's
concurrency), stores each game like any server game, reports its placement (from the
elimination order, keyed by entrant name) and saves the run in the store's
``tournaments`` table.  One game per match per step, not a whole best-of-N, because a
drawn game decides nothing and the match needs another: the bracket says when a match is
decided, so the runner never guesses how many games are left.

Every game's seed derives from the tournament's id and seed, the match id and the game's
number in the match, so a run saved and loaded mid-way plays exactly the games it would
have played, and two tournaments never share a game id (game ids derive from seeds).
"""

from __future__ import annotations

import contextlib
import random
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from snakewar.arena.executors import Executor, GameJob, InProcessExecutor
from snakewar.arena.halite import (
    HaliteSummary,
    halite_entrant,
    halite_game_id,
    store_halite_summary,
)
from snakewar.arena.ladder import LadderConfig
from snakewar.arena.ratings import Rating, placement_from_summary
from snakewar.arena.tournaments import Tournament, seed_by_rating
from snakewar.errors import SnakewarError
from snakewar.referee.runner import canonical_source, default_snake_name

__all__ = [
    "MAX_DRAWS",
    "TournamentRun",
    "TournamentRunError",
    "load_tournament",
]

MAX_DRAWS = 20
"""Games a match may play beyond its best-of before the run gives up on it (draws)."""


class TournamentRunError(SnakewarError, ValueError):
    """Raised for a tournament run that does not exist, cannot be set up or cannot go on."""


def _new_id(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "tournament"
    return f"{slug}-{secrets.token_hex(4)}"


@dataclass
class TournamentRun:
    """A tournament with its snakes, game config, seed and the games of each match.

    ``games`` maps a match id to its games in order, each a dict with ``game_id``,
    ``seed``, ``seats`` (entrant names in seat order), ``placement`` and ``turns``.
    """

    id: str
    name: str
    tournament: Tournament
    snakes: dict[str, str]
    config: LadderConfig = field(default_factory=LadderConfig)
    seed: int = 1
    games: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    # -- creation -----------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        name: str,
        format: str,
        snakes: Sequence[tuple[str, str | None]],
        *,
        config: LadderConfig | None = None,
        seed: int = 1,
        heat_size: int = 2,
        best_of: int = 1,
        advance: int | None = None,
        ratings: Mapping[str, Rating] | None = None,
        tid: str | None = None,
        **options: Any,
    ) -> TournamentRun:
        """Set up a tournament run.

        Args:
            name: the tournament's display name.
            format: one of :data:`~snakewar.arena.tournaments.FORMATS`.
            snakes: ``(source, name)`` per snake, by seed (best first): a URL,
                ``builtin:NAME`` (or a bare bot name) or ``legacy:URL``; ``name`` ``None``
                takes the bot's name or the URL's host (``-2``, ``-3``... when taken).
            config: the game every game plays (default: standard 11x11); its
                ``game_size`` is set to ``heat_size``.
            seed: the seed the games' seeds derive from.
            heat_size: snakes per match.
            best_of: games a match needs at most, odd.
            advance: snakes going on from each heat (see :meth:`Tournament.create`).
            ratings: when given, entrants are seeded by these ratings (best first,
                unrated ones last in given order) instead of by the order of ``snakes``.
            tid: the tournament's id (default: a slug of ``name`` and random hex).
            options: more :meth:`Tournament.create` options (``rounds``,
                ``grand_final_reset``).

        Raises:
            TournamentRunError: an empty or repeated name.
            TournamentError: tournament settings out of range.
            SnakeSpecError: a source that is not a snake.
            SnakewarError: a game config the rules refuse (via the rules' own errors).
        """
        if not name:
            raise TournamentRunError("tournament name '': expected a non-empty name")
        base_config = config or LadderConfig()
        entries: dict[str, str] = {}
        for source, given in snakes:
            halite_name: str | None = None
            if base_config.game == "halite3":
                canonical, halite_name = halite_entrant(source)
            else:
                canonical = canonical_source(source)
            if given is not None:
                if not given or given in entries:
                    raise TournamentRunError(
                        f"snake name {given!r}: expected a non-empty name not used yet"
                    )
                entries[given] = canonical
                continue
            base = halite_name or default_snake_name(source)
            chosen, n = base, 1
            while chosen in entries:
                n += 1
                chosen = f"{base}-{n}"
            entries[chosen] = canonical
        game_config = replace(base_config, game_size=max(2, min(heat_size, 8)))
        game_config.check()  # against the rules now, not at the first game
        order = list(entries)
        if ratings is not None:
            order = seed_by_rating(order, ratings)
        tournament = Tournament.create(
            format,
            order,
            heat_size,
            best_of,
            advance,
            seed=seed if format == "swiss" else None,
            **options,
        )
        return cls(tid or _new_id(name), name, tournament, entries, game_config, seed)

    # -- state --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what the store keeps): the tournament's own dict and the run."""
        return {
            "id": self.id,
            "name": self.name,
            "seed": self.seed,
            "config": self.config.to_dict(),
            "snakes": [{"name": n, "source": s} for n, s in self.snakes.items()],
            "match_games": {mid: list(games) for mid, games in self.games.items()},
            "tournament": self.tournament.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TournamentRun:
        """Rebuild a run from :meth:`to_dict`.

        Raises:
            TournamentRunError: data that is not a tournament run.
            TournamentError: a tournament whose reports do not fit.
        """
        try:
            config = LadderConfig.from_dict(data["config"])
            snakes = {s["name"]: s["source"] for s in data["snakes"]}
            games = {mid: list(g) for mid, g in data["match_games"].items()}
            tournament = Tournament.from_dict(data["tournament"])
            return cls(data["id"], data["name"], tournament, snakes, config, data["seed"], games)
        except (KeyError, TypeError, AttributeError) as exc:
            raise TournamentRunError(f"tournament run data is missing or mistypes {exc}") from None

    def save(self, store: Any) -> None:
        """Save the run in ``store`` (a :class:`~snakewar.server.store.Store`)."""
        store.save_tournament(self.id, self.name, self.to_dict())

    # -- playing ------------------------------------------------------------------------

    @property
    def is_finished(self) -> bool:
        """Whether every match is decided."""
        return self.tournament.is_finished

    def game_seed(self, match_id: str, number: int) -> int:
        """The seed of game ``number`` (0 first) of match ``match_id``."""
        rng = random.Random(f"{self.id}:{self.seed}:{match_id}:{number}")
        return rng.getrandbits(62) + 1

    def _job(self, match_id: str, entrants: list[str]) -> tuple[GameJob, list[str]]:
        number = len(self.games.get(match_id, []))
        seed = self.game_seed(match_id, number)
        seats = list(entrants)
        # Seat order from the game's seed: no seat advantage for the better seed.
        random.Random(seed).shuffle(seats)
        spec = self.config.match_spec(
            [self.snakes[n] for n in seats], seats, f"tournament:{self.id}"
        )
        return GameJob(f"{self.id}:{match_id}:{number}", spec, seed), seats

    def step(
        self,
        store: Any,
        executor: Executor | None = None,
        on_game: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> int:
        """Play one game of every pending match, report them and save the run.

        Args:
            store: where games and the run are saved (a
                :class:`~snakewar.server.store.Store`).
            executor: plays the games (default: in process, 4 at a time).
            on_game: called with ``(match_id, game)`` for each game played.

        Returns:
            The number of games played (0 once the tournament is finished).

        Raises:
            TournamentRunError: a game could not be played (a snake unreachable), or a
                match drew more than :data:`MAX_DRAWS` games beyond its best-of. The
                games that were played are reported and saved first.
        """
        from snakewar.replay import read_replay

        executor = executor or InProcessExecutor(concurrency=4)
        pending = self.tournament.pending_matches()
        if not pending:
            return 0
        limit = self.tournament.config["best_of"] + MAX_DRAWS
        for match in pending:
            if len(self.games.get(match.id, [])) >= limit:
                raise TournamentRunError(
                    f"match {match.id!r} is undecided after {limit} games; "
                    f"expected it decided within best-of plus {MAX_DRAWS} draws"
                )
        jobs = [(match.id, *self._job(match.id, match.entrants)) for match in pending]
        outcomes = executor.run([job for _, job, _ in jobs], replays=True)
        played = 0
        failures: list[str] = []
        for (match_id, job, seats), outcome in zip(jobs, outcomes, strict=True):
            summary = outcome.summary
            if isinstance(summary, HaliteSummary):
                game_id = store_halite_summary(
                    store, summary, f"tournament:{self.id}", halite_game_id(job.job_id, job.seed)
                )
            elif outcome.ok and summary is not None and outcome.replay is not None:
                record = read_replay(outcome.replay)
                self._store_game(store, record)
                game_id = record.id
            else:
                failures.append(f"{match_id}: {outcome.error}")
                continue
            placement = placement_from_summary(summary, keys=seats)
            game = {
                "game": self.config.game,
                "game_id": game_id,
                "seed": job.seed,
                "seats": seats,
                "placement": [list(group) for group in placement],
                "turns": summary.turns,
            }
            self.games.setdefault(match_id, []).append(game)
            self.tournament.report(match_id, placement)
            played += 1
            if on_game is not None:
                on_game(match_id, game)
        self.save(store)
        if failures:
            raise TournamentRunError(
                f"tournament {self.id!r}: {len(failures)} game(s) could not be played "
                f"({'; '.join(failures)[:500]}); run it again once the snakes answer"
            )
        return played

    @staticmethod
    def _store_game(store: Any, record: Any) -> None:
        from snakewar.server.store import GameExistsError

        # Stored already by an earlier step that stopped before saving the run: same
        # seed, so same id and (for deterministic snakes) the same game; it stays.
        with contextlib.suppress(GameExistsError):
            store.create_game(record, "complete")

    def run(
        self,
        store: Any,
        executor: Executor | None = None,
        on_step: Callable[[TournamentRun, int], None] | None = None,
    ) -> int:
        """Step until the tournament is finished; returns the games played.

        ``on_step`` is called with the run and the games of each step.

        Raises:
            TournamentRunError: as :meth:`step`.
        """
        executor = executor or InProcessExecutor(concurrency=4)
        total = 0
        while not self.is_finished:
            played = self.step(store, executor)
            total += played
            if on_step is not None:
                on_step(self, played)
        return total

    # -- results ------------------------------------------------------------------------

    def export(self) -> dict[str, Any]:
        """Results as a JSON-ready dict: standings, champion and every match with its games."""
        t = self.tournament
        matches = []
        for rnd in t.to_dict()["rounds"]:
            for m in rnd["matches"]:
                matches.append(
                    {
                        "round": rnd["name"],
                        "bracket": rnd["bracket"],
                        "id": m["id"],
                        "status": m["status"],
                        "entrants": m["entrants"],
                        "wins": m["wins"],
                        "advanced": m["advanced"],
                        "lost": m["lost"],
                        "games": list(self.games.get(m["id"], [])),
                    }
                )
        return {
            "id": self.id,
            "name": self.name,
            "format": t.format,
            "seed": self.seed,
            "config": self.config.to_dict(),
            "snakes": [{"name": n, "source": s} for n, s in self.snakes.items()],
            "finished": t.is_finished,
            "champion": t.champion,
            "standings": [s.to_dict() for s in t.standings()],
            "matches": matches,
        }


def load_tournament(store: Any, tid: str) -> TournamentRun:
    """Load the tournament run ``tid`` from ``store``.

    Raises:
        TournamentRunError: if there is no such tournament.
    """
    data = store.load_tournament(tid)
    if data is None:
        known = ", ".join(repr(i) for i, _ in store.list_tournaments()) or "none yet"
        raise TournamentRunError(f"no tournament with id {tid!r} (tournaments: {known})")
    return TournamentRun.from_dict(data)
