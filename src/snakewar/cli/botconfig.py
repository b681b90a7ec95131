"""A bot config file (``--config snakewar.toml``): the bots to launch and default options.

One TOML file, read by ``snakewar play``, ``snakewar eval`` and ``snakewar ladder run``::

    [options]                 # defaults for the command's own options
    max_turns = 100           # a command-line option given explicitly wins
    width = 7
    height = 7

    [[bots]]
    name = "mine"
    launch = "python main.py --port {port}"    # or ["python", "main.py", "--port", "{port}"]
    dir = "bots/mine"         # its working folder, from the file's folder (default: there)
    env = { DEBUG = "1" }     # added to its environment
    ready_timeout = 30        # seconds to answer GET / after it starts
    max_games = 2             # the most games it plays at once

    [[bots]]
    name = "greedy"
    entrant = "greedy"        # not launched: any entrant the game takes (built-in, URL, ...)

Everything is checked before anything runs: an unknown key, a value of the wrong type
or out of range is a :class:`BotConfigError` naming the key (``bots[1].max_games``), one
``error:`` line.  Commands run without a shell: a string is split as a shell would split
it and shell syntax (``|``, ``;``, ``$VAR``...) is refused, as ``--launch`` does.
"""

from __future__ import annotations

import math
import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snakewar.errors import SnakewarError

__all__ = [
    "MAX_CONFIG_BYTES",
    "OPTION_TYPES",
    "BotConfig",
    "BotConfigError",
    "BotEntry",
    "load_bot_config",
]

