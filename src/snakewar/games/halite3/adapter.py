"""Halite III as a plug-in of the game-agnostic layers.

Entrants are bot programs speaking the official stdin/stdout protocol (a command line,
run by :mod:`snakewar.games.halite3.referee.runner`) and built-in bots (``builtin:NAME[?options]``,
played in-process); games are stored as the official ``.hlt`` replay file
(:mod:`snakewar.games.halite3.replay.hlt`), which the web viewer draws.

A game played with hooks streams as it goes: once the bots are initialized,
``on_start`` gets the replay's head as the game's header (constants, players, the
initial map) and frame 0, then ``on_frame`` gets each turn's frame, the very entry the
finished replay's ``full_frames`` has for that turn (both are built by
:func:`~snakewar.games.halite3.replay.hlt.turn_frame`).  A game that stops early keeps
those frames; a finished one is its ``.hlt``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import math
import os
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from typing_extensions import override

from snakewar.engine.protocol import (
    JSON,
    BotInfo,
    Catalogue,
    Entrant,
    EntrantResult,
    Frame,
    GameAdapter,
    GameCommand,
    GameData,
    MatchHooks,
    MatchSpec,
    MediaCodec,
    Param,
    PlayedGame,
    PlaySession,
    Reach,
    ReplayCodec,
    ReplayInfo,
    StatInfo,
    StoredGame,
    TerminalReplay,
    VerifyResult,
    ViewerPage,
    named_entrant,
)
from snakewar.errors import ConflictError, EntrantError, ParamsError
from snakewar.games.halite3 import (
    MAP_SIZES,
    NAME,
    Constants,
    HaliteGame,
    MapError,
    TurnOutcome,
    turns_for_size,
)
from snakewar.games.halite3.bots import HALITE_BOTS, halite_bot_names, make_halite_bot
from snakewar.games.halite3.referee.runner import (
    EOF_MESSAGE,
    FAILED_NAME,
    HaliteMatch,
    check_bot,
    last_error_line,
    play_halite,
)
from snakewar.games.halite3.replay.hlt import (
    MAX_COMPRESSED_BYTES,
    HltReplay,
    HltReplayError,
    encode_hlt,
    initial_frame,
    read_hlt,
    replay_document,
    replay_head,
    turn_frame,
)
from snakewar.games.halite3.replay.verify import verify_hlt
from snakewar.games.halite3.terminal import terminal_replay
from snakewar.referee.process import Program
from snakewar.referee.workers import session_pool

__all__ = [
    "GAME",
    "MAX_DOCUMENT_BYTES",
    "HaliteAdapter",
    "UnfinishedGameError",
    "killed_reason",
    "played_from_hlt",
    "read_checked_hlt",
]

_HERE = Path(__file__).resolve().parent
"""The game's package: its viewer (``viewer/``) and page templates (``templates/``)."""

PLAYER_COUNTS = (1, 2, 4, 8, 16)
"""The player counts the official map generator makes maps for."""

MAX_DOCUMENT_BYTES = 512 * 1024 * 1024
"""The largest decompressed replay document read (a 64x64, 4-player game is ~2 MB)."""

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_BUILTIN = "builtin:"


def _catalogue() -> Catalogue:
    return Catalogue(
        name=NAME,
        version=1,
        title="Halite III",
        description="Halite III's rules exactly (the official engine 1.2.2).",
        params=(
            Param(
                "width", "int", 0, "Map width (0: the seed picks 32 to 64).", minimum=0, maximum=128
            ),
            Param(
                "height",
                "int",
                0,
                "Map height (0: the seed picks 32 to 64).",
                minimum=0,
                maximum=128,
            ),
        ),
        bots=tuple(
            BotInfo(name, (HALITE_BOTS[name].__doc__ or "").strip().partition("\n")[0])
            for name in halite_bot_names()
        ),
        player_counts=PLAYER_COUNTS,
        default_timeout_ms=2000,
        entrant_help="a bot command (python3 MyBot.py) or builtin:NAME",
        failures_before_pause=2,
        programs=True,
        # The built-in an uploaded bot first plays (the account page's "Play it").
        extras={"trial_bot": "greedy"},
        stats=STATS,
    )


