"""The documentation site builds with warnings as errors, and shows what it should.

``python3 -m mkdocs build --strict`` runs here as a developer runs it: a link to a
missing page or heading, or an API reference to a name that moved, fails the suite.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# Material prints an end-of-life notice on every build; the build's own warnings still show.
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = build(ROOT / "mkdocs.yml", out)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return out


def nav_pages() -> list[str]:
    """The pages of mkdocs.yml's ``nav``, in order."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = config.split("\nnav:\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"[\w/-]+\.md", nav)


def html(site: Path, page: str) -> str:
    path = Path(page).with_suffix("")
    target = site / ("index.html" if page == "index.md" else path / "index.html")
    if path.name == "index":
        target = site / path.parent / "index.html"
    return target.read_text(encoding="utf-8")


def test_every_page_is_in_the_navigation_and_built(site: Path) -> None:
    pages = nav_pages()
    on_disk = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md") if "hooks" not in p.parts)
    assert sorted(pages) == on_disk
    for page in ("index.md", "architecture.md", "contributing.md"):
        assert page in pages
    for user in ("bot-authors.md", "hosts.md", "researchers.md"):
        assert user in pages
    for page in pages:
        assert "<h1" in html(site, page), page


def test_the_api_reference_comes_from_the_docstrings(site: Path) -> None:
    protocol = html(site, "reference/protocol.md")
    assert 'id="snakewar.engine.protocol.GameAdapter"' in protocol
    assert 'id="snakewar.adapters.get_game"' in protocol
    rules = html(site, "reference/battlesnake.md")
    assert 'id="snakewar.games.battlesnake.run_game"' in rules
    # Docstring examples are shown as Python console code, prompts highlighted.
    assert rules.count('<span class="gp">&gt;&gt;&gt; </span>') >= 10
    assert html(site, "reference/errors.md").count("SnakewarError") >= 3


def test_the_site_loads_nothing_from_elsewhere(site: Path) -> None:
    # Scripts, styles and fonts come with the site: it works offline, like the app.
    remote = re.compile(r"<(?:script|link|img)\b[^>]*\b(?:src|href)=\"(?:https?:)?//", re.I)
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        found = [m.group(0) for m in remote.finditer(text) if 'rel="canonical"' not in m.group(0)]
        assert not found, (page, found)
    for sheet in site.rglob("*.css"):
        assert "fonts.googleapis" not in sheet.read_text(encoding="utf-8"), sheet


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    # The strict build with this configuration: a link to a missing heading is an error.
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    index = docs / "index.md"
    index.write_text(
        index.read_text(encoding="utf-8") + "\nSee [nowhere](hosts.md#no-such-heading).\n",
        encoding="utf-8",
    )
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    config = config.replace("docs_dir: docs", f"docs_dir: {docs}")
    config = config.replace("- docs/hooks/", f"- {docs}/hooks/")
    config = config.replace("paths: [src]", f"paths: [{ROOT / 'src'}]")
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    done = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-heading" in done.stderr
