"""Battlesnake as a plug-in of the game-agnostic layers.

Entrants are snake servers (``http(s)://...`` speaking API v1, ``v0:URL`` for API v0,
``legacy:URL`` for the 2017/18 APIs) and built-in bots (``builtin:NAME[?options]``);
games are played by :mod:`snakewar.referee` and stored as frames (the official board's
engine-API frames, :mod:`snakewar.games.battlesnake.frames`) with the lines of Snakewar's
replay format (:mod:`snakewar.games.battlesnake.replay.format`), so a running game can be watched
and exported.
"""

from __future__ import annotations

import inspect
import json
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
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
    ScenarioCodec,
    StatInfo,
    StoredGame,
    TerminalReplay,
    VerifyResult,
    ViewerPage,
    named_entrant,
    placement_from_ranks,
)
from snakewar.errors import EntrantError, ParamsError, SnakewarError
from snakewar.games.battlesnake import NAME
from snakewar.games.battlesnake.bots import bot_descriptions, make_bot
from snakewar.games.battlesnake.bots.worker import HOST as WORKER_HOST
from snakewar.games.battlesnake.frames import frame
from snakewar.games.battlesnake.map_titles import default_size, map_title
from snakewar.games.battlesnake.position import Position, parse_position, position_json
from snakewar.games.battlesnake.records import CallStatus, GameRecord, TurnRecord
from snakewar.games.battlesnake.referee.batch import SnakeMatch
from snakewar.games.battlesnake.referee.clients import check_url, new_http_client
from snakewar.games.battlesnake.referee.human import (
    SEATS,
    HumanClient,
    HumanMoves,
    human_timeout_of,
    is_human,
)
from snakewar.games.battlesnake.referee.runner import (
    canonical_source,
    close_clients,
    connect,
    default_snake_name,
    make_client,
    play_game,
    snake_kind,
)
from snakewar.games.battlesnake.referee.stats import percentile, summarize
from snakewar.games.battlesnake.replay.format import (
    FORMAT_NAME,
    Replay,
    header_dict,
    load_replay,
    read_replay,
    result_dict,
    turn_dict,
)
from snakewar.games.battlesnake.replay.official import read_official_jsonl, sniff_replay
from snakewar.games.battlesnake.replay.verify import verify_replay
from snakewar.games.battlesnake.rules.classic import (
    CLASSIC,
    CLASSIC_DEFAULTS,
    SETTING_RANGES,
    check_pairing,
    default_board,
)
from snakewar.games.battlesnake.rules.maps import list_maps
from snakewar.games.battlesnake.rules.rulesets import ruleset_names
from snakewar.games.battlesnake.rules.settings import (
    CLASSIC_SETTINGS,
    CLI_DEFAULTS,
    DEC_HEALTH_POINTS,
    FOOD_SPAWN_CHANCE,
    HAZARD_DAMAGE_PER_TURN,
    MAX_FOOD,
    MINIMUM_FOOD,
    SHRINK_EVERY_N_TURNS,
    SNAKE_START_LENGTH,
    Settings,
)
from snakewar.games.battlesnake.rules.types import BoardState
from snakewar.games.battlesnake.rules.wire import (
    GameInfo,
    SnakeInfo,
    api_game_source,
    api_ruleset_version,
)
from snakewar.games.battlesnake.terminal import terminal_replay
from snakewar.referee.workers import session_pool
from snakewar.replay._lines import ReplayError

__all__ = [
    "GAME",
    "POSITION",
    "BattlesnakeAdapter",
    "api_settings",
    "check_time_bank",
    "classic_defaults",
    "frames_of",
    "listing",
    "match_spec",
    "placement_from_state",
    "played_game",
    "settings_params",
    "snake_match",
]

POSITION = "position"
"""The parameter holding the board a game starts from (see
:mod:`~snakewar.games.battlesnake.position`)."""

_HERE = Path(__file__).resolve().parent
"""The game's package: its viewer (``viewer/``) and page templates (``templates/``)."""

FAILED_SHARE = 0.5
"""A snake whose share of failed moves in a game reaches this failed the game."""

TIME_BANK_TIMEOUTS = 10
"""A time bank (``timeBank``) is at most this many move timeouts: a game keeps its pace."""
MAX_TIME_BANK_MS = 60_000
"""The largest time bank (ms) whatever the timeout."""
DEFAULT_TIMEOUT_MS = 500
"""A match's move timeout when it sets none (the official CLI's)."""

