"""Programs from the system the tests drive (Debian packages that ``.ci/run`` installs).

Without one, a test that needs it is skipped with the reason on a developer's machine,
and fails under CI (``CI=1``, set by ``.ci/run``), where every one must be there.
"""

from __future__ import annotations

import os
import shutil

import pytest

IN_CI = bool(os.environ.get("CI"))
"""Whether the tests run in CI (``.ci/run`` exports ``CI=1``)."""


def need(what: str, found: bool, package: str) -> None:
    """Skip the calling test (fail it under CI) unless ``found``."""
    if found:
        return
    message = f"{what} is not available (Debian package {package}; .ci/run installs it)"
    if IN_CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def need_host(what: str, problem: str | None) -> None:
    """Skip the calling test (fail it under CI) when the host lacks ``what``.

    ``problem`` is why it lacks it (``None``: it has it); the machines CI runs on have it.
    """
    if problem is None:
        return
    message = f"{what} is not available here: {problem}"
    if IN_CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def tool(command: str, package: str | None = None) -> str:
    """The path of ``command``; skips (fails under CI) when it is not installed."""
    path = shutil.which(command)
    need(f"the {command!r} command", path is not None, package or command)
    assert path is not None
    return path