STATS = (
    StatInfo("halite", "halite collected", "Halite its ships mined over the game."),
    StatInfo("ships", "ships built", "Ships it spawned."),
    StatInfo("efficiency", "mining efficiency", "Halite deposited per halite mined."),
)
"""The secondary statistics of a Halite III game, per player (ladders show their means)."""


def player_stats(statistics: Mapping[str, Any]) -> dict[str, float]:
    """A player's :data:`STATS`, from the engine's statistics object of it."""
    return {
        "halite": float(statistics.get("total_mined", 0) or 0),
        "ships": float(statistics.get("ships_spawned", 0) or 0),
        "efficiency": round(float(statistics.get("mining_efficiency", 0.0) or 0.0), 4),
    }


def _check_size(width: int, height: int, players: int) -> None:
    if width or height:
        try:
            HaliteGame.create(1, players, width=width or None, height=height or None)
        except MapError as exc:
            raise ParamsError("width" if width else "height", str(exc)) from None


def killed_reason(match: HaliteMatch, game: HaliteGame, pid: int) -> str:
    """Why player ``pid`` was killed, and when: the referee's words, or its error log's.

    ``killed on turn 5: timed out after 2000 ms (when reading string)``, or ``failed to
    initialize: ...``.  A bot that failed its initialization, or whose output ended (it
    exited, it crashed), also gets the last line it wrote to stderr, which says why far
    better than the engine's words ("read failed") do.
    """
    why = match.failures.get(pid)
    if why is None:
        log = match.error_logs.get(pid, "") or game.error_logs.get(pid, "")
        errors = [line for line in log.splitlines() if line.startswith("error:")]
        why = errors[0][len("error: ") :] if errors else "killed"
    at_init = match.failed_on.get(pid) == 0
    if at_init or why == EOF_MESSAGE:
        said = last_error_line(match.stderr.get(pid, ""))
        why += f"; its stderr: {said}" if said else ""
    if at_init:
        return f"failed to initialize: {why}"
    turn = next((o.turn for o in game.history if pid in o.killed), None)
    return f"killed on turn {turn}: {why}" if turn is not None else f"killed: {why}"


def _declared(match: HaliteMatch, pid: int) -> str:
    """The name player ``pid``'s bot answered at its init ("" when it failed it)."""
    said = match.declared_names
    name = said[pid] if pid < len(said) else ""
    return "" if name == FAILED_NAME else name


INIT_TIMEOUT_S = 30.0
"""The time a bot has to answer its name (the engine's)."""


def cpu_budget(turns: int, turn_timeout_s: float) -> int:
    """CPU seconds a sandboxed bot may use in a game: all the time the rules give it.

    A bot may think its whole init time and every turn's: a sandbox's CPU limit below
    that would kill a bot that plays by the rules.  A tenth more and 10 s cover the
    interpreter's start and the time it spends reading frames.

    >>> cpu_budget(400, 2.0)
    923
    """
    rules = INIT_TIMEOUT_S + turns * turn_timeout_s
    return math.ceil(rules + rules / 10) + 10


def _runnable(entrant: Entrant, cpu_seconds: int | None = None) -> str | Program:
    """What plays ``entrant``: its resolved program, its command in its folder, or its text.

    A sandboxed program gets at least ``cpu_seconds`` of CPU (the game's own budget).
    """
    if entrant.program is not None:
        program: Program = entrant.program
        policy = program.sandbox
        if policy is not None and cpu_seconds is not None and policy.cpu_seconds < cpu_seconds:
            program = dataclasses.replace(
                program, sandbox=dataclasses.replace(policy, cpu_seconds=cpu_seconds)
            )
        return program
    if entrant.workdir is not None and not entrant.source.startswith(_BUILTIN):
        return Program.from_command(entrant.source, cwd=entrant.workdir)
    return entrant.source