# The match parameters named as in the API's ruleset settings, and the rules' own names.
_SETTINGS = {
    "foodSpawnChance": FOOD_SPAWN_CHANCE,
    "minimumFood": MINIMUM_FOOD,
    "hazardDamagePerTurn": HAZARD_DAMAGE_PER_TURN,
    "shrinkEveryNTurns": SHRINK_EVERY_N_TURNS,
}
# The classic ruleset's settings: the same names in the API and the rules.
_CLASSIC_SETTINGS = {name: name for name in CLASSIC_SETTINGS}
_CLASSIC_HELP = {
    MAX_FOOD: "Classic: food items kept on the board.",
    SNAKE_START_LENGTH: "Classic: a snake's length at the start.",
    DEC_HEALTH_POINTS: "Classic: health lost per turn.",
}


def _catalogue() -> Catalogue:
    maps = list_maps()
    return Catalogue(
        name=NAME,
        version=1,
        title="Battlesnake",
        description="Battlesnake's rules exactly (the official engine v1.2.3).",
        params=(
            Param("ruleset", "str", "standard", "The rules.", choices=tuple(ruleset_names())),
            Param("map", "str", "standard", "The map.", choices=tuple(m.id for m in maps)),
            Param("width", "int", 11, "Board width.", minimum=1, maximum=255, hosted_maximum=25),
            Param("height", "int", 11, "Board height.", minimum=1, maximum=255, hosted_maximum=25),
            Param(
                "foodSpawnChance",
                "int",
                int(CLI_DEFAULTS[FOOD_SPAWN_CHANCE]),
                "Chance of new food each turn, in percent.",
                minimum=0,
                maximum=100,
            ),
            Param(
                "minimumFood",
                "int",
                int(CLI_DEFAULTS[MINIMUM_FOOD]),
                "Food on the board is topped up to this.",
                minimum=0,
                maximum=2**63 - 1,
            ),
            Param(
                "hazardDamagePerTurn",
                "int",
                int(CLI_DEFAULTS[HAZARD_DAMAGE_PER_TURN]),
                "Health lost per turn in a hazard.",
                minimum=-(2**63),
                maximum=2**63 - 1,
            ),
            Param(
                "shrinkEveryNTurns",
                "int",
                int(CLI_DEFAULTS[SHRINK_EVERY_N_TURNS]),
                "Royale: the board shrinks every this many turns.",
                minimum=0,
                maximum=2**63 - 1,
            ),
            *(
                Param(
                    name,
                    "int",
                    CLASSIC_DEFAULTS[name],
                    _CLASSIC_HELP[name],
                    minimum=SETTING_RANGES[name][0],
                    maximum=SETTING_RANGES[name][1],
                )
                for name in CLASSIC_SETTINGS
            ),
            Param("sequential", "bool", False, "Ask the snakes one after the other."),
            Param(
                "timeBank",
                "int",
                0,
                "NOT the official rules: each snake's time bank in ms, to spend beyond the "
                f"move timeout over the game (at most {TIME_BANK_TIMEOUTS} timeouts' worth).",
                minimum=0,
                maximum=MAX_TIME_BANK_MS,
            ),
            Param(
                "retryTimeout",
                "bool",
                False,
                "NOT the official rules: ask a move that timed out once more.",
            ),
        ),
        bots=tuple(BotInfo(name, text) for name, text in bot_descriptions().items()),
        player_counts=tuple(range(1, 9)),
        default_timeout_ms=DEFAULT_TIMEOUT_MS,
        entrant_help="a URL (API v1), builtin:NAME, v0:URL or legacy:URL",
        failures_before_pause=1,
        is_default=True,
        health_checked=True,
        steps=True,
        extras={
            "rulesets": list(ruleset_names()),
            "maps": [
                {
                    "id": m.id,
                    "name": m.meta.name,
                    "title": map_title(m.meta),
                    "default_size": list(default_size(m.meta)),
                    "description": m.meta.description,
                    "min_players": m.meta.min_players,
                    "max_players": m.meta.max_players,
                    "sizes": "any"
                    if m.meta.sizes.unlimited
                    else [list(size) for size in m.meta.sizes.sizes],
                }
                for m in maps
            ],
            # The built-in a registered snake first plays (the account page's "Play it").
            "trial_bot": "random",
        },
        stats=STATS,
    )


STATS = (
    StatInfo("food", "food eaten", "Food the snake ate in the game."),
    StatInfo("length", "final length", "The snake's length at its end (death or the game's)."),
    StatInfo("turns_alive", "turns alive", "Turns the snake lived."),
)
"""The secondary statistics of a Battlesnake game, per snake (ladders show their means)."""


