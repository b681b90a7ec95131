"""``snakewar halite play`` and ``eval`` where they used to differ from the official engine.

Each test plays real games through the CLI in a subprocess (or real bot processes),
and checks what the official engine 1.2.2 does in the same case (issue 16, points 2-9).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import zstandard

from snakewar.games.halite3 import Constants, HaliteGame, turns_for_size
from snakewar.games.halite3.replay.hlt import read_hlt
from snakewar.games.halite3.replay.verify import verify_hlt
from snakewar.games.halite3.rules.constants import ConstantsError
from snakewar.games.halite3.rules.mapgen import size_for_seed
from snakewar.referee.process import ProcessBot
from tests.games.halite3.oracle import MAIN

PY = shlex.quote(sys.executable)
FAULTY_PATH = Path(__file__).parent / "bots" / "faulty.py"
FAULTY = f"{PY} {shlex.quote(str(FAULTY_PATH))}"
EOF_MESSAGE = "communication error with bot: read failed, errno was: 0 (Success)"
UNKNOWN_CHILD = "Unknown child process"


def halite(
    *args: str, cwd: Path, umask: int | None = None, timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    """``snakewar halite ARGS`` in a subprocess (under ``umask`` when given)."""
    command = [*MAIN, "halite", *args]
    if umask is not None:
        # The shell only sets the mask: the words after it are passed as they are.
        command = ["sh", "-c", f'umask {umask:03o} && exec "$@"', "sh", *command]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, cwd=cwd, check=False
    )


def play_json(tmp_path: Path, *args: str, umask: int | None = None) -> dict[str, Any]:
    """Play with ``--results-as-json`` into ``tmp_path``; the results, checked clean."""
    done = halite("play", "--results-as-json", "-i", str(tmp_path), *args, cwd=tmp_path,
                  umask=umask)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no warnings, no "Unknown child process pid N"
    results: dict[str, Any] = json.loads(done.stdout)
    return results


def document(path: str | Path) -> dict[str, Any]:
    data = zstandard.ZstdDecompressor().decompressobj().decompress(Path(path).read_bytes())
    decoded: dict[str, Any] = json.loads(data)
    return decoded


def constants_file(tmp_path: Path, **changes: Any) -> Path:
    values: dict[str, Any] = {**Constants().to_json(), **changes}
    path = tmp_path / "constants.json"
    path.write_text(json.dumps(values))
    return path


# -- 2. map_total_halite -------------------------------------------------------------------


def test_results_map_total_halite_is_the_map_at_the_start(tmp_path: Path) -> None:
    results = play_json(tmp_path, "-s", "21", "--width", "32", "--height", "32",
                        "--turn-limit", "40", "builtin:greedy", "builtin:greedy")  # fmt: skip
    replay = document(results["replay"])
    start = sum(cell["energy"] for row in replay["production_map"]["grid"] for cell in row)
    assert results["map_total_halite"] == start == replay["game_statistics"]["map_total_halite"]
    cells = results["final_snapshot"].split(";")[2]
    left = sum(int(v) for v in cells.split(",") if v)
    assert left < start  # the greedy bots mined: what is left is not what the engine reports


# -- 3. a bot that fails its initialization -----------------------------------------------


def test_bots_failing_init_are_named_and_emptied_as_the_engine(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-bot")
    quits = f"{PY} -c pass"  # exits before answering its name
    results = play_json(tmp_path, "-s", "8", "--width", "32", "--height", "32",
                        "--turn-limit", "10", "builtin:greedy", missing, quits,
                        "builtin:random")  # fmt: skip
    players = document(results["replay"])["players"]
    assert [(p["name"], p["energy"]) for p in players] == [
        ("greedy", 5000),
        ("(failed to initialize)", 0),
        ("(failed to initialize)", 0),
        ("random", 5000),
    ]
    for pid in ("1", "2"):
        assert results["terminated"][pid] is True
        log = Path(results["error_logs"][pid]).read_text()
        assert log.startswith(f"\nInitialization Phase\n{'=' * 64}\nerror: {EOF_MESSAGE}\n")
    # Names given with -o replace the engine's, as there.
    results = play_json(tmp_path, "-s", "8", "--width", "32", "--height", "32", "--turn-limit",
                        "3", "-o", "a", "-o", "b", "builtin:greedy", missing)  # fmt: skip
    players = document(results["replay"])["players"]
    assert [(p["name"], p["energy"]) for p in players] == [("a", 5000), ("b", 0)]


# -- 4. -n larger than the bots given ----------------------------------------------------------


def test_players_flag_above_the_bots_records_the_map_players(tmp_path: Path) -> None:
    results = play_json(tmp_path, "-n", "4", "-s", "12", "--width", "32", "--height", "32",
                        "--turn-limit", "20", "builtin:greedy", "builtin:greedy")  # fmt: skip
    raw = document(results["replay"])
    assert raw["number_of_players"] == 4 and len(raw["players"]) == 2
    assert results["final_snapshot"].startswith("1.2.2.finals;fractal,32,32,4,12;")
    assert set(results["stats"]) == {"0", "1"}
    # The two bots play on the 4-player map, from its first two shipyards.
    four = HaliteGame.create(12, 4, width=32, height=32)
    shipyards = [(p["factory_location"]["x"], p["factory_location"]["y"]) for p in raw["players"]]
    assert shipyards == [p.shipyard for p in four.players[:2]]
    replay = read_hlt(results["replay"])
    assert (replay.num_players, replay.map_players) == (2, 4)
    report = verify_hlt(replay)
    assert report.ok, report.message


# -- 5. one side given ---------------------------------------------------------------------------


def test_a_missing_side_is_the_seeds_size(tmp_path: Path) -> None:
    assert size_for_seed(15151) == 32
    wide = play_json(tmp_path, "-s", "15151", "--width", "40", "--turn-limit", "2", "--no-replay",
                     "builtin:greedy", "builtin:greedy")  # fmt: skip
    assert (wide["map_width"], wide["map_height"]) == (40, 32)
    assert wide["final_snapshot"].startswith("1.2.2.finals;fractal,40,32,2,15151;")
    tall = play_json(tmp_path, "-s", "15151", "--height", "40", "--turn-limit", "2",
                     "--no-replay", "builtin:greedy", "builtin:greedy")  # fmt: skip
    assert (tall["map_width"], tall["map_height"]) == (32, 40)


# -- 6. --strict with a replay -----------------------------------------------------------------


def test_strict_writes_the_replay_and_results_of_the_aborted_game(tmp_path: Path) -> None:
    results = play_json(tmp_path, "--strict", "-s", "3", "--width", "32", "--height", "32",
                        "builtin:random", "builtin:random")  # fmt: skip
    raw = document(results["replay"])
    frames = raw["full_frames"]
    played = len(frames) - 2
    assert 1 <= played < 400
    # The engine moves its turn counter to the last turn: number_turns is MAX_TURNS + 1.
    assert raw["game_statistics"]["number_turns"] == 401
    assert raw["GAME_CONSTANTS"]["STRICT_ERRORS"] is True
    # The aborting turn's commands were committed but are not recorded, nor its cells.
    assert frames[played]["moves"] == {} and frames[played]["cells"] == []
    assert all(frames[t]["moves"] for t in range(1, played))
    # Under --strict the engine does not ignore the warning: its log says error.
    logged = [Path(path).read_text() for path in results["error_logs"].values()]
    assert any("\nerror: " in log for log in logged)
    assert not any("warning:" in log for log in logged)
    replay = read_hlt(results["replay"])
    assert replay.turns_played == played
    report = verify_hlt(replay)
    assert report.ok and "--strict" in report.message, report.message


# -- 7. constants the engine reads into C++ integers -------------------------------------------


def test_integer_constants_are_truncated_and_wrapped_as_the_engine() -> None:
    base = Constants().to_json()
    wrapped = Constants.from_json({**base, "MAX_TURNS": -5})
    assert wrapped.MAX_TURNS == 18446744073709551611
    assert Constants.from_json({**base, "MAX_TURNS": 3.7}).MAX_TURNS == 3
    # A signed constant (long) keeps its sign; one past its range wraps.
    assert Constants.from_json({**base, "INITIAL_ENERGY": -7.9}).INITIAL_ENERGY == -7
    assert Constants.from_json({**base, "INITIAL_ENERGY": 2**63}).INITIAL_ENERGY == -(2**63)
    # The turn count is the engine's unsigned arithmetic: 32 wide stays at MIN_TURNS.
    assert turns_for_size(32, 32, wrapped) == 400
    assert turns_for_size(48, 48, wrapped) == 400 + 2**63
    # MAX_TURNS below MIN_TURNS: the difference wraps, so the game gets longer, not shorter.
    assert turns_for_size(40, 40, Constants.from_json({**base, "MAX_TURNS": 3.7})) > 2**60
    assert [turns_for_size(s, s, Constants()) for s in (32, 40, 48, 56, 64)] == [
        400, 425, 450, 475, 500,
    ]  # fmt: skip
    # Where the engine aborts (or reads an undefined value), a clear error stays.
    for value in (True, "500", None, 2**64, -(2**63) - 1, 1e30):
        with pytest.raises(ConstantsError, match="MAX_TURNS"):
            Constants.from_json({**base, "MAX_TURNS": value})
    with pytest.raises(ConstantsError, match="STRICT_ERRORS"):
        Constants.from_json({**base, "STRICT_ERRORS": 1})
    # A ratio the engine divides by: 0 (or 0.5, cut to 0) kills it with SIGFPE; refused.
    for key in ("MOVE_COST_RATIO", "EXTRACT_RATIO", "INSPIRED_EXTRACT_RATIO",
                "INSPIRED_MOVE_COST_RATIO"):  # fmt: skip
        for value in (0, 0.5):
            with pytest.raises(ConstantsError, match=f"{key} must not be 0"):
                Constants.from_json({**base, key: value})
    assert Constants.from_json({**base, "DROPOFF_PENALTY_RATIO": 0}).DROPOFF_PENALTY_RATIO == 0


def test_wrapped_max_turns_plays_to_the_natural_end(tmp_path: Path) -> None:
    path = constants_file(tmp_path, MAX_TURNS=-5)
    printed = halite("play", "--print-constants", "-c", str(path), "builtin:greedy", cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout)["MAX_TURNS"] == 18446744073709551611
    crash = f"{FAULTY} crash 4"  # the game ends when it dies, on turn 4
    results = play_json(tmp_path, "-c", str(path), "-s", "4", "--width", "40", "--height", "40",
                        "builtin:greedy", crash)  # fmt: skip
    raw = document(results["replay"])
    assert len(raw["full_frames"]) - 2 == 4
    assert raw["GAME_CONSTANTS"]["MAX_TURNS"] == 400 + 2**62
    path = constants_file(tmp_path, MAX_TURNS=3.7)
    results = play_json(tmp_path, "-c", str(path), "-s", "4", "--width", "40", "--height", "40",
                        "builtin:greedy", crash)  # fmt: skip
    assert len(document(results["replay"])["full_frames"]) - 2 == 4
    # A file the engine cannot read is still one error line.
    bad = constants_file(tmp_path, MAX_TURNS="many")
    refused = halite("play", "-c", str(bad), "builtin:greedy", cwd=tmp_path)
    assert refused.returncode == 2
    assert (
        refused.stderr.startswith("error: constants: MAX_TURNS") and refused.stderr.count("\n") == 1
    )


# -- 8. replay file mode -------------------------------------------------------------------------


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_replay_files_follow_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    results = play_json(tmp_path, "-s", "2", "--width", "32", "--height", "32", "--turn-limit",
                        "3", "builtin:greedy", "builtin:greedy", umask=umask)  # fmt: skip
    assert stat.S_IMODE(Path(results["replay"]).stat().st_mode) == mode
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# -- 9. eval labels and the child watcher --------------------------------------------------------


def test_eval_labels_bots_by_the_names_they_declare(tmp_path: Path) -> None:
    commands = []
    for folder, mode in (("a", "idle"), ("b", "stderr 999"), ("c", "idle")):
        (tmp_path / folder).mkdir()
        shutil.copy(FAULTY_PATH, tmp_path / folder / "MyBot.py")
        commands.append(f"{PY} {folder}/MyBot.py {mode}")
    done = halite("eval", *commands, "builtin:greedy", "--games", "2", "--width", "32",
                  "--height", "32", "--turn-limit", "5", "--json", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert UNKNOWN_CHILD not in done.stderr
    report = json.loads(done.stdout)
    assert report["failed"] == 0
    # Two different bots declare "faulty-idle": only they are told apart.
    assert [b["name"] for b in report["bots"]] == [
        "faulty-idle", "faulty-stderr", "faulty-idle-2", "greedy",
    ]  # fmt: skip
    assert [b["bot"] for b in report["bots"]] == [*commands, "builtin:greedy"]
    assert all(b["games"] == 2 for b in report["bots"])


def test_play_with_bot_processes_prints_no_child_watcher_warnings(tmp_path: Path) -> None:
    bot = f"{PY} -m snakewar.games.halite3.bots"
    for seed in ("1", "2", "3"):
        done = halite("play", "-s", seed, "--width", "32", "--height", "32", "--turn-limit",
                      "10", "--no-replay", "--results-as-json", f"{bot} greedy", f"{bot} random",
                      f"{bot} greedy", f"{FAULTY} crash 3", cwd=tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert UNKNOWN_CHILD not in done.stderr and done.stderr == ""


def test_killing_bots_leaves_reaping_to_the_child_watcher(caplog: pytest.LogCaptureFixture) -> None:
    # The cause: Popen.kill() polls (waitpid) before it signals, so it can reap a bot
    # that already exited before asyncio's child watcher does; the watcher then logs
    # "Unknown child process pid N, will report returncode 255" and reports 255.  Under
    # the pidfd watcher (Python 3.12's default) the event loop reaps, so a bot that
    # exits while the loop is busy is still unreaped when the referee kills it.
    async def main() -> list[int | None]:
        alive = [await ProcessBot.start([sys.executable, "-c", "import time; time.sleep(60)"])
                 for _ in range(6)]  # fmt: skip
        exited = [await ProcessBot.start([sys.executable, "-c", "pass"]) for _ in range(6)]
        for bot in exited:
            # Block the loop (no reaping) until it has exited; WNOWAIT leaves it unreaped.
            with contextlib.suppress(ChildProcessError):
                os.waitid(os.P_PID, bot.pid, os.WEXITED | os.WNOWAIT)
        await asyncio.gather(*(bot.kill() for bot in [*exited, *alive]))
        return [bot.returncode for bot in [*exited, *alive]]

    previous = asyncio.get_child_watcher() if sys.version_info < (3, 12) else None
    if previous is not None:
        asyncio.set_child_watcher(asyncio.PidfdChildWatcher())
    try:
        with caplog.at_level(logging.DEBUG, logger="asyncio"):
            codes = asyncio.run(main())
    finally:
        if previous is not None:
            asyncio.set_child_watcher(asyncio.ThreadedChildWatcher())
    # "Unknown child process pid N" (threaded watcher), "exit status already read" (pidfd).
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    # Their own exit status, and SIGKILL's: never the watcher's 255 for an unknown pid.
    assert codes == [0] * 6 + [-9] * 6
