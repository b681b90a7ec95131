"""Programs from the system the tests drive (Debian packages that ``.ci/run`` installs).

Every test that needs one goes through :func:`need`, directly or through the helpers
here (:func:`tool`, :func:`sandbox`, :func:`postgres_url`) or the fixtures built on
them (``chromium``, ``node``, ``bubblewrap``, ``db_url``).  Without it, the test is
skipped with the reason (the tool, its Debian package, and that ``.ci/run`` installs
it) on a developer's machine, and fails under CI (``CI=1``, set by ``.ci/run``),
where every one must be there.
"""

from __future__ import annotations

import os
import shutil

import pytest

IN_CI = bool(os.environ.get("CI"))
"""Whether the tests run in CI (``.ci/run`` exports ``CI=1``)."""

POSTGRES_ENV = "SNAKEWAR_TEST_POSTGRES_URL"
"""The environment variable that names a scratch PostgreSQL database for the tests."""


def missing(what: str, package: str, why: str | None = None) -> str:
    """The one line said when ``what`` (from Debian's ``package``) is not there."""
    reason = f": {why}" if why else ""
    return f"{what} is not available{reason} (Debian package {package}; .ci/run installs it)"


def need(what: str, found: bool, package: str, why: str | None = None) -> None:
    """Skip the calling test (fail it under CI) unless ``found``.

    Args:
        what: what the test needs, as a person would name it.
        found: whether it is there.
        package: the Debian package that provides it.
        why: what was found wrong, when there is more to say than "missing".
    """
    if found:
        return
    message = missing(what, package, why)
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


def sandbox() -> None:
    """Skip (fail under CI) unless bubblewrap sandboxes can be made here.

    Asks :func:`snakewar.referee.sandbox.sandbox_available`, the check the referee and
    the server make before they run a bot in a sandbox, so a test runs exactly where
    they would.
    """
    from snakewar.referee.sandbox import sandbox_available

    problem = sandbox_available()
    if problem is not None and shutil.which("bwrap") is None:
        tool("bwrap", "bubblewrap")  # the plain case, said as for every other command
    need("a bubblewrap sandbox", problem is None, "bubblewrap", problem)


def postgres_url() -> str:
    """The scratch PostgreSQL database of ``$SNAKEWAR_TEST_POSTGRES_URL``.

    Skips (fails under CI) when the variable is not set.
    """
    url = os.environ.get(POSTGRES_ENV, "").strip()
    need(
        f"a PostgreSQL database in ${POSTGRES_ENV} (a scratch one, e.g. "
        "postgresql+psycopg://postgres@127.0.0.1:5432/postgres)",
        bool(url),
        "postgresql",
    )
    return url
