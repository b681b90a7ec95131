"""The Halite III referee with real bot processes, and ``snakewar halite play``."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import sys
import time
from pathlib import Path

import pytest
import zstandard
from typer.testing import CliRunner

from snakewar.cli import app
from snakewar.games.halite3 import SpawnEvent
from snakewar.games.halite3.referee.runner import HaliteMatch, play_halite_sync
from snakewar.referee.process import LineStatus, ProcessBot

PY = shlex.quote(sys.executable)
FAULTY = f"{PY} {shlex.quote(str(Path(__file__).parent / 'bots' / 'faulty.py'))}"
IDLE = f"{FAULTY} idle"
EOF_MESSAGE = "communication error with bot: read failed, errno was: 0 (Success)"
RULE = "=" * 64
STARTUP_S = 60.0
"""How long a test waits for a bot process to start, answer or end: generous, since a
busy machine starts an interpreter slowly (no test here is about speed)."""


def faulty(mode: str, turn: int | None = None) -> str:
    return f"{FAULTY} {mode}" + ("" if turn is None else f" {turn}")


def living_members(pgid: int) -> list[int]:
    """Processes of a group that still run (zombies are dead, only not reaped yet).

    Orphaned grandchildren are reparented to PID 1, and a container's PID 1 may never
    reap them: ``killpg(pgid, 0)`` then still finds their zombies.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return []
    living = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            living.append(int(entry.name))
    return living


def assert_group_dead(pgid: int) -> None:
    deadline = time.monotonic() + STARTUP_S  # polled: a busy machine may take a while
    while time.monotonic() < deadline:  # SIGKILL is asynchronous for grandchildren we do not reap
        if not living_members(pgid):
            return
        time.sleep(0.02)
    raise AssertionError(f"process group {pgid} still has {living_members(pgid)}")


def assert_all_dead(match: HaliteMatch) -> None:
    assert match.pgids, "the match had no subprocess bots"
    for pgid in match.pgids.values():
        assert_group_dead(pgid)


TIMEOUT_S = 5.0
"""The games' turn timeout (and the init timeout where a test sets one): ample for a bot
that answers at once, even on a busy machine; the faulty bots that must time out sleep
far longer (30 s, 60 s)."""


def play(entrants: list[str], **options: object) -> HaliteMatch:
    settings: dict[str, object] = {"seed": 11, "width": 32, "height": 32, "turn_limit": 6,
                                   "turn_timeout": TIMEOUT_S}  # fmt: skip
    settings.update(options)
    return play_halite_sync(entrants, **settings)


# -- ProcessBot -----------------------------------------------------------------------


def test_process_bot_lines_queue_timeout_and_eof() -> None:
    async def scenario() -> None:
        script = (
            "import sys; sys.stdout.write('one\\r\\ntwo\\n'); sys.stdout.flush();"
            " sys.stdin.readline(); sys.stdout.write('tail'); sys.stdout.flush()"
        )
        bot = await ProcessBot.start([sys.executable, "-c", script])
        try:
            first = await bot.read_line(STARTUP_S)
            second = await bot.read_line(0.01)  # already queued: no wait needed
            assert (first.status, first.line) == (LineStatus.OK, "one")
            assert (second.status, second.line) == (LineStatus.OK, "two")
            timed_out = await bot.read_line(0.2)
            assert timed_out.status is LineStatus.TIMEOUT
            # The wait it was given, and not much more (a busy machine wakes it late).
            assert 0.15 < timed_out.elapsed < 10.0
            assert await bot.send("go\n") is None
            end = await bot.read_line(STARTUP_S)
            assert (end.status, end.partial) == (LineStatus.EOF, "tail")
        finally:
            await bot.kill()
        assert bot.returncode is not None

    asyncio.run(scenario())


