"""``snakewar replay``: show a replay in the terminal, or verify it.

``snakewar replay FILE`` is ``snakewar replay show FILE``: any first argument that
is not a subcommand name is taken as the file (so a file named ``verify`` needs
``snakewar replay show verify``).  It reads the replay files of every game: each
game's replay codec (its adapter's ``replays``) recognises its own files: Snakewar's
replays and the formats of the games' official tools.

* In a terminal it is interactive: Enter or ``n`` next frame, ``p`` previous,
  a number jumps to that turn, ``f``/``l`` first/last, ``q`` quits.
* ``--turn N`` prints turn N; ``--all`` prints every frame; otherwise (output
  piped, input not a terminal) it prints the final frame and a summary.

``snakewar replay verify FILE`` plays the game again from its seed and moves and
prints ``OK: N turns, digest ...`` (exit 0) or the first difference (exit 1).
A file that cannot be read is one ``error:`` line, exit 2.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

from snakewar.errors import SnakewarError

if TYPE_CHECKING:
    # Imported when used, so that `snakewar --help` stays fast.
    from rich.console import Console

    from snakewar.engine.protocol import ReplayCodec, TerminalReplay

__all__ = ["MAX_REPLAY_FILE_BYTES", "ReplayCommandError", "replay_app"]

_PROMPT = "[Enter/n] next  p previous  NUMBER turn  f first  l last  q quit > "

MAX_REPLAY_FILE_BYTES = 512 * 1024 * 1024
"""The largest replay file read."""

_HEAD_BYTES = 64 * 1024


class ReplayCommandError(SnakewarError, ValueError):
    """Raised for a ``snakewar replay`` file or option that cannot be used."""


class _ShowByDefault(TyperGroup):
    """A group whose unknown first arguments are handed to ``show`` (``replay FILE``)."""

    # ``ctx`` is click's Context, which newer typers vendor: typed loosely to fit both.
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["show", *args]
        return super().parse_args(ctx, args)


replay_app = typer.Typer(
    cls=_ShowByDefault,
    help="Show a replay file in the terminal (replay FILE), or verify it (replay verify FILE).",
    no_args_is_help=True,
)


def _read(file: str) -> tuple[bytes, ReplayCodec]:
    """The file's bytes and the codec of the game that wrote it.

    Raises:
        ReplayCommandError: a missing, unreadable or oversized file, or one no game knows.
    """
    from snakewar.adapters import games

    path = Path(file)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_REPLAY_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ReplayCommandError(f"replay file {file!r} does not exist") from None
    except IsADirectoryError:
        raise ReplayCommandError(f"{file!r} is a directory, not a replay file") from None
    except OSError as exc:
        raise ReplayCommandError(f"cannot read {file!r}: {exc.strerror or exc}") from None
    if len(data) > MAX_REPLAY_FILE_BYTES:
        raise ReplayCommandError(
            f"{file!r} is larger than {MAX_REPLAY_FILE_BYTES // (1024 * 1024)} MiB; refused"
        )
    if not data.strip():
        raise ReplayCommandError(f"{file!r} is empty (expected a replay file)")
    head = data[:_HEAD_BYTES]
    for adapter in games():
        if adapter.replays.sniff(head, path.name):
            return data, adapter.replays
    known = "; ".join(a.replays.looks_like for a in games())
    raise ReplayCommandError(f"{file!r} is not a replay file of any game; expected {known}")


def _browse(
    console: Console,
    show: TerminalReplay,
    draw: Callable[[int], None],
    read: Callable[[str], str] = input,
) -> None:
    """The interactive viewer: one frame at a time, driven by short commands."""
    turns = show.turns
    by_turn = {turn: i for i, turn in enumerate(turns)}
    index, last, message = 0, len(turns) - 1, ""
    while True:
        if console.is_terminal:
            console.clear()
        draw(index)
        if message:
            console.print(message, markup=False)
        try:
            answer = read(_PROMPT)
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        command, message = answer.strip().lower(), ""
        if command in ("", "n"):
            if index < last:
                index += 1
            else:
                message = "this is the last frame (q quits)"
        elif command == "p":
            if index > 0:
                index -= 1
            else:
                message = "this is the first frame"
        elif command == "f":
            index = 0
        elif command == "l":
            index = last
        elif command == "q":
            return
        elif command.isdigit():
            if int(command) in by_turn:
                index = by_turn[int(command)]
            else:
                message = f"no turn {command} here (turns {turns[0]}..{turns[-1]})"
        else:
            message = f"unknown command {answer.strip()!r}"


# -- commands --------------------------------------------------------------------------


@replay_app.command("show")
def show_command(
    file: str = typer.Argument(
        ..., metavar="FILE", help="A replay file of any game (Snakewar, official JSONL, .hlt)."
    ),
    turn: int | None = typer.Option(None, "-t", "--turn", help="Print this turn and exit."),
    all_frames: bool = typer.Option(False, "-a", "--all", help="Print every frame."),
    color: bool = typer.Option(False, "-c", "--color", help="Draw in colour."),
    interactive: bool | None = typer.Option(
        None,
        "--interactive/--no-interactive",
        help="Step through the frames (default: when input is a terminal).",
    ),
) -> None:
    """Show a replay: interactively in a terminal, else its final frame and a summary."""
    from rich.console import Console

    if turn is not None and all_frames:
        raise ReplayCommandError("--turn and --all cannot be used together")
    data, codec = _read(file)
    show = codec.terminal(data, file)
    console = Console(highlight=False, force_terminal=True if color else None)
    unicode = (sys.stdout.encoding or "").lower().replace("-", "").startswith("utf")

    def draw(index: int) -> None:
        show.draw(console, index, color, unicode)

    if turn is not None:
        if turn not in show.turns:
            raise ReplayCommandError(
                f"turn {turn} is not in {file!r} (it has turns {show.turns[0]}..{show.turns[-1]})"
            )
        draw(show.turns.index(turn))
        return
    if all_frames:
        for index in range(len(show.turns)):
            draw(index)
    elif interactive or (interactive is None and sys.stdin.isatty()):
        _browse(console, show, draw)
    else:
        draw(len(show.turns) - 1)
    for line in show.summary:
        console.print(line, markup=False, soft_wrap=True)


@replay_app.command("verify")
def verify_command(
    file: str = typer.Argument(..., metavar="FILE", help="A replay file of any game."),
) -> None:
    """Play the game again from its seed and moves; print OK or the first difference."""
    data, codec = _read(file)
    result = codec.verify(data, file)
    for note in result.notes:
        typer.echo(f"note: {note}")
    if not result.ok:
        typer.echo(f"FAILED: {result.message}")
        raise typer.Exit(1)
    typer.echo(result.message)


MAX_SCENARIO_FILE_BYTES = 8 * 1024 * 1024
"""The largest scenario file ``--append`` reads (each game checks its own limits too)."""


@replay_app.command("scenario")
def scenario_command(
    file: str = typer.Argument(..., metavar="REPLAY", help="A replay file of any game."),
    turn: int = typer.Option(..., "-t", "--turn", help="The turn to save."),
    player: str = typer.Option(
        ...,
        "--snake",
        "--player",
        metavar="ID_OR_NAME",
        help="The tested player (a snake's id or name): the position as it saw it.",
    ),
    output: Path | None = typer.Option(
        None, "-o", "--output", help="The scenario file to write (default: print it)."
    ),
    append: bool = typer.Option(
        False, "--append", help="Add the scenario to the file -o names (made if missing)."
    ),
    name: str | None = typer.Option(
        None, "--name", help="The scenario's name (default: turn-N-PLAYER)."
    ),
    keep: bool = typer.Option(
        False,
        "--keep",
        help="Save a position that tests nothing (no move or every move is right).",
    ),
    kill: str | None = typer.Option(
        None,
        "--kill",
        metavar="ID_OR_NAME",
        help="A kill goal: the right moves are those that surely take out this player "
        "this turn (and survive); the default goal is to survive.",
    ),
) -> None:
    """Save a turn as a test scenario, its right moves computed by the rules engine.

    ``snakewar test URL --scenarios FILE`` runs the file's scenarios.
    """
    from snakewar.adapters import games
    from snakewar.cli.paths import check_writable, write_output

    if append and output is None:
        raise ReplayCommandError("--append adds to the file -o names: give -o FILE")
    data, codec = _read(file)
    adapter = next(a for a in games() if a.replays is codec)
    scenarios = adapter.scenarios()
    if scenarios is None:
        raise ReplayCommandError(
            f"{adapter.catalogue().title} replays cannot be saved as test scenarios"
        )
    existing: bytes | None = None
    if output is not None:
        if output.exists() and not append:
            raise ReplayCommandError(f"scenario file {str(output)!r} exists (--append adds to it)")
        check_writable(output, "scenario file")
        if append and output.is_file():
            with output.open("rb") as handle:
                existing = handle.read(MAX_SCENARIO_FILE_BYTES + 1)
            if len(existing) > MAX_SCENARIO_FILE_BYTES:
                raise ReplayCommandError(f"scenario file {str(output)!r} is too large; refused")
    entry = scenarios.from_replay(
        data,
        Path(file).name,
        turn=turn,
        player=player,
        scenario_name=name,
        keep=keep,
        target=kill,
    )
    text = scenarios.add(existing, [entry], str(output) if output else "scenario file")
    if output is None:
        sys.stdout.buffer.write(text)
        return
    write_output(output, text, "scenario file")
    moves = entry.get("acceptable")
    shown = ", ".join(moves) if isinstance(moves, list) and moves else "none"
    kind = entry.get("kind", "")
    goal = f"kill {kill}; " if kill is not None else ""
    typer.echo(
        f"saved scenario {entry.get('name')!r} ({kind}; {goal}right moves: {shown}) "
        f"{'added to' if existing else 'in'} {output}"
    )