def snake_stats(record: GameRecord) -> dict[str, dict[str, float]]:
    """Each snake's :data:`STATS` in ``record``, by snake id.

    A snake ate a food when its head lands where a food lay the turn before and it lives
    through the turn, or dies of what it does there later in the turn (a food in a
    hazard, say): the rules feed snakes before eliminating them.
    """
    eaten = {entry.id: 0 for entry in record.snakes}
    before = record.initial
    for turn in record.turns:
        food = set(before.food)
        alive_before = {s.id for s in before.snakes if not s.eliminated_cause}
        for snake in turn.after.snakes:
            if snake.id in alive_before and snake.body and snake.body[0] in food:
                eaten[snake.id] = eaten.get(snake.id, 0) + 1
        before = turn.after
    final = record.final_state
    out: dict[str, dict[str, float]] = {}
    for entry in record.snakes:
        snake = final.snake(entry.id)
        # A snake eliminated in the state of turn k lived through the k - 1 turns before.
        lived = max(snake.eliminated_on_turn - 1, 0) if snake.eliminated_cause else final.turn
        out[entry.id] = {
            "food": float(eaten.get(entry.id, 0)),
            "length": float(len(snake.body)),
            "turns_alive": float(lived),
        }
    return out


LATENCY_STATS = ("calls", "latency_p50_ms", "latency_p95_ms", "timeouts")
"""A snake's move calls in one game, stored with its statistics (not a ladder scorer):
a snake's page shows its latency from them where no call was kept (a public server)."""


def latency_stats(latencies: Sequence[int], statuses: Mapping[str, int]) -> dict[str, float]:
    """One snake's :data:`LATENCY_STATS` in a game: its move calls' latencies (ms).

    >>> latency_stats([10, 20, 30, 40, 500], {"timeout": 1})
    {'calls': 5.0, 'latency_p50_ms': 30.0, 'latency_p95_ms': 408.0, 'timeouts': 1.0}
    >>> latency_stats([], {})
    {'calls': 0.0, 'timeouts': 0.0}
    """
    out = {"calls": float(len(latencies))}
    if latencies:
        # Whole milliseconds are measured: a tenth is plenty for their percentiles.
        out["latency_p50_ms"] = round(percentile(latencies, 50), 1)
        out["latency_p95_ms"] = round(percentile(latencies, 95), 1)
    out["timeouts"] = float(statuses.get(str(CallStatus.TIMEOUT), 0))
    return out


def settings_params(params: Mapping[str, Any]) -> dict[str, str]:
    """The rules' raw settings (:attr:`Settings.params`) of normalised match parameters.

    Only the settings of the match's ruleset: the classic ones for ``classic``, the
    official ones for the others (so a snake's request shows what applies).
    """
    names = _CLASSIC_SETTINGS if params.get("ruleset") == CLASSIC else _SETTINGS
    return {rules: str(params[name]) for name, rules in names.items() if name in params}


def api_settings(params: Mapping[str, str]) -> dict[str, int]:
    """Raw rules settings (:attr:`Settings.params`) as match parameters, by their API names."""
    return {
        name: int(params[rules])
        for name, rules in (_SETTINGS | _CLASSIC_SETTINGS).items()
        if rules in params
    }


def classic_defaults(raw: Mapping[str, object]) -> dict[str, object]:
    """``raw`` parameters with the classic game's defaults where it names ``classic``.

    The classic ruleset plays on the classic map, on a 20x20 board (the 2018 server's
    default) unless a size is given.
    """
    if raw.get("ruleset") != CLASSIC:
        return dict(raw)
    map_id, width, height = default_board(CLASSIC)
    return {"map": map_id, "width": width, "height": height, **raw}


def _largest_bank_left(latest: Mapping[str, JSON] | None, bank_ms: int) -> int:
    """The largest time bank a snake alive at frame view ``latest`` has left (ms).

    The whole bank before any move was played (no frame yet, or turn 0's, whose
    ``TimeBank`` is ``null``), or where a frame does not say.
    """
    if not bank_ms or latest is None:
        return bank_ms
    snakes = latest.get("Snakes")
    if not isinstance(snakes, list):
        return bank_ms
    alive = [s.get("TimeBank") for s in snakes if isinstance(s, Mapping) and not s.get("Death")]
    left = [v for v in alive if type(v) is int]
    if not left or len(left) != len(alive):
        return bank_ms
    return min(bank_ms, max(left))


def check_time_bank(bank_ms: int, timeout_ms: int) -> None:
    """Refuse a time bank larger than :data:`TIME_BANK_TIMEOUTS` move timeouts.

    Raises:
        ParamsError: naming ``timeBank``, the bank and its cap.
    """
    cap = min(TIME_BANK_TIMEOUTS * timeout_ms, MAX_TIME_BANK_MS)
    if bank_ms > cap:
        raise ParamsError(
            "timeBank",
            f"timeBank: {bank_ms} ms is more than {TIME_BANK_TIMEOUTS} timeouts of "
            f"{timeout_ms} ms (at most {cap} ms)",
        )


