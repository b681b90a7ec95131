"""Tournament runs: a :class:`~snakewar.arena.tournaments.Tournament` played with real games.

A :class:`TournamentRun` couples the pure bracket (which never plays a game) with the
entrants (a name and a source each, as on a ladder), one game config
(:class:`~snakewar.arena.config.MatchConfig`, any registered game) and a seed.  Each
:meth:`TournamentRun.step` plays **one game of every pending match** through an
:class:`~snakewar.arena.executors.Executor` (so a round's matches share the executor's
concurrency), stores each game, reports its placement (keyed by entrant name) and
records it (:class:`~snakewar.arena.ports.SqlTournamentRepository`).  One game per match
per step, not a whole best-of-N, because a drawn game decides nothing and the match
needs another: the bracket says when a match is decided, so the runner never guesses
how many games are left.

Every game's seed derives from the tournament's id and seed, the match id and the
game's number in the match, and the bracket is rebuilt from the recorded games, so a
run stopped at any point (even killed) resumes and plays exactly the games it would
have played.  Game ids include the tournament's id: two tournaments never share one.
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from snakewar.arena.config import MatchConfig, arena_game_id
from snakewar.arena.executors import Executor, GameJob, InProcessExecutor
from snakewar.arena.ratings import Placement, Rating, placement_from_game
from snakewar.arena.tournaments import MatchStatus, Tournament, seed_by_rating
from snakewar.engine.protocol import Entrant, OutboundPolicy, entrants_from_texts
from snakewar.errors import ConflictError, NotFoundError, SnakewarError

if TYPE_CHECKING:
    from snakewar.arena.ladder import Ladder, LadderEntry
    from snakewar.arena.ports import ArenaStore

__all__ = [
    "MAX_DRAWS",
    "TournamentExistsError",
    "TournamentGame",
    "TournamentNotFoundError",
    "TournamentRun",
    "TournamentRunError",
    "entry_owner",
    "load_tournament",
    "qualifiers",
]

MAX_DRAWS = 20
"""Games a match may play beyond its best-of before the run gives up on it (draws)."""


class TournamentRunError(SnakewarError, ValueError):
    """Raised for a tournament run that cannot be set up or cannot go on."""


class TournamentNotFoundError(TournamentRunError, NotFoundError):
    """Raised when no tournament has the given id."""


class TournamentExistsError(TournamentRunError, ConflictError):
    """Raised when a tournament's id is taken."""


def _new_id(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "tournament"
    return f"{slug}-{secrets.token_hex(4)}"


@dataclass(frozen=True, slots=True)
class TournamentGame:
    """One played game of a tournament match.

    Attributes:
        match_id: the match (heat) it belongs to.
        number: its number in the match (0 first).
        game_id: the stored game's id.
        seed: its seed.
        seats: the entrants' names in seat order.
        placement: the names grouped by rank, best first.
        turns: turns played.
    """

    match_id: str
    number: int
    game_id: str
    seed: int
    seats: tuple[str, ...]
    placement: Placement
    turns: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "game_id": self.game_id,
            "seed": self.seed,
            "seats": list(self.seats),
            "placement": [list(group) for group in self.placement],
            "turns": self.turns,
        }


