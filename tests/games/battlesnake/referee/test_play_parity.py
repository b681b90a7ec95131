"""``snakewar play`` beside the official CLI: help, logs and streams, the board URL, colours.

Also: built-in bots play in worker processes, so a bot that thinks hard does it outside
the referee's process (and a fast HTTP snake's measured latency stays its own: a figure
that ``benchmarks/play_latency.py`` prints).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from snakewar.cli import main
from snakewar.games.battlesnake.cli.play import board_url
from snakewar.games.battlesnake.replay.format import read_replay
from tests.server.multi_server import free_port, wait_until

from .snake_servers import SnakeServers

LOG_LINE = re.compile(r"(INFO|WARN|DEBUG) \d\d:\d\d:\d\d\.\d{6} ")


@pytest.fixture(scope="module")
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


def snakewar(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m snakewar ARGS`` as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "snakewar", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "120", **(env or {})},
    )


# -- help ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [(), ("play",), ("maps",), ("maps", "list"), ("replay",), ("halite",), ("serve",)],
)
def test_dash_h_is_help_everywhere(args: tuple[str, ...]) -> None:
    short = snakewar(*args, "-h")
    long = snakewar(*args, "--help")
    assert short.returncode == 0, short.stderr
    assert short.stdout.startswith("Usage: ") and short.stdout == long.stdout


def test_capital_h_is_still_the_height(tmp_path: Path) -> None:
    out = tmp_path / "game.jsonl"
    args = ["play", "random", "random", "-W", "7", "-H", "9", "--no-live", "-r", "1"]
    assert main([*args, "--replay", str(out)]) == 0
    config = read_replay(out).config
    assert (config.width, config.height) == (7, 9)


# -- streams and logs ---------------------------------------------------------------


def test_logs_go_to_stderr_and_results_to_stdout() -> None:
    out = snakewar("play", "random", "greedy", "-r", "8", "-W", "7", "-H", "7", "-n", "r")
    assert out.returncode == 0, out.stderr
    err = out.stderr.splitlines()
    assert err and all(LOG_LINE.match(line) for line in err), out.stderr
    turns = [line for line in err if " Turn: " in line]
    # One line per turn from turn 0, in the official CLI's words.
    assert re.search(r" Turn: 0, Snakes Alive: \[r, greedy-2\], Food: \d+, Hazards: 0$", turns[0])
    numbers = [int(re.findall(r"Turn: (\d+)", line)[0]) for line in turns]
    assert numbers == list(range(len(numbers)))
    assert any(" Ruleset: standard, Seed: 8" in line for line in err)
    assert sum(" URL: builtin:" in line for line in err) == 2
    # Results only on stdout: the board, the summary, the outcome and the seed.
    assert not any(LOG_LINE.match(line) for line in out.stdout.splitlines())
    assert "Game completed after" in out.stdout and "seed 8" in out.stdout
    final = int(re.findall(r"Game completed after (\d+) turns", out.stdout)[0])
    assert numbers[-1] == final


def test_verbose_logs_each_request_and_reply(
    servers: SnakeServers, capsys: pytest.CaptureFixture[str]
) -> None:
    url = servers.url("good")
    code = main(["play", url, "random", "-r", "4", "--no-live", "--max-turns", "3", "--verbose"])
    assert code == 0
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert all(LOG_LINE.match(line) for line in err), captured.err
    posts = [line.split(": ", 1) for line in err if line.startswith("DEBUG") and " POST " in line]
    sent = {(head.rsplit(" ", 1)[1], json.loads(body)["turn"]) for head, body in posts}
    for kind, turns in (("start", [0]), ("move", [0, 1, 2]), ("end", [3])):
        for turn in turns:
            assert (f"{url}/{kind}", turn) in sent
            assert ("builtin:random/" + kind, turn) in sent
    replies = [line for line in err if " Reply from " in line]
    moves = [line for line in replies if f"Reply from {url}/move: " in line]
    assert len(moves) == 3
    assert all(re.search(r": ok, HTTP 200, \d+ ms, \{\"move\": \"\w+\"", line) for line in moves)
    assert len([line for line in replies if "builtin:random/move: ok, " in line]) == 3
    # What the snake got is what was logged.
    assert [b["turn"] for b in servers.bodies("good", "move")][-3:] == [0, 1, 2]
    assert "DEBUG" not in captured.out and "POST" not in captured.out
    assert "Stopped at the turn limit after 3 turns." in captured.out


def test_without_verbose_no_request_is_logged_but_failures_are(
    servers: SnakeServers, capsys: pytest.CaptureFixture[str]
) -> None:
    url = servers.url("status500")
    assert main(["play", url, "random", "-r", "4", "--no-live", "--max-turns", "2"]) == 0
    err = capsys.readouterr().err
    assert "DEBUG" not in err
    warnings = [line for line in err.splitlines() if line.startswith("WARN")]
    assert len(warnings) == 2
    assert all(f"Request to {url}/move failed: http-status, HTTP 500" in w for w in warnings)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--games", "2", "--verbose"], "'--verbose': logs one game"),
        (["--browser", "--verbose"], "'--verbose': logs one game"),
        (["--board-url", "https://board.battlesnake.com"], "'--board-url': the board --browser"),
        (["--browser", "--board-url", "board.battlesnake.com"], "expected an http(s) URL"),
        (["--browser", "--board-url", "javascript:alert(1)"], "expected an http(s) URL"),
        (["--port", "8123"], "'--port': is about the local server of --browser"),
        (["--exit-at-end"], "'--exit-at-end': is about the local server of --browser"),
        (["--browser", "--port", "70000"], "70000: expected a port from 1 to 65535"),
        (["--browser", "--port", "0"], "0: expected a port from 1 to 65535"),
        # Click's own findings are one line too.
        (["--games", "many"], "Invalid value for '--games'"),
        (["--no-such-flag"], "No such option: --no-such-flag"),
    ],
)
def test_flag_misuse_is_one_clear_line(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "random", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and needle in err[0], err


# -- replay directory ---------------------------------------------------------------


def test_replay_dir_is_made_if_missing(tmp_path: Path) -> None:
    one = tmp_path / "a" / "b"
    assert main(["play", "random", "random", "-r", "3", "--no-live", "--replay-dir", str(one)]) == 0
    assert [f.name for f in one.iterdir()] == ["game-3.jsonl"]
    many = tmp_path / "c" / "d" / "e"
    args = ["play", "random", "random", "-r", "5", "--games", "3", "-W", "7", "-H", "7"]
    assert main([*args, "--replay-dir", str(many)]) == 0
    assert sorted(f.name for f in many.iterdir()) == [f"game-{s}.jsonl" for s in (5, 6, 7)]


def test_replay_dir_blocked_by_a_file_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("x")
    assert main(["play", "random", "--replay-dir", str(tmp_path / "file" / "sub")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: replay directory"), err


# -- colours ------------------------------------------------------------------------


def ansi(color: str) -> str:
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return f"38;2;{r};{g};{b}m"


def test_copies_of_a_builtin_get_distinct_colours(
    servers: SnakeServers, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.jsonl"
    snakes = ["random", "random", servers.url("good"), servers.url("good2"), "random"]
    args = [
        "play",
        *snakes,
        "-r",
        "6",
        "-c",
        "--no-live",
        "--max-turns",
        "2",
        "--replay",
        str(path),
    ]
    assert main(args) == 0
    colors = [s.color for s in read_replay(path).snakes]
    # The first copy keeps the bot's grey; HTTP snakes keep theirs, alike or not.
    assert colors[0] == "#9e9e9e" and colors[2] == colors[3] == "#123456"
    assert len({colors[0], colors[1], colors[2], colors[4]}) == 4
    # The same colours on the CLI's board...
    board = capsys.readouterr().out
    for color in colors:
        assert ansi(color) in board
    # ... and the same again, game after game.
    again = tmp_path / "again.jsonl"
    assert main([*args[:-1], str(again)]) == 0
    assert [s.color for s in read_replay(again).snakes] == colors
    # Snakes were told the same colours.
    request = servers.bodies("good", "move")[-1]
    sent = {s["name"]: s["customizations"]["color"] for s in request["board"]["snakes"]}
    entries = {s.name: s.color for s in read_replay(again).snakes}
    assert all(entries[name] == color for name, color in sent.items())


# -- the board URL ------------------------------------------------------------------


def test_board_url_is_the_official_clis() -> None:
    assert (
        board_url("https://board.battlesnake.com", "http://127.0.0.1:4321", "abc")
        == "https://board.battlesnake.com?engine=http://127.0.0.1:4321&game=abc&autoplay=true"
    )
    assert (
        board_url("http://localhost:5173/?theme=dark", "http://127.0.0.1:1", "g")
        == "http://localhost:5173/?theme=dark&engine=http://127.0.0.1:1&game=g&autoplay=true"
    )


RECORDER = """#!{python}
import sys, urllib.parse, urllib.request
url = sys.argv[1]
query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
engine, game = query["engine"][0], query["game"][0]
# As the official board does given the engine URL with a trailing slash.
with urllib.request.urlopen(engine + "/" + "/games/" + game, timeout=10) as reply:
    body = reply.read().decode()
