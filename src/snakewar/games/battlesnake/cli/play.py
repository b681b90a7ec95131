"""``snakewar play``: referee games between snakes, one to watch or many to measure.

The flags follow the official CLI (``battlesnake play``): ``-W -H -n -u -t -s -g
-m -r -d -D -o -v -c`` and the settings flags, with the same meanings.  Beyond it:

* snakes are given in one list (URLs, ``builtin:NAME``, ``v0:URL``, ``legacy:URL``) and ``-u``
  URLs are appended to it; they are placed in that order;
* the same seed and snakes give the same game (ids derive from the seed), and the
  seed is always printed;
* shouts are relayed; latencies, statuses and timeouts are summarised;
* ``--replay FILE`` writes Snakewar's replay file, ``-o FILE`` the official JSONL;
* ``--games N --workers K`` plays a batch and prints win rates with 95% intervals;
* built-in bots play in worker processes of their own
  (:class:`~snakewar.referee.workers.BotPool`), never in the referee's: a bot's thinking
  never delays reading another snake's reply, so measured latencies stay the snakes' own.

Like the official CLI, log lines (``LEVEL hh:mm:ss.micro message``: the snakes, the
ruleset and seed, one line per turn, failed requests, and with ``--verbose`` every
request and reply) go to stderr; results (the board, the summary, the seed) to stdout.
With ``--browser --board-url URL`` the game is shown by the board at ``URL``, reading the
local server's engine API (``URL?engine=...&game=...&autoplay=true``); without
``--board-url``, by Snakewar's own viewer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

import typer

from snakewar.cli.paths import OutputPathError, check_writable, make_directory, write_output
from snakewar.errors import SnakewarError

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from snakewar.cli.botconfig import BotConfig
    from snakewar.games.battlesnake.records import CallOutcome, GameRecord, TurnRecord
    from snakewar.games.battlesnake.referee.batch import SnakeMatch
    from snakewar.games.battlesnake.referee.clients import SnakeClient
    from snakewar.games.battlesnake.referee.human import HumanClient
    from snakewar.games.battlesnake.referee.stats import BatchStats, GameSummary
    from snakewar.games.battlesnake.rules.wire import SnakeRequest
    from snakewar.referee.launch import Crash, Launcher, LaunchSpec

__all__ = [
    "DEFAULT_SNAKES",
    "OutputPathError",
    "PlayRequest",
    "board_url",
    "check_launch",
    "check_options",
    "choose_entrants",
    "launch_names",
    "make_directory",
    "match_config",
    "play",
    "play_batch",
    "play_single",
    "prepare_outputs",
    "report",
]

DEFAULT_SNAKES = ("builtin:hunter", "builtin:greedy", "builtin:random", "builtin:random")
"""Who plays when no snake is given."""


def board_url(board: str, engine: str, game_id: str) -> str:
    """The address the official CLI opens for ``--browser``: a board reading ``engine``.

    >>> board_url("https://board.battlesnake.com", "http://127.0.0.1:8000", "g1")
    'https://board.battlesnake.com?engine=http://127.0.0.1:8000&game=g1&autoplay=true'

    Raises:
        SnakewarError: if ``board`` is not an http(s) URL.
    """
    if problem := _board_problem(board):
        raise SnakewarError(f"--board-url {board!r}: {problem}")
    parts = urlsplit(board)
    # ':' and '/' stay as they are in a query: the same address the official CLI writes.
    query = urlencode({"engine": engine, "game": game_id, "autoplay": "true"}, safe=":/")
    return f"{board}{'&' if parts.query else '?'}{query}"


def _board_problem(board: str) -> str | None:
    # What is wrong with a --board-url (None: nothing), said once for both its checks.
    parts = urlsplit(board)
    if (
        parts.scheme not in ("http", "https")
        or not parts.netloc
        or any(c.isspace() or not c.isprintable() for c in board)
    ):
        return "expected an http(s) URL"
    return None


def play(
    ctx: typer.Context,
    snakes: list[str] = typer.Argument(
        None,
        metavar="[SNAKE]...",
        help="Snakes in placement order: URLs, builtin:NAME, v0:URL or legacy:URL "
        "(default: hunter, greedy, random, random).",
    ),
    names: list[str] = typer.Option([], "-n", "--name", help="Snake names, in order."),
    urls: list[str] = typer.Option([], "-u", "--url", help="Snake URLs (added after SNAKEs)."),
    width: int | None = typer.Option(
        None, "-W", "--width", help="Board width (default 11; classic: 20)."
    ),
    height: int | None = typer.Option(
        None, "-H", "--height", help="Board height (default 11; classic: 20)."
    ),
    timeout: int = typer.Option(500, "-t", "--timeout", help="Move timeout in ms (0: 500)."),
    sequential: bool = typer.Option(
        False, "-s", "--sequential", help="Ask snakes one after the other."
    ),
    time_bank: int = typer.Option(
        0,
        "--time-bank",
        metavar="MS",
        help="NOT the official rules: each snake may spend MS milliseconds in all beyond "
        "the move timeout over the game (at most 10 timeouts; recorded in the replay).",
    ),
    retry_timeout: bool = typer.Option(
        False,
        "--retry-timeout",
        help="NOT the official rules: ask a move that timed out once more before the "
        "snake's last move is played (recorded in the replay).",
    ),
    gametype: str = typer.Option("standard", "-g", "--gametype", help="Ruleset."),
    map_id: str | None = typer.Option(
        None,
        "-m",
        "--map",
        help="Map id (see 'snakewar maps list'; default: standard, for classic: classic).",
    ),
    seed: int | None = typer.Option(None, "-r", "--seed", help="Seed (default: random, printed)."),
    delay: int = typer.Option(0, "-d", "--delay", help="Milliseconds to pause after each turn."),
    duration: int = typer.Option(0, "-D", "--duration", help="Minimum turn duration in ms."),
    output: str | None = typer.Option(
        None, "-o", "--output", help="Write the game as the official CLI's JSONL."
    ),
    replay: str | None = typer.Option(None, "--replay", help="Write a Snakewar replay file."),
    viewmap: bool = typer.Option(False, "-v", "--viewmap", help="Print the board every turn."),
    color: bool = typer.Option(False, "-c", "--color", help="Draw in colour."),
    live: bool | None = typer.Option(
        None, "--live/--no-live", help="Live board and scoreboard (default: on a terminal)."
    ),
    max_turns: int | None = typer.Option(None, "--max-turns", help="Stop after this many turns."),
    food_spawn_chance: int = typer.Option(15, "--foodSpawnChance"),
    minimum_food: int = typer.Option(1, "--minimumFood"),
    hazard_damage: int = typer.Option(14, "--hazardDamagePerTurn"),
    shrink_every: int = typer.Option(25, "--shrinkEveryNTurns"),
    max_food: int = typer.Option(1, "--maxFood", help="Classic: food items on the board."),
    start_length: int = typer.Option(3, "--snakeStartLength", help="Classic: starting length."),
    dec_health: int = typer.Option(1, "--decHealthPoints", help="Classic: health lost a turn."),
    games: int = typer.Option(1, "--games", help="Play a batch of this many games."),
    workers: int = typer.Option(1, "--workers", help="Worker processes for a batch."),
    ray_address: str | None = typer.Option(
        None,
        "--ray-address",
        help="Play the batch as tasks on a Ray cluster ('auto', 'ray://HOST:PORT', or 'local').",
    ),
    json_out: str | None = typer.Option(
        None, "--json", help="Write the results as JSON to this file ('-': stdout)."
    ),
    replay_dir: str | None = typer.Option(
        None,
        "--replay-dir",
        help="Write each game's replay into this directory (game-SEED.jsonl; made if missing).",
    ),
    browser: bool = typer.Option(
        False, "--browser", help="Watch the game in the browser (runs it on a local server)."
    ),
    board: str | None = typer.Option(
        None,
        "--board-url",
        help="With --browser: the board to open, reading the local server's engine API "
        "(e.g. https://board.battlesnake.com; default: Snakewar's own viewer).",
    ),
    verbose: bool = typer.Option(
        False, "--verbose", help="Log every request and reply (on stderr)."
    ),
    bots_in_process: bool = typer.Option(
        False,
        "--bots-in-process",
        help="Run built-in bots in this process, not in worker processes: faster for "
        "quick bots, but their thinking delays (and inflates the latency of) other snakes.",
    ),
    step: bool = typer.Option(
        False,
        "--step",
        help="With --browser: start paused at turn 0, step turn by turn and inspect each "
        "request and reply in the page.",
    ),
    port: int | None = typer.Option(
        None,
        "--port",
        help="With --browser: the local server's port on 127.0.0.1 (default: a free one).",
    ),
    exit_at_end: bool = typer.Option(
        False,
        "--exit-at-end",
        help="With --browser: stop the local server when the game ends (default: it keeps "
        "the game viewable until you press Enter or stop the command).",
    ),
    launch: list[str] = typer.Option(
        [],
        "--launch",
        help="Start your bot server with this command (run without a shell; '{port}' becomes "
        "a free port, also in $PORT) and play it; repeatable, one per snake, seated first, "
        "in order. Stopped at the end; restarted (twice at most) if it dies.",
    ),
    launch_dir: str = typer.Option(
        ".", "--launch-dir", help="With --launch: the bots' working directory."
    ),
    launch_timeout: float = typer.Option(
        30.0,
        "--launch-timeout",
        help="With --launch: seconds a bot has to answer GET / with 200 after it starts.",
    ),
    launch_logs: str | None = typer.Option(
        None,
        "--launch-logs",
        help="With --launch: keep each bot's stdout and stderr in DIR/bot-N.log "
        "(made if missing; default: a temporary file, quoted when the bot fails).",
    ),
    launch_max_games: int | None = typer.Option(
        None,
        "--launch-max-games",
        help="With --launch: the most games each bot plays at once; a batch then runs at "
        "most that many games at once (--workers is capped; the other games wait).",
    ),
    config_file: str | None = typer.Option(
        None,
        "--config",
        help="A bot config file (TOML): its launched bots are seated first, its other "
        "bots last; its options are defaults for width, height, timeout, max_turns, seed, "
        "games and workers.",
    ),
    from_replay: str | None = typer.Option(
        None,
        "--from",
        help="Play on from a turn (--turn) of this replay (Snakewar's, or the official "
        "CLI's -o file): its ruleset, map, settings, seed and snakes unless given here.",
    ),
    from_turn: int | None = typer.Option(
        None, "--turn", help="With --from: the turn to play on from (default: the last)."
    ),
    from_position: str | None = typer.Option(
        None,
        "--from-position",
        help="Play on from this position: an API v1 /move body or board, or a position "
        "file the editor saves.",
    ),
    human_timeout: int = typer.Option(
        10_000,
        "--human-timeout",
        help="With a 'human' snake: milliseconds you have for each move (past it, your "
        "snake plays its last move again).",
    ),
) -> None:
    """Referee games between snakes: watch one, or measure many."""
    from snakewar.games.battlesnake.cli.fork import fork_snakes, load_fork, merged_params

    from_file: list[LaunchSpec] = []
    file_names: list[str] = []
    file_entrants: list[tuple[str, str]] = []
    if config_file is not None:
        bot_config = load_play_config(config_file, launch_logs)
        from_file = [spec for _, spec in bot_config.launches]
        file_names = [name for name, _ in bot_config.launches]
        file_entrants = bot_config.entrants

        def pick(option: str, value: Any) -> Any:
            # The file's value unless the command line gave the option explicitly.
            source = ctx.get_parameter_source(option)
            explicit = source is not None and source.name != "DEFAULT"
            return bot_config.config.option(option, value, explicit)

        width, height, timeout = (
            pick("width", width),
            pick("height", height),
            pick("timeout", timeout),
        )
        max_turns, seed = pick("max_turns", max_turns), pick("seed", seed)
        games, workers = pick("games", games), pick("workers", workers)
    if from_file and ray_address is not None:
        raise typer.BadParameter(
            "launched bots listen on this machine's 127.0.0.1, which a Ray cluster cannot "
            "reach; leave out --ray-address",
            param_hint=["--config"],
        )
    launches = from_file + check_launch(
        launch,
        launch_dir,
        launch_timeout,
        # The file's bots use --launch-logs too: then it is not about --launch alone.
        launch_logs if launch or not from_file else None,
        ray_address,
    )
    if len(launches) > _MAX_LAUNCHES:
        raise typer.BadParameter(
            f"{len(launches)} bots: at most {_MAX_LAUNCHES}", param_hint=["--launch"]
        )
    if launch_max_games is not None:
        if not launch or not 1 <= launch_max_games <= 64:
            raise typer.BadParameter(
                "expected 1 to 64, with --launch", param_hint=["--launch-max-games"]
            )
        launches[len(from_file) :] = [
            replace(spec, max_games=launch_max_games) for spec in launches[len(from_file) :]
        ]
    limits = [spec.max_games for spec in launches if spec.max_games]
    if limits and workers > min(limits):
        # Games wait: a batch's workers each play one game at a time.
        typer.echo(
            f"games at once: {min(limits)} (a launched bot plays at most {min(limits)} "
            "at once; the others wait)",
            err=True,
        )
        workers = min(limits)
    typed = list(snakes or ()) + list(urls)
    names = list(names)
    if file_entrants:
        # The file's other bots sit last, under their names: the seats between keep theirs.
        names += [""] * max(0, len(launch) + len(typed) - len(names))
        names += [name for name, _ in file_entrants]
        typed += [text for _, text in file_entrants]
    fork = load_fork(from_replay, from_turn, from_position)
    if fork is not None:
        given = fork_snakes(fork, tuple(typed), len(launches))
        # The game's names go with its own snakes, not with those that replace them.
        if not names and not typed and not launches:
            names = list(fork.names)
        given = choose_entrants(list(given), file_names + names, launched=len(launches))

        state = fork.position.state
        for option, value, side in (
            ("width", width, state.width),
            ("height", height, state.height),
        ):
            if value is not None and value != side:
                raise typer.BadParameter(
                    f"{value}: the position's board is {state.width}x{state.height}",
                    param_hint=[f"--{option}"],
                )
        width, height = state.width, state.height
        # An option given on the command line wins over the replay's value.
        gametype = gametype if _given(ctx, "gametype") or fork.ruleset is None else fork.ruleset
        map_id = map_id if _given(ctx, "map_id") or fork.map is None else fork.map
        seed = seed if seed is not None else fork.seed
        if not _given(ctx, "timeout") and fork.timeout_ms:
            timeout = fork.timeout_ms
    else:
        given = choose_entrants(typed, file_names + names, launched=len(launches))
    request = PlayRequest(
        snakes=given,
        names=launch_names(launches, file_names + names),
        timeout=timeout,
        games=games,
        workers=workers,
        output=output,
        replay=replay,
        json_out=json_out,
        replay_dir=replay_dir,
        browser=browser,
        board=board,
        step=step,
        ray_address=ray_address,
        verbose=verbose,
        port=port,
        exit_at_end=exit_at_end,
    )
    check_options(request)
    human = check_human(given, request, human_timeout)
    prepare_outputs(request)
    game_seed = seed if seed is not None else secrets.randbits(62) + 1
    settings = {
        "ruleset": gametype,
        "foodSpawnChance": food_spawn_chance,
        "minimumFood": minimum_food,
        "hazardDamagePerTurn": hazard_damage,
        "shrinkEveryNTurns": shrink_every,
        "maxFood": max_food,
        "snakeStartLength": start_length,
        "decHealthPoints": dec_health,
    }
    # Launched seats hold a placeholder until their bots run: the settings are checked
    # before any process starts.
    placeholders = tuple(f"http://127.0.0.1:1/launch-{i + 1}" for i in range(len(launches)))
    request = replace(request, snakes=placeholders + given)
    match = match_config(request, gametype, map_id, width, height, settings, sequential, max_turns)
    if fork is not None and fork.timing is not None:
        # A fork keeps the game's unofficial timing rules unless told otherwise.
        if not _given(ctx, "time_bank"):
            time_bank = fork.timing.time_bank_ms
        if not _given(ctx, "retry_timeout"):
            retry_timeout = fork.timing.retry_timeout
    match = replace(match, time_bank_ms=time_bank, retry_timeout=retry_timeout)
    check_timing(match)
    if fork is not None:
        told_settings = {
            name: value
            for name, option in _SETTING_OPTIONS.items()
            if _given(ctx, option)
            for value in (settings[name],)
        }
        params = merged_params(fork, {"ruleset": gametype, **told_settings})
        match = replace(match, position=fork.position, params=params or match.params)
    match.check(game_seed)  # impossible settings fail before any snake is called
    with _launched(launches) as launcher:
        if launcher is not None:
            match = replace(match, snakes=tuple(launcher.urls) + given)
            request = replace(request, snakes=match.snakes)
        if browser:
            _play_in_browser(
                match,
                game_seed,
                board,
                step,
                port,
                keep=not exit_at_end,
                human_timeout=human_timeout if human else None,
            )
            return
        # With JSON on stdout, everything for people goes to stderr.
        console = _console(stderr=json_out == "-")
        if games == 1:
            view = _View(viewmap, color, live, delay, duration)
            with _terminal_human(human, human_timeout) as client:
                play_single(
                    request, match, game_seed, console, view, bots_in_process, launcher, client
                )
        else:
            play_batch(request, match, game_seed, console, bots_in_process, launcher)
        report(console, match, game_seed, games)
    if launcher is not None and launcher.given_up():
        raise typer.Exit(1)


def _given(ctx: typer.Context, option: str) -> bool:
    """Whether the command line gave ``option`` (a parameter of :func:`play`)."""
    source = ctx.get_parameter_source(option)
    # By name: typer's click is its own copy, whose enum only typer exports.
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


_SETTING_OPTIONS = {
    "foodSpawnChance": "food_spawn_chance",
    "minimumFood": "minimum_food",
    "hazardDamagePerTurn": "hazard_damage",
    "shrinkEveryNTurns": "shrink_every",
    "maxFood": "max_food",
    "snakeStartLength": "start_length",
    "decHealthPoints": "dec_health",
}
"""Each setting of ``settings`` and the parameter of :func:`play` that gives it."""


def check_human(given: Sequence[str], request: PlayRequest, human_timeout: int) -> bool:
    """Whether a person plays (a ``human`` snake), checked against the other options.

    Without ``--browser`` the keys are read from the terminal, so one is needed.

    Raises:
        typer.BadParameter: ``--human-timeout`` out of range, ``human`` in a batch.
        SnakewarError: ``human`` with no terminal and no ``--browser``.
    """
    from snakewar.games.battlesnake.referee.human import HUMAN, MAX_HUMAN_TIMEOUT_MS
    from snakewar.games.battlesnake.referee.runner import snake_kind

    if not 1 <= human_timeout <= MAX_HUMAN_TIMEOUT_MS:
        raise typer.BadParameter(
            f"{human_timeout}: expected milliseconds from 1 to {MAX_HUMAN_TIMEOUT_MS}",
            param_hint=["--human-timeout"],
        )
    count = sum(snake_kind(spec)[0] == HUMAN for spec in given)
    if not count:
        return False
    if count > 1:
        raise SnakewarError("snake 'human' is given twice: a person has one keyboard")
    if request.games > 1:
        raise typer.BadParameter(
            "a person plays one game; leave out --games", param_hint=["--games"]
        )
    if not request.browser and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise SnakewarError(
            "snake 'human' reads the arrow keys from a terminal and there is none here; "
            "add --browser to play in the browser"
        )
    return True


@contextlib.contextmanager
def _terminal_human(wanted: bool, timeout_ms: int) -> Iterator[HumanClient | None]:
    """The person's snake, moved by this terminal's keys while the block runs."""
    if not wanted:
        yield None
        return
    from snakewar.games.battlesnake.referee.human import HumanClient, HumanMoves
    from snakewar.games.battlesnake.referee.keyboard import terminal_keys

    moves = HumanMoves()
    typer.echo(
        f"You play 'you' (pink): arrow keys or WASD, {timeout_ms / 1000:g} s a move "
        "(then your last move again). Ctrl-C stops.",
        err=True,
    )
    with terminal_keys(moves, sys.stdin.fileno()):
        yield HumanClient(moves, timeout_ms)


@dataclass(frozen=True)
class PlayRequest:
    """What ``snakewar play`` was asked for, beyond the game itself (see :func:`play`)."""

    snakes: tuple[str, ...]
    names: tuple[str, ...]
    timeout: int
    games: int
    workers: int
    output: str | None
    replay: str | None
    json_out: str | None
    replay_dir: str | None
    browser: bool
    board: str | None
    step: bool
    ray_address: str | None
    verbose: bool
    port: int | None = None
    exit_at_end: bool = False


@dataclass(frozen=True)
class _View:
    # How one game is shown as it is played.
    viewmap: bool
    color: bool
    live: bool | None
    delay: int
    duration: int


def choose_entrants(given: list[str], names: Sequence[str], launched: int = 0) -> tuple[str, ...]:
    """The snakes that play: those given (the SNAKE arguments, then ``-u`` URLs) or the defaults.

    ``launched``: the seats of ``--launch`` bots, before these; with any, there are no
    defaults (one launched bot alone plays a solo game).

    Raises:
        SnakewarError: a snake that is no URL, ``builtin:NAME``, ``v0:URL`` or
            ``legacy:URL``, checked before anything else.
        typer.BadParameter: more names than snakes.
    """
    from snakewar.games.battlesnake.referee.runner import snake_kind

    specs = tuple(given) if given or launched else DEFAULT_SNAKES
    for spec in specs:
        snake_kind(spec)  # fail on a bad argument before anything else
    if len(names) > len(specs) + launched:
        raise typer.BadParameter(
            f"{len(names)} names given for {len(specs) + launched} snakes",
            param_hint=["-n", "--name"],
        )
    return specs


_MAX_LAUNCHES = 16
_MAX_COMMAND = 4096
_MAX_LAUNCH_TIMEOUT = 3600.0


def check_launch(
    commands: Sequence[str],
    directory: str,
    timeout: float,
    logs: str | None,
    ray_address: str | None = None,
) -> list[LaunchSpec]:
    """The bots ``--launch`` starts, checked before any of them is.

    Raises:
        typer.BadParameter: a command that cannot be split or needs a shell, a directory
            that is not one, a timeout out of range, launch options without ``--launch``,
            or ``--ray-address`` (a cluster cannot reach this machine's 127.0.0.1).
    """
    from snakewar.referee.launch import LaunchSpec
    from snakewar.referee.process import CommandLineError

    if not commands:
        for given, option in (
            (directory != ".", "--launch-dir"),
            (timeout != 30.0, "--launch-timeout"),
            (logs is not None, "--launch-logs"),
        ):
            if given:
                raise typer.BadParameter(
                    "is about bots started by --launch; add --launch", param_hint=[option]
                )
        return []
    if ray_address is not None:
        raise typer.BadParameter(
            "launched bots listen on this machine's 127.0.0.1, which a Ray cluster cannot "
            "reach; leave out --ray-address",
            param_hint=["--launch"],
        )
    if len(commands) > _MAX_LAUNCHES:
        raise typer.BadParameter(
            f"{len(commands)} bots: at most {_MAX_LAUNCHES}", param_hint=["--launch"]
        )
    if not 0 < timeout <= _MAX_LAUNCH_TIMEOUT:
        raise typer.BadParameter(
            f"{timeout:g}: expected seconds above 0, at most {_MAX_LAUNCH_TIMEOUT:g}",
            param_hint=["--launch-timeout"],
        )
    if not Path(directory).is_dir():
        raise typer.BadParameter(f"{directory!r} is not a directory", param_hint=["--launch-dir"])
    if logs is not None:
        make_directory(logs, "launch log directory")
    specs = []
    for i, command in enumerate(commands):
        if len(command) > _MAX_COMMAND:
            raise typer.BadParameter(
                f"a command of {len(command)} characters: at most {_MAX_COMMAND}",
                param_hint=["--launch"],
            )
        spec = LaunchSpec(
            command,
            cwd=directory,
            ready_timeout=timeout,
            log_path=str(Path(logs, f"bot-{i + 1}.log")) if logs is not None else None,
        )
        try:
            spec.program()
        except CommandLineError as exc:
            raise typer.BadParameter(str(exc), param_hint=["--launch"]) from None
        specs.append(spec)
    return specs


@dataclass(frozen=True)
class PlayConfig:
    """A config file as ``play`` uses it: launched bots and other bots, by name."""

    config: BotConfig
    launches: list[tuple[str, LaunchSpec]]
    entrants: list[tuple[str, str]]


def load_play_config(path: str, logs: str | None) -> PlayConfig:
    """The config file ``path`` for ``play`` (``logs``: ``--launch-logs``, DIR/NAME.log).

    Raises:
        BotConfigError: a bad file, or game parameters in it (play has its own options).
    """
    from snakewar.cli.botconfig import BotConfigError, load_bot_config
    from snakewar.referee.launch import LaunchSpec

    config = load_bot_config(path)
    if config.params or "game" in config.options:
        raise BotConfigError(
            f"{path}: options.params/options.game: snakewar play takes its game settings "
            "from its own options (eval and ladder read them from the file)"
        )
    if logs is not None and any(b.launch for b in config.bots):
        make_directory(logs, "launch log directory")
    launches = [
        (
            b.name,
            LaunchSpec(
                b.launch,
                cwd=b.cwd,
                ready_timeout=b.ready_timeout,
                env=b.env,
                max_games=b.max_games,
                log_path=str(Path(logs, f"{b.name}.log")) if logs is not None else None,
            ),
        )
        for b in config.bots
        if b.launch
    ]
    entrants = [(b.name, b.entrant) for b in config.bots if b.entrant]
    return PlayConfig(config, launches, entrants)


def launch_names(launches: Sequence[LaunchSpec], names: Sequence[str]) -> tuple[str, ...]:
    """The seats' names: an unnamed launched bot is called after its program.

    ``python main.py --port {port}`` plays as ``main.py``, ``./my-bot {port}`` as ``my-bot``
    (the other seats keep their names, or none: the default).
    """
    out = list(names)
    for i, spec in enumerate(launches):
        if i < len(out) and out[i]:
            continue
        argv = spec.program().argv
        word = argv[1] if len(argv) > 1 and not argv[1].startswith("-") else argv[0]
        if "{port}" in word:
            word = argv[0]
        name = Path(word).name or word
        if i < len(out):
            out[i] = name
        else:
            out.extend([""] * (i - len(out)) + [name])
    return tuple(out)


@contextlib.contextmanager
def _launched(launches: Sequence[LaunchSpec]) -> Iterator[Launcher | None]:
    """The ``--launch`` bots, started and ready, stopped when the block ends (None: none)."""
    if not launches:
        yield None
        return
    from snakewar.referee.launch import Launcher

    with Launcher(launches) as launcher:
        for bot in launcher.bots:
            kept = f", log {bot.log_path}" if bot.spec.log_path is not None else ""
            typer.echo(f"launched {bot.describe()} on {bot.url}, pid {bot.pid}{kept}", err=True)
        yield launcher


def _crash_lines(crashes: Sequence[Crash], seed: int | None) -> list[str]:
    where = f"game with seed {seed}: " if seed is not None else ""
    return [f"{where}{crash.describe()}" for crash in crashes]


def check_options(request: PlayRequest) -> None:
    """Refuse options out of range, or that do not go together, before any game.

    Raises:
        typer.BadParameter: naming the option at fault (one ``error:`` line, status 2).
        OutputPathError: an output file that cannot be written.
    """
    if request.timeout < 0:
        raise typer.BadParameter(
            f"{request.timeout}: expected a number of milliseconds >= 0",
            param_hint=["-t", "--timeout"],
        )
    for option, value in (("--games", request.games), ("--workers", request.workers)):
        if value < 1:
            raise typer.BadParameter(f"{value}: expected at least 1", param_hint=[option])
    batch = request.games > 1
    if batch and (request.output or request.replay):
        raise typer.BadParameter(
            "writes one game; use --replay-dir in a batch",
            param_hint=["-o", "--output", "--replay"],
        )
    for path, what in ((request.output, "output file"), (request.replay, "replay file")):
        if path:
            check_writable(path, what)
    if request.json_out and request.json_out != "-":
        check_writable(request.json_out, "JSON file")
    if request.board is not None:
        if not request.browser:
            raise typer.BadParameter(
                "the board --browser opens; add --browser", param_hint=["--board-url"]
            )
        if problem := _board_problem(request.board):
            raise typer.BadParameter(f"{request.board!r}: {problem}", param_hint=["--board-url"])
    if request.ray_address is not None and not batch:
        raise typer.BadParameter(
            "plays a batch on Ray; add --games N", param_hint=["--ray-address"]
        )
    if request.verbose and (request.browser or batch):
        raise typer.BadParameter(
            "logs one game played here; leave out --games/--browser", param_hint=["--verbose"]
        )
    if request.step and not request.browser:
        raise typer.BadParameter(
            "pauses a game in the browser; add --browser", param_hint=["--step"]
        )
    if request.browser and batch:
        raise typer.BadParameter("shows one game; leave out --games", param_hint=["--browser"])
    for given, option in (
        (request.port is not None, "--port"),
        (request.exit_at_end, "--exit-at-end"),
    ):
        if given and not request.browser:
            raise typer.BadParameter(
                "is about the local server of --browser; add --browser", param_hint=[option]
            )
    if request.port is not None:
        if not 1 <= request.port <= 65535:
            raise typer.BadParameter(
                f"{request.port}: expected a port from 1 to 65535", param_hint=["--port"]
            )
        if not _port_free(request.port):
            raise typer.BadParameter(
                f"{request.port} is already in use on 127.0.0.1; choose another, or leave "
                "--port out for a free one",
                param_hint=["--port"],
            )


def prepare_outputs(request: PlayRequest) -> None:
    """Make the replay directory, if one is asked for (a file there fails now)."""
    if request.replay_dir is not None:
        make_directory(request.replay_dir, "replay directory")


def check_timing(match: SnakeMatch) -> None:
    """Refuse a negative or too large ``--time-bank`` (see :func:`check_time_bank`).

    Raises:
        SnakewarError: naming ``--time-bank`` and its cap.
    """
    from snakewar.games.battlesnake.adapter import check_time_bank

    if match.time_bank_ms < 0:
        raise SnakewarError(f"--time-bank {match.time_bank_ms}: expected 0 or more milliseconds")
    try:
        check_time_bank(match.time_bank_ms, match.timeout_ms)
    except SnakewarError as exc:
        raise SnakewarError(f"--time-bank {match.time_bank_ms}: {exc}") from None


def match_config(
    request: PlayRequest,
    gametype: str,
    map_id: str | None,
    width: int | None,
    height: int | None,
    settings: dict[str, Any],
    sequential: bool,
    max_turns: int | None,
) -> SnakeMatch:
    """The match to play: the snakes, the ruleset's board and the settings.

    What was not given takes the ruleset's default (classic: its map, 20x20).
    """
    from snakewar.games.battlesnake.adapter import settings_params
    from snakewar.games.battlesnake.referee.batch import SnakeMatch
    from snakewar.games.battlesnake.rules.classic import default_board

    default_map, default_width, default_height = default_board(gametype)
    return SnakeMatch(
        snakes=request.snakes,
        names=request.names,
        ruleset=gametype,
        map=default_map if map_id is None else map_id,
        width=default_width if width is None else width,
        height=default_height if height is None else height,
        params=settings_params(settings),
        timeout_ms=request.timeout or 500,
        sequential=sequential,
        max_turns=max_turns,
    )


def _console(stderr: bool) -> Console:
    from rich.console import Console

    console = Console(highlight=False, stderr=stderr)
    if not console.is_terminal:
        console.width = max(console.width, 150)  # logs and pipes: no squeezed tables
    return console


def play_single(
    request: PlayRequest,
    match: SnakeMatch,
    seed: int,
    console: Console,
    view: _View,
    bots_in_process: bool,
    launcher: Launcher | None = None,
    human: HumanClient | None = None,
) -> None:
    """Play one game as it is watched; write its files and its summary.

    With ``launcher``, its bots' logs mark the game, and a bot that died during it is
    reported (and restarted by the launcher).  ``human``: the client the ``human``
    snake plays through (the terminal's keys).
    """
    if launcher is not None:
        launcher.note(f"game with seed {seed} starts")
    record = _play_one(
        match,
        seed,
        console,
        view.viewmap,
        view.color,
        view.live,
        view.delay,
        view.duration,
        _Log(request.verbose),
        bots_in_process,
        human,
    )
    from snakewar.games.battlesnake.replay.format import write_replay

    if request.replay_dir is not None:
        write_replay(record, Path(request.replay_dir, f"game-{seed}.jsonl"))
    if request.output:
        from snakewar.games.battlesnake.replay.official import write_official_jsonl

        write_official_jsonl(record, request.output)
        if not record.timing.official:
            # Its lines are the API's strict shapes: no field for a bank or a retry.
            typer.echo(
                f"note: {request.output} (the official CLI's JSONL) cannot record the "
                "unofficial timing rules; --replay FILE keeps them",
                err=True,
            )
    if request.replay:
        write_replay(record, request.replay)
    _print_summary(console, record)
    failures: list[dict[str, Any]] = []
    if launcher is not None:
        launcher.note(f"game with seed {seed} is over")
        launcher.check()  # queues what it finds, with what the watcher found
        crashes = launcher.take_crashes()
        failures = _failure_json(launcher, crashes, seed)
        for line in _crash_lines(crashes, None):
            console.print(f"failed: {line}", markup=False)
    if request.json_out:
        from snakewar.games.battlesnake.referee.stats import summarize

        data = _summary_json(summarize(record))
        if launcher is not None:
            data["launch"] = _launch_json(launcher, failures)
        _write_json(request.json_out, data, console)


def play_batch(
    request: PlayRequest,
    match: SnakeMatch,
    seed: int,
    console: Console,
    bots_in_process: bool,
    launcher: Launcher | None = None,
) -> None:
    """Play ``request.games`` games from ``seed`` on; print and write their statistics.

    With ``launcher``: before each game its bots are checked (a dead one restarted, a
    starting one waited for); a bot's death is recorded against the game it happened
    in; once a bot is down for good, no more games are played.
    """
    failures: list[dict[str, Any]] = []
    stats = _play_batch(
        match,
        seed,
        request.games,
        request.workers,
        request.replay_dir,
        console,
        request.ray_address,
        bots_in_process,
        launcher,
        failures,
    )
    if request.json_out:
        data = stats.to_json() | {"first_seed": seed, "config": _match_json(match)}
        if launcher is not None:
            data["launch"] = _launch_json(launcher, failures)
        _write_json(request.json_out, data, console)


def _failure_json(
    launcher: Launcher, crashes: Sequence[Crash], seed: int | None
) -> list[dict[str, Any]]:
    seats = {bot.label: i for i, bot in enumerate(launcher.bots)}
    return [
        {
            "seed": seed,
            "seat": seats[crash.label] + 1,
            "bot": crash.label,
            "command": crash.command,
            "returncode": crash.returncode,
            "restarted": crash.restarted,
            "reason": crash.describe(),
        }
        for crash in crashes
    ]


def _launch_json(launcher: Launcher, failures: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "bots": [
            {
                "seat": i + 1,
                "command": bot.spec.command,
                "url": bot.url,
                "restarts": bot.restarts,
                "given_up": bot.given_up,
                "log": str(bot.log_path) if bot.spec.log_path is not None else None,
            }
            for i, bot in enumerate(launcher.bots)
        ],
        "failures": failures,
    }


def report(console: Console, match: SnakeMatch, seed: int, games: int) -> None:
    """The last line: what was played, and how to play it again."""
    extra = f" --games {games}" if games > 1 else ""
    timing = match.timing
    if timing.time_bank_ms:
        extra += f" --time-bank {timing.time_bank_ms}"
    if timing.retry_timeout:
        extra += " --retry-timeout"
    unofficial = f", unofficial timing: {timing.label()}" if not timing.official else ""
    console.print(
        f"ruleset {match.ruleset}, map {match.map}, {match.width}x{match.height}, seed {seed}"
        f"{unofficial} (same game again: snakewar play -r {seed}{extra} ...)",
        markup=False,
    )


def _play_one(
    match: SnakeMatch,
    seed: int,
    console: Console,
    viewmap: bool,
    color: bool,
    live: bool | None,
    delay: int,
    duration: int,
    log: _Log,
    bots_in_process: bool = False,
    human: HumanClient | None = None,
) -> GameRecord:
    from dataclasses import replace

    from rich.live import Live

    from snakewar.games.battlesnake.referee.batch import builtin_pool
    from snakewar.games.battlesnake.referee.clients import new_http_client
    from snakewar.games.battlesnake.referee.runner import close_clients, connect, play_game

    # Logs would scroll the live board away: on a terminal it is the default unless
    # every request is logged (--verbose), as the official CLI's logs are.
    use_live = (console.is_terminal and not log.verbose if live is None else live) and not viewmap
    # A person needs to see the board before the first move: shown at the start.
    use_live = use_live or (human is not None and not viewmap)
    unicode = (sys.stdout.encoding or "").lower().startswith("utf")

    async def run() -> GameRecord:
        pooled = () if bots_in_process else match.snakes
        async with new_http_client() as http, builtin_pool(pooled) as bots:
            snakes = await connect(match.snakes, match.names, http, match.timeout_ms, bots, human)
            try:
                if log.verbose:
                    logged = [replace(s, client=_LoggedClient(s.client, log)) for s in snakes]
                    return await referee(logged)
                return await referee(snakes)
            finally:
                await close_clients(snakes)

    async def referee(snakes: Sequence[Any]) -> GameRecord:
        live_view: Live | None = None

        def on_start(record: GameRecord) -> None:
            for entry in record.snakes:
                log.info(f'Snake ID: {entry.id} URL: {entry.source}, Name: "{entry.name}"')
            log.info(f"Ruleset: {match.ruleset}, Seed: {seed}")
            if not viewmap and not use_live:
                log.info(_state_line(record, record.initial))
            if live_view is not None and human is not None:
                from rich.text import Text

                board = Text.from_ansi(_board_text(record, None, color, unicode))
                live_view.update(board, refresh=True)

        def on_turn(record: GameRecord, turn: TurnRecord) -> None:
            for sid, call in turn.calls.items():
                if not call.ok:
                    source = record.snake(sid).source
                    log.warn(f"Request to {_call_url(source, 'move')} failed: {_reply_text(call)}")
            if viewmap:
                console.print(_board_text(record, turn, color, unicode), markup=False)
            elif not use_live:
                log.info(_state_line(record, turn.after))
            if live_view is not None:
                live_view.update(_frame(record, turn, color, unicode), refresh=human is not None)

        kwargs: dict[str, Any] = {
            "timeout_ms": match.timeout_ms,
            "sequential": match.sequential,
            "max_turns": match.max_turns,
            "delay_ms": delay,
            "duration_ms": duration,
            "on_start": on_start,
            "on_turn": on_turn,
            "timing": match.timing,
            "initial_state": match.start_state(seed),
            "forked_from": match.forked_from,
        }
        if use_live:
            with Live(console=console, auto_refresh=False, transient=False) as live_view:
                rec = await play_game(match.config(seed), snakes, **kwargs)
                live_view.refresh()
            return rec
        return await play_game(match.config(seed), snakes, **kwargs)

    record = asyncio.run(run())
    if not viewmap and not use_live:
        console.print(_board_text(record, None, color, unicode), markup=False)
    return record


class _Log:
    """Log lines as the official CLI writes them: ``LEVEL hh:mm:ss.micro message``, on stderr.

    ``DEBUG`` lines (every request and reply) only with ``verbose``.
    """

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose

    def _line(self, level: str, message: str) -> None:
        stamp = datetime.now().strftime("%H:%M:%S.%f")
        # sys.stderr looked up each time: a live board redirects it above itself.
        sys.stderr.write(f"{level} {stamp} {message}\n")
        sys.stderr.flush()

    def info(self, message: str) -> None:
        """Log ``message`` at INFO."""
        self._line("INFO", message)

    def warn(self, message: str) -> None:
        """Log ``message`` at WARN."""
        self._line("WARN", message)

    def debug(self, message: str) -> None:
        """Log ``message`` at DEBUG, if verbose."""
        if self.verbose:
            self._line("DEBUG", message)


def _state_line(record: GameRecord, state: Any) -> str:
    """The official CLI's line for a turn: who is alive, how much food and hazard."""
    names = _names(record)
    alive = ", ".join(names[s.id] for s in state.snakes if not s.eliminated_cause)
    return (
        f"Turn: {state.turn}, Snakes Alive: [{alive}], "
        f"Food: {len(state.food)}, Hazards: {len(state.hazards)}"
    )


def _call_url(source: str, kind: str) -> str:
    """Where a call of ``kind`` goes: ``URL/kind`` (``builtin:NAME/kind`` for a bot)."""
    base, _, query = source.partition("?")
    return f"{base.rstrip('/')}/{kind}" + (f"?{query}" if query else "")


def _reply_text(call: CallOutcome) -> str:
    """One line on a reply: its status, HTTP status, latency, move, shout and error."""
    parts = [str(call.status)]
    if call.http_status is not None:
        parts.append(f"HTTP {call.http_status}")
    parts.append(f"{call.latency_ms} ms")
    if call.ok and call.move:
        parts.append(json.dumps({"move": call.move, "shout": call.shout}))
    if call.error:
        parts.append(call.error)
    return ", ".join(parts)


class _LoggedClient:
    """A snake's client that logs each request and reply (``--verbose``) at DEBUG."""

    def __init__(self, client: SnakeClient, log: _Log) -> None:
        self.client = client
        self.source = client.source
        self.log = log

    @property
    def timeout_ms(self) -> int:
        """The wrapped client's deadline (the referee lengthens it for a time bank)."""
        return int(getattr(self.client, "timeout_ms", 0))

    @timeout_ms.setter
    def timeout_ms(self, value: int) -> None:
        if hasattr(self.client, "timeout_ms"):
            self.client.timeout_ms = value

    async def info(self) -> Any:
        """The snake's metadata (already fetched when the game was set up)."""
        return await self.client.info()

    async def _call(
        self,
        kind: str,
        call: Callable[[SnakeRequest], Awaitable[CallOutcome]],
        request: SnakeRequest,
    ) -> CallOutcome:
        url = _call_url(self.source, kind)
        body = json.dumps(request.to_api(), separators=(",", ":"))
        self.log.debug(f"POST {url}: {body}")
        outcome = await call(request)
        self.log.debug(f"Reply from {url}: {_reply_text(outcome)}")
        return outcome

    async def start(self, request: SnakeRequest) -> CallOutcome:
        """Send ``/start``, logged."""
        return await self._call("start", self.client.start, request)

    async def move(self, request: SnakeRequest) -> CallOutcome:
        """Ask for a move, logged."""
        return await self._call("move", self.client.move, request)

    async def end(self, request: SnakeRequest) -> CallOutcome:
        """Send ``/end``, logged."""
        return await self._call("end", self.client.end, request)


def _names(record: GameRecord) -> dict[str, str]:
    return {e.id: e.name for e in record.snakes}


def _board_text(record: GameRecord, turn: TurnRecord | None, color: bool, unicode: bool) -> str:
    from snakewar.games.battlesnake import render_board

    state = turn.after if turn is not None else record.final_state
    return render_board(
        state,
        color=color,
        unicode=unicode,
        colors={e.id: e.color for e in record.snakes},
        names=_names(record),
    )


def _frame(record: GameRecord, turn: TurnRecord, color: bool, unicode: bool) -> RenderableType:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    board = Text.from_ansi(_board_text(record, turn, color, unicode))
    table = Table(box=None, pad_edge=False)
    for column in ("snake", "len", "hp", "move", "ms", "status", "shout"):
        table.add_column(column)
    state = turn.after
    for entry in record.snakes:
        snake = state.snake(entry.id)
        call = turn.calls.get(entry.id)
        table.add_row(
            entry.name,
            str(len(snake.body)),
            str(snake.health) if not snake.eliminated_cause else snake.eliminated_cause,
            call.move if call else "",
            str(call.latency_ms) if call else "",
            str(call.status) if call else "",
            call.shout[:40] if call else "",
            style="dim" if snake.eliminated_cause else None,
        )
    return Group(board, table)


def _outcome_text(record: GameRecord, snake_id: str) -> str:
    result = record.result
    snake = record.final_state.snake(snake_id)
    if result is not None and result.winner == snake_id:
        return "winner"
    if not snake.eliminated_cause:
        return "alive"
    names = _names(record)
    by = snake.eliminated_by
    by_text = f" by {names.get(by, by)}" if by and by != snake_id else ""
    return f"{snake.eliminated_cause}{by_text} on turn {snake.eliminated_on_turn}"


def _print_summary(console: Console, record: GameRecord) -> None:
    from rich.table import Table

    from snakewar.games.battlesnake.referee.stats import percentile, summarize

    summary = summarize(record)
    result = record.result
    turns = record.final_state.turn
    table = Table(title=f"Game {record.id} after {turns} turns", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("snake", no_wrap=True, min_width=8)
    table.add_column("len", justify="right")
    table.add_column("result", ratio=1)
    table.add_column("ms p50/p95/max", justify="right", no_wrap=True)
    table.add_column("failures")
    for entry, outcome in zip(record.snakes, summary.snakes, strict=True):
        lat = outcome.latencies
        failures = ", ".join(f"{n} {k}" for k, n in sorted(outcome.statuses.items())) or "-"
        table.add_row(
            str(outcome.seat + 1),
            entry.name,
            str(outcome.length),
            _outcome_text(record, entry.id),
            f"{percentile(lat, 50):.0f}/{percentile(lat, 95):.0f}/{max(lat, default=0)}",
            failures,
        )
    console.print(table)
    if result is not None and result.winner:
        console.print(
            f"Game completed after {turns} turns. "
            f"{record.snake(result.winner).name} was the winner."
        )
    elif result is not None and result.is_draw:
        console.print(f"Game completed after {turns} turns. It was a draw.")
    elif result is not None and result.reason == "max_turns":
        console.print(f"Stopped at the turn limit after {turns} turns.")
    else:
        console.print(f"Game completed after {turns} turns.")


def _play_batch(
    match: SnakeMatch,
    seed: int,
    games: int,
    workers: int,
    replay_dir: str | None,
    console: Console,
    ray_address: str | None = None,
    bots_in_process: bool = False,
    launcher: Launcher | None = None,
    failures: list[dict[str, Any]] | None = None,
) -> BatchStats:
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from snakewar.games.battlesnake.referee.batch import run_batch

    # Connect once here, so an unreachable snake fails before any worker starts.
    _check_reachable(match)
    started = time.perf_counter()
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("games", total=games)
        seeds = [seed + i for i in range(games)]
        if ray_address is not None:
            stats = _ray_batch(
                match, seeds, ray_address, replay_dir, lambda: progress.advance(task)
            )
        elif launcher is None:
            stats = run_batch(
                match,
                seeds,
                workers=workers,
                replay_dir=replay_dir,
                on_game=lambda _: progress.advance(task),
                bot_processes=not bots_in_process,
            )
        else:
            watch = _LaunchWatch(launcher, console, failures if failures is not None else [])

            def on_game(summary: GameSummary) -> None:
                watch.after_game(summary.seed)
                progress.advance(task)

            stats = run_batch(
                match,
                seeds,
                workers=workers,
                replay_dir=replay_dir,
                on_game=on_game,
                bot_processes=not bots_in_process,
                before_game=watch.before_game,
                stop=watch.stop,
                retry=watch.retry,
            )
    elapsed = time.perf_counter() - started
    _print_batch(console, stats, elapsed)
    if launcher is not None:
        for bot in launcher.given_up():
            console.print(
                f"error: {bot.describe()} is down for good: {bot.given_up}; the batch "
                f"stopped after {stats.games} of {games} games",
                markup=False,
            )
    return stats


class _LaunchWatch:
    """The hooks a batch with launched bots runs: restarts, failures, notes in the logs."""

    def __init__(
        self, launcher: Launcher, console: Console, failures: list[dict[str, Any]]
    ) -> None:
        self.launcher = launcher
        self.console = console
        self.failures = failures
        self.retried: set[int] = set()
        self.last_seed: int | None = None

    def before_game(self, seed: int) -> None:
        # A bot that died after the last game's last call is restarted now, and one
        # still starting is waited for: the next game's GET / finds it up.
        self.launcher.check(wait_ready=True)
        self._record(self.launcher.take_crashes(), self.last_seed)
        self.launcher.note(f"game with seed {seed} starts")

    def after_game(self, seed: int) -> None:
        self.last_seed = seed
        self.launcher.note(f"game with seed {seed} is over")
        self.launcher.check()
        self._record(self.launcher.take_crashes(), seed)

    def _record(self, crashes: Sequence[Crash], seed: int | None) -> None:
        self.failures.extend(_failure_json(self.launcher, crashes, seed))
        for line in _crash_lines(crashes, seed):
            self.console.print(f"failed: {line}", markup=False)

    def stop(self) -> bool:
        """Whether a bot is down for good: no more games."""
        return bool(self.launcher.given_up())

    def retry(self, seed: int, error: BaseException) -> bool:
        """Whether to play ``seed`` again after ``error`` (once: a bot was restarting)."""
        from snakewar.games.battlesnake.referee.clients import SnakeUnreachableError

        if seed in self.retried or not isinstance(error, SnakeUnreachableError):
            return False
        self.retried.add(seed)
        self.launcher.check(wait_ready=True)
        return not self.launcher.given_up()


def _ray_batch(
    match: SnakeMatch,
    seeds: list[int],
    address: str,
    replay_dir: str | None,
    advance: Any,
) -> BatchStats:
    """The batch as Ray tasks: one game per task, results counted as they come."""
    from snakewar.arena.executors import GameJob, RayExecutor
    from snakewar.games.battlesnake.adapter import GAME, match_spec
    from snakewar.games.battlesnake.referee.stats import BatchStats, GameSummary

    stats = BatchStats.empty([""] * len(match.snakes), match.snakes)
    executor = RayExecutor(None if address == "local" else address)
    spec = match_spec(match)
    jobs = [GameJob(f"game-{s}", spec, s) for s in seeds]
    outcomes = executor.run(jobs, on_result=lambda _: advance())
    for outcome in outcomes:
        played = outcome.played
        summary = played.details if played is not None else None
        if played is None or not isinstance(summary, GameSummary):
            raise SnakewarError(f"game with seed {outcome.seed} failed: {outcome.error}")
        for snake in summary.snakes:
            stats.seats[snake.seat].name = snake.name
        stats.add(summary)
        if replay_dir is not None:
            target = Path(replay_dir, f"game-{outcome.seed}.jsonl")
            write_output(target, GAME.export(played.data), "replay file")
    return stats


def _check_reachable(match: SnakeMatch) -> None:
    from snakewar.games.battlesnake.referee.clients import new_http_client
    from snakewar.games.battlesnake.referee.runner import connect

    async def run() -> None:
        async with new_http_client() as http:
            await connect(match.snakes, match.names, http, match.timeout_ms)

    asyncio.run(run())


def _print_batch(console: Console, stats: BatchStats, elapsed: float) -> None:
    from rich.table import Table

    table = Table(
        title=f"{stats.games} games, {stats.draws} draws, {stats.mean_turns:.1f} turns on average",
        title_justify="left",
    )
    table.add_column("#", justify="right")
    table.add_column("snake", no_wrap=True, min_width=8)
    for column in ("W", "D", "L"):
        table.add_column(column, justify="right")
    table.add_column("win rate (95% CI)", justify="right", no_wrap=True)
    table.add_column("len", justify="right")
    table.add_column("ms p50/p95/max", justify="right", no_wrap=True)
    notes = []
    for seat in stats.seats:
        lo, hi = seat.win_interval
        causes = ", ".join(f"{n} {c}" for c, n in seat.causes.most_common()) or "none"
        failures = ", ".join(f"{n} {k}" for k, n in seat.statuses.most_common()) or "none"
        notes.append(f"{seat.seat + 1} {seat.name}: eliminations {causes}; failed moves {failures}")
        table.add_row(
            str(seat.seat + 1),
            seat.name,
            str(seat.wins),
            str(seat.draws),
            str(seat.losses + seat.unfinished),
            f"{seat.win_rate:.0%} ({lo:.0%}-{hi:.0%})",
            f"{seat.mean_length:.1f}",
            f"{seat.latency(50):.0f}/{seat.latency(95):.0f}/{max(seat.latencies, default=0)}",
        )
    console.print(table)
    for note in notes:
        console.print(note, markup=False)
    rate = stats.games / elapsed * 60 if elapsed > 0 else 0.0
    console.print(f"{stats.games} games in {elapsed:.1f} s ({rate:.1f} games/min)")


def _match_json(match: SnakeMatch) -> dict[str, Any]:
    return {
        "snakes": list(match.snakes),
        "names": list(match.names),
        "ruleset": match.ruleset,
        "map": match.map,
        "width": match.width,
        "height": match.height,
        "settings": dict(match.params),
        "timeout": match.timeout_ms,
        "timeBank": match.time_bank_ms,
        "retryTimeout": match.retry_timeout,
    }


def _summary_json(summary: Any) -> dict[str, Any]:
    from dataclasses import asdict

    data: dict[str, Any] = asdict(summary)
    return data


def _write_json(path: str, data: dict[str, Any], console: Console) -> None:
    text = json.dumps(data, indent=2, sort_keys=True)
    if path == "-":
        sys.stdout.write(text + "\n")
    else:
        write_output(path, text + "\n", "JSON file")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _port_free(port: int) -> bool:
    """Whether a server could listen on ``127.0.0.1:port`` now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _play_in_browser(
    match: SnakeMatch,
    seed: int,
    board: str | None,
    step: bool = False,
    port: int | None = None,
    *,
    keep: bool = True,
    human_timeout: int | None = None,
) -> None:
    """Run the game on a local server (``snakewar serve``, stored like any server game).

    ``board``: the board to open (:func:`board_url`); ``None``: the server's own viewer.
    ``step``: start the game paused at turn 0, to be stepped from its page.  ``port``:
    the server's (default: a free one).  ``keep``: after the game, keep the server (and
    the game's page) until the user presses Enter or stops the command.
    ``human_timeout``: a person's time for each move, when one plays (``human``).
    """
    import tempfile

    port = _free_port() if port is None else port
    base = f"http://127.0.0.1:{port}"
    # The server's messages go to a file, so a talkative server can never block on a pipe.
    with tempfile.TemporaryFile() as log:
        _browse_on_server(
            match, seed, base, port, log, board, step, keep=keep, human_timeout=human_timeout
        )


def _wait_for_the_user(url: str) -> None:
    """Block until the user is done with the game's page: Enter, Ctrl-C or SIGTERM."""
    import signal
    import threading

    stop = threading.Event()

    def stopped(signum: int, frame: object) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, stopped)
    try:
        if sys.stdin.isatty():
            typer.echo(f"The game stays viewable at {url} until you press Enter.", err=True)

            # Enter ends the wait; so do Ctrl-C and SIGTERM (the reader is a daemon thread).
            def enter() -> None:
                sys.stdin.readline()
                stop.set()

            threading.Thread(target=enter, daemon=True).start()
        else:
            typer.echo(
                f"The game stays viewable at {url} until this command is stopped (Ctrl-C).",
                err=True,
            )
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def _browse_on_server(
    match: SnakeMatch,
    seed: int,
    base: str,
    port: int,
    log: IO[bytes],
    board: str | None,
    step: bool = False,
    *,
    keep: bool = True,
    human_timeout: int | None = None,
) -> None:
    """Start ``snakewar serve`` on ``port``, play the game on it and follow it to its end."""
    import subprocess
    import time
    import webbrowser

    import httpx

    from snakewar.games.battlesnake.adapter import api_settings

    server = subprocess.Popen(
        [sys.executable, "-m", "snakewar", "serve", "--host", "127.0.0.1", "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    from snakewar.games.battlesnake.referee.human import HUMAN

    # The person's deadline a move travels with the entrant (human?timeout=MS).
    snakes = [
        f"{HUMAN}?timeout={human_timeout}" if s == HUMAN and human_timeout is not None else s
        for s in match.snakes
    ]
    body: dict[str, Any] = {
        "snakes": snakes,
        "names": list(match.names),
        "timeout": match.timeout_ms,
        "seed": str(seed),
        "params": {
            "ruleset": match.ruleset,
            "map": match.map,
            "width": match.width,
            "height": match.height,
            **api_settings(match.params),
            # The unofficial timing rules, as the server's own parameters.
            "timeBank": match.time_bank_ms,
            "retryTimeout": match.retry_timeout,
        },
    }
    if match.max_turns is not None:
        body["maxTurns"] = match.max_turns
    if match.position is not None:
        from snakewar.games.battlesnake.position import position_json

        body["position"] = position_json(match.position)
    if step:
        body["step"] = True  # paused at turn 0: the page steps it (10 minutes a pause at most)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/api/catalogue", timeout=2)
                break
            except httpx.TransportError:
                if server.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    error = log.read().decode(errors="replace")
                    raise SnakewarError(
                        f"the local server did not start: {error.strip()[-300:]}"
                    ) from None
                time.sleep(0.05)
        response = httpx.post(f"{base}/api/games", json=body, timeout=60)
        if response.status_code >= 400:
            raise SnakewarError(str(response.json().get("detail")))
        game = response.json()
        url = f"{base}{game['viewer']}" if board is None else board_url(board, base, game["id"])
        if board is not None:
            _Log(False).info(f"Board server listening on {base}")
        typer.echo(f"watching at {url}", err=True)
        webbrowser.open(url)
        while game["status"] == "running":
            time.sleep(0.2)
            game = httpx.get(f"{base}/api/games/{game['id']}", timeout=10).json()
        outcome = f"{game['winner']} was the winner" if game["winner"] else game["status"]
        typer.echo(f"Game completed after {game['turn']} turns: {outcome}. Seed {seed}.")
        if keep:
            _wait_for_the_user(url)
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)