def _checked_position(value: object) -> Position:
    """A ``position`` parameter, checked; its fields named under ``position.``.

    Raises:
        ParamsError: naming the field at fault (``position.board.snakes[0].body``).
    """
    try:
        return parse_position(value)
    except ParamsError as exc:
        field = exc.field if exc.field == POSITION else f"{POSITION}.{exc.field}"
        raise ParamsError(field, f"position: {exc}" if field != POSITION else str(exc)) from None


def snake_match(spec: MatchSpec) -> SnakeMatch:
    """The referee's match for a protocol match."""
    params = spec.params
    given = params.get(POSITION)
    return SnakeMatch(
        snakes=tuple(e.source for e in spec.entrants),
        names=spec.names,
        ruleset=str(params["ruleset"]),
        map=str(params["map"]),
        width=int(params["width"]),
        height=int(params["height"]),
        params=settings_params(params),
        timeout_ms=spec.timeout_ms or DEFAULT_TIMEOUT_MS,
        max_turns=spec.max_turns,
        source=spec.source,
        sequential=bool(params.get("sequential", False)),
        time_bank_ms=int(params.get("timeBank", 0)),
        retry_timeout=bool(params.get("retryTimeout", False)),
        position=_checked_position(given) if given is not None else None,
    )


def match_spec(match: SnakeMatch) -> MatchSpec:
    """The protocol match of a referee match (unnamed snakes named as the referee does)."""
    params: dict[str, Any] = {
        "ruleset": match.ruleset,
        "map": match.map,
        "width": match.width,
        "height": match.height,
        "sequential": match.sequential,
        "timeBank": match.time_bank_ms,
        "retryTimeout": match.retry_timeout,
    }
    params.update(api_settings(match.params))
    if match.position is not None:
        params[POSITION] = position_json(match.position)
    entrants = tuple(
        Entrant(
            canonical_source(source),
            match.names[i]
            if i < len(match.names) and match.names[i]
            else f"{default_snake_name(source)}-{i + 1}",
        )
        for i, source in enumerate(match.snakes)
    )
    return MatchSpec(
        GAME.name,
        entrants,
        GAME.parse_params(params),
        timeout_ms=match.timeout_ms,
        max_turns=match.max_turns,
        source=match.source,
    )


def frames_of(record: GameRecord) -> tuple[Frame, ...]:
    """Every frame of a record: the engine-API frame and the replay line of each turn."""
    frames = [Frame(0, frame(record.initial, record.snakes))]
    frames.extend(_turn_frame(record, turn) for turn in record.turns)
    return tuple(frames)


def _turn_frame(record: GameRecord, turn: TurnRecord) -> Frame:
    # Frames count from the game's first board: a fork of turn 40 stores frames 0, 1, 2...
    # (each view keeps its own ``Turn``: 40, 41, 42...).
    index = turn.turn + 1 - record.initial.turn
    return Frame(index, frame(turn.after, record.snakes, turn.calls), turn_dict(turn))


def _ranks(state: BoardState, ids: Sequence[str]) -> list[int]:
    """Competition ranks: survivors first, then later eliminations before earlier ones."""
    keys = {}
    for snake in state.snakes:
        keys[snake.id] = (0, 0) if not snake.eliminated_cause else (1, -snake.eliminated_on_turn)
    ordered = sorted(keys.values())
    return [1 + ordered.index(keys[sid]) for sid in ids]


def placement_from_state(
    state: BoardState, names: Mapping[str, str] | None = None
) -> tuple[tuple[str, ...], ...]:
    """The placement of a finished game from its final board: names grouped by rank.

    Survivors share the first group (one winner, or several when a turn limit ended
    the game), then snakes by elimination turn, later first; a same-turn elimination
    is a tie.

    Args:
        state: the final board, with every snake that started (eliminated ones too).
        names: optional map from snake id to the key to rate (for example the
            snake's name); when given, it must name every snake on the board.

    Raises:
        KeyError: ``names`` misses a snake of the board.
    """
    ids = [s.id for s in state.snakes]
    keys = [names[sid] for sid in ids] if names is not None else ids
    groups = placement_from_ranks(_ranks(state, ids))
    return tuple(tuple(keys[seat] for seat in group) for group in groups)


def _title(ruleset: str, map_id: str, width: int, height: int) -> str:
    return f"{ruleset} · {map_id} · {width}x{height}"


