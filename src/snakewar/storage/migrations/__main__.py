"""``python -m snakewar.storage.migrations``: the store's migrations from the command line.

A small front end to Alembic's commands with the packaged environment (no
``alembic.ini``).  ``revision`` numbers revisions ``0002``, ``0003``... and, unless
``$SNAKEWAR_DATABASE_URL`` is set, autogenerates against a scratch SQLite database
brought to the newest revision; the other commands act on the database a
``Store()`` would open.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from snakewar.storage.database import (
    DATABASE_URL_ENV,
    alembic_config,
    resolve_database_url,
)


def next_revision_id() -> str:
    """Return the next free sequential revision id (``0002`` after ``0001``)."""
    script = ScriptDirectory.from_config(alembic_config())
    numbers = [int(r.revision) for r in script.walk_revisions() if re.fullmatch(r"\d+", r.revision)]
    return f"{max(numbers, default=0) + 1:04d}"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m snakewar.storage.migrations",
        description="Manage the Snakewar game store's schema (Alembic, packaged migrations).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    revision = sub.add_parser("revision", help="write a new revision file")
    revision.add_argument("-m", "--message", required=True, help="what the revision changes")
    revision.add_argument(
        "--autogenerate", action="store_true", help="fill it in from the models' differences"
    )
    revision.add_argument("--rev-id", help="the revision id (default: the next number)")
    for name, text in (("upgrade", "upgrade to a revision"), ("downgrade", "downgrade to one")):
        cmd = sub.add_parser(name, help=f"{text} (of the {DATABASE_URL_ENV} or default database)")
        cmd.add_argument("revision", help="a revision id, 'head', 'base', '-1', ...")
        cmd.add_argument("--sql", action="store_true", help="print the SQL instead of running it")
    sub.add_parser("current", help="show the database's revision")
    sub.add_parser("history", help="list the revisions")
    sub.add_parser("heads", help="show the newest revision")
    sub.add_parser("check", help="fail if the models differ from the newest revision")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one migration command; return the exit status."""
    args = _parser().parse_args(argv)
    if args.command == "revision":
        rev_id = args.rev_id or next_revision_id()
        if not args.autogenerate:
            command.revision(_with_ruff(alembic_config()), message=args.message, rev_id=rev_id)
            return 0
        with tempfile.TemporaryDirectory(prefix="snakewar-migrations-") as scratch:
            url = resolve_database_url(None) if _env_url() else _scratch(Path(scratch))
            config = alembic_config(url)
            if not _env_url():
                command.upgrade(config, "head")
            command.revision(
                _with_ruff(config), message=args.message, autogenerate=True, rev_id=rev_id
            )
        return 0
    if args.command in ("history", "heads"):
        # These read the revision files only: no database is opened (or created).
        (command.history if args.command == "history" else command.heads)(alembic_config())
        return 0
    config = alembic_config(resolve_database_url(None))
    if args.command == "upgrade":
        command.upgrade(config, args.revision, sql=args.sql)
    elif args.command == "downgrade":
        command.downgrade(config, args.revision, sql=args.sql)
    elif args.command == "current":
        command.current(config)
    else:
        command.check(config)
    return 0


def _with_ruff(config: Config) -> Config:
    """Have Alembic tidy new revision files with ruff (fix, then format), if installed."""
    if importlib.util.find_spec("ruff") is None:
        return config
    config.set_section_option("post_write_hooks", "hooks", "ruff_fix, ruff_format")
    for name, args in (("ruff_fix", "check --fix --quiet"), ("ruff_format", "format --quiet")):
        config.set_section_option("post_write_hooks", f"{name}.type", "exec")
        config.set_section_option("post_write_hooks", f"{name}.executable", sys.executable)
        config.set_section_option(
            "post_write_hooks", f"{name}.options", f"-m ruff {args} REVISION_SCRIPT_FILENAME"
        )
    return config


def _env_url() -> bool:
    return bool(os.environ.get(DATABASE_URL_ENV, "").strip())


def _scratch(directory: Path) -> str:
    return f"sqlite:///{directory / 'scratch.db'}"


if __name__ == "__main__":
    sys.exit(main())