def test_process_bot_too_long_line_and_bounded_stderr() -> None:
    async def scenario() -> None:
        command = (
            f"{PY} -c \"import sys; sys.stderr.write('a' * 300000 + 'END'); sys.stderr.flush();"
            " sys.stdout.write('x' * 1200000); sys.stdout.flush(); import time; time.sleep(30)\""
        )
        bot = await ProcessBot.start(command, stderr_limit=1000)
        try:
            reply = await bot.read_line(STARTUP_S)
            assert reply.status is LineStatus.TOO_LONG
        finally:
            await bot.kill()
        text = bot.stderr_text()
        assert text.startswith("a" * 500) and text.endswith("END")
        assert bot.stderr_dropped == 300003 - 1000
        assert "bytes of stderr dropped" in text

    asyncio.run(scenario())


def test_kill_is_prompt_when_the_bot_flooded_stdout() -> None:
    # 4 MB unread behind a too-long line: asyncio pauses the pipe, and a wait() for the
    # process (which also waits for its pipes) would never return.
    async def scenario() -> float:
        command = f"{PY} -c \"import sys, time; sys.stdout.write('x' * 5000000); time.sleep(30)\""
        bot = await ProcessBot.start(command)
        reply = await bot.read_line(STARTUP_S)
        assert reply.status is LineStatus.TOO_LONG
        start = time.monotonic()
        # A kill that waited on the full pipe would never return: any bound catches it,
        # and a generous one holds on a busy machine.
        await asyncio.wait_for(bot.kill(), STARTUP_S)
        assert bot.returncode is not None
        return time.monotonic() - start

    print(f"killed in {asyncio.run(scenario()):.2f} s")


def test_kill_ends_the_whole_process_group() -> None:
    async def scenario() -> int:
        # Two grandchildren that outlive nothing: the group's kill takes them too.
        script = (
            "import subprocess, sys; kids = [subprocess.Popen(['sleep', '60']) for _ in "
            "range(2)]; print('ready', flush=True); [k.wait() for k in kids]"
        )
        bot = await ProcessBot.start([sys.executable, "-c", script])
        try:
            assert (await bot.read_line(STARTUP_S)).line == "ready"
        finally:
            await bot.kill()
        return bot.pgid

    pgid = asyncio.run(scenario())
    assert_group_dead(pgid)


def test_send_to_a_dead_bot_is_a_value() -> None:
    async def scenario() -> str | None:
        bot = await ProcessBot.start([sys.executable, "-c", "pass"])
        try:
            deadline = time.monotonic() + STARTUP_S
            while bot.returncode is None:  # it has ended (a busy machine takes a while)
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
            problem = None
            for _ in range(20):  # the first writes can land in the pipe before EPIPE
                problem = await bot.send("x" * 70000 + "\n", 2.0)
                if problem:
                    break
            return problem
        finally:
            await bot.kill()

    assert "write failed" in (asyncio.run(scenario()) or "")


# -- faulty bots through the referee ------------------------------------------------------


def test_timeout_on_turn_3_kills_with_engine_wording() -> None:
    match = play([IDLE, faulty("timeout")])
    game = match.game
    assert match.failures == {1: "timed out after 5000 ms (when reading string)"}
    assert match.failed_on == {1: 3}
    assert [o.killed for o in game.history] == [(), (), (1,)]
    assert game.over and game.players[1].terminated and not game.players[0].terminated
    log = match.error_logs[1]
    assert log.startswith(
        f"\nTurn 3\n{RULE}\nerror: timed out after 5000 ms (when reading string)\n"
    )
    assert game.result().ranks == (1, 2)
    assert_all_dead(match)


def test_crash_on_turn_2() -> None:
    match = play([faulty("crash"), IDLE])
    assert match.failures == {0: EOF_MESSAGE}
    assert match.failed_on == {0: 2}
    assert match.game.history[-1].turn == 2 and match.game.history[-1].killed == (0,)
    assert f"\nTurn 2\n{RULE}\nerror: {EOF_MESSAGE}\n" in match.error_logs[0]
    assert_all_dead(match)


def test_garbage_is_a_parse_error_not_a_protocol_failure() -> None:
    match = play([IDLE, faulty("garbage")])
    assert match.failures == {}
    assert match.game.history[0].killed == (1,)
    assert 'error: failed to decode bot message: "x"' in match.error_logs[1]
    assert "Last input received was:\nx 1 2\n" in match.error_logs[1]
    assert_all_dead(match)