def listing(record: GameRecord) -> StoredGame:
    """A game's listing row as it starts (no ranks yet)."""
    config = record.config
    return StoredGame(
        id=record.id,
        game=GAME.name,
        seed=config.seed,
        width=config.width,
        height=config.height,
        turns=len(record.turns),
        source=record.source,
        title=_title(config.ruleset, config.map, config.width, config.height),
        entrants=tuple(Entrant(e.source, e.name) for e in record.snakes),
        colors=tuple(e.color for e in record.snakes),
    )


def played_game(
    record: GameRecord, *, spec: MatchSpec | None = None, data: GameData | None = None
) -> PlayedGame:
    """A refereed game as the protocol's :class:`PlayedGame` (its details: a ``GameSummary``)."""
    summary = summarize(record)
    ranks = _ranks(record.final_state, [e.id for e in record.snakes])
    stats = snake_stats(record)
    results = []
    for outcome, entry, rank in zip(summary.snakes, record.snakes, ranks, strict=True):
        calls = len(outcome.latencies)
        failed = sum(outcome.statuses.values())
        failure = ""
        if calls and failed / calls >= FAILED_SHARE:
            failure = f"{failed} of {calls} moves failed"
        results.append(
            EntrantResult(
                seat=outcome.seat,
                name=entry.name,
                source=entry.source,
                rank=rank,
                score=float(outcome.length),
                failure=failure,
                color=entry.color,
                stats={**stats[entry.id], **latency_stats(outcome.latencies, outcome.statuses)},
            )
        )
    config = record.config
    if data is None:
        data = GameData(
            header=header_dict(record), frames=frames_of(record), result=result_dict(record)
        )
    return PlayedGame(
        game=GAME.name,
        id=record.id,
        seed=config.seed,
        turns=len(record.turns),
        results=tuple(results),
        data=data,
        title=_title(config.ruleset, config.map, config.width, config.height),
        width=config.width,
        height=config.height,
        source=record.source,
        spec=spec,
        details=summary,
    )


def _http(session: PlaySession) -> httpx.AsyncClient:
    def make() -> httpx.AsyncClient:
        client = new_http_client(session.outbound)
        session.on_close(client.aclose)
        return client

    return session.shared("battlesnake.http", make)


async def _call(hook: Any, *args: Any) -> None:
    if hook is not None:
        maybe = hook(*args)
        if inspect.isawaitable(maybe):
            await maybe


class _SnakeReplays(ReplayCodec):
    """Snakewar's replay format and the official CLI's JSONL (``battlesnake play -o``)."""

    name = FORMAT_NAME
    media_type = "application/x-ndjson"
    looks_like = (
        "a Snakewar replay (a 'format': 'snakewar-replay' header on line 1) or an official "
        "CLI JSONL file (an API 'game' object on line 1)"
    )

    @override
    def sniff(self, head: bytes, name: str = "") -> bool:
        text = _head_text(head)
        first = text.partition("\n")[0].strip()
        if not first.startswith("{"):
            return False
        # Cheap checks on the first line's text (it may be cut short in ``head``).
        return f'"format":"{FORMAT_NAME}"' in first.replace(" ", "") or (
            '"ruleset"' in first and '"id"' in first and '"format"' not in first
        )

    @override
    def describe(self, data: bytes, name: str = "replay") -> ReplayInfo:
        if sniff_replay(data, name) == "official":
            official = read_official_jsonl(data, name=name)
            names: dict[str, str] = {}
            for item in official.frames:
                for sid, info in item.infos.items():
                    names.setdefault(sid, info.name or sid)
            winner = official.result.winner_name if official.result else None
            return ReplayInfo(
                game=GAME.name,
                format="official-jsonl",
                seed=0,
                turns=max(len(official.frames) - 1, 0),
                entrants=tuple(names.values()),
                summary=(f"won by {winner}" if winner else "no winner",),
            )
        replay = load_replay(data, name=name)
        record = replay.record
        config = record.config
        lines = [_title(config.ruleset, config.map, config.width, config.height)]
        result = record.result
        if result is None:
            lines.append("unfinished game")
        elif result.winner is not None:
            lines.append(f"won by {record.snake(result.winner).name}")
        else:
            lines.append("a draw" if result.is_draw else f"no winner ({result.reason})")
        return ReplayInfo(
            game=GAME.name,
            format=FORMAT_NAME,
            seed=config.seed,
            turns=len(record.turns),
            entrants=tuple(e.name for e in record.snakes),
            summary=tuple(lines),
        )

    @override
    def verify(self, data: bytes, name: str = "replay") -> VerifyResult:
        if sniff_replay(data, name) == "official":
            raise ReplayError(
                f"{name} is an official CLI JSONL file: it records no seed, so it cannot be "
                "played again (only Snakewar replays can be verified)"
            )
        replay = load_replay(data, name=name)
        report = verify_replay(replay)
        return VerifyResult(report.ok, report.message, report.turns, tuple(replay.notes))

    @override
    def terminal(self, data: bytes, name: str = "replay") -> TerminalReplay:
        return terminal_replay(data, name)


