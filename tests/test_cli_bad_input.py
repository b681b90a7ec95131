"""Bad input to ``snakewar`` is one ``error:`` line, exit status 2, before any work.

Every command runs as a user runs it (``python -m snakewar`` in a real subprocess).  For
the commands that write a file after their work, the assertions show the work was not
done first: nothing of a game or a batch is printed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.asgi_server import free_port


def run(
    *args: str, home: Path, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m snakewar ARGS`` with ``home`` as its home (no user's files touched)."""
    return subprocess.run(
        [sys.executable, "-m", "snakewar", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=home,
        env={
            "PYTHONIOENCODING": "utf-8",
            "COLUMNS": "120",
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / "data"),
            **{k: os.environ[k] for k in ("PYTHONPATH", "SNAKEWAR_PURE") if k in os.environ},
            **(extra_env or {}),
        },
    )


def assert_one_error_line(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit status 2 and exactly one ``error:`` line on stderr, naming every needle."""
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert "Traceback" not in done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


SNAKES = ("-W", "7", "-H", "7", "builtin:random", "builtin:random")


# -- output files: checked before the game ----------------------------------------------


@pytest.mark.parametrize(
    ("option", "extra"),
    [("--json", ("--games", "3")), ("--json", ()), ("--replay", ()), ("-o", ())],
)
def test_an_unwritable_output_fails_before_the_game(
    option: str, extra: tuple[str, ...], tmp_path: Path
) -> None:
    bad = "/nonexistent-dir/out.json"
    done = run("play", *extra, option, bad, *SNAKES, home=tmp_path)
    assert_one_error_line(done, repr(bad), "does not exist")
    # No game was played: no board, no summary, no seed line (they come after the game).
    assert done.stdout == ""


def test_a_name_too_long_for_the_file_system_fails_before_the_game(tmp_path: Path) -> None:
    bad = str(tmp_path / ("r" * 300 + ".jsonl"))
    done = run("play", "--replay", bad, *SNAKES, home=tmp_path)
    assert_one_error_line(done, "replay file", "r" * 300, "cannot be written")
    assert done.stdout == ""


def test_the_check_of_an_output_file_leaves_no_file_behind(tmp_path: Path) -> None:
    # The replay file is probed (made and removed) before the game; the game then fails.
    replay = tmp_path / "game.jsonl"
    done = run("play", "--replay", str(replay), "http://127.0.0.1:9/", "builtin:random",
               home=tmp_path)  # fmt: skip
    assert_one_error_line(done, "127.0.0.1:9")
    assert not replay.exists()


def test_a_folder_as_the_json_file_fails_before_the_batch(tmp_path: Path) -> None:
    done = run("play", "--games", "2", "--json", str(tmp_path), *SNAKES, home=tmp_path)
    assert_one_error_line(done, repr(str(tmp_path)), "is a directory")
    assert done.stdout == ""


def test_a_good_output_is_written_and_its_check_leaves_no_trace(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    done = run("play", "--games", "2", "-r", "5", "--json", str(out), *SNAKES, home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["games"] == 2


def test_tournament_export_checks_its_output_file(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 't.db'}"
    made = run("tournament", "create", "cup", "-s", "builtin:random", "-s", "builtin:greedy",
               "--database", db, home=tmp_path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    tid = made.stdout.strip()
    bad = "/nonexistent-dir/cup.json"
    done = run("tournament", "export", tid, "-o", bad, "--database", db, home=tmp_path)
    assert_one_error_line(done, repr(bad), "does not exist")
    good = tmp_path / "cup.json"
    done = run("tournament", "export", tid, "-o", str(good), "--database", db, home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(good.read_text(encoding="utf-8"))["id"] == tid


def test_halite_play_makes_its_replay_folder(tmp_path: Path) -> None:
    folder = tmp_path / "replays" / "today"
    done = run("halite", "play", "-i", str(folder), "--turn-limit", "5", "-s", "3",
               "--width", "32", "--height", "32", "builtin:random", "builtin:random",
               home=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert ".hlt" in {p.suffix for p in folder.iterdir()}


def test_halite_play_falls_back_from_a_file_as_its_replay_folder(tmp_path: Path) -> None:
    # As the official engine: the replay goes to the current folder, and the log says so.
    file = tmp_path / "a-file"
    file.write_text("", encoding="utf-8")
    done = run("halite", "play", "-i", str(file), "--turn-limit", "5", "-s", "3",
               "--width", "32", "--height", "32", "builtin:random", "builtin:random",
               home=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert (
        f"Error: could not write replay to directory {file}/, falling back on current directory."
        in done.stderr
    )
    assert [p.suffix for p in tmp_path.iterdir() if p.name.startswith("replay-")] == [".hlt"]


# -- Ray ----------------------------------------------------------------------------------


def _ray_cluster_running() -> bool:
    # "auto" joins any Ray on this machine (another test run's, say): then this test
    # cannot see the error it is about.
    from ray._private.services import find_gcs_addresses

    return bool(find_gcs_addresses())  # type: ignore[no-untyped-call]  # ray is untyped


@pytest.mark.ray
def test_a_ray_address_without_a_cluster_is_one_line(tmp_path: Path) -> None:
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed (the ray extra)")
    if _ray_cluster_running():
        pytest.skip("a Ray cluster runs on this machine: 'auto' would join it")
    done = run("play", "--games", "2", "--ray-address", "auto", *SNAKES, home=tmp_path,
               extra_env={"RAY_ADDRESS": ""})  # fmt: skip
    assert_one_error_line(done, "Ray at 'auto'")
    assert "games in" not in done.stdout  # no batch was played


def test_a_ray_address_needs_a_batch(tmp_path: Path) -> None:
    done = run("play", "--ray-address", "auto", *SNAKES, home=tmp_path)
    assert_one_error_line(done, "--ray-address", "--games")
    assert done.stdout == ""


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port another socket listens on, for the test's length."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


# -- databases ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("nosuchscheme://x", "'nosuchscheme'"),
        ("sqlite:////nonexistent-dir/x.db", "'sqlite:////nonexistent-dir/x.db'"),
        ("postgresql://ann:s3cret@127.0.0.1:1/db", "ann:***@127.0.0.1:1"),
    ],
)
@pytest.mark.parametrize("command", ["serve", "user"])
def test_a_database_that_cannot_be_opened_is_one_line(
    url: str, needle: str, command: str, taken_port: int, tmp_path: Path
) -> None:
    # serve opens it before it takes its port (this one is taken: a server that went
    # on would fail on it with another line).
    args = ("serve", "--port", str(taken_port)) if command == "serve" else ("user", "list")
    done = run(*args, "--database", url, home=tmp_path)
    line = assert_one_error_line(done, needle)
    assert "s3cret" not in line
    assert "running at" not in done.stderr + done.stdout


def test_no_default_database_folder_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    done = run("user", "list", home=tmp_path, extra_env={"XDG_DATA_HOME": str(tmp_path / "file")})
    assert_one_error_line(done, "data directory", "--database")


# -- ports ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command", [("serve", "--database", "memory"), ("bot", "serve", "builtin:random")]
)
def test_a_port_in_use_is_one_line_and_no_announcement(
    command: tuple[str, ...], taken_port: int, tmp_path: Path
) -> None:
    done = run(*command, "--port", str(taken_port), home=tmp_path)
    assert_one_error_line(done, f"port {taken_port} is in use on 127.0.0.1")
    assert "running at" not in done.stderr and "serving" not in done.stderr


def test_a_host_that_does_not_resolve_is_one_line(tmp_path: Path) -> None:
    port = str(free_port())
    done = run("serve", "--public", "--host", "no-such-host.invalid", "--port", port,
               "--database", "memory", home=tmp_path)  # fmt: skip
    assert_one_error_line(done, "no-such-host.invalid")


# -- a server on a Ray cluster: the address, checked before anything starts --------------


@pytest.mark.parametrize(
    ("address", "needle"),
    [
        ("localhost", "expected auto, HOST:PORT or ray://HOST:PORT"),
        ("1.2.3.4:99999", "expected auto, HOST:PORT or ray://HOST:PORT"),
        ("host:1;rm -rf /", "expected auto, HOST:PORT or ray://HOST:PORT"),
    ],
)
def test_serve_refuses_a_bad_ray_address_in_one_line(
    tmp_path: Path, address: str, needle: str
) -> None:
    done = run("serve", "--ray-address", address, home=tmp_path)
    assert_one_error_line(done, "--ray-address", needle)
    # The environment variable is the same setting, checked the same way.
    done = run("serve", home=tmp_path, extra_env={"SNAKEWAR_RAY_ADDRESS": address})
    assert_one_error_line(done, "--ray-address", needle)


@pytest.mark.parametrize(
    ("option", "cpus"),
    [
        ("--ray-game-cpus", "0"),
        ("--ray-game-cpus", "-1"),
        ("--ray-game-cpus", "65"),
        ("--ray-game-cpus", "nan"),
        ("--ray-bot-cpus", "-0.5"),
        ("--ray-bot-cpus", "nan"),
    ],
)
def test_serve_refuses_ray_cpus_out_of_bounds_in_one_line(
    tmp_path: Path, option: str, cpus: str
) -> None:
    done = run("serve", option, cpus, home=tmp_path)
    assert_one_error_line(done, option)
    assert "Snakewar is running" not in done.stderr


def test_serve_on_a_cluster_it_cannot_join_is_one_error_line(tmp_path: Path) -> None:
    # Nothing listens on that port: Ray's reason, in one line, and no server starts.
    port = str(free_port())
    done = run("serve", "--ray-address", f"127.0.0.1:{port}", home=tmp_path)
    assert_one_error_line(done, f"cannot start or join Ray at '127.0.0.1:{port}'")
    assert "Snakewar is running" not in done.stderr


def test_serve_on_a_cluster_needs_a_database_the_workers_reach(tmp_path: Path) -> None:
    done = run("serve", "--ray-address", "auto", "--database", "memory", home=tmp_path)
    assert_one_error_line(done, "--ray-address", "'memory' is this process's own")


def test_cluster_worker_refuses_a_bad_head_address(tmp_path: Path) -> None:
    for address in ("auto", "x;y", "ray://head:10001"):
        done = run("cluster", "worker", "--address", address, home=tmp_path)
        assert_one_error_line(done, "--address")


def test_cluster_workers_run_games_at_the_hosts_priority() -> None:
    """``snakewar cluster worker`` starts Ray's node with its game processes at niceness 0."""
    from snakewar.arena.executors import RAY_NICENESS_ENV
    from snakewar.server.command import worker_env

    assert worker_env({"PATH": "/usr/bin"}) == {"PATH": "/usr/bin", RAY_NICENESS_ENV: "0"}
    # An operator's own choice stands.
    assert worker_env({RAY_NICENESS_ENV: "5"})[RAY_NICENESS_ENV] == "5"