MAX_CONFIG_BYTES = 256 * 1024
MAX_BOTS = 16
MAX_COMMAND = 4096
MAX_READY_TIMEOUT = 3600.0
MAX_GAMES_PER_BOT = 64
_NAME = re.compile(r"^[A-Za-z0-9_.#-]{1,64}$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_BOT_KEYS = ("name", "launch", "entrant", "dir", "env", "ready_timeout", "max_games")

OPTION_TYPES: dict[str, tuple[type, int, int]] = {
    "games": (int, 1, 1_000_000),
    "max_turns": (int, 1, 1_000_000),
    "width": (int, 1, 255),
    "height": (int, 1, 255),
    "timeout": (int, 1, 600_000),
    "seed": (int, 0, 2**62),
    "parallel": (int, 1, 256),
    "workers": (int, 1, 256),
}
"""The options a file may set, each with its type and bounds (``game``, ``params`` too)."""


class BotConfigError(SnakewarError, ValueError):
    """A config file that cannot be read, or a key or value of it that is wrong (named)."""


@dataclass(frozen=True, slots=True)
class BotEntry:
    """One bot of the file: launched (``launch``) or an entrant as typed (``entrant``)."""

    name: str
    launch: str = ""
    entrant: str = ""
    cwd: str = "."
    env: tuple[tuple[str, str], ...] = ()
    ready_timeout: float = 30.0
    max_games: int = 0


@dataclass(frozen=True, slots=True)
class BotConfig:
    """A checked config file: its bots in order and its default options."""

    path: str
    bots: tuple[BotEntry, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    params: tuple[str, ...] = ()
    """``[options.params]`` as ``KEY=VALUE`` words, as ``--param`` takes them."""

    def option(self, name: str, given: Any, explicit: bool) -> Any:
        """``given`` if the command line gave it explicitly, else the file's, else ``given``."""
        if explicit or name not in self.options:
            return given
        return self.options[name]


def load_bot_config(path: str | Path) -> BotConfig:
    """Read and check a config file (see the module).

    Raises:
        BotConfigError: a file that cannot be read, is too large, is not TOML, or has a
            key or value that is wrong; the message names the file and the key.
    """
    where = str(path)
    file = Path(path)
    try:
        if file.stat().st_size > MAX_CONFIG_BYTES:
            raise BotConfigError(f"{where}: larger than {MAX_CONFIG_BYTES} bytes")
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BotConfigError(f"{where}: cannot read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise BotConfigError(f"{where}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise BotConfigError(f"{where}: not TOML: {exc}") from None
    return parse_bot_config(data, where, file.parent)


def parse_bot_config(data: dict[str, Any], where: str, base: Path) -> BotConfig:
    """A config from TOML already parsed; ``base`` is the folder relative ``dir``s start from.

    Raises:
        BotConfigError: the first wrong key or value, named.
    """

    def bad(key: str, problem: str) -> BotConfigError:
        return BotConfigError(f"{where}: {key}: {problem}")

    for key in data:
        if key not in ("options", "bots"):
            raise bad(key, "unknown key; expected 'options' or 'bots'")
    options: dict[str, Any] = {}
    params: list[str] = []
    raw_options = data.get("options", {})
    if not isinstance(raw_options, dict):
        raise bad("options", "expected a table")
    for key, value in raw_options.items():
        name = f"options.{key}"
        if key == "game":
            if not isinstance(value, str) or not _NAME.match(value):
                raise bad(name, "expected a game's name")
            options[key] = value
        elif key == "params":
            if not isinstance(value, dict):
                raise bad(name, "expected a table of game parameters")
            for pkey, pvalue in value.items():
                if not _ENV_NAME.match(pkey):
                    raise bad(f"{name}.{pkey}", "expected a parameter name")
                if isinstance(pvalue, bool):
                    pvalue = str(pvalue).lower()
                if not isinstance(pvalue, str | int | float) or len(str(pvalue)) > 200:
                    raise bad(f"{name}.{pkey}", "expected a string or a number")
                params.append(f"{pkey}={pvalue}")
        elif key in OPTION_TYPES:
            _, low, high = OPTION_TYPES[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise bad(name, f"expected a whole number from {low} to {high}")
            options[key] = value
        else:
            known = ", ".join(["game", "params", *OPTION_TYPES])
            raise bad(name, f"unknown option; expected one of {known}")
    raw_bots = data.get("bots", [])
    if not isinstance(raw_bots, list) or not all(isinstance(b, dict) for b in raw_bots):
        raise bad("bots", "expected an array of tables ([[bots]])")
    if len(raw_bots) > MAX_BOTS:
        raise bad("bots", f"{len(raw_bots)} bots: at most {MAX_BOTS}")
    bots: list[BotEntry] = []
    for n, raw in enumerate(raw_bots):
        bot = _bot(raw, f"bots[{n}]", base, bad)
        if any(b.name == bot.name for b in bots):
            raise bad(f"bots[{n}].name", f"{bot.name!r} is the name of an earlier bot")
        bots.append(bot)
    return BotConfig(where, tuple(bots), options, tuple(params))


def _bot(raw: dict[str, Any], at: str, base: Path, bad: Any) -> BotEntry:
    from snakewar.referee.process import CommandLineError, Program

    for key in raw:
        if key not in _BOT_KEYS:
            raise bad(f"{at}.{key}", "unknown key; expected one of " + ", ".join(_BOT_KEYS))
    name = raw.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise bad(f"{at}.name", "expected 1 to 64 letters, digits, _, ., # or -")
    launch = raw.get("launch")
    entrant = raw.get("entrant")
    if (launch is None) == (entrant is None):
        raise bad(at, "expected one of 'launch' (a command) and 'entrant' (a bot as typed)")
    if entrant is not None:
        if not isinstance(entrant, str) or not 0 < len(entrant) <= MAX_COMMAND:
            raise bad(f"{at}.entrant", "expected a bot as the game takes it (a string)")
        for key in ("dir", "env", "ready_timeout", "max_games"):
            if key in raw:
                raise bad(f"{at}.{key}", "is about launched bots; this one has 'entrant'")
        return BotEntry(name, entrant=entrant)
    if isinstance(launch, list):
        if not launch or not all(isinstance(w, str) and w for w in launch):
            raise bad(f"{at}.launch", "expected a command: a string or a list of words")
        command = shlex.join(launch)
    elif isinstance(launch, str):
        command = launch
    else:
        raise bad(f"{at}.launch", "expected a command: a string or a list of words")
    if len(command) > MAX_COMMAND:
        raise bad(f"{at}.launch", f"{len(command)} characters: at most {MAX_COMMAND}")
    if "{port}" not in command:
        raise bad(f"{at}.launch", "has no {port}: the bot must listen where it is told")
    try:
        Program.from_command(command)
    except CommandLineError as exc:
        raise bad(f"{at}.launch", str(exc)) from None
    folder = raw.get("dir", ".")
    if not isinstance(folder, str) or "\0" in folder or len(folder) > 1024:
        raise bad(f"{at}.dir", "expected a folder's path")
    cwd = base / folder
    if not cwd.is_dir():
        raise bad(f"{at}.dir", f"{str(cwd)!r} is not a folder")
    env_table = raw.get("env", {})
    if not isinstance(env_table, dict) or len(env_table) > 100:
        raise bad(f"{at}.env", 'expected a table of at most 100 NAME = "value"')
    env: list[tuple[str, str]] = []
    for key, value in env_table.items():
        if not _ENV_NAME.match(key) or key == "PORT":
            raise bad(f"{at}.env.{key}", "expected a variable name (not PORT: it is set)")
        if not isinstance(value, str) or "\0" in value or len(value) > 4096:
            raise bad(f"{at}.env.{key}", "expected a string of at most 4096 characters")
        env.append((key, value))
    ready = raw.get("ready_timeout", 30.0)
    if (
        isinstance(ready, bool)
        or not isinstance(ready, int | float)
        or not math.isfinite(ready)
        or not 0 < ready <= MAX_READY_TIMEOUT
    ):
        raise bad(f"{at}.ready_timeout", f"expected seconds above 0, at most {MAX_READY_TIMEOUT:g}")
    most = raw.get("max_games", 0)
    if isinstance(most, bool) or not isinstance(most, int) or not 1 <= most <= MAX_GAMES_PER_BOT:
        if "max_games" in raw:
            raise bad(f"{at}.max_games", f"expected a whole number from 1 to {MAX_GAMES_PER_BOT}")
        most = 0
    return BotEntry(name, command, "", str(cwd), tuple(env), float(ready), most)