@dataclass
class TournamentRun:
    """A tournament with its entrants, game config, seed and the games of each match.

    ``snakes`` maps each entrant's name to its source, in seed order (best first);
    ``games`` maps a match id to its games in order; ``workdirs`` maps the name of each
    entrant that is a command to the folder it runs in (where it was entered).
    ``started`` is false for a tournament made to be started later (a server's admin
    starts it; until then its entrants may change and nothing plays it).
    """

    id: str
    name: str
    tournament: Tournament
    snakes: dict[str, str]
    config: MatchConfig = field(default_factory=MatchConfig.create)
    seed: int = 1
    games: dict[str, list[TournamentGame]] = field(default_factory=dict)
    workdirs: dict[str, str] = field(default_factory=dict)
    started: bool = True

    # -- creation -----------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        name: str,
        format: str,
        snakes: Sequence[tuple[str, str | None]],
        *,
        config: MatchConfig | None = None,
        seed: int = 1,
        heat_size: int = 2,
        best_of: int = 1,
        advance: int | None = None,
        ratings: Mapping[str, Rating] | None = None,
        tid: str | None = None,
        workdir: str | None = None,
        **options: Any,
    ) -> TournamentRun:
        """Set up a tournament run.

        Args:
            name: the tournament's display name.
            format: one of :data:`~snakewar.arena.tournaments.FORMATS`.
            snakes: ``(source, name)`` per entrant, by seed (best first), as a user
                types them for the config's game (a URL, ``builtin:NAME``, a command);
                ``name`` ``None`` takes the game's default name (``-2``, ``-3``... when
                taken).
            config: the game every game plays (default: the default game's defaults);
                its ``game_size`` is set to ``heat_size``.
            seed: the seed the games' seeds derive from.
            heat_size: entrants per match.
            best_of: games a match needs at most, odd.
            advance: entrants going on from each heat (see :meth:`Tournament.create`).
            ratings: when given, entrants are seeded by these ratings (best first,
                unrated ones last in given order) instead of by the order of ``snakes``.
            tid: the tournament's id (default: a slug of ``name`` and random hex).
            workdir: the folder the entrants that are commands run in (the one they were
                typed in, so that ``python3 MyBot.py`` finds its file wherever the
                tournament is played from); ``None``: the current folder of each run.
            options: more :meth:`Tournament.create` options (``rounds``,
                ``grand_final_reset``).

        Raises:
            TournamentRunError: an empty name.
            TournamentError: tournament settings out of range.
            EntrantError: a source that is no entrant, or a name given twice.
            SnakewarError: a game config the game refuses.
        """
        if not name:
            raise TournamentRunError("tournament name '': expected a non-empty name")
        base = config or MatchConfig.create()
        adapter = base.adapter
        entrants = entrants_from_texts(
            adapter, [text for text, _ in snakes], [given for _, given in snakes]
        )
        entries = {e.name: e.source for e in entrants}
        workdirs = (
            {e.name: workdir for e in entrants if adapter.reach(e).kind == "program"}
            if workdir is not None
            else {}
        )
        game_config = base
        if heat_size != base.game_size:
            game_config = MatchConfig.create(
                base.game,
                base.params,
                game_size=heat_size,
                timeout_ms=base.timeout_ms,
                max_turns=base.max_turns,
            )
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
        return cls(
            tid or _new_id(name), name, tournament, entries, game_config, seed, workdirs=workdirs
        )

    @property
    def source(self) -> str:
        """The ``source`` of the tournament's games: ``tournament:ID``."""
        return f"tournament:{self.id}"

    def replay_game(self, game: TournamentGame) -> None:
        """Take one recorded game into the bracket (what loading a stored run does)."""
        self.games.setdefault(game.match_id, []).append(game)
        self.tournament.report(game.match_id, game.placement)

    # -- playing ------------------------------------------------------------------------

    @property
    def is_finished(self) -> bool:
        """Whether every match is decided."""
        return self.tournament.is_finished

    def game_seed(self, match_id: str, number: int) -> int:
        """The seed of game ``number`` (0 first) of match ``match_id``."""
        rng = random.Random(f"{self.id}:{self.seed}:{match_id}:{number}")
        return rng.getrandbits(62) + 1

    def next_game_id(self, match_id: str) -> str:
        """The id the next game of match ``match_id`` gets (while it is played: its live id)."""
        number = len(self.games.get(match_id, []))
        return arena_game_id(self.source, f"{match_id}:{number}", self.game_seed(match_id, number))

    def _job(
        self,
        match_id: str,
        entrants: list[str],
        outbound: OutboundPolicy | None = None,
        programs: Mapping[str, Any] | None = None,
    ) -> tuple[GameJob, list[str]]:
        number = len(self.games.get(match_id, []))
        seed = self.game_seed(match_id, number)
        seats = list(entrants)
        # Seat order from the game's seed: no seat advantage for the better seed.
        random.Random(seed).shuffle(seats)
        found = programs or {}
        spec = self.config.match_spec(
            [
                Entrant(self.snakes[n], n, found.get(self.snakes[n]), self.workdirs.get(n))
                for n in seats
            ],
            self.source,
        )
        game_id = self.next_game_id(match_id)
        job = GameJob(f"{self.id}:{match_id}:{number}", spec, seed, game_id, outbound)
        return job, seats

    def check_playable(self) -> None:
        """Refuse to play a tournament that still waits for entrants.

        Raises:
            TournamentRunError: it has fewer than 2 entrants.
        """
        if not self.tournament.playable:
            raise TournamentRunError(
                f"tournament {self.id!r} has {len(self.snakes)} entrant(s); it needs at least "
                "2 to be played"
            )

    def next_round(self) -> tuple[int, str, list[str]] | None:
        """The round to play next: the first, in bracket order, with a match left.

        A bracket lists its rounds so that each is fed by rounds listed before it
        (winners' rounds, then losers' rounds, then the final; league rounds in order;
        Swiss pairs each round once the one before is over), so the first round with an
        unresolved match has matches to play.

        Returns:
            Its index among the bracket's rounds, its name and its matches that are not
            resolved yet; ``None`` once the tournament is finished.
        """
        t = self.tournament
        for index, rnd in enumerate(t.rounds):
            left = [m for m in rnd.matches if not t.matches[m].status.resolved]
            if left:
                return index, rnd.name, left
        return None

    def round_done(self, index: int) -> bool:
        """Whether every match of round ``index`` is resolved (a round never paired: no)."""
        rounds = self.tournament.rounds
        if index >= len(rounds):
            return False
        return all(self.tournament.matches[m].status.resolved for m in rounds[index].matches)

    def run_round(
        self,
        store: ArenaStore,
        executor: Executor | None = None,
        on_step: Callable[[TournamentRun, int], None] | None = None,
        outbound: OutboundPolicy | None = None,
        programs: Mapping[str, Any] | None = None,
        should_stop: Callable[[], bool] | None = None,
        index: int | None = None,
    ) -> int:
        """Play one round to its end (:meth:`next_round`, or round ``index``).

        Each step plays one game of each of the round's pending matches (so a best-of
        match plays on until it is decided); matches of other rounds wait.

        Returns:
            The games played.

        Raises:
            TournamentRunError: as :meth:`step`, or a round with nothing to play.
        """
        self.check_playable()
        executor = executor or InProcessExecutor(concurrency=4)
        if index is None:
            found = self.next_round()
            if found is None:
                return 0
            index = found[0]
        rounds = self.tournament.rounds
        if index >= len(rounds):
            raise TournamentRunError(f"tournament {self.id!r} has no round {index + 1} yet")
        total = 0
        while not self.round_done(index):
            if should_stop is not None and should_stop():
                break
            pending = [
                m
                for m in rounds[index].matches
                if self.tournament.matches[m].status is MatchStatus.PENDING
            ]
            if not pending:
                raise TournamentRunError(
                    f"tournament {self.id!r}: {rounds[index].name} waits for other matches"
                )
            played = self.step(store, executor, outbound=outbound, programs=programs, only=pending)
            total += played
            if on_step is not None:
                on_step(self, played)
        return total

    def step(
        self,
        store: ArenaStore,
        executor: Executor | None = None,
        on_game: Callable[[TournamentGame], None] | None = None,
        outbound: OutboundPolicy | None = None,
        programs: Mapping[str, Any] | None = None,
        only: Collection[str] | None = None,
    ) -> int:
        """Play one game of every pending match, store, record and report them.

        Args:
            store: where games and the run's progress are kept (the run is stored first,
                if it is not yet).
            executor: plays the games (default: in process, 4 at a time).
            on_game: called with each game played.
            outbound: the address policy the games' connections follow.
            programs: what runs the entrants a server resolved (program bots), by source.
            only: play these matches only (those of one round); default: every one.

        Returns:
            The number of games played (0 once the tournament is finished).

        Raises:
            TournamentRunError: a game could not be played (an entrant unreachable), or a
                match drew more than :data:`MAX_DRAWS` games beyond its best-of. The
                games that were played are recorded first.
        """
        self.check_playable()
        executor = executor or InProcessExecutor(concurrency=4)
        pending = self.tournament.pending_matches()
        if only is not None:
            pending = [m for m in pending if m.id in only]
        if not pending:
            return 0
        store.tournaments.save(self)
        limit = self.tournament.config.best_of + MAX_DRAWS
        for match in pending:
            if len(self.games.get(match.id, [])) >= limit:
                raise TournamentRunError(
                    f"match {match.id!r} is undecided after {limit} games; "
                    f"expected it decided within best-of plus {MAX_DRAWS} draws"
                )
        jobs = [
            (match.id, *self._job(match.id, match.entrants, outbound, programs))
            for match in pending
        ]
        outcomes = executor.run([job for _, job, _ in jobs])
        played = 0
        failures: list[str] = []
        for (match_id, job, seats), outcome in zip(jobs, outcomes, strict=True):
            if outcome.played is None:
                failures.append(f"{match_id}: {outcome.error}")
                continue
            store.games.save_played(outcome.played)
            game = TournamentGame(
                match_id,
                len(self.games.get(match_id, [])),
                outcome.played.id,
                job.seed,
                tuple(seats),
                placement_from_game(outcome.played, keys=seats),
                outcome.played.turns,
            )
            # A game recorded already (by a run this one took over from) is the same
            # game: the bracket follows the one recorded first, so all who load it agree.
            game = store.tournaments.record_game(self.id, game)
            self.replay_game(game)
            played += 1
            if on_game is not None:
                on_game(game)
        if failures:
            raise TournamentRunError(
                f"tournament {self.id!r}: {len(failures)} game(s) could not be played "
                f"({'; '.join(failures)[:500]}); run it again once the entrants answer"
            )
        return played

    def run(
        self,
        store: ArenaStore,
        executor: Executor | None = None,
        on_step: Callable[[TournamentRun, int], None] | None = None,
        outbound: OutboundPolicy | None = None,
        programs: Mapping[str, Any] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> int:
        """Step until the tournament is finished; returns the games played.

        ``on_step`` is called with the run and the games of each step; ``outbound`` is
        the address policy the games' connections follow; ``should_stop`` is asked
        before each step, and the run returns early (unfinished) once it says so.

        Raises:
            TournamentRunError: as :meth:`step`.
        """
        self.check_playable()
        executor = executor or InProcessExecutor(concurrency=4)
        total = 0
        while not self.is_finished:
            if should_stop is not None and should_stop():
                break
            played = self.step(store, executor, outbound=outbound, programs=programs)
            total += played
            if on_step is not None:
                on_step(self, played)
        return total

    # -- results ------------------------------------------------------------------------

    def export(self) -> dict[str, Any]:
        """Results as a JSON-ready dict: standings, champion and every match with its games."""
        t = self.tournament
        adapter = self.config.adapter
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
                        "games": [
                            {**g.to_dict(), "viewer": adapter.viewer_url(g.game_id)}
                            for g in self.games.get(m["id"], [])
                        ],
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


def entry_owner(name: str) -> str | None:
    """The user whose snake the entrant ``name`` is (``@owner/name``); ``None``: nobody's.

    >>> entry_owner("@ann/viper"), entry_owner("greedy")
    ('ann', None)
    """
    if not name.startswith("@") or "/" not in name:
        return None
    return name[1:].split("/", 1)[0] or None


def qualifiers(ladder: Ladder, top: int, per_owner: int | None = None) -> list[LadderEntry]:
    """A ladder's entries that qualify for a tournament, best first.

    Its rated (at least one game), unpaused entries qualify in the order of its
    standings; an owner's entries past ``per_owner`` are skipped (the next ones qualify
    instead), until ``top`` are in.  Built-in bots belong to nobody: the cap does not
    count them.
    """
    taken: list[LadderEntry] = []
    per: dict[str, int] = {}
    for row in ladder.standings():
        entry = ladder.entries.get(row.snake)
        if entry is None or entry.paused or row.games == 0:
            continue
        owner = entry_owner(entry.name)
        if owner is not None and per_owner is not None:
            if per.get(owner, 0) >= per_owner:
                continue
            per[owner] = per.get(owner, 0) + 1
        taken.append(entry)
        if len(taken) == top:
            break
    return taken


def load_tournament(store: ArenaStore, tid: str) -> TournamentRun:
    """Load the tournament run ``tid`` from ``store`` (its bracket rebuilt from its games).

    Raises:
        TournamentNotFoundError: if there is no such tournament.
    """
    run = store.tournaments.get(tid)
    if run is None:
        known = ", ".join(repr(i) for i, _ in store.tournaments.list_all()) or "none yet"
        raise TournamentNotFoundError(f"no tournament with id {tid!r} (tournaments: {known})")
    return run
