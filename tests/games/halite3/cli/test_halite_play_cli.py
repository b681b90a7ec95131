"""``snakewar halite play`` takes the official engine's whole command line and logs as it does.

The parser's cases are the engine's own answers: each was run through the official
engine (1.2.2.finals, TCLAP 1.2) while this was written.  The log is compared line
for line with the engine's stderr for the same games (``engine_logs.json``, recorded
from the engine).  The rest runs the command as a user does, in a subprocess.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from snakewar.cli import app
from snakewar.games.halite3.cli.args import (
    ENGINE_VERSION,
    EngineArgsError,
    parse_engine_args,
    usage,
    version_text,
)
from snakewar.games.halite3.replay.hlt import ENGINE_VERSION as REPLAY_ENGINE_VERSION
from snakewar.games.halite3.replay.hlt import read_hlt
from snakewar.games.halite3.replay.verify import verify_hlt
from tests.games.halite3.oracle import MAIN

PY = shlex.quote(sys.executable)
BOTS = f"{PY} -m snakewar.games.halite3.bots"
HALITE_TESTS = Path(__file__).resolve().parents[1]
"""The Halite III tests' folder: its test bots and the official engine's recorded logs."""
FAULTY = f"{PY} {shlex.quote(str(HALITE_TESTS / 'bots' / 'faulty.py'))}"
ENGINE_LOGS: dict[str, Any] = json.loads((HALITE_TESTS / "engine_logs.json").read_text())
STAMP = re.compile(r"\d{8}-\d{6}[+-]\d{4}")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
SMALL = ("-s", "5", "--width", "32", "--height", "32")


def halite_play(*args: str, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    """``snakewar halite play ARGS`` in a subprocess, in ``cwd``."""
    return subprocess.run(
        [*MAIN, "halite", "play", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        check=False,
    )


def plain(stderr: str) -> list[str]:
    """The log's lines without their colours."""
    return ANSI.sub("", stderr).splitlines()