with open({out!r}, "w") as out:
    out.write(url + "\\n" + body)
"""


def test_browser_with_board_url_opens_the_official_board_address(tmp_path: Path) -> None:
    record = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(RECORDER.format(python=sys.executable, out=str(record)))
    browser.chmod(0o755)
    env = {
        "SNAKEWAR_DATABASE_URL": f"sqlite:///{tmp_path / 'games.db'}",
        "BROWSER": str(browser),  # Python's webbrowser runs it with the address
    }
    board = "https://board.example.test/"
    args = ["play", "random", "random", "-r", "4", "--browser", "--exit-at-end"]
    args += ["--board-url", board]
    out = snakewar(*args, env=env)
    assert out.returncode == 0, out.stderr
    opened, body = record.read_text().split("\n", 1)
    match = re.fullmatch(
        re.escape(board) + r"\?engine=(http://127\.0\.0\.1:\d+)&game=([\w-]+)&autoplay=true",
        opened,
    )
    assert match is not None, opened
    engine, game = match.groups()
    assert f"watching at {opened}" in out.stderr
    assert f"Board server listening on {engine}" in out.stderr
    # The local server answered the board's request at the engine URL.
    assert json.loads(body)["Game"]["ID"] == game
    assert "Game completed after" in out.stdout and "Seed 4" in out.stdout


# -- a thinking bot beside a fast snake ----------------------------------------------


@pytest.fixture
def fast_snake() -> Iterator[str]:
    """A built-in random bot served over HTTP by another process (it answers in ~1 ms)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "snakewar", "bot", "serve", "random", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(url, timeout=10)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, "no snake server"
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(30)