def test_two_lines_stay_one_turn_ahead() -> None:
    match = play([faulty("two_lines"), IDLE], turn_limit=4)
    spawns = [
        [e.owner for e in outcome.events if isinstance(e, SpawnEvent)]
        for outcome in match.game.history
    ]
    assert spawns == [[0], [0], [], []]
    assert match.failures == {}
    assert not match.game.players[0].terminated
    assert match.names[0] == "faulty-two_lines"  # "\r" removed from the name
    assert_all_dead(match)


def test_big_stderr_does_not_block_and_is_kept_bounded() -> None:
    match = play([faulty("stderr"), IDLE], turn_limit=3)
    assert match.failures == {}
    assert not match.game.players[0].terminated
    assert match.game.turn == 3
    stderr = match.stderr[0]
    assert stderr.startswith("E" * 1000) and stderr.endswith("E" * 1000)
    assert len(stderr) < 70_000 and "bytes of stderr dropped" in stderr
    assert match.error_logs[0].startswith(f"\nGame End\n{RULE}\nBot error output was:\nEEE")
    assert_all_dead(match)


def test_no_name_fails_init_and_never_plays() -> None:
    match = play([IDLE, faulty("no_name"), IDLE, IDLE], init_timeout=TIMEOUT_S)
    assert match.failures == {1: "timed out after 5000 ms (when reading string)"}
    assert match.failed_on == {1: 0}
    assert match.names[1] == "(failed to initialize)" and match.names[0] == "faulty-idle"
    assert match.game.history[0].killed == (1,)
    expected = (
        f"\nInitialization Phase\n{RULE}\nerror: timed out after 5000 ms (when reading string)\n"
    )
    assert match.error_logs[1] == expected
    result = match.game.result()
    assert result.statistics[1]["last_turn_alive"] == 0 and result.scores[1] == 0
    assert match.game.turn == 6  # the three others play on
    assert_all_dead(match)


def test_children_of_bots_are_killed_at_the_end() -> None:
    match = play([faulty("spawn_child"), builtin_greedy()], turn_limit=3)
    assert match.failures == {}
    assert_all_dead(match)


def test_name_overrides_and_no_timeout() -> None:
    match = play([IDLE, IDLE], timeouts=False, names=["alpha"], turn_limit=2)
    assert match.names == ["alpha", "faulty-idle"]
    assert match.game.turn == 2


def builtin_greedy() -> str:
    return "builtin:greedy"


# -- full games ---------------------------------------------------------------------------


def test_subprocess_and_in_process_bots_play_the_same_game() -> None:
    seed = 4242
    as_processes = play_halite_sync(
        [f"{PY} -m snakewar.games.halite3.bots greedy --seed {seed}",
         f"{PY} -m snakewar.games.halite3.bots random --seed {seed}"],
        seed=seed, width=32, height=32, turn_limit=120,
    )  # fmt: skip
    in_process = play_halite_sync(
        ["builtin:greedy", "builtin:random"], seed=seed, width=32, height=32, turn_limit=120
    )
    a, b = as_processes.game, in_process.game
    assert as_processes.names == in_process.names == ["greedy", "random"]
    assert as_processes.failures == {} and in_process.failures == {}
    assert a.turn == b.turn and a.turn > 1
    assert [o.moves for o in a.history] == [o.moves for o in b.history]
    assert a.result().scores == b.result().scores
    assert a.result().statistics[0]["ships_spawned"] > 0
    assert as_processes.execution_time_ms > 0 and len(as_processes.turn_times) == a.turn
    assert_all_dead(as_processes)


# -- the CLI ------------------------------------------------------------------------------

runner = CliRunner()
REPLAY_NAME = re.compile(r"replay-\d{8}-\d{6}[+-]\d{4}-(\d+)-(\d+)-(\d+)\.hlt")


