"""Two servers resuming one tournament, killed and restarted: run N times, print the figures.

Issue 31's H4: two ``snakewar serve`` processes that both resumed a tournament on
PostgreSQL recorded games twice (3 runs of 4), the tournament answered 400 and no server
would start again.  Each round here plays the scenario of ``tests/server/multi_server.py``
on a fresh database (a new PostgreSQL schema, or a new SQLite file): a server starts a
tournament and is killed (``SIGKILL``) mid-run; two servers start at once, both resuming;
the one that plays it is killed mid-run and another starts; once the tournament is
finished every server stops and one more must start.  A round passes when the tournament
is finished, no game is recorded twice, its games are exactly a straight run's, and the
last server starts and answers 200.  ``replays`` counts the times a round played the
run on (``POST .../run``, as an admin would) after a built-in bot's worker did not start
in time on a loaded machine; such a game is not recorded, and is played again.

    python3 benchmarks/two_server_resume.py --rounds 10 \\
        --database postgresql+psycopg://postgres@127.0.0.1:55432/postgres
    python3 benchmarks/two_server_resume.py --rounds 3 --database sqlite
    python3 benchmarks/two_server_resume.py --src /path/to/other/checkout/src  # compare

Run it from the repository root with ``PYTHONPATH=src:.``.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

# The scenario lives with the tests (they play it too): the repository root on the path.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.server import multi_server
from tests.system_tools import fresh_schema


@contextlib.contextmanager
def fresh_database(base: str, folder: Path) -> Iterator[str]:
    """A new empty database: a SQLite file in ``folder``, or a new PostgreSQL schema."""
    if base == "sqlite":
        yield f"sqlite:///{folder / f'{uuid.uuid4().hex[:8]}.db'}"
        return
    with fresh_schema(base, "snakewar_resume") as scoped:
        yield scoped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument(
        "--database",
        default="sqlite",
        help="'sqlite', or a PostgreSQL URL (each round makes its own schema there)",
    )
    parser.add_argument(
        "--src",
        default=None,
        help="the snakewar source the servers run (default: the one this runs)",
    )
    args = parser.parse_args()
    env = {"PYTHONPATH": args.src} if args.src else {}
    passed = 0
    print("round  finished  games  twice  same-as-straight  restarts  replays  seconds  problems")
    with tempfile.TemporaryDirectory(prefix="two-server-resume-") as folder:
        logs = Path(folder)
        for number in range(1, args.rounds + 1):
            with fresh_database(args.database, logs) as database:
                try:
                    outcome, _ = multi_server.scenario(database, logs, server_env=env)
                except AssertionError as exc:
                    outcome = multi_server.Outcome(problems=[" ".join(str(exc).split())[:400]])
            passed += outcome.ok
            print(
                f"{number:5}  {outcome.finished!s:8}  {outcome.games:5}  {outcome.duplicates:5}"
                f"  {outcome.same_as_straight!s:16}  {outcome.restarted!s:8}  {outcome.replays:7}"
                f"  {outcome.seconds:7.1f}  {'; '.join(outcome.problems) or '-'}",
                flush=True,
            )
    where = "PostgreSQL" if args.database != "sqlite" else "SQLite"
    print(f"{passed} of {args.rounds} rounds passed on {where}")
    return 0 if passed == args.rounds else 1


if __name__ == "__main__":
    sys.exit(main())
