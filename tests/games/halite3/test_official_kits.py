"""The official starter kits' ``run_game.sh``, run unchanged with ``snakewar halite play``.

``tests/games/halite3/kits/<kit>/run_game.sh`` are the official kits' scripts, byte for byte
(Halite III's repository, MIT licence: ``kits/LICENSE.Halite-III``; ``kits/README.md``
says where each comes from).  Each calls ``./halite``; here ``./halite`` is a two-line
script that runs ``snakewar halite play`` with the words it was given, as a user who
puts ``snakewar halite play`` in place of the engine would.

Every kit's script is run twice over.  First with its build tools replaced by no-ops,
to check that the engine's command line the script gives reaches ``halite play`` and
means what it means to the engine (all 16 kits).  Then for real, for every kit whose
tools Debian packages: the script builds a bot of ours with the kit's file names and
plays a whole game of it against itself.  The bots are Snakewar's, one per language
(the kits' own bots are not copied): each reads the init, answers its name, reads each
frame and answers one line (a spawn on turn 1).  A missing tool skips the kit (fails it
under CI, which installs them).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from snakewar.games.halite3.cli.args import parse_engine_args
from snakewar.games.halite3.replay.hlt import read_hlt
from snakewar.games.halite3.replay.verify import verify_hlt
from tests.system_tools import tool

KITS = Path(__file__).parent / "kits"
STARTER_KIT = Path(__file__).parent / "starter_kit"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _kits() -> list[str]:
    return sorted(p.parent.relative_to(KITS).as_posix() for p in KITS.rglob("run_game.sh"))


ALL_KITS = _kits()

# The two bot commands each kit's script gives the engine (what ./halite receives).
BOT_COMMANDS = {
    "C++": ["./MyBot", "./MyBot"],
    "CSharp": ["dotnet Halite3/bin/Debug/netcoreapp2.0/MyBot.dll"] * 2,
    "Clojure": ["java -jar target/MyBot.jar "] * 2,
    "D": ["./MyBot", "./MyBot"],
    "Go": ["go run main", "go run main"],
    "Java": ["java MyBot", "java MyBot"],
    "JavaScript": ["node MyBot.js", "node MyBot.js"],
    "Julia": ["julia --project MyBot.jl"] * 2,
    "Kotlin": ["java MyBot", "java MyBot"],
    "PHP": ["php MyBot.php", "php MyBot.php"],
    "Python3": ["python3 MyBot.py", "python3 MyBot.py"],
    "Ruby": ["ruby MyBot.rb", "ruby MyBot.rb"],
    "Rust": ["RUST_BACKTRACE=1 ./target/debug/my_bot"] * 2,
    "Scala": ["java MyScalaBot", "java MyScalaBot"],
    "Swift": ["./MyBot", "./MyBot"],
    "TypeScript": ["node MyBot.js", "node MyBot.js"],
    "ml/SVM": ["python3 SVMBotAggressive.py", "python3 SVMBotPassive.py"],
}

# Every build step the scripts run before ./halite (replaced by no-ops in the first test).
BUILD_TOOLS = ("cmake", "make", "dotnet", "lein", "go", "javac", "kotlinc", "cargo", "sbt",
               "swiftc", "npm")  # fmt: skip


def copy_kit(kit: str, folder: Path) -> Path:
    """A copy of the kit's folder, with ``./halite`` running ``snakewar halite play``."""
    target = folder / kit
    shutil.copytree(KITS / kit, target)
    halite = target / "halite"
    # The interpreter running the tests, with its environment (PYTHONPATH) inherited.
    halite.write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m snakewar halite play "$@"\n'
    )
    halite.chmod(halite.stat().st_mode | stat.S_IXUSR)
    return target


def test_every_kit_is_here() -> None:
    assert sorted(BOT_COMMANDS) == ALL_KITS
    assert len(ALL_KITS) == 17  # 16 languages, and the machine-learning kit
    assert (KITS / "LICENSE.Halite-III").read_text().startswith("The MIT License")


