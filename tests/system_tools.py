"""Programs from the system the tests drive (Debian packages that ``.ci/run`` installs).

Every test that needs one goes through :func:`need`, directly or through the helpers
here (:func:`tool`, :func:`sandbox`, :func:`postgres_url`) or the fixtures built on
them (``chromium``, ``node``, ``bubblewrap``, ``db_url``).  Without it, the test is
skipped with the reason (the tool, its Debian package, and that ``.ci/run`` installs
it) on a developer's machine, and fails under CI (``CI=1``, set by ``.ci/run``),
where every one must be there.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from snakewar.arena.executors import RAY_WORKER_NICENESS

IN_CI = bool(os.environ.get("CI"))
"""Whether the tests run in CI (``.ci/run`` exports ``CI=1``)."""

POSTGRES_ENV = "SNAKEWAR_TEST_POSTGRES_URL"
"""The environment variable that names a scratch PostgreSQL database for the tests."""


RAY_HEAD_SETTINGS = {
    "include_dashboard": False,
    "_system_config": {"worker_niceness": RAY_WORKER_NICENESS},
}
"""What the tests' Ray clusters (``ray.cluster_utils.Cluster``) start their head with: the
games' processes at niceness 0 on every node, as ``snakewar cluster worker`` and
compose.yaml start the nodes: at Ray's 15 a busy CI starves them."""


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


@contextlib.contextmanager
def fresh_schema(url: str, prefix: str = "snakewar_test") -> Iterator[str]:
    """A new schema of the PostgreSQL database ``url``, dropped at the end.

    Yields the URL whose every connection works in that schema (its ``search_path``),
    password included: what a store, or a server process, is given.
    """
    import sqlalchemy as sa

    parsed = sa.make_url(url).set(drivername="postgresql+psycopg")
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(parsed, poolclass=sa.NullPool)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        scoped = parsed.update_query_dict({"options": f"-csearch_path={schema}"})
        yield scoped.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@contextlib.contextmanager
def fresh_database(url: str, prefix: str = "snakewar_test") -> Iterator[str]:
    """A new PostgreSQL database on the server of ``url``, dropped (forced) at the end.

    A database of its own rather than a schema (:func:`fresh_schema`): for processes
    that take a plain URL, or figures counted per database (``pg_stat_database``).
    """
    import sqlalchemy as sa

    parsed = sa.make_url(url).set(drivername="postgresql+psycopg")
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(parsed, poolclass=sa.NullPool, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield parsed.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


PG_TIMEOUT_S = 120
"""How long ``pg_ctl`` waits for the server to start or stop (a loaded machine)."""


def postgres_bin() -> Path:
    """The newest installed PostgreSQL's programs (``initdb``, ``pg_ctl``).

    Skips (fails under CI) when PostgreSQL's server is not installed.
    """
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version)
    found = [d for d in found if os.access(os.path.join(d, "pg_ctl"), os.X_OK)]
    need("PostgreSQL's server programs (initdb, pg_ctl)", bool(found), "postgresql")
    return Path(found[-1])


def _version(path: str) -> tuple[int, ...]:
    number = Path(path).parent.name
    return tuple(int(x) for x in number.split(".") if x.isdigit())


@dataclass
class PrivatePostgres:
    """A PostgreSQL server of one test's own, in a temporary directory, on a free port.

    Made by :func:`private_postgres`.  A test may stop, start and restart it: no other
    test uses it (never the shared scratch server of ``$SNAKEWAR_TEST_POSTGRES_URL``).
    """

    bin: Path
    data: Path
    port: int
    as_postgres: bool
    """Whether its programs run as the ``postgres`` user (``initdb`` refuses root)."""

    @property
    def url(self) -> str:
        """Its ``postgres`` database, as Snakewar takes it."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        argv = [str(self.bin / program), *args]
        if self.as_postgres:
            argv = ["su", "postgres", "-c", shlex.join(argv)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=PG_TIMEOUT_S + 30)
        if done.returncode != 0:
            raise AssertionError(
                f"{program} {' '.join(args[:1])} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()[-500:]}"
            )

    def init(self) -> None:
        self._run(
            "initdb", "-D", str(self.data / "db"), "-A", "trust", "-U", "postgres", "--no-sync"
        )

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            "pg_ctl",
            "-D",
            str(self.data / "db"),
            "-l",
            str(self.data / "log"),
            "-w",
            "-t",
            str(PG_TIMEOUT_S),
            "-o",
            options,
            "start",
        )

    def stop(self) -> None:
        """Stop the server (``-m fast``: its connections are cut, as in a restart)."""
        self._run(
            "pg_ctl",
            "-D",
            str(self.data / "db"),
            "-w",
            "-t",
            str(PG_TIMEOUT_S),
            "-m",
            "fast",
            "stop",
        )

    def restart(self) -> None:
        """Stop and start it again (its port and data kept)."""
        self.stop()
        self.start()


@contextlib.contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    """A :class:`PrivatePostgres` started for the block, stopped and deleted afterwards.

    Skips (fails under CI) when PostgreSQL's server programs are not installed.
    """
    bin_dir = postgres_bin()
    as_postgres = os.geteuid() == 0
    # Short and under /tmp: its Unix socket's path must fit in 107 bytes.
    data = Path(tempfile.mkdtemp(prefix="snakewar-pg."))
    if as_postgres:
        shutil.chown(data, "postgres")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = PrivatePostgres(bin_dir, data, port, as_postgres)
    try:
        server.init()
        server.start()
        yield server
    finally:
        with contextlib.suppress(AssertionError, subprocess.SubprocessError):
            server.stop()
        shutil.rmtree(data, ignore_errors=True)