def _human_seat(snakes: Sequence[str], game_id: str | None) -> HumanClient | None:
    """The person's snake of a game, registered under its id for its page's keys."""
    query = next((snake_kind(s)[1] for s in snakes if snake_kind(s)[0] == "human"), None)
    if query is None:
        return None
    client = HumanClient(HumanMoves(), human_timeout_of(query))
    if game_id is not None:
        SEATS[game_id] = client
    return client


def _leave_seat(game_id: str | None, human: HumanClient | None) -> None:
    if game_id is not None and human is not None and SEATS.get(game_id) is human:
        del SEATS[game_id]


class _SnakeScenarios(ScenarioCodec):
    """The snake tester's scenario files (:mod:`snakewar.games.battlesnake.tester.files`)."""

    @override
    def from_replay(
        self,
        data: bytes,
        name: str,
        *,
        turn: int,
        player: str,
        scenario_name: str | None = None,
        keep: bool = False,
        target: str | None = None,
    ) -> dict[str, Any]:
        from snakewar.games.battlesnake.tester.files import turn_scenario

        return turn_scenario(
            _positions(data, name),
            name,
            turn=turn,
            snake=player,
            name=scenario_name,
            keep=keep,
            kill=target,
        )

    @override
    def add(self, existing: bytes | None, entries: Sequence[dict[str, Any]], name: str) -> bytes:
        from snakewar.games.battlesnake.tester.files import merge_entries

        return merge_entries(existing, entries, name)


def _positions(
    data: bytes, name: str
) -> list[tuple[GameInfo, BoardState, Mapping[str, SnakeInfo]]]:
    """Every turn of a replay file (Snakewar's or the official CLI's) as its snakes saw it.

    Raises:
        ReplayError: a file that cannot be read.
    """
    if sniff_replay(data, name) == "official":
        official = read_official_jsonl(data, name=name)
        return [(official.game, f.state, f.infos) for f in official.frames]
    record = load_replay(data, name=name).record
    infos = {
        e.id: SnakeInfo(name=e.name, color=e.color, head=e.head, tail=e.tail, author=e.author)
        for e in record.snakes
    }
    config = record.config
    game = GameInfo(
        id=record.id,
        ruleset_name=config.ruleset,
        ruleset_version=api_ruleset_version(record.source),
        settings=config.settings,
        map=config.map,
        timeout=record.timeout_ms,
        source=api_game_source(record.source),
    )
    states = [record.initial, *(t.after for t in record.turns)]
    return [(game, state, infos) for state in states]


def _head_text(head: bytes) -> str:
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, 64 * 1024)
        except zlib.error:
            return ""
    return head.decode("utf-8", "replace")