def _title(width: int, height: int) -> str:
    return f"{width}x{height} map"


class _HltReplays(ReplayCodec):
    """The official ``.hlt`` replay files (zstd-compressed JSON, or plain JSON)."""

    name = "hlt"
    looks_like = "a Halite III .hlt replay (zstd-compressed JSON, or plain JSON)"

    @override
    def sniff(self, head: bytes, name: str = "") -> bool:
        if head.startswith(_ZSTD_MAGIC) or name.endswith(".hlt"):
            return True
        text = head.lstrip()[:4096]
        return text[:1] == b"{" and b'"REPLAY_FILE_VERSION"' in text

    @override
    def describe(self, data: bytes, name: str = "replay") -> ReplayInfo:
        replay = read_checked_hlt(data, name=name)
        names = tuple(p.name for p in replay.players)
        winner = names[replay.winner()] if replay.ranks else None
        return ReplayInfo(
            game=GAME.name,
            format=self.name,
            seed=replay.seed,
            turns=replay.turns_played,
            entrants=names,
            summary=(_title(replay.width, replay.height), f"won by {winner}"),
        )

    @override
    def verify(self, data: bytes, name: str = "replay") -> VerifyResult:
        report = verify_hlt(read_hlt(data, name=name))
        return VerifyResult(report.ok, report.message, report.turns)

    @override
    def terminal(self, data: bytes, name: str = "replay") -> TerminalReplay:
        return terminal_replay(data, name)


def read_checked_hlt(
    data: bytes,
    *,
    name: str = "replay",
    max_bytes: int = MAX_COMPRESSED_BYTES,
    max_document_bytes: int = MAX_DOCUMENT_BYTES,
    max_elements: int | None = None,
    max_name_length: int | None = None,
) -> HltReplay:
    """Read a ``.hlt`` file whose per-player scores a listing can use.

    ``max_document_bytes`` caps the decompressed JSON (enforced while decompressing);
    ``max_elements`` its keys and values (counted before it is parsed: see
    :func:`~snakewar.games.halite3.replay.hlt.json_elements`); ``max_name_length`` refuses longer
    player names (the engine cuts bots' names to 30 characters, so a real replay never
    has one).

    Raises:
        HltReplayError: a file that is not a readable Halite III replay, in one line.
    """
    replay = read_hlt(
        data,
        max_file_bytes=max_bytes,
        max_json_bytes=max_document_bytes,
        max_elements=max_elements,
        name=name,
    )
    if max_name_length is not None:
        for i, player in enumerate(replay.players):
            if len(player.name) > max_name_length:
                raise HltReplayError(
                    f"{name}: players[{i}].name has {len(player.name)} characters; "
                    f"expected at most {max_name_length}"
                )
    for i, stats in enumerate(replay.statistics):
        score = stats.get("final_production")
        if not isinstance(score, int) or isinstance(score, bool):
            raise HltReplayError(
                f"{name}: game_statistics.player_statistics[{i}].final_production is "
                f"{score!r}; expected an integer (the player's score)"
            )
    return replay


