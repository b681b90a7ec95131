"""The README as a newcomer reads it: its claims about itself, checked.

It opens with one sentence and exactly two commands (run the app; run the tests, the
very command ``.ci/run`` runs), then the newcomer's path (watch a game, play your
snake, write one, host a club) before the reference, and contributor detail last.  A
command meant to be pasted runs as written: no ``a | b`` meaning "or" (a shell runs
it as a pipe), no ``[--optional]`` brackets, only subcommands that exist.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import snakewar.command  # noqa: F401  (adds the server's commands to the listing)
from snakewar.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.DOTALL | re.MULTILINE)


def sh_lines() -> list[str]:
    """Every command line of the README's ``sh`` blocks, comments and continuations joined."""
    lines: list[str] = []
    for block in SH_BLOCK.findall(README):
        pending = ""
        for raw in block.splitlines():
            code = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
            if code.endswith("\\"):
                pending += code[:-1] + " "
                continue
            if pending + code:
                lines.append((pending + code).strip())
            pending = ""
    return lines


def test_it_opens_with_one_sentence_and_exactly_two_commands() -> None:
    intro = README.split("\n## ", 1)[0]
    lines = intro.splitlines()
    assert lines[0] == "# Snakewar"
    assert lines[2].startswith("Snakewar is ") and lines[2].endswith(".")
    assert lines[2].count(". ") == 0  # one sentence
    blocks = SH_BLOCK.findall(intro)
    assert len(blocks) == 2 and all(len(b.strip().splitlines()) == 1 for b in blocks)
    run, test = (b.strip() for b in blocks)
    assert run == "python3 -m pip install . && snakewar serve"
    # .ci/run runs the README's test command as it is written (its pip only quieter).
    ci = (
        (ROOT / ".ci" / "run")
        .read_text(encoding="utf-8")
        .replace("pip install -q ", "pip install ")
    )
    assert test in ci.splitlines(), test


def test_the_newcomers_path_comes_first_and_contributor_detail_last() -> None:
    sections = re.findall(r"^## (.+)$", README, re.MULTILINE)
    path = ["Watch a game", "Play your snake", "Write a snake in Python", "Host a club"]
    assert sections[: len(path)] == path
    assert sections[-1] == "Running the tests"
    club = README.split("## Host a club", 1)[1].split("\n## ", 1)[0]
    assert "snakewar user invite" in club and "/admin/invites" in club


def test_every_system_tool_the_tests_use_is_named() -> None:
    tests = README.split("## Running the tests", 1)[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for package in ("chromium", "nodejs", "zstd", "bubblewrap", "postgresql", "python3-numpy"):
        assert package in tests, package
        assert package in ci, package


def test_pasted_commands_run_as_written() -> None:
    commands = sh_lines()
    assert len(commands) > 40
    known = set(COMMANDS)
    for line in commands:
        words = shlex.split(line)
        assert " | " not in line, f"a pipe meant as 'or': {line}"
        assert not any(w.startswith("[") and w != "[" for w in words), f"brackets: {line}"
        for i, word in enumerate(words):
            if word == "snakewar" and i + 1 < len(words) and not words[i + 1].startswith("-"):
                assert words[i + 1] in known, f"no such command: {line}"


def test_extras_are_installed_from_the_clone() -> None:
    # A clone installs its extras as ".[rl]"; "snakewar[rl]" would look for a release.
    for found in re.findall(r"pip install ([^\n`]*)", README):
        assert "snakewar[" not in found.split("#", 1)[0], found