# -- the command line, read as the engine reads it -----------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["-vvv", "a"], {"verbosity": 3}),
        (["-v", "a", "--verbosity", "-v"], {"verbosity": 3, "bot_commands": ["a"]}),
        (["-vvv", "-vv", "a"], {"verbosity": 5}),
        (["a"], {"verbosity": None, "seed": None, "turn_limit": None, "players": None}),
        # Numbers as a C++ stream reads them into the flag's type.
        (["-s", "-1", "a"], {"seed": 4294967295}),
        (["-s", "-4294967295", "a"], {"seed": 1}),
        (["-s", " 5", "a"], {"seed": 5}),
        (["-s", "+7", "a"], {"seed": 7}),
        (["-s", "010", "a"], {"seed": 10}),
        (["--turn-limit", "0", "a"], {"turn_limit": 0}),
        (["--turn-limit", "-1", "a"], {"turn_limit": 2**64 - 1}),
        (["--width", "-3", "a"], {"width": -3}),
        (["-n", "0", "a"], {"players": 0}),
        # An empty value sets the flag to its default.
        (["-s", "", "a"], {"seed": 0}),
        (["--width", "", "-s", "1", "a"], {"width": 48, "seed": 1}),
        (["--turn-limit", "", "a"], {"turn_limit": 0}),
        # A flag and its value in one word, split at the space.
        (["-s 5", "a"], {"seed": 5}),
        (["--seed 6", "a"], {"seed": 6}),
        # What is not a flag is a bot command; a value is the next word, whatever it is.
        (["a", "--seed=5"], {"bot_commands": ["a", "--seed=5"], "seed": None}),
        (["--foo", "a"], {"bot_commands": ["--foo", "a"]}),
        (["-s", "5", "-"], {"bot_commands": ["-"]}),
        (["a", "-i", "-v"], {"replay_directory": "-v", "verbosity": None}),
        (["-o", "x", "a", "-o", "y"], {"override_names": ["x", "y"], "bot_commands": ["a"]}),
        # -- ends the flags, once: the words after it are bot commands, -- included.
        (["--", "-v", "--no-replay", "--", "x"],
         {"bot_commands": ["-v", "--no-replay", "--", "x"], "verbosity": None,
          "no_replay": False}),
        (["--ignore_rest", "-s", "1"], {"bot_commands": ["-s", "1"], "seed": None}),
        (["-s", "1", "--", "a"], {"bot_commands": ["a"], "seed": 1}),
        (["--no-timeout", "--no-replay", "--no-logs", "--print-constants", "--no-compression",
          "--results-as-json", "--strict", "--table", "a"],
         {"no_timeout": True, "no_replay": True, "no_logs": True, "print_constants": True,
          "no_compression": True, "results_as_json": True, "strict": True, "table": True}),
        # Snakewar's own flags, read the same way.
        (["--bot-logs", "logs", "a"], {"bot_logs": "logs", "bot_commands": ["a"]}),
        (["a"], {"bot_logs": None}),
        (["-i", "out", "-c", "k.json", "-m", "fractal", "--from-snapshot", "", "-n", "4", "a"],
         {"replay_directory": "out", "constants_file": "k.json", "map_type": "fractal",
          "from_snapshot": "", "players": 4}),
    ],
)  # fmt: skip
def test_the_command_line_reads_as_the_engines(argv: list[str], expected: dict[str, Any]) -> None:
    args = parse_engine_args(argv)
    assert args.action == "play"
    assert {key: getattr(args, key) for key in expected} == expected


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-s", "1", "-s", "2", "a"], "-s (--seed): Argument already set!"),
        (["--width", "40", "a", "--width", "40"], "(--width): Argument already set!"),
        (["--no-replay", "--no-replay", "a"], "(--no-replay): Argument already set!"),
        (["-vx", "a"], "-vx: Couldn't find match for argument"),
        (["-vs", "5", "a"], "-vs: Couldn't find match for argument"),
        (["-hh"], "-h (--help): Argument already set!"),
        (["-s", "x", "a"], "-s (--seed): Couldn't read argument value from string 'x'"),
        (["-s", "5x", "a"], "Couldn't read argument value from string '5x'"),
        (["-s", "5 ", "a"], "Couldn't read argument value from string '5 '"),
        (["-s", " ", "a"], "Couldn't read argument value from string ' '"),
        (["-s", "0x10", "a"], "Couldn't read argument value from string '0x10'"),
        (["-s", "4294967296", "a"], "Couldn't read argument value from string '4294967296'"),
        (["--width", "9223372036854775808", "a"], "(--width): Couldn't read argument value"),
        (["-s", "5 6", "a"], "More than one valid value parsed from string '5 6'"),
        (["-s", "--version"], "Couldn't read argument value from string '--version'"),
        (["a", "-i"], "-i (--replay-directory): Missing a value for this argument!"),
        ([], "Required argument missing: bot-commands"),
        (["--print-constants"], "Required argument missing: bot-commands"),
        (["--", "-vx"], None),  # after --, nothing is refused
    ],
)
def test_command_lines_the_engine_refuses(argv: list[str], message: str | None) -> None:
    if message is None:
        assert parse_engine_args(argv).bot_commands == ["-vx"]
        return
    with pytest.raises(EngineArgsError) as caught:
        parse_engine_args(argv)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("argv", "action"),
    [
        (["-h"], "help"),
        (["--help"], "help"),
        (["-vh"], "help"),
        (["a", "--help", "-s", "x"], "help"),  # read before the error after it
        (["--version"], "version"),
        (["--version", "-s", "x"], "version"),
        (["--help", "--version"], "help"),
    ],
)
def test_help_and_version_act_where_they_are_read(argv: list[str], action: str) -> None:
    assert parse_engine_args(argv).action == action


def test_version_and_help_text() -> None:
    assert ENGINE_VERSION == REPLAY_ENGINE_VERSION == "1.2.2.finals"
    assert version_text() == "\nsnakewar halite play  version: 1.2.2.finals\n\n"
    text = usage()
    assert text.startswith("Usage: snakewar halite play [FLAGS] BOT_COMMAND...\n")
    for flag in ("--no-timeout", "--no-replay", "--no-logs", "--print-constants",
                 "--no-compression", "--results-as-json", "--strict", "-n, --players",
                 "--width", "--height", "-s, --seed", "--turn-limit", "-i, --replay-directory",
                 "-c, --constants-file", "--from-snapshot", "-m, --map-type",
                 "-o, --override-names", "-v, --verbosity", "--table", "--version",
                 "-h, --help", "--, --ignore_rest"):  # fmt: skip
        assert f"  {flag}" in text, flag


