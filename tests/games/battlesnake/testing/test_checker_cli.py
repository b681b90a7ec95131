"""The shipped Battlesnake checkers read only the data they are given.

No hidden default folder: the command line without a path says so in one ``error:`` line
(exit status 2), a path that does not exist likewise, and the API takes its paths as a
required argument.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from snakewar.games.battlesnake.testing import conformance as battlesnake_conformance
from snakewar.games.battlesnake.testing import states as battlesnake_states
from tests.conformance_data import DATA

CHECKERS: dict[str, tuple[Callable[[list[str] | None], int], Path]] = {
    "conformance": (battlesnake_conformance.main, DATA / "battlesnake" / "edge"),
    "states": (
        battlesnake_states.main,
        DATA / "battlesnake" / "states" / "issue28_extremes.jsonl.gz",
    ),
}


@pytest.mark.parametrize("checker", list(CHECKERS))
def test_no_path_is_a_one_line_error(checker: str, capsys: pytest.CaptureFixture[str]) -> None:
    main, _ = CHECKERS[checker]
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: no ") and "name the files" in err


@pytest.mark.parametrize("checker", list(CHECKERS))
def test_a_missing_path_is_a_one_line_error(
    checker: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main, data = CHECKERS[checker]
    missing = tmp_path / "nothing-here"
    assert main([str(data), str(missing)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"error: {str(missing)!r} does not exist\n"


@pytest.mark.parametrize("checker", list(CHECKERS))
def test_the_data_named_is_checked(checker: str, capsys: pytest.CaptureFixture[str]) -> None:
    main, data = CHECKERS[checker]
    assert main([str(data)]) == 0
    summary = capsys.readouterr().out.splitlines()[-1]
    assert summary.endswith(", 0 mismatches") and not summary.startswith("0 "), summary


def test_the_api_takes_its_paths() -> None:
    for check_paths in (battlesnake_conformance.check_paths, battlesnake_states.check_paths):
        with pytest.raises(ValueError, match="name the files or folders"):
            check_paths([])
    assert not hasattr(battlesnake_conformance, "default_dir")
    assert not hasattr(battlesnake_states, "default_dir")
