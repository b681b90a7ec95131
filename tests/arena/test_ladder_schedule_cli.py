"""``snakewar ladder schedule / pause / resume``: a continuous ladder set from the command line.

Real ``snakewar`` subprocesses on a SQLite file: the settings are stored (a server's
scheduler reads them), bad values are one ``error:`` line and status 2, and a ladder a
server plays on by itself refuses a command-line run.
"""

from __future__ import annotations

from pathlib import Path

from snakewar.arena.ladder import LadderSettings
from snakewar.storage import Store
from tests.cli_process import run


def test_a_ladder_is_made_continuous_paused_and_resumed_from_the_command_line(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'ladders.db'}"
    assert run("ladder", "create", "lad", "--database", url).returncode == 0
    shown = run("ladder", "schedule", "lad", "--database", url)
    assert shown.returncode == 0 and "played in runs" in shown.stdout
    refused = run("ladder", "pause", "lad", "--database", url)
    assert refused.returncode == 2 and refused.stderr.startswith("error: ")
    assert "does not play on by itself" in refused.stderr
    made = run(
        "ladder", "schedule", "lad", "--continuous", "--games-in-flight", "3",
        "--games-per-hour", "120", "--daily-cap", "5", "--database", url,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert "3 games in flight at most, 120 an hour at most, 5 a day per snake" in made.stdout
    with Store(url) as store:
        assert store.ladders.get("lad").settings == LadderSettings(True, False, 3, 120, 5)  # type: ignore[union-attr]
    for args, field in (
        (("--games-in-flight", "0"), "games_in_flight"),
        (("--games-per-hour", "9999"), "games_per_hour"),
        (("--daily-cap", "0"), "daily_cap"),
    ):
        bad = run("ladder", "schedule", "lad", *args, "--database", url)
        assert bad.returncode == 2 and bad.stderr.startswith(f"error: {field}"), bad.stderr
        assert "Traceback" not in bad.stderr
    both = run("ladder", "schedule", "lad", "--daily-cap", "2", "--no-daily-cap", "--database", url)
    assert both.returncode == 2 and "not both" in both.stderr
    assert "paused:" in run("ladder", "pause", "lad", "--database", url).stdout
    # A server plays it: a run from here would collide with it.
    busy = run("ladder", "run", "lad", "--games", "1", "--database", url)
    assert busy.returncode == 2 and "plays on by itself" in busy.stderr
    resumed = run("ladder", "resume", "lad", "--database", url)
    assert resumed.returncode == 0 and resumed.stdout.startswith("ladder 'lad': continuous:")
    uncapped = run("ladder", "schedule", "lad", "--no-daily-cap", "--database", url)
    assert "no daily cap" in uncapped.stdout
    with Store(url) as store:
        assert store.ladders.get("lad").settings == LadderSettings(True, False, 3, 120, None)  # type: ignore[union-attr]