def played_from_hlt(
    data: bytes,
    *,
    game_id: str,
    source: str = "upload",
    max_bytes: int = MAX_COMPRESSED_BYTES,
    max_document_bytes: int = MAX_DOCUMENT_BYTES,
    max_elements: int | None = None,
    max_name_length: int | None = None,
) -> PlayedGame:
    """A ``.hlt`` file (an upload, the official engine's) as a played game to store.

    The limits are :func:`read_checked_hlt`'s.

    Raises:
        HltReplayError: a file that is not a readable Halite III replay, in one line.
    """
    replay = read_checked_hlt(
        data,
        max_bytes=max_bytes,
        max_document_bytes=max_document_bytes,
        max_elements=max_elements,
        max_name_length=max_name_length,
    )
    names = [p.name for p in replay.players]
    scores = [int(s["final_production"]) for s in replay.statistics]
    results = tuple(
        EntrantResult(seat=pid, name=name, source="", rank=rank, score=float(score))
        for pid, (name, rank, score) in enumerate(zip(names, replay.ranks, scores, strict=True))
    )
    return PlayedGame(
        game=GAME.name,
        id=game_id,
        seed=replay.seed,
        turns=replay.turns_played,
        results=results,
        data=GameData(
            header=_header(replay.seed, replay.width, replay.height, names),
            result={"ranks": list(replay.ranks), "scores": scores, "killed": {}},
            replay=data,
        ),
        title=_title(replay.width, replay.height),
        width=replay.width,
        height=replay.height,
        source=source,
    )


def _header(seed: int, width: int, height: int, names: list[str]) -> dict[str, Any]:
    """A finished game's header: a few fields (its ``.hlt`` holds the rest).

    A running game's header is the replay's head instead (its viewer draws the frames
    from it, and a game stopped early keeps it for the same reason); a finished one's
    is stored again small, since listings read every game's header and the head of a
    64x64 map is some 60 kB.
    """
    return {"seed": seed, "width": width, "height": height, "players": names}


class UnfinishedGameError(HltReplayError, ConflictError):
    """Raised to export a Halite game that did not finish: it has no ``.hlt`` yet (409)."""


async def _call(hook: Any, *args: Any) -> None:
    if hook is not None:
        maybe = hook(*args)
        if inspect.isawaitable(maybe):
            await maybe


