"""``snakewar halite play``: one game, as the official engine's ``halite`` binary plays it.

The command line is the engine's, read by its rules (:mod:`snakewar.games.halite3.cli.args`),
so an official kit's ``run_game.sh`` runs unchanged with ``./halite`` replaced by
``snakewar halite play``.  It writes the engine's outputs:

* the engine's log on stderr (``[info] Map seed is 42`` ... ``[info] Player 0, 'MyBot',
  was rank 1 with 5000 halite``), as much as ``-v`` asks for; none with
  ``--results-as-json``;
* the ``.hlt`` replay named ``replay-YYYYMMDD-HHMMSS±ZZZZ-<seed>-<w>-<h>.hlt`` in ``-i``
  (default: the current folder; made if missing; the current folder if it cannot be
  written, with the engine's ``[error]`` line), and ``errorlog-…-<pid>.log`` files for
  players with log output;
* on stdout only what is asked for: the results JSON (``--results-as-json``), the
  constants (``--print-constants``), Snakewar's results table (``--table``).

``--bot-logs DIR`` (Snakewar's own flag) keeps the view ``halite eval --bot-logs``
gives, for this one game: one file per bot, ``DIR/seed-SEED-seatN-NAME.log``, with what
the bot wrote to stderr and the engine's lines about it (its error log), and one line on
stderr for each killed bot: why, and the last lines it wrote.

Bot commands are run without a shell (split into words as a shell would; leading
``NAME=value`` words set the bot's environment), and ``builtin:NAME`` bots play
in-process.  A command line the engine refuses, or a game that cannot be played, is one
``error:`` line and exit status 2.  This module imports the engine and the referee only
once a game is to be played: the time to the game's start is Python's own start-up and
theirs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snakewar.games.halite3.cli.args import (
    EngineArgs,
    EngineArgsError,
    parse_engine_args,
    usage,
    version_text,
)

if TYPE_CHECKING:
    from snakewar.games.halite3 import Constants, HaliteGame
    from snakewar.games.halite3.referee.log import EngineLog
    from snakewar.games.halite3.referee.runner import HaliteMatch
    from snakewar.games.halite3.rules.snapshot import HaliteSnapshot

__all__ = ["final_snapshot", "main", "results_object"]


class _Refused(Exception):
    """What ends the command with one ``error:`` line (exit status 2)."""


def main(argv: Sequence[str]) -> int:
    """Run ``snakewar halite play ARGV``; returns the exit status.

    Args:
        argv: the words after ``snakewar halite play``.
    """
    from snakewar.errors import SnakewarError

    try:
        args = parse_engine_args(argv)
    except EngineArgsError as exc:
        return _error(f"{exc} (as the official engine reads its command line; see --help)")
    if args.action == "help":
        sys.stdout.write(usage())
        return 0
    if args.action == "version":
        sys.stdout.write(version_text())
        return 0
    try:
        _run(args)
    except _Refused as exc:
        return _error(str(exc))
    except SnakewarError as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"cannot start the game: {exc}")
    except KeyboardInterrupt:
        # Ctrl-C: the referee has killed the bots on its way out; no traceback.
        return 130
    return 0


def _error(message: str) -> int:
    sys.stderr.write(f"error: {message}\n")
    return 2


def _run(args: EngineArgs) -> None:
    from snakewar.games.halite3.referee.log import EngineLog, LogLevel, level_for_verbosity

    # The engine's order: the constants are read, printed if asked, then changed.
    constants = _constants(args.constants_file)
    if args.print_constants:
        sys.stdout.write(constants.dumps() + "\n")
        return
    if args.strict:
        constants = dataclasses.replace(constants, STRICT_ERRORS=True)
    if args.map_type != "fractal":
        raise _Refused(
            f"map type {args.map_type!r}: only 'fractal' is supported (the official default; "
            "basic and blur_tile were never used in official play)"
        )
    if args.table and args.results_as_json:
        raise _Refused("--table and --results-as-json both print on stdout: give one of them")
    bots = args.bot_commands
    if len(bots) > constants.MAX_PLAYERS:
        raise _Refused(f"Too many players (max is {constants.MAX_PLAYERS}): {len(bots)} bots")
    log = EngineLog(
        sys.stderr, level_for_verbosity(args.verbosity), enabled=not args.results_as_json
    )
    map_players = args.players if args.players is not None else 1
    if len(bots) > map_players:
        if args.players is not None:
            log.log("Overriding the specified number of players", LogLevel.WARNING)
        map_players = len(bots)
    snapshot = None
    if args.from_snapshot:
        from snakewar.games.halite3.rules.snapshot import parse_snapshot

        # As the engine: the snapshot's map (size, players, seed) replaces the options'.
        snapshot = parse_snapshot(args.from_snapshot)
        map_players = snapshot.num_players
        if len(bots) > map_players:
            raise _Refused(
                f"--from-snapshot: {len(bots)} bots but the snapshot's map is for "
                f"{map_players} players"
            )
    folder = _replay_folder(args)
    bot_logs = _bot_log_folder(args.bot_logs)
    # No seed: the engine takes its clock's count (nanoseconds) cut to 32 bits.
    seed = args.seed if args.seed is not None else time.time_ns() & 0xFFFFFFFF
    view = None
    if snapshot is not None:
        from snakewar.games.halite3.rules.mapgen import size_for_seed
        from snakewar.games.halite3.rules.snapshot import generated_total

        # The engine's results and log names keep the command line's map (its size and
        # seed, as with no snapshot) and the total of the map it generated.
        size = size_for_seed(seed)
        view = _MapView(
            args.width if args.width is not None else size,
            args.height if args.height is not None else size,
            seed,
            generated_total(snapshot, len(bots), constants),
        )
    _play(args, bots, seed, map_players, constants, folder, log, snapshot, view, bot_logs)


def _bot_log_folder(text: str | None) -> Path | None:
    """The ``--bot-logs`` folder, made before the game (a bad one costs no game)."""
    if text is None:
        return None
    if not text.strip():
        raise _Refused("--bot-logs: expected a folder, got an empty name")
    from snakewar.cli.paths import make_directory

    return make_directory(text, "bot log folder")


def _constants(path: str | None) -> Constants:
    from snakewar.games.halite3 import Constants

    if path is None:
        return Constants()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise _Refused(f"cannot read constants file {path!r}: {why}") from None
    return Constants.loads(text)


def _replay_folder(args: EngineArgs) -> str | None:
    """The folder for the replay and the logs, as text ending in ``/``; ``None``: unusable.

    It is made if missing (the official kits ship theirs empty, and a clone of them has
    none).  One that cannot be made or written is left to the engine's fallback: the
    current folder, said on the log when the replay is written.
    """
    from snakewar.cli.paths import OutputPathError, make_directory

    text = args.replay_directory or "."
    if args.no_replay and args.no_logs:
        # Only a killed player's log may be written: no folder is made for it.
        return _with_separator(text) if os.path.isdir(text) else None
    try:
        make_directory(text, "replay directory")
    except OutputPathError:
        return None
    return _with_separator(text)


def _with_separator(folder: str) -> str:
    # The engine joins the folder and the file name as text: its spelling is kept.
    return folder if folder.endswith(os.sep) else folder + os.sep


def _play(
    args: EngineArgs,
    bots: list[str],
    seed: int,
    map_players: int,
    constants: Constants,
    folder: str | None,
    log: EngineLog,
    snapshot: HaliteSnapshot | None = None,
    view: _MapView | None = None,
    bot_logs: Path | None = None,
) -> None:
    from snakewar.games.halite3.referee.log import LogLevel
    from snakewar.games.halite3.referee.runner import play_halite_sync

    match = play_halite_sync(
        bots,
        seed=seed,
        width=args.width,
        height=args.height,
        map_players=map_players,
        constants=constants,
        turn_limit=args.turn_limit,
        timeouts=not args.no_timeout,
        names=args.override_names,
        log=log,
        snapshot=snapshot,
    )
    # Imported once the game is played: what the game's start need not wait for.
    from snakewar.games.halite3.replay.hlt import replay_document, replay_filename, write_hlt

    game = match.game
    when = datetime.now().astimezone()
    stamp = when.strftime("%Y%m%d-%H%M%S%z")
    replay_path: str | None = None
    if not args.no_replay:
        document = replay_document(
            game,
            match.names,
            execution_time_ms=match.execution_time_ms,
            map_players=map_players,
            failed_to_initialize=match.failed_to_initialize,
        )
        name = replay_filename(game.seed, game.width, game.height, when)
        compress = not args.no_compression
        if folder is not None:
            try:
                write_hlt(document, folder + name, compress=compress)
                replay_path = folder + name
            except OSError:
                pass
        if replay_path is None:
            log.log(
                f"Error: could not write replay to directory {_shown(args)}, falling back on "
                "current directory.",
                LogLevel.ERROR,
            )
            folder = "./"
            replay_path = folder + name
            try:
                write_hlt(document, replay_path, compress=compress)
            except OSError as exc:
                raise _Refused(f"cannot write the replay {replay_path!r}: {exc.strerror}") from None
        log.log(f"Opening a file at {replay_path}")
    result = game.result()
    for pid in range(game.num_players):
        log.log(
            f"Player {pid}, '{match.names[pid]}', was rank {result.ranks[pid]} with "
            f"{result.scores[pid]} halite"
        )
    log_paths = _write_error_logs(args, match, stamp, folder or "./", log, view)
    if bot_logs is not None:
        _write_bot_logs(bot_logs, match, bots)
    if args.results_as_json:
        results = results_object(
            match, replay=replay_path, error_logs=log_paths, map_players=map_players, view=view
        )
        # As the engine's JSON library writes it: keys sorted, 4 spaces, UTF-8 as is.
        sys.stdout.write(json.dumps(results, indent=4, sort_keys=True, ensure_ascii=False) + "\n")
    if args.table:
        _print_table(match, replay_path, log_paths)


def _shown(args: EngineArgs) -> str:
    """The replay folder as the engine names it in its fallback line (with a ``/``)."""
    return _with_separator(args.replay_directory or ".")


@dataclass(frozen=True, slots=True)
class _MapView:
    """The map a game started from a snapshot reports: the command line's, as the engine's."""

    width: int
    height: int
    seed: int
    total_halite: int


def _write_error_logs(
    args: EngineArgs,
    match: HaliteMatch,
    stamp: str,
    folder: str,
    log: EngineLog,
    view: _MapView | None = None,
) -> dict[int, str]:
    game = match.game
    width, height = (view.width, view.height) if view else (game.width, game.height)
    paths: dict[int, str] = {}
    for pid, text in sorted(match.error_logs.items()):
        if not text:
            continue
        # As the engine: --no-logs still writes the log of a killed player.
        if args.no_logs and not game.players[pid].terminated:
            log.log("Player has log output, but log was suppressed.", player=pid)
            continue
        path = f"{folder}errorlog-{stamp}-{game.seed}-{width}-{height}-{pid}.log"
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise _Refused(f"cannot write error log {path!r}: {exc.strerror}") from None
        paths[pid] = path
        log.log(f"Player has log output. Writing a log at {path}", player=pid)
    return paths


def _write_bot_logs(folder: Path, match: HaliteMatch, bots: Sequence[str]) -> None:
    """``--bot-logs``: each bot's log in ``folder``, each killed bot's line on stderr."""
    from snakewar.arena.botlogs import failure_lines, write_bot_logs
    from snakewar.engine.protocol import EntrantResult
    from snakewar.games.halite3.adapter import killed_reason

    game = match.game
    result = game.result()
    results = [
        EntrantResult(
            seat=pid,
            name=match.names[pid],
            source=bots[pid],
            rank=result.ranks[pid],
            failure=killed_reason(match, game, pid) if game.players[pid].terminated else "",
            log=match.error_logs.get(pid, ""),
        )
        for pid in range(game.num_players)
    ]
    try:
        paths = write_bot_logs(folder, f"seed-{game.seed}", results)
    except OSError as exc:
        raise _Refused(f"cannot write a bot log in {str(folder)!r}: {exc.strerror}") from None
    for line in failure_lines(f"seed {game.seed}", results, paths):
        sys.stderr.write(line + "\n")
    sys.stderr.write(f"bot logs: {folder}\n")


def final_snapshot(game: HaliteGame, map_players: int) -> str:
    """The engine's ``final_snapshot`` string (what ``--from-snapshot`` reads).

    ``version;fractal,w,h,n,seed;cells,…;`` then per player
    ``pid;energy;fx-fy,dropoff-x-y,…;ship-x-y-cargo,…;``.  Ships come in the engine's
    hash-table order, as in the frames bots receive.
    """
    from snakewar.games.halite3.rules.snapshot import write_snapshot

    return write_snapshot(game, map_players)


def results_object(
    match: HaliteMatch,
    *,
    replay: str | None,
    error_logs: dict[int, str],
    map_players: int,
    view: _MapView | None = None,
) -> dict[str, Any]:
    """The engine's ``--results-as-json`` object for a finished match.

    Args:
        match: the finished match.
        replay: the replay path, or ``None`` with ``--no-replay`` (the key is left out).
        error_logs: the error log paths written, by player id.
        map_players: the players the map was made for (``-n``).
        view: for a game started from a snapshot, the map the engine reports.
    """
    game = match.game
    result = game.result()
    results: dict[str, Any] = {
        "error_logs": {str(pid): path for pid, path in error_logs.items()},
        "terminated": {
            str(pid): game.players[pid].terminated for pid, text in match.error_logs.items() if text
        },
        "map_width": view.width if view else game.width,
        "map_height": view.height if view else game.height,
        "map_seed": view.seed if view else game.seed,
        "map_generator": "fractal",
        # The engine's is the halite of the map it generated, before any turn.
        "map_total_halite": (
            view.total_halite if view else sum(sum(row) for row in game.initial_halite)
        ),
        "execution_time": match.execution_time_ms,
        "final_snapshot": final_snapshot(game, map_players),
        "stats": {
            str(pid): {"rank": result.ranks[pid], "score": result.scores[pid]}
            for pid in range(game.num_players)
        },
    }
    if replay is not None:
        results["replay"] = replay
    return results


def _print_table(match: HaliteMatch, replay: str | None, logs: dict[int, str]) -> None:
    """Snakewar's summary of the game (``--table``): ranks, scores, why bots were killed."""
    from rich.console import Console
    from rich.table import Table

    game = match.game
    result = game.result()
    table = Table(
        title=f"Halite III, seed {game.seed}, {game.width}x{game.height}, "
        f"{game.turn} turns, {match.execution_time_ms} ms"
    )
    for column in ("rank", "player", "name", "score", "ships spawned", "deposited", "killed"):
        table.add_column(column, justify="right" if column not in ("name", "killed") else "left")
    for pid in sorted(range(game.num_players), key=lambda p: result.ranks[p]):
        stats = result.statistics[pid]
        killed = ""
        if game.players[pid].terminated:
            why = match.failures.get(pid) or _last_error(match.error_logs.get(pid, ""))
            killed = why or "yes"
        table.add_row(
            str(result.ranks[pid]),
            str(pid),
            match.names[pid],
            str(result.scores[pid]),
            str(stats.get("ships_spawned", "")),
            str(stats.get("total_production", "")),
            killed,
        )
    console = Console()
    console.print(table)
    if replay is not None:
        console.print(f"replay: {replay}")
    for pid, path in sorted(logs.items()):
        console.print(f"error log for player {pid}: {path}")


def _last_error(log: str) -> str:
    errors = [line[len("error: ") :] for line in log.splitlines() if line.startswith("error: ")]
    return errors[-1] if errors else ""
