"""The README and the docs as a newcomer reads them: their claims about themselves, checked.

The README opens with one sentence and exactly two commands (run the app; run the tests,
the very command ``.ci/run`` runs), then a tour whose every link lands on a page and a
heading of ``docs/``.  The docs put the newcomer's path (watch a game, play your snake,
write one, host a club) before the reference, and contributor detail last.  A command
meant to be pasted runs as written, in the README and in every page: no ``a | b``
meaning "or" (a shell runs it as a pipe), no ``[--optional]`` brackets, only
subcommands that exist.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import snakewar.command  # noqa: F401  (adds the server's commands to the listing)
from snakewar.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
PAGES = {
    str(path.relative_to(DOCS)): path.read_text(encoding="utf-8")
    for path in sorted(DOCS.rglob("*.md"))
}
SH_BLOCK = re.compile(r"^\s*```sh\n(.*?)^\s*```", re.DOTALL | re.MULTILINE)
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)

OLD_README_SECTIONS = (
    "Watch a game",
    "Play your snake",
    "Write a snake in Python",
    "Host a club",
    "The command line",
    "The server",
    "Reinforcement learning",
    "The batched simulator",
    "Ladders, ratings, tournaments",
    "Halite III",
    "The library",
    "Conformance",
    "Speed against the official engines",
    "The compiled rules engine",
    "Layout",
    "Adding a game",
    "Running the tests",
)
"""The sections of the 501-line README, before it became a tour: each one is a docs heading."""


def slug(heading: str) -> str:
    """A heading's anchor, as MkDocs (and GitHub) make it."""
    text = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"[\s]+", "-", text)


def section(text: str, title: str) -> str:
    """The body of the ``## title`` section of a Markdown text."""
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def sh_lines() -> list[str]:
    """Every command line of the README's and the docs' ``sh`` blocks, comments and
    continuations joined."""
    lines: list[str] = []
    blocks = [b for text in (README, *PAGES.values()) for b in SH_BLOCK.findall(text)]
    for block in blocks:
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


def test_the_readme_is_a_tour_whose_links_land() -> None:
    assert re.findall(r"^## (.+)$", README, re.MULTILINE) == ["Tour"]
    assert len(README.splitlines()) <= 60
    linked: set[str] = set()
    for target in LINK.findall(README):
        path, _, anchor = target.partition("#")
        assert path.startswith("docs/") and path.endswith(".md"), target
        page = path.removeprefix("docs/")
        assert page in PAGES, target
        if anchor:
            assert anchor in {slug(h) for h in HEADING.findall(PAGES[page])}, target
        linked.add(page)
    # Every page of the docs but the API reference's own subpages is on the tour.
    assert linked >= {p for p in PAGES if "/" not in p}


def test_the_newcomers_path_comes_first_and_contributor_detail_last() -> None:
    def sections(page: str) -> list[str]:
        return re.findall(r"^## (.+)$", PAGES[page], re.MULTILINE)

    assert sections("index.md")[0] == "Watch a game"
    assert sections("bot-authors.md")[:2] == ["Play your snake", "Write a snake in Python"]
    assert sections("hosts.md")[0] == "Host a club"
    club = section(PAGES["hosts.md"], "Host a club")
    assert "snakewar user invite" in club and "/admin/invites" in club
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    order = [nav.index(f" {page}") for page in ("index.md", "bot-authors.md", "hosts.md")]
    order += [nav.index(f" {page}") for page in ("architecture.md", "contributing.md")]
    assert order == sorted(order)
    assert "Running the tests" in sections("contributing.md")


def test_no_section_of_the_old_readme_is_lost() -> None:
    headings = {h for text in PAGES.values() for h in HEADING.findall(text)}
    for title in OLD_README_SECTIONS:
        assert title in headings, title


def test_every_system_tool_the_tests_use_is_named() -> None:
    tests = section(PAGES["contributing.md"], "Running the tests")
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
    for text in (README, *PAGES.values()):
        for found in re.findall(r"pip install ([^\n`]*)", text):
            assert "snakewar[" not in found.split("#", 1)[0], found