def test_version_help_and_refusals_in_a_subprocess(tmp_path: Path) -> None:
    done = halite_play("-vvv", "--version", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, version_text(), "")
    done = halite_play("-vh", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, usage(), "")
    done = halite_play("-s", "1", "-s", "2", "builtin:greedy", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: -s (--seed): Argument already set!")
    assert done.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_through_the_typer_app_the_words_arrive_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where the game's files go
    runner = CliRunner()
    result = runner.invoke(app, ["halite", "play", "--", "-v"])
    assert result.exit_code == 0, result.output
    # "-v" was a bot command: a program that cannot start, so it failed to initialize.
    lines = plain(result.stderr)
    assert "[info] [P0] Launching with command -v" in lines
    assert "[error] [P0] Failed to initialize" in lines
    assert "Player 0, '(failed to initialize)', was rank 1 with 0 halite" in result.stderr
    assert len(list(tmp_path.glob("replay-*.hlt"))) == 1
    result = runner.invoke(app, ["halite", "play", "--version"])
    assert (result.exit_code, result.stdout) == (0, version_text())


# -- the log, as the engine writes it ---------------------------------------------------------


@pytest.mark.parametrize("game", sorted(ENGINE_LOGS["games"]))
def test_the_log_is_the_engines_line_for_line(game: str, tmp_path: Path) -> None:
    recorded = ENGINE_LOGS["games"][game]
    argv = [a.replace("{BOTS}", BOTS).replace("{FAULTY}", FAULTY) for a in recorded["argv"]]
    done = halite_play(*argv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    ours = [
        STAMP.sub("{STAMP}", line).replace(BOTS, "{BOTS}").replace(FAULTY, "{FAULTY}")
        for line in done.stderr.splitlines()
    ]
    assert ours == recorded["stderr"]


def test_a_bot_that_dies_mid_line_is_logged_as_the_engine_logs_it(tmp_path: Path) -> None:
    # Checked against the engine: what the bot wrote of a line, then its stderr.
    done = halite_play(*SMALL, "--turn-limit", "5", f"{BOTS} greedy", f"{FAULTY} half_line 3",
                       cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = plain(done.stderr)
    start = lines.index("[error] [3] [P1] Communication failed")
    assert lines[start : start + 8] == [
        "[error] [3] [P1] Communication failed",
        "[error] [3] [P1] Last input received was:",
        "[error] [3] [P1] ",
        "[error] [3] [P1] m 1",
        "[error] [3] [P1] Player's error output was:",
        "[error] [3] [P1] Traceback: oops",
        "[error] [3] [P1] ValueError: bad",
        "[warn] [3] [P1] Killing player",
    ]
    (log,) = tmp_path.glob("errorlog-*-5-32-32-1.log")
    assert log.read_text() == (
        f"\nTurn 3\n{'=' * 64}\nerror: communication error with bot: read failed, errno was: "
        "0 (Success)\nLast input received was:\n\nm 1\nBot error output was:\n"
        "Traceback: oops\nValueError: bad\n\n"
    )


def test_debug_lines_with_four_v(tmp_path: Path) -> None:
    done = halite_play("-vvvv", *SMALL, "--turn-limit", "2", f"{BOTS} greedy", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = plain(done.stderr)
    for line in (
        "[debug] [P0] Sending init message",
        "[debug] [P0] Init message sent",
        "[debug] [P0] Init message received, name: greedy",
        "[debug] [1] Starting turn 1",
        "[debug] [1] [P0] Turn info sent",
        "[debug] [1] [P0] Received 1 commands",  # the spawn
        "[debug] [2] Starting turn 2",
        "[info] [2] Game has ended",
    ):
        assert line in lines, line
    sizes = [line for line in lines if "Sending message with length" in line]
    assert len(sizes) == 3 and all(int(line.split()[-1]) > 0 for line in sizes)


def test_results_as_json_logs_nothing_and_prints_the_engines_json(tmp_path: Path) -> None:
    args = ["--width", "32", "--height", "32", "--turn-limit", "3", "-s", "-1"]
    done = halite_play("--results-as-json", *args, "builtin:greedy", "builtin:random", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    results = json.loads(done.stdout)
    assert results["map_seed"] == 4294967295
    # The engine's JSON layout: sorted keys, four spaces.
    assert done.stdout == json.dumps(results, indent=4, sort_keys=True) + "\n"


def test_table_is_behind_its_flag(tmp_path: Path) -> None:
    done = halite_play("--table", *SMALL, "--turn-limit", "3", "--no-replay", "builtin:greedy",
                       cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Halite III, seed 5, 32x32, 3 turns" in done.stdout
    assert "was rank 1" in done.stderr
    done = halite_play("--table", "--results-as-json", "builtin:greedy", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "error: --table and --results-as-json both print on stdout: give one of them\n"
    )


# -- what the engine does with odd values ------------------------------------------------------


def test_a_turn_limit_of_zero_plays_no_turn_as_the_engine(tmp_path: Path) -> None:
    done = halite_play("--turn-limit", "0", *SMALL, "--results-as-json", f"{BOTS} greedy",
                       f"{PY} -c pass", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    replay = read_hlt(tmp_path / results["replay"])
    # The engine's loop runs no turn; the game counts one, as the engine counts it.
    assert replay.turns_played == 0 and replay.number_turns == 1
    assert replay.constants["MAX_TURNS"] == 0
    # The bot that failed to start was killed before the loop: it ranks last.
    assert results["stats"] == {"0": {"rank": 1, "score": 5000}, "1": {"rank": 2, "score": 0}}
    assert [p.name for p in replay.players] == ["greedy", "(failed to initialize)"]
    report = verify_hlt(replay)
    assert report.ok, report.message


def test_an_unusable_replay_folder_falls_back_on_the_current_one(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = halite_play("-i", str(blocker / "sub"), *SMALL, "--turn-limit", "2", "builtin:greedy",
                       cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = plain(done.stderr)
    fallback = lines.index(
        f"[error] Error: could not write replay to directory {blocker}/sub/, falling back on "
        "current directory."
    )
    assert lines[fallback + 1].startswith("[info] Opening a file at ./replay-")
    assert len(list(tmp_path.glob("replay-*-5-32-32.hlt"))) == 1


def test_a_missing_replay_folder_is_made(tmp_path: Path) -> None:
    done = halite_play("--replay-directory", "replays/", *SMALL, "--turn-limit", "2",
                       "builtin:greedy", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [line for line in plain(done.stderr) if line.startswith("[info] Opening")] == [
        f"[info] Opening a file at replays/{replay.name}"
        for replay in (tmp_path / "replays").glob("replay-*.hlt")
    ]
    assert len(list((tmp_path / "replays").glob("replay-*.hlt"))) == 1


def test_leading_assignments_set_the_bots_environment(tmp_path: Path) -> None:
    bot = tmp_path / "named.py"
    bot.write_text(
        "import os, sys\n"
        "lines = iter(sys.stdin)\n"
        "next(lines)\n"
        "players, me = map(int, next(lines).split())\n"
        "for _ in range(players): next(lines)\n"
        "width, height = map(int, next(lines).split())\n"
        "for _ in range(height): next(lines)\n"
        "print(os.environ['BOT_NAME'] + os.environ.get('EMPTY', '?'), flush=True)\n"
    )
    command = f"BOT_NAME=from-env EMPTY= {PY} {bot}"
    done = halite_play(*SMALL, "--turn-limit", "1", "--no-replay", command, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[info] [P0] Initialized player from-env" in plain(done.stderr)
    done = halite_play("A=1", cwd=tmp_path)
    assert done.returncode == 2
    assert "sets variables but names no program to run" in done.stderr


def test_flags_snakewar_does_not_play_are_one_error_line(tmp_path: Path) -> None:
    # A snapshot cut short after its map's parameters: the engine's own message.
    done = halite_play("--from-snapshot", "1.2.2.finals;fractal,32,32,2,5;", "a", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "error: could not decode snapshot: Expected ; but got EOF (at position -1)\n"
    )
    bots = ["builtin:greedy"] * 17
    done = halite_play(*bots, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "error: Too many players (max is 16): 17 bots\n"


def test_print_constants_comes_before_the_turn_limit_and_strict(tmp_path: Path) -> None:
    done = halite_play("--print-constants", "--turn-limit", "7", "--strict", "x", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    constants = json.loads(done.stdout)
    assert (constants["MAX_TURNS"], constants["STRICT_ERRORS"]) == (500, False)


# -- start-up --------------------------------------------------------------------------------

_MODULES = """
import atexit, json, os, sys
def report():
    with open(os.environ["MODULES"], "w", encoding="utf-8") as out:
        json.dump(sorted(sys.modules), out)
atexit.register(report)
from snakewar.command import main
sys.exit(main())
"""


def test_a_game_starts_without_typer_or_other_games(tmp_path: Path) -> None:
    # What start-up costs is what is imported: the engine, the referee, their needs.
    report = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", _MODULES, "halite", "play", "--turn-limit", "1", "-s", "1",
         "--no-replay", "--no-logs", f"{PY} -c pass"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "MODULES": str(report)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(report.read_text()))
    assert (
        "snakewar.games.halite3.referee.runner" in modules and "snakewar.games.halite3" in modules
    )
    heavies = ("typer", "click", "rich", "httpx", "pydantic", "snakewar.bots", "snakewar.server",
               "snakewar.games.battlesnake.referee.batch",
               "snakewar.games.battlesnake")  # fmt: skip
    # The command line finds `halite play` in the games' tables of commands: of another
    # game it imports that table (its declaration module, in its lazy package) only.
    declarations = {"snakewar.games.battlesnake", "snakewar.games.battlesnake.cli"}
    for heavy in heavies:
        found = {m for m in modules if m == heavy or m.startswith(heavy + ".")}
        assert not found - declarations, heavy