class HaliteAdapter(GameAdapter):
    """Halite III for the arena, storage, the server and the command line."""

    def __init__(self) -> None:
        self._catalogue: Catalogue | None = None
        self._replays = _HltReplays()

    @override
    def catalogue(self) -> Catalogue:
        if self._catalogue is None:
            self._catalogue = _catalogue()
        return self._catalogue

    @override
    def entrant(self, text: str, name: str | None = None) -> Entrant:
        source = text.strip()
        if not source:
            raise EntrantError("a Halite entrant must be a command or builtin:NAME, got ''")
        if source.startswith(_BUILTIN):
            bot = make_halite_bot(source[len(_BUILTIN) :])
            default = source[len(_BUILTIN) :].split("?")[0] or bot.name
        else:
            try:
                words = shlex.split(source)
            except ValueError:
                words = source.split()
            stem = os.path.splitext(os.path.basename(words[-1] if words else source))[0]
            default = stem or "bot"
        return named_entrant(source, name, default)

    @override
    def reach(self, entrant: Entrant) -> Reach:
        if entrant.program is None and entrant.source.startswith(_BUILTIN):
            return Reach("builtin")
        return Reach("program")

    @override
    async def health(self, entrant: Entrant, session: PlaySession) -> str | None:
        # A program is started and plays its initialization (the engine's 30 s), as the
        # first step of a game would; a built-in always can.  Not run before ladder
        # rounds (the catalogue does not say health_checked: that would start every bot
        # each round), but when an entrant joins.
        del session
        if self.reach(entrant).kind == "builtin":
            return None
        return await check_bot(_runnable(entrant))

    @override
    def check(self, spec: MatchSpec) -> None:
        count = len(spec.entrants)
        if count not in PLAYER_COUNTS:
            raise EntrantError(f"{count} Halite players: expected 1, 2, 4, 8 or 16")
        if spec.timeout_ms is not None and spec.timeout_ms < 1:
            raise EntrantError(f"turn timeout {spec.timeout_ms} ms: expected at least 1")
        _check_size(int(spec.params["width"]), int(spec.params["height"]), count)

    @override
    def turn_bound(self, params: Mapping[str, JSON]) -> int | None:
        # The official limit grows with the map's larger side; a side left to the seed
        # is at most the largest size the seed picks.
        sides = [params.get(key) for key in ("width", "height")]
        width, height = (s if isinstance(s, int) and s > 0 else max(MAP_SIZES) for s in sides)
        return turns_for_size(width, height, Constants())

    @override
    async def play(
        self,
        spec: MatchSpec,
        seed: int,
        session: PlaySession,
        hooks: MatchHooks | None = None,
    ) -> PlayedGame:
        hooks = hooks or MatchHooks()
        self.check(spec)
        width = int(spec.params["width"]) or None
        # As the engine: a side not given is the size the seed picks (--width 40 alone: 40xS).
        height = int(spec.params["height"]) or None
        timeout_ms = spec.timeout_ms or self.catalogue().default_timeout_ms
        names = list(spec.names)
        turns = spec.max_turns if spec.max_turns is not None else self.turn_bound(spec.params)
        budget = cpu_budget(turns or 0, timeout_ms / 1000)
        game_id = hooks.game_id or halite_game_id(spec, seed)
        streaming = hooks.on_start is not None or hooks.on_frame is not None

        async def started(match: HaliteMatch) -> None:
            # The replay's head and frame 0: all a viewer needs before turn 1 (the
            # players' energy in the head says who failed their initialization).
            game = match.game
            head = replay_head(game, names, failed_to_initialize=match.failed_to_initialize)
            listing = StoredGame(
                id=game_id,
                game=self.name,
                seed=game.seed,
                width=game.width,
                height=game.height,
                turns=0,
                source=spec.source,
                title=_title(game.width, game.height),
                entrants=tuple(Entrant(e.source, e.name) for e in spec.entrants),
            )
            await _call(hooks.on_start, listing, GameData(head, (Frame(0, initial_frame(game)),)))

        async def turned(game: HaliteGame, outcome: TurnOutcome) -> None:
            del game  # the outcome holds all the turn's frame needs
            # The stored replay's frame of this turn, built by the same function.
            await _call(hooks.on_frame, Frame(outcome.turn, turn_frame(outcome, len(names))))

        match = await play_halite(
            [_runnable(e, budget) for e in spec.entrants],
            seed=seed & 0xFFFFFFFF,
            width=width,
            height=height,
            turn_limit=spec.max_turns,
            turn_timeout=timeout_ms / 1000,
            init_timeout=INIT_TIMEOUT_S,
            names=names,
            # Built-in bots play in the session's worker processes, killed on a timeout.
            bots=session_pool(session),
            on_start=started if streaming else None,
            on_turn=turned if streaming else None,
        )
        game = match.game
        result = game.result()
        document = replay_document(
            game,
            names,
            execution_time_ms=match.execution_time_ms,
            # As the engine: a bot that failed its initialization has energy 0 in the replay.
            failed_to_initialize=match.failed_to_initialize,
        )
        killed = {
            pid: killed_reason(match, game, pid)
            for pid, player in enumerate(game.players)
            if player.terminated
        }
        results = tuple(
            EntrantResult(
                seat=pid,
                name=names[pid],
                source=entrant.source,
                rank=result.ranks[pid],
                score=float(result.scores[pid]),
                failure=killed.get(pid, ""),
                declared_name=_declared(match, pid),
                log=match.error_logs.get(pid, ""),
                stats=player_stats(result.statistics[pid]),
            )
            for pid, entrant in enumerate(spec.entrants)
        )
        return PlayedGame(
            game=self.name,
            id=game_id,
            seed=game.seed,
            turns=game.turn,
            results=results,
            data=GameData(
                header=_header(game.seed, game.width, game.height, names),
                result={
                    "ranks": list(result.ranks),
                    "scores": list(result.scores),
                    "killed": {str(pid): why for pid, why in killed.items()},
                },
                replay=encode_hlt(document),
            ),
            title=_title(game.width, game.height),
            width=game.width,
            height=game.height,
            source=spec.source,
            spec=spec,
            details=match,
        )

    @property
    @override
    def replays(self) -> ReplayCodec:
        return self._replays

    @override
    def export(self, data: GameData) -> bytes:
        # A game that did not finish (running, cancelled, aborted) has its frames but no
        # statistics nor ranks: a .hlt made of them would be no official replay.
        if data.replay is None:
            played = max(len(data.frames) - 1, 0)
            turns = f"{played} turn{'' if played == 1 else 's'}"
            raise UnfinishedGameError(
                f"this Halite III game has no replay file: it did not finish ({turns} played). "
                "A .hlt replay is written when a game ends; the turns played can be watched "
                "in the viewer."
            )
        return data.replay

    # An unfinished game's frames are their views (a frame has no replay line).
    media_reads_views = True

    @override
    def media_replay(self, data: GameData) -> bytes:
        if data.replay is not None or not data.frames:
            return self.export(data)
        # An unfinished game: its replay head and its frames so far, the document a live
        # viewer is sent (the media reads it as a game that has not ended).
        document = {**data.header, "full_frames": [dict(f.view) for f in data.frames]}
        return json.dumps(document, separators=(",", ":")).encode("utf-8")

    @override
    def replay_filename(self, game_id: str) -> str:
        return f"{game_id}.hlt"

    @override
    def viewer_page(self, game_id: str, *, server: str, turn: int | None = None) -> ViewerPage:
        del server  # the viewer reads /api/halite/games/{id}/replay on its own origin
        query = {"game": game_id} if turn is None else {"game": game_id, "turn": str(turn)}
        return ViewerPage(template="halite3/game.html", board="board.html?" + urlencode(query))

    def params_for(self, width: int | None, height: int | None) -> Mapping[str, Any]:
        """Normalised parameters for a map size (``None``: the seed picks)."""
        return self.parse_params({"width": width or 0, "height": height or 0})

    # -- the parts Halite III adds to the server, the command line and the bot workers ----

    @override
    def routers(self) -> Sequence[Any]:
        # Imported here: the command line and the arena never load the web framework.
        from snakewar.games.halite3.routes import page_routes, router

        return (router, page_routes)

    @override
    def media(self) -> MediaCodec:
        # Imported when used: the drawing is needed by `snakewar export` and its route only.
        from snakewar.games.halite3.media import HaliteMedia

        return HaliteMedia()

    @override
    def static_assets(self) -> str | None:
        # The board viewer (board.html, halite.js) and the modules of the game's pages.
        return str(_HERE / "viewer")

    @override
    def templates(self) -> str | None:
        # The game page, the stored games' page and the site header's link to it.
        return str(_HERE / "templates")

    @override
    def streamed_uploads(self) -> Sequence[str]:
        from snakewar.games.halite3.routes import STREAMED_UPLOADS

        return STREAMED_UPLOADS

    @override
    def commands(self) -> Mapping[str, GameCommand]:
        # The table the entry point group snakewar.commands names (the CLI reads it there).
        from snakewar.games.halite3.cli import COMMANDS

        return COMMANDS

    @override
    def worker_bot(self, spec: str, seed: int | None = None) -> Any:
        return make_halite_bot(spec, seed=0 if seed is None else seed)

    @override
    def worker_turn(self, bot: Any, state: Any, text: str) -> tuple[Any, str]:
        # The first request is the init (the bot answers its name), then one frame a turn.
        from snakewar.games.halite3.bots.kit import apply_frame, parse_init

        if state is None:
            view = parse_init(text.splitlines())
            bot.setup(view)
            return view, str(bot.name)
        apply_frame(state, text.splitlines())
        return state, " ".join(bot.turn(state))


def halite_game_id(spec: MatchSpec, seed: int) -> str:
    """A stable id for a game: the same match and seed give the same id."""
    text = "|".join([spec.source, *(e.source for e in spec.entrants), str(seed)])
    return f"h{hashlib.sha256(text.encode()).hexdigest()[:31]}"


GAME = HaliteAdapter()
"""The Halite III adapter (the ``snakewar.games`` entry point ``halite3``)."""