def test_a_thinking_bot_thinks_outside_the_referees_process(
    fast_snake: str, tmp_path: Path
) -> None:
    """The hunter's search runs in a worker process, so the referee's event loop stays free
    to read a fast snake's replies at once.

    Proven with CPU time, which a busy machine does not stretch: the search's CPU is
    charged to the workers (this process's children, reaped when the game ends), not to
    the referee.  How that shows in the fast snake's latency is a figure for a quiet
    machine: ``benchmarks/play_latency.py`` prints it.
    """
    import resource

    out = tmp_path / "summary.json"
    # A fixed-depth search: the same CPU work at any load (a time budget would search
    # less on a busy machine).  Depth 6 costs ~0.1 s of CPU a move on this board.
    args = ["play", fast_snake, "hunter?depth=6", "-r", "2", "--no-live", "--max-turns", "20"]
    args += os.environ.get("SNAKEWAR_TEST_PLAY_ARGS", "").split()  # e.g. --bots-in-process

    def cpu_seconds(who: int) -> float:
        usage = resource.getrusage(who)
        return usage.ru_utime + usage.ru_stime

    before = cpu_seconds(resource.RUSAGE_SELF), cpu_seconds(resource.RUSAGE_CHILDREN)
    assert main([*args, "--json", str(out)]) == 0
    referee_cpu = cpu_seconds(resource.RUSAGE_SELF) - before[0]
    workers_cpu = cpu_seconds(resource.RUSAGE_CHILDREN) - before[1]
    fast, hunter = json.loads(out.read_text())["snakes"]
    assert hunter["latencies"] and fast["latencies"]
    print(
        f"hunter beside a fast HTTP snake over {len(hunter['latencies'])} moves: "
        f"the workers used {workers_cpu:.2f} s CPU, the referee's process {referee_cpu:.2f} s"
    )
    # The hunter thought hard (1.4 s of CPU in workers over 19 moves here, 0.3 s in the
    # referee's process beside it; with --bots-in-process, 0 s and 1.7 s) ...
    assert workers_cpu >= 0.5
    # ... and not in the referee's process, which did the rest of the game.
    assert referee_cpu < workers_cpu / 2


def test_browser_on_a_port_in_use_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["play", "random", "random", "--browser", "--port", str(port)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"error: Invalid value for '--port': {port} is already in use on 127.0.0.1; "
        "choose another, or leave --port out for a free one"
    )


def test_browser_keeps_the_game_on_the_chosen_port_until_stopped(tmp_path: Path) -> None:
    port = free_port()
    env = {
        **os.environ,
        "SNAKEWAR_DATABASE_URL": f"sqlite:///{tmp_path / 'games.db'}",
        "BROWSER": "true",  # webbrowser runs `true URL`: nothing opens
    }
    command = [sys.executable, "-m", "snakewar", "play", "random", "random", "-r", "4"]
    log = tmp_path / "play.log"
    with log.open("wb") as out:
        # Not a terminal (stdin from /dev/null): it still keeps the game's page up.
        proc = subprocess.Popen(
            [*command, "--browser", "--port", str(port)],
            env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            wait_until("the game to end", lambda: "Game completed after" in log.read_text())
            base = f"http://127.0.0.1:{port}"
            games = httpx.get(f"{base}/api/games", timeout=30).json()["games"]
            assert [g["status"] for g in games] == ["complete"]
            assert "until this command is stopped (Ctrl-C)" in log.read_text()
            time.sleep(1.0)  # and it stays up
            assert proc.poll() is None
            assert httpx.get(f"{base}{games[0]['viewer']}", timeout=30).status_code == 200
        finally:
            proc.terminate()
            code = proc.wait(60)
    assert code == 0, log.read_text()
    with pytest.raises(httpx.TransportError):  # its server stopped with it
        httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=5)
