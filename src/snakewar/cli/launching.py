"""``--launch`` for the commands that play many games: ``eval`` and ``ladder run``.

The bots are started by :class:`~snakewar.referee.launch.Launcher` (a free port each,
ready when ``GET /`` answers, restarted if they die, stopped at the end), from
``--launch`` options or a config file's ``[[bots]]`` with ``launch``
(:mod:`snakewar.cli.botconfig`).

**Games per bot.** A launched bot may say how many games it plays at once
(``--launch-max-games N`` for every ``--launch`` bot, ``max_games`` per bot in a config
file).  Games then *wait*: each bot's limit holds for its own games (the executor's
gate, :class:`~snakewar.cli.launchgate.LaunchGate`): a game waits while one of its
launched bots is at its limit, and the other games go on.  (``eval`` seats every bot in
every game, so there the smallest limit caps ``--parallel`` too:
:func:`cap_games_at_once`.)  Each launched bot is one process on one port; starting more
copies of a bot would split the state a bot keeps between games (caches, learned
weights) over processes that the author did not ask for.

**Crashes, game by game.** A launched bot that dies is restarted (at most twice); its
:class:`~snakewar.referee.launch.Crash` names the games it was playing when its death
was seen, and the gate writes it into the log of its seat in each of those games
(``--- snakewar: ...``), which ladders and tournaments store with the game, and keeps it
for reports (``launch.failures`` of ``eval --json``).  The command's output keeps one
warning line per death.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from snakewar.cli.botconfig import MAX_COMMAND, MAX_GAMES_PER_BOT, MAX_READY_TIMEOUT

if TYPE_CHECKING:
    from snakewar.cli.botconfig import BotConfig
    from snakewar.referee.launch import Launcher, LaunchSpec

__all__ = [
    "CONFIG_OPTION",
    "LAUNCH_DIR_OPTION",
    "LAUNCH_LOGS_OPTION",
    "LAUNCH_MAX_GAMES_OPTION",
    "LAUNCH_TIMEOUT_OPTION",
    "LaunchOptions",
    "Launched",
    "cap_games_at_once",
    "launch_name",
    "launched",
    "limit_notes",
]

MAX_LAUNCHES = 16

# The launch options the arena's commands (ladder run, tournament run) share, declared once.
LAUNCH_DIR_OPTION: Any = typer.Option(".", "--launch-dir", help="The launched bots' folder.")
LAUNCH_TIMEOUT_OPTION: Any = typer.Option(
    30.0, "--launch-timeout", help="Seconds a launched bot has to answer GET / with 200."
)
LAUNCH_LOGS_OPTION: Any = typer.Option(
    None, "--launch-logs", help="Keep each launched bot's output in DIR/NAME.log."
)
LAUNCH_MAX_GAMES_OPTION: Any = typer.Option(
    None, "--launch-max-games", help="The most games a --launch bot plays at once."
)
CONFIG_OPTION: Any = typer.Option(
    None, "--config", help="A bot config file (TOML): bots to launch, default options."
)


@dataclass(frozen=True, slots=True)
class Launched:
    """One bot to launch: its name and how."""

    name: str
    spec: LaunchSpec


@dataclass(frozen=True, slots=True)
class LaunchOptions:
    """The ``--launch*`` options of a command, as given."""

    commands: Sequence[str] = ()
    directory: str = "."
    timeout: float = 30.0
    logs: str | None = None
    max_games: int | None = None

    def specs(
        self, names: Sequence[str], ray_address: str | None = None, config: BotConfig | None = None
    ) -> list[Launched]:
        """The bots to launch: the config file's (in its order), then ``--launch``'s.

        ``names``: the names already taken (a launched bot's is made unique: ``a.py#2``).

        Raises:
            typer.BadParameter: a command that cannot be split or needs a shell, a folder
                that is not one, a number out of range, launch options without a bot to
                launch, or ``--ray-address`` (a cluster cannot reach our 127.0.0.1).
        """
        from snakewar.cli.paths import make_directory
        from snakewar.referee.launch import LaunchSpec
        from snakewar.referee.process import CommandLineError

        from_file = [b for b in (config.bots if config else ()) if b.launch]
        if not self.commands:
            for given, option in (
                (self.directory != ".", "--launch-dir"),
                (self.timeout != 30.0, "--launch-timeout"),
                (self.max_games is not None, "--launch-max-games"),
            ):
                if given:
                    raise typer.BadParameter(
                        "is about bots started by --launch; add --launch", param_hint=[option]
                    )
        if not self.commands and not from_file:
            if self.logs is not None:
                raise typer.BadParameter(
                    "is about launched bots; add --launch", param_hint=["--launch-logs"]
                )
            return []
        if ray_address is not None:
            raise typer.BadParameter(
                "launched bots listen on this machine's 127.0.0.1, which a Ray cluster "
                "cannot reach; leave out --ray-address",
                param_hint=["--launch"],
            )
        if len(self.commands) + len(from_file) > MAX_LAUNCHES:
            raise typer.BadParameter(
                f"{len(self.commands) + len(from_file)} bots: at most {MAX_LAUNCHES}",
                param_hint=["--launch"],
            )
        if not 0 < self.timeout <= MAX_READY_TIMEOUT:
            raise typer.BadParameter(
                f"{self.timeout:g}: expected seconds above 0, at most {MAX_READY_TIMEOUT:g}",
                param_hint=["--launch-timeout"],
            )
        if self.max_games is not None and not 1 <= self.max_games <= MAX_GAMES_PER_BOT:
            raise typer.BadParameter(
                f"{self.max_games}: expected 1 to {MAX_GAMES_PER_BOT}",
                param_hint=["--launch-max-games"],
            )
        if not Path(self.directory).is_dir():
            raise typer.BadParameter(
                f"{self.directory!r} is not a directory", param_hint=["--launch-dir"]
            )
        if self.logs is not None:
            make_directory(self.logs, "launch log directory")
        taken = set(names)
        out: list[Launched] = []
        for bot in from_file:
            if bot.name in taken:
                raise typer.BadParameter(
                    f"{bot.name!r} is the name of another bot", param_hint=["--config"]
                )
            spec = LaunchSpec(
                bot.launch,
                cwd=bot.cwd,
                ready_timeout=bot.ready_timeout,
                env=bot.env,
                max_games=bot.max_games,
            )
            out.append(Launched(bot.name, spec))
            taken.add(bot.name)
        for command in self.commands:
            if len(command) > MAX_COMMAND:
                raise typer.BadParameter(
                    f"a command of {len(command)} characters: at most {MAX_COMMAND}",
                    param_hint=["--launch"],
                )
            spec = LaunchSpec(
                command,
                cwd=self.directory,
                ready_timeout=self.timeout,
                max_games=self.max_games or 0,
            )
            try:
                name = launch_name(spec)
            except CommandLineError as exc:
                raise typer.BadParameter(str(exc), param_hint=["--launch"]) from None
            unique, n = name, 1
            while unique in taken:
                n += 1
                unique = f"{name}#{n}"
            out.append(Launched(unique, spec))
            taken.add(unique)
        if self.logs is not None:
            out = [
                Launched(b.name, replace(b.spec, log_path=str(Path(self.logs, f"{b.name}.log"))))
                for b in out
            ]
        return out


def launch_name(spec: LaunchSpec) -> str:
    """A launched bot's default name: its program's file (``python a.py`` -> ``a.py``).

    Raises:
        CommandLineError: a command that cannot be split or needs a shell.
    """
    argv = spec.program().argv
    word = argv[1] if len(argv) > 1 and not argv[1].startswith("-") else argv[0]
    if "{port}" in word:
        word = argv[0]
    name = Path(word).name or word
    return "".join(c if c.isalnum() or c in "_.-" else "_" for c in name)[:64] or "bot"


def cap_games_at_once(
    bots: Sequence[Launched], parallel: int, workers: int
) -> tuple[int, int, str]:
    """``parallel`` and ``workers`` capped by the launched bots' limits, and why (or "").

    Games *wait* (see the module): when every game may seat every launched bot, no
    bot plays more than its limit at once only if no more games than the smallest
    limit are played at once.
    """
    limits = [(b.spec.max_games, b.name) for b in bots if b.spec.max_games]
    if not limits:
        return parallel, workers, ""
    most, name = min(limits)
    if parallel <= most and workers <= most:
        return parallel, workers, ""
    note = f"games at once: {most} ({name} plays at most {most} at once; the others wait)"
    return min(parallel, most), min(workers, most), note


def limit_notes(bots: Sequence[Launched]) -> list[str]:
    """One line per launched bot with a limit on its games at once (for the output)."""
    return [
        f"{b.name} plays at most {b.spec.max_games} game{'s' if b.spec.max_games > 1 else ''} "
        "at once: its other games wait, the rest go on"
        for b in bots
        if b.spec.max_games
    ]


@contextlib.contextmanager
def launched(bots: Sequence[Launched]) -> Iterator[Launcher | None]:
    """The bots started and ready (their lines on stderr), stopped when the block ends.

    Once the block is over the bots are stopped, then each death is one warning line
    (after the watcher's last look, so that a restart under way is over and said).

    Raises:
        LaunchError: a bot that did not come up (the others are stopped).
    """
    if not bots:
        yield None
        return
    from snakewar.referee.launch import Launcher

    with Launcher([b.spec for b in bots]) as launcher:
        for bot, given in zip(launcher.bots, bots, strict=True):
            bot.label = given.name
            kept = f", log {bot.log_path}" if bot.spec.log_path is not None else ""
            typer.echo(f"launched {bot.describe()} on {bot.url}, pid {bot.pid}{kept}", err=True)
        yield launcher
        launcher.close()
        for crash in launcher.take_crashes():
            typer.echo(f"warning: {crash.describe()}", err=True)