@pytest.mark.parametrize("kit", ALL_KITS)
def test_each_kits_command_line_means_the_engines(kit: str, tmp_path: Path) -> None:
    folder = copy_kit(kit, tmp_path / "kits")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for name in BUILD_TOOLS:
        stub = stubs / name
        stub.write_text("#!/bin/sh\nexit 0\n")
        stub.chmod(0o755)
    # ./halite records the words it gets (instead of playing).
    record = tmp_path / "argv.json"
    (folder / "halite").write_text(
        f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -c "
        f"'import json, sys; json.dump(sys.argv[2:], open(sys.argv[1], \"w\"))' "
        f'{shlex.quote(str(record))} "$@"\n'
    )
    # Where the script tests for a build's output (Clojure's jar), it is there.
    (folder / "target").mkdir(exist_ok=True)
    (folder / "target" / "MyBot.jar").write_text("")
    done = subprocess.run(
        ["./run_game.sh"],
        cwd=folder,
        env={**os.environ, "PATH": f"{stubs}{os.pathsep}{os.environ.get('PATH', '')}"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    args = parse_engine_args(json.loads(record.read_text()))
    assert args.action == "play"
    assert args.bot_commands == BOT_COMMANDS[kit]
    assert (args.replay_directory, args.width, args.height) == ("replays/", 32, 32)
    # Ruby's kit asks for -v (errors only); the others for -vvv, the engine's default.
    assert args.verbosity == (1 if kit == "Ruby" else 3)
    assert args.seed is None and args.turn_limit is None and args.override_names == []


@dataclass(frozen=True)
class Kit:
    """How to run one kit's script for real: its tools, its bot's name, its set-up."""

    tools: tuple[tuple[str, str], ...]  # (command, Debian package)
    name: str  # the name our bot answers
    # Set-up in the kit's copy (and a scratch folder); returns environment variables.
    prepare: Callable[[Path, Path], dict[str, str]] | None = None


def _python_kit(*scripts: str) -> Callable[[Path, Path], dict[str, str]]:
    def prepare(folder: Path, tmp: Path) -> dict[str, str]:
        # Snakewar's clean-room Python kit plays, under the file names the script runs.
        shutil.copytree(STARTER_KIT / "hlt", folder / "hlt")
        for script in scripts:
            shutil.copy(STARTER_KIT / "MyBot.py", folder / script)
        return {}

    return prepare


def _go_kit(folder: Path, tmp: Path) -> dict[str, str]:
    # The kit builds "main" from a GOPATH (go build main), as Go did before modules.
    return {"GOPATH": str(folder), "GO111MODULE": "off", "GOCACHE": str(tmp / "go-cache"),
            "GOFLAGS": ""}  # fmt: skip


def _rust_kit(folder: Path, tmp: Path) -> dict[str, str]:
    # No dependencies to fetch: cargo need not reach the network.
    return {"CARGO_NET_OFFLINE": "true", "CARGO_TARGET_DIR": str(folder / "target")}


def _clojure_kit(folder: Path, tmp: Path) -> dict[str, str]:
    # The script runs `lein uberjar` only when target/MyBot.jar is missing, and leiningen
    # fetches Clojure from the network: the jar is built here (our Java bot in it), so
    # the script goes straight to its ./halite line, `java -jar target/MyBot.jar`.
    classes = tmp / "classes"
    classes.mkdir()
    javac = tool("javac", "default-jdk-headless")
    jar = tool("jar", "default-jdk-headless")
    subprocess.run([javac, "-d", str(classes), str(KITS / "Java" / "MyBot.java")], check=True,
                   timeout=300)  # fmt: skip
    (folder / "target").mkdir()
    made = folder / "target" / "MyBot.jar"
    subprocess.run([jar, "--create", "--file", str(made), "--main-class", "MyBot",
                    "-C", str(classes), "."], check=True, timeout=300)  # fmt: skip
    return {}


RUNNABLE = {
    "C++": Kit((("cmake", "cmake"), ("make", "make"), ("c++", "g++")), "cpp-bot"),
    "Clojure": Kit((("java", "default-jdk-headless"),), "java-bot", _clojure_kit),
    "D": Kit((("make", "make"), ("gdc", "gdc")), "d-bot"),
    "Go": Kit((("go", "golang-go"),), "go-bot", _go_kit),
    "Java": Kit((("javac", "default-jdk-headless"), ("java", "default-jdk-headless")), "java-bot"),
    "JavaScript": Kit((("node", "nodejs"),), "js-bot"),
    "PHP": Kit((("php", "php-cli"),), "php-bot"),
    "Python3": Kit((("python3", "python3"),), "MyPythonBot", _python_kit("MyBot.py")),
    "Ruby": Kit((("ruby", "ruby"),), "ruby-bot"),
    "Rust": Kit((("cargo", "cargo"),), "rust-bot", _rust_kit),
    "ml/SVM": Kit(
        (("python3", "python3"),),
        "MyPythonBot",
        _python_kit("SVMBotAggressive.py", "SVMBotPassive.py"),
    ),
}
"""The kits whose tools are Debian packages (the others: .NET, Julia, Kotlin's 1.3 with
Java 17, Scala's sbt, Swift, TypeScript's npm packages, are not run)."""


@pytest.mark.parametrize("kit", sorted(RUNNABLE))
def test_each_kits_script_plays_a_whole_game(kit: str, tmp_path: Path) -> None:
    spec = RUNNABLE[kit]
    for command, package in spec.tools:
        tool(command, package)
    folder = copy_kit(kit, tmp_path / "kits")
    env = {**os.environ, **(spec.prepare(folder, tmp_path) if spec.prepare else {})}
    # The interpreter running the tests is the `python3` of the Python kits.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        ["./run_game.sh"], cwd=folder, env=env, capture_output=True, text=True, timeout=900
    )
    log = ANSI.sub("", done.stderr)
    assert done.returncode == 0, log[-4000:]
    # The engine's log, as it writes it for this game.
    lines = [line for line in log.splitlines() if line.startswith("[")]
    first, second = BOT_COMMANDS[kit]
    if kit == "Ruby":  # -v: errors only, and there are none
        assert lines == [], log[-4000:]
    else:
        expected = [
            "[info] [P0] Launching with command " + first,
            "[info] [P1] Launching with command " + second,
            "[info] [P0] Initializing player",
            "[info] [P1] Initializing player",
            f"[info] [P0] Initialized player {spec.name}",
            f"[info] [P1] Initialized player {spec.name}",
            "[info] Player initialization complete",
        ]
        assert [line for line in lines if line in expected] == expected, log[-4000:]
        ended = [line for line in lines if line.endswith(" Game has ended")]
        assert len(ended) == 1, log[-4000:]
        # Warnings may come (the Python kit's bot runs into its own ships); errors may not.
        assert not [line for line in lines if line.startswith("[error]")], log[-4000:]
    # The replay went where the script asked, made for it; the game is the engine's.
    replays = sorted((folder / "replays").glob("replay-*-32-32.hlt"))
    assert len(replays) == 1, sorted(p.name for p in (folder / "replays").iterdir())
    replay = read_hlt(replays[0])
    assert [p.name for p in replay.players] == [spec.name, spec.name]
    if kit != "Ruby":
        assert ended == [f"[info] [{replay.turns_played}] Game has ended"]
    # Our bots keep their ship to the end; the Python kit's can lose all its ships and
    # its halite, which ends a game early, as in the engine.
    assert replay.turns_played == 400 or spec.name == "MyPythonBot"
    assert all(s["ships_spawned"] >= 1 for s in replay.statistics)
    report = verify_hlt(replay)
    assert report.ok, report.message