class BattlesnakeAdapter(GameAdapter):
    """Battlesnake for the arena, storage, the server and the command line."""

    def __init__(self) -> None:
        self._catalogue: Catalogue | None = None
        self._replays = _SnakeReplays()

    @override
    def catalogue(self) -> Catalogue:
        if self._catalogue is None:
            self._catalogue = _catalogue()
        return self._catalogue

    @override
    def parse_params(self, raw: Mapping[str, object]) -> dict[str, Any]:
        """Checked parameters; a classic game defaults to the classic map and 20x20.

        Raises:
            ParamsError: an unknown name or a bad value, naming the field.
        """
        raw = dict(raw)
        given = raw.pop(POSITION, None)
        position = None
        if given is not None:
            # The board's size is the position's: the server's caps on width and height
            # then apply to it as to any game.
            position = _checked_position(given)
            raw["width"], raw["height"] = position.state.width, position.state.height
        params = self.catalogue().parse_params(classic_defaults(raw))
        try:
            check_pairing(str(params["ruleset"]), str(params["map"]))
        except SnakewarError as exc:
            raise ParamsError("map", str(exc)) from None
        if position is not None:
            params[POSITION] = position_json(position)
        return params

    @override
    def entrant(self, text: str, name: str | None = None) -> Entrant:
        source = canonical_source(text.strip())
        kind, target = snake_kind(source)
        if kind == "human":
            # A person at the game's page (a local server's, or an admin's): its keys
            # arrive through POST /api/games/{id}/human, each move within its deadline.
            human_timeout_of(target)
            return named_entrant(source, name, "you")
        if kind == "builtin":
            make_bot(target)  # an unknown bot or option fails now, not in a game
        else:
            try:
                check_url(target)
            except SnakewarError as exc:
                raise EntrantError(str(exc)) from None
        return named_entrant(source, name, default_snake_name(source))

    @override
    def reach(self, entrant: Entrant) -> Reach:
        kind, target = snake_kind(entrant.source)
        if kind == "human":
            # Not a built-in: a public server lets only admins seat a person (an absent
            # one holds the game's slot for a deadline a move, until the snake dies).
            return Reach("person")
        return Reach("builtin") if kind == "builtin" else Reach("remote", target)

    @override
    def check(self, spec: MatchSpec) -> None:
        counts = self.catalogue().player_counts
        if len(spec.entrants) not in counts:
            raise EntrantError(
                f"{len(spec.entrants)} snakes: a Battlesnake game has {counts[0]} to {counts[-1]}"
            )
        # (A ladder's or tournament's seats are placeholders here, no snakes yet.)
        if sum(is_human(e.source) for e in spec.entrants) > 1:
            raise EntrantError("one 'human' a game: a person has one keyboard")
        match = snake_match(spec)
        check_time_bank(match.time_bank_ms, match.timeout_ms)
        match.check()

    @override
    async def play(
        self,
        spec: MatchSpec,
        seed: int,
        session: PlaySession,
        hooks: MatchHooks | None = None,
    ) -> PlayedGame:
        hooks = hooks or MatchHooks()
        match = snake_match(spec)
        match.check(seed)
        http = _http(session)
        # Built-in bots play in the session's worker processes, which a runaway
        # search cannot outlive (see snakewar.referee.workers).
        bots = session_pool(session)
        human = _human_seat(match.snakes, hooks.game_id)
        try:
            snakes = await connect(match.snakes, match.names, http, match.timeout_ms, bots, human)
        except BaseException:
            _leave_seat(hooks.game_id, human)
            raise

        async def on_start(record: GameRecord) -> None:
            first = Frame(0, frame(record.initial, record.snakes))
            await _call(hooks.on_start, listing(record), GameData(header_dict(record), (first,)))

        async def on_turn(record: GameRecord, turn: TurnRecord) -> None:
            await _call(hooks.on_frame, _turn_frame(record, turn))

        try:
            record = await play_game(
                match.config(seed),
                snakes,
                timeout_ms=match.timeout_ms,
                sequential=match.sequential,
                max_turns=match.max_turns,
                source=match.source,
                on_start=on_start if hooks.on_start is not None else None,
                on_turn=on_turn if hooks.on_frame is not None else None,
                game_id=hooks.game_id,
                before_turn=hooks.before_turn,
                on_calls=hooks.on_calls,
                timing=match.timing,
                initial_state=match.start_state(seed),
                forked_from=match.forked_from,
            )
        finally:
            _leave_seat(hooks.game_id, human)
            await close_clients(snakes)
        return played_game(record, spec=spec)

    @override
    def longest_turn_ms(self, spec: MatchSpec, latest: Mapping[str, JSON] | None = None) -> int:
        # A /move may take the timeout plus what is left of its snake's bank (the largest
        # any snake has left: the newest frame says, or the whole bank before any move);
        # retry-once asks a timed-out move again, with the timeout (the bank is spent).
        params = spec.params
        timeout = spec.timeout_ms or DEFAULT_TIMEOUT_MS
        # A person's seat waits for its own per-move time.
        bases = [
            human_timeout_of(snake_kind(e.source)[1]) if is_human(e.source) else timeout
            for e in spec.entrants
        ]
        base = max([timeout, *bases])
        bank = _largest_bank_left(latest, int(params.get("timeBank", 0) or 0))
        call = base + bank + (base if params.get("retryTimeout") else 0)
        # Snakes asked one after the other wait in turn.
        return call * max(len(spec.entrants), 1) if params.get("sequential") else call

    @override
    async def health(self, entrant: Entrant, session: PlaySession) -> str | None:
        kind, _ = snake_kind(entrant.source)
        if kind in ("builtin", "human"):
            return None
        try:
            await make_client(entrant.source, _http(session), 500).info()
        except SnakewarError as exc:
            # Shown to others (a ladder's standings): the entrant, not its secret address
            # (a client names the URL as it was given, or with the slash it adds).
            text = str(exc)
            for address in (entrant.source, entrant.source.rstrip("/")):
                text = text.replace(address, entrant.name or "the snake")
            return text
        return None

    @property
    @override
    def replays(self) -> ReplayCodec:
        return self._replays

    @override
    def export(self, data: GameData) -> bytes:
        lines = [json.dumps(dict(data.header), ensure_ascii=False, separators=(",", ":"))]
        for expected, item in enumerate(data.frames[1:], start=1):
            if item.turn != expected or item.line is None:
                raise ReplayError(f"stored game lacks the replay line of turn {expected}")
            lines.append(json.dumps(dict(item.line), ensure_ascii=False, separators=(",", ":")))
        if data.result is not None:
            lines.append(json.dumps(dict(data.result), ensure_ascii=False, separators=(",", ":")))
        return "".join(line + "\n" for line in lines).encode("utf-8")

    @override
    def replay_filename(self, game_id: str) -> str:
        return f"{game_id}.jsonl"

    @override
    def viewer_page(self, game_id: str, *, server: str, turn: int | None = None) -> ViewerPage:
        # The board viewer reads the game through the engine API (as the official board
        # does), so it needs the server's own address.
        query = {"engine": server, "game": game_id, "autoplay": "true", "fit": "true"}
        if turn is not None:
            query["turn"] = str(turn)
        return ViewerPage(template="game.html", board="board.html?" + urlencode(query))

    # -- the parts Battlesnake adds to the server, the CLI and the bot workers ----------

    @override
    def routers(self) -> Sequence[Any]:
        # Imported here: the command line and the arena never load the web framework.
        from snakewar.games.battlesnake.routes import engine, human, pages, position, tester

        return (engine.router, tester.router, position.router, pages.router, human.router)

    @override
    def static_assets(self) -> str | None:
        # The board viewer (board.html and its modules) and the tester page's module.
        return str(_HERE / "viewer")

    @override
    def templates(self) -> str | None:
        # The tester's page and the parts of the site's pages that are Battlesnake's.
        return str(_HERE / "templates")

    @override
    def commands(self) -> Mapping[str, GameCommand]:
        # The table the entry point group snakewar.commands names (the CLI reads it there).
        from snakewar.games.battlesnake.cli import COMMANDS

        return COMMANDS

    @override
    def media(self) -> MediaCodec:
        # Imported when used: the drawing is needed by `snakewar export` and its route only.
        from snakewar.games.battlesnake.media import SnakeMedia

        return SnakeMedia()

    @override
    def notebook_html(self, item: object) -> str | None:
        # Imported when a record is shown: the viewer's page is read only then.
        from snakewar.games.battlesnake.notebook import record_html

        record = item.record if isinstance(item, Replay) else item
        return record_html(record) if isinstance(record, GameRecord) else None

    @override
    def scenarios(self) -> ScenarioCodec:
        return _SnakeScenarios()

    @override
    def worker_bot(self, spec: str, seed: int | None = None) -> Any:
        return WORKER_HOST.worker_bot(spec, seed)

    @override
    def worker_call(self, bot: Any, state: Any, kind: str, payload: Any) -> tuple[Any, Any]:
        # A snake's calls are the API's start/move/end, not text lines.
        return WORKER_HOST.worker_call(bot, state, kind, payload)

    @override
    def worker_host(self) -> str:
        return "snakewar.games.battlesnake.bots.worker:HOST"

    def record(self, data: GameData) -> GameRecord:
        """A stored game as a :class:`GameRecord` (read from its replay).

        Raises:
            ReplayError: stored data that does not read as a replay.
        """
        return read_replay(self.export(data))

    @override
    def position_at(self, data: GameData, turn: int) -> dict[str, Any]:
        """The board of a stored game at ``turn`` (the board's own turn, as viewers show it).

        Raises:
            ParamsError: naming ``turn`` for a turn the game does not have.
            ReplayError: stored data that does not read as a replay.
        """
        record = self.record(data)
        first, last = record.initial.turn, record.final_state.turn
        if not first <= turn <= last:
            raise ParamsError("turn", f"turn: {turn}: the game has turns {first} to {last}")
        state = record.initial if turn == first else record.turns[turn - first - 1].after
        entries = {e.id: e for e in record.snakes}
        names = tuple(entries[s.id].name if s.id in entries else "" for s in state.snakes)
        return position_json(Position(state, names, {"game": record.id, "turn": turn}))

    def settings(self, params: Mapping[str, Any], seed: int) -> Settings:
        """The rules settings of normalised match parameters."""
        return Settings(settings_params(params), seed)


GAME = BattlesnakeAdapter()
"""The Battlesnake adapter (the ``snakewar.games`` entry point ``battlesnake``)."""
