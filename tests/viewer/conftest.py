"""The viewer tests run the JavaScript with Node (Debian's nodejs).

The tests of the JavaScript modules are ``js/*.test.mjs`` files run by ``node --test``
through :func:`node_test`, so the one pytest command runs them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from snakewar.viewer import static_dir
from tests.system_tools import tool

JS_TESTS = Path(__file__).resolve().parent / "js"
"""The Node test files (``*.test.mjs``) and their shared ``support.mjs``."""


@pytest.fixture(scope="session")
def node() -> str:
    """The ``node`` command (skipped without it; a failure under CI)."""
    return tool("node", "nodejs")


@pytest.fixture
def node_test(node: str, tmp_path: Path) -> Callable[..., int]:
    """Run one ``js/NAME.test.mjs`` with ``node --test``; fail with its report unless all pass.

    Called as ``node_test("club", data)``: ``data`` (JSON) is what the file reads as
    ``input``.  Returns how many tests passed; a file with no tests fails.
    """

    def run(name: str, data: Any = None) -> int:
        script = JS_TESTS / f"{name}.test.mjs"
        assert script.is_file(), script
        env = {**os.environ, "SNAKEWAR_STATIC": static_dir().as_uri() + "/"}
        env.pop("SNAKEWAR_TEST_INPUT", None)
        if data is not None:
            given = tmp_path / f"{name}.input.json"
            given.write_text(json.dumps(data), encoding="utf-8")
            env["SNAKEWAR_TEST_INPUT"] = str(given)
        done = subprocess.run(
            [node, "--test", "--test-reporter=tap", str(script)],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
            cwd=JS_TESTS,
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