def test_cli_results_as_json_and_replay(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["halite", "play", "builtin:greedy", faulty("crash", 3), "-s", "99", "--width", "32",
         "--height", "32", "--results-as-json", "-i", str(tmp_path), "-o", "first"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout)
    assert set(results) == {
        "error_logs", "terminated", "replay", "map_seed", "map_width", "map_height",
        "map_generator", "map_total_halite", "execution_time", "final_snapshot", "stats",
    }  # fmt: skip
    assert results["stats"] == {"0": {"rank": 1, "score": results["stats"]["0"]["score"]},
                                "1": {"rank": 2, "score": 0}}  # fmt: skip
    assert (results["map_seed"], results["map_width"], results["map_height"]) == (99, 32, 32)
    assert results["terminated"]["1"] is True
    log_path = Path(results["error_logs"]["1"])
    assert log_path.name.startswith("errorlog-") and log_path.name.endswith("-99-32-32-1.log")
    assert f"Turn 3\n{RULE}\nerror: {EOF_MESSAGE}" in log_path.read_text()
    assert results["final_snapshot"].startswith("1.2.2.finals;fractal,32,32,2,99;")
    replay = Path(results["replay"])
    match = REPLAY_NAME.fullmatch(replay.name)
    assert match is not None and match.groups() == ("99", "32", "32")
    assert replay.parent == tmp_path
    document = json.loads(
        zstandard.ZstdDecompressor().decompressobj().decompress(replay.read_bytes())
    )
    assert document["REPLAY_FILE_VERSION"] == 3
    assert [p["name"] for p in document["players"]] == ["first", "faulty-crash"]
    assert len(document["full_frames"]) == 3 + 2


def test_cli_no_replay_and_summary(tmp_path: Path) -> None:
    args = ["halite", "play", "builtin:greedy", "builtin:random", "-s", "5", "--width", "32",
            "--turn-limit", "20", "--no-replay", "-i", str(tmp_path), "--no-logs"]  # fmt: skip
    # As the engine: nothing on stdout, the ranks on the log (stderr).
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "Player 0, 'greedy', was rank" in result.stderr
    assert "Player 1, 'random', was rank" in result.stderr
    # Snakewar's table, when asked for.
    result = runner.invoke(app, [*args, "--table"])
    assert result.exit_code == 0, result.output
    assert "greedy" in result.stdout and "random" in result.stdout
    assert "ships spawned" in result.stdout
    assert list(tmp_path.iterdir()) == []
    result = runner.invoke(
        app,
        ["halite", "play", "builtin:greedy", "-s", "5", "--width", "32", "--turn-limit", "5",
         "--no-replay", "--results-as-json", "--no-compression"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "replay" not in json.loads(result.stdout)


def test_cli_plain_json_replay(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["halite", "play", "builtin:greedy", "builtin:greedy", "-s", "3", "--width", "32",
         "--turn-limit", "4", "--no-compression", "-i", str(tmp_path), "--results-as-json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads(Path(json.loads(result.stdout)["replay"]).read_text())
    assert document["REPLAY_FILE_VERSION"] == 3 and document["map_generator_seed"] == 3


def test_cli_print_constants() -> None:
    # The engine's parser wants a bot command even here; it plays nothing.
    result = runner.invoke(app, ["halite", "play", "--print-constants", "builtin:greedy"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["INITIAL_ENERGY"] == 5000
    assert result.stderr == ""
    refused = runner.invoke(app, ["halite", "play", "--print-constants"])
    assert refused.exit_code == 2
    assert "Required argument missing: bot-commands" in refused.stderr


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["builtin:nope"], "nope"),
        ([], "at least 1 bot"),
        (["builtin:greedy", "builtin:greedy", "--width", "33"], "33"),
        (["builtin:greedy", "-c", "{constants}"], "constants"),
        (["builtin:greedy", "-c", "/no/such/file.json"], "/no/such/file.json"),
    ],
)
def test_cli_bad_input_is_one_error_line(tmp_path: Path, args: list[str], fragment: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"SHIP_COST": 1}')
    args = [a.replace("{constants}", str(bad)) for a in args]
    result = runner.invoke(app, ["halite", "play", "--no-replay", *args])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0]
