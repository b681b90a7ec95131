"""The static ES modules under Node (Debian's nodejs): fixtures every viewer test folder uses.

The tests of the JavaScript modules are ``*.test.mjs`` files run by ``node --test``
through :func:`node_test`, so the one pytest command runs them.  The modules import one
another by the URLs the server serves them at (a game's viewer imports the shared
``../viewer/player.js``), so Node reads them from :func:`static_site`, a copy of the
server's ``/static/`` tree: the shared files under ``viewer/`` and each registered game's
(its adapter's ``static_assets()``) under the game's name.  ``tests/conftest.py`` loads
this module as a plugin.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from snakewar.adapters import games
from snakewar.viewer import static_dir
from tests.system_tools import tool

JS_SUPPORT = Path(__file__).resolve().parent / "viewer" / "js" / "support.mjs"
"""What every ``*.test.mjs`` imports: ``load``, ``input``, ``same``."""


def static_folders() -> dict[str, Path]:
    """The server's static folders by their place under ``/static/``."""
    folders = {"viewer": static_dir()}
    for game in games():
        assets = game.static_assets()
        if assets is not None:
            folders[game.name] = Path(assets)
    return folders


@pytest.fixture(scope="session")
def static_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the server's ``/static/`` tree (``viewer/``, ``<game>/``), as Node reads it."""
    site = tmp_path_factory.mktemp("site") / "static"
    for name, folder in static_folders().items():
        shutil.copytree(folder, site / name, ignore=shutil.ignore_patterns("__pycache__"))
    return site


@pytest.fixture(scope="session")
def node() -> str:
    """The ``node`` command (skipped without it; a failure under CI)."""
    return tool("node", "nodejs")


@pytest.fixture
def node_test(node: str, tmp_path: Path, static_site: Path) -> Callable[..., int]:
    """Run one ``NAME.test.mjs`` with ``node --test``; fail with its report unless all pass.

    Called as ``node_test(HERE / "js" / "club.test.mjs", data)``: ``data`` (JSON) is what
    the file reads as ``input``; its ``load("viewer/pages/club.js")`` imports from
    :func:`static_site`.  Returns how many tests passed; a file with no tests fails.
    """

    def run(script: Path, data: Any = None) -> int:
        assert script.is_file(), script
        env = {**os.environ, "SNAKEWAR_STATIC": static_site.as_uri() + "/"}
        env.pop("SNAKEWAR_TEST_INPUT", None)
        if data is not None:
            given = tmp_path / f"{script.stem}.input.json"
            given.write_text(json.dumps(data), encoding="utf-8")
            env["SNAKEWAR_TEST_INPUT"] = str(given)
        done = subprocess.run(
            [node, "--test", "--test-reporter=tap", str(script)],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
            cwd=script.parent,
        )
        report = done.stdout + done.stderr
        counts = dict(
            re.findall(r"^# (tests|pass|fail|cancelled|todo|skipped) (\d+)$", report, re.M)
        )
        assert done.returncode == 0 and counts.get("fail") == "0", report
        assert counts.get("cancelled") == "0" and counts.get("skipped") == "0", report
        assert int(counts["tests"]) > 0 and counts["pass"] == counts["tests"], report
        return int(counts["pass"])

    return run
