"""Sharing and events over real HTTP: saved games, link previews, embeds, bulk exports.

A public server on loopback with three accounts (``owner`` plays games, ``other`` is
another member, ``boss`` an admin).  Exports run to completion and their archives are
checked against the stored games (each replay as ``GET /api/games/{id}/replay`` gives it,
the CSV's rows as the games' results); their progress is seen moving one game at a time
(the worker's ``before_game`` seam holds each game until the test lets it go, so nothing
depends on how fast the machine is); who may export, read and download what; bad input
answers 4xx JSON naming the field.
"""

from __future__ import annotations

import asyncio
import csv
import datetime as dt
import functools
import io
import re
import struct
import threading
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from snakewar.server import ServerConfig, create_app
from snakewar.server.exports import CSV_COLUMNS, ExportWorker
from snakewar.storage import Store
from snakewar.storage.models import ExportJobModel
from tests.asgi_server import serve
from tests.conformance_data import SHIPPED_HALITE_REPLAYS
from tests.server.accounts import make_user
from tests.server.serve_command import recorded_configs
from tests.waiting import wait_finished

BOARD = {"width": 7, "height": 7}
PATIENCE_S = 300.0
"""How long a test waits for the server (generous: the machine may be loaded)."""

SMALL_HALITE = SHIPPED_HALITE_REPLAYS / "public-s100215-32x32-2p.hlt"

GOLD = bytes((240, 190, 40))
"""The colour of a revealed winner's edge on a preview card."""


@dataclass
class Site:
    """A public server on loopback, its store and worker, and its accounts' headers."""

    url: str
    store: Store
    exports: ExportWorker
    headers: dict[str, dict[str, str]]

    def call(self, method: str, path: str, who: str | None, **kwargs: Any) -> httpx.Response:
        headers = self.headers[who] if who is not None else {}
        return httpx.request(method, self.url + path, headers=headers, timeout=60, **kwargs)

    def game(self, who: str, seed: int) -> str:
        """A finished game of two built-ins started by ``who``; its id."""
        made = self.call(
            "POST",
            "/api/games",
            who,
            json={"snakes": ["builtin:random", "builtin:greedy"], "seed": seed, **BOARD},
        )
        assert made.status_code == 201, made.text
        game_id = str(made.json()["id"])
        wait_finished(self.url, game_id, headers=self.headers[who])
        return game_id


class Gate:
    """Holds each game of an export until the test lets one more through."""

    def __init__(self) -> None:
        self.allowed = 0
        self.lock = threading.Lock()

    def allow(self, games: int = 1) -> None:
        with self.lock:
            self.allowed += games

    async def __call__(self, job_id: str, done: int) -> None:
        del job_id
        while True:
            with self.lock:
                if done < self.allowed:
                    return
            await asyncio.sleep(0.02)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    db = tmp_path_factory.mktemp("db") / "sharing.db"
    with Store(f"sqlite:///{db}") as store:
        headers = {
            "owner": make_user(store, "owner"),
            "other": make_user(store, "other"),
            "boss": make_user(store, "boss", admin=True),
        }
        config = ServerConfig(database_url=f"sqlite:///{db}", public=True, signup="closed")
        app = create_app(config, store=store)
        with serve(app) as url:
            yield Site(url, store, app.state.exports, headers)


@pytest.fixture
def gate(site: Site) -> Iterator[Gate]:
    opened = Gate()
    site.exports.before_game = opened
    try:
        yield opened
    finally:
        opened.allow(10**6)
        site.exports.before_game = None


def wait_for(check: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"waited {PATIENCE_S} s for {what}")


def at_least(count: Callable[[], int], least: int) -> bool:
    return count() >= least


def job_state(site: Site, job_id: str, who: str) -> dict[str, Any]:
    answer = site.call("GET", f"/api/exports/{job_id}", who)
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def finished_job(site: Site, job_id: str, who: str) -> dict[str, Any]:
    found: dict[str, Any] = wait_for(
        lambda: (j := job_state(site, job_id, who))["state"] in ("done", "failed") and j,
        f"export {job_id}",
    )
    return found


def archive_of(site: Site, job: dict[str, Any], who: str) -> zipfile.ZipFile:
    answer = site.call("GET", job["download"], who)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/zip"
    assert f'filename="{job["filename"]}"' in answer.headers["content-disposition"]
    return zipfile.ZipFile(io.BytesIO(answer.content))


def check_archive(
    site: Site, archive: zipfile.ZipFile, game_ids: list[str], who: str, ext: str = "jsonl"
) -> None:
    """The archive holds exactly these games' replays (``.ext``), as the API gives them to
    ``who``, and a CSV row per game and seat matching each game's result."""
    replays = {name for name in archive.namelist() if name.startswith("replays/")}
    assert replays == {f"replays/{g}.{ext}" for g in game_ids}
    for game_id in game_ids:
        expected = site.call("GET", f"/api/games/{game_id}/replay", who)
        assert expected.status_code == 200
        assert archive.read(f"replays/{game_id}.{ext}") == expected.content
    rows = list(csv.DictReader(io.StringIO(archive.read("results.csv").decode("utf-8"))))
    header = archive.read("results.csv").decode("utf-8").splitlines()[0]
    assert header.split(",") == list(CSV_COLUMNS)
    assert [r["game_id"] for r in rows if r["seat"] == "0"] == game_ids  # newest first
    for game_id in game_ids:
        game = site.call("GET", f"/api/games/{game_id}", who).json()
        seats = [r for r in rows if r["game_id"] == game_id]
        assert [r["name"] for r in seats] == [e["name"] for e in game["entrants"]]
        assert {r["turns"] for r in seats} == {str(game["turn"])}
        assert {r["status"] for r in seats} == {game["status"]}
        winners = [r["name"] for r in seats if r["won"] == "1"]
        assert winners == ([game["winner"]] if game["winner"] else [])
        assert all(r["replay_file"] == f"replays/{game_id}.{ext}" for r in seats)
        assert {r["draw"] for r in seats} == {"1" if game["is_draw"] else "0"}


# -- exports -------------------------------------------------------------------------------


def test_a_users_export_runs_to_completion_and_its_progress_moves_game_by_game(
    site: Site, gate: Gate
) -> None:
    # A user of this test's own: the archive holds exactly their games.
    site.headers["maker"] = make_user(site.store, "maker")
    games = [site.game("maker", seed) for seed in (11, 12, 13)]
    started = site.call("POST", "/api/exports", "maker", json={"kind": "user", "target": "maker"})
    assert started.status_code == 202, started.text
    job = started.json()
    assert job["state"] in ("queued", "running") and job["total"] == 3 and job["download"] is None
    # One more export while this one runs: refused, naming why.
    again = site.call("POST", "/api/exports", "maker", json={"kind": "user", "target": "maker"})
    assert again.status_code == 409 and "in progress" in again.json()["detail"]

    def done_games() -> int:
        return int(job_state(site, job["id"], "maker")["done"])

    seen = [done_games()]
    for step in range(1, 4):
        gate.allow()
        wait_for(functools.partial(at_least, done_games, step), f"game {step} of the export")
        seen.append(done_games())
    assert seen == [0, 1, 2, 3]
    done = finished_job(site, job["id"], "maker")
    assert done["state"] == "done" and done["error"] == ""
    assert done["download"] == f"/api/exports/{job['id']}/download"
    assert done["filename"] == "user-maker.zip"
    archive = archive_of(site, done, "maker")
    assert done["bytes"] == len(site.call("GET", done["download"], "maker").content)
    check_archive(site, archive, list(reversed(games)), "maker")
    assert site.call("GET", "/api/exports", "maker").json()[0]["id"] == job["id"]


def test_each_game_is_exported_in_its_own_replay_format(site: Site) -> None:
    # A Halite III game uploaded as its .hlt: the export holds the .hlt its adapter writes.
    site.headers["halite"] = make_user(site.store, "halite")
    uploaded = site.call("POST", "/api/halite/games", "halite", content=SMALL_HALITE.read_bytes())
    assert uploaded.status_code == 201, uploaded.text
    game_id = uploaded.json()["id"]
    job = site.call("POST", "/api/exports", "halite", json={"kind": "user", "target": "halite"})
    assert job.status_code == 202, job.text
    done = finished_job(site, job.json()["id"], "halite")
    assert done["state"] == "done", done
    archive = archive_of(site, done, "halite")
    check_archive(site, archive, [game_id], "halite", ext="hlt")
    assert archive.read(f"replays/{game_id}.hlt") == SMALL_HALITE.read_bytes()


def test_a_ladders_and_a_tournaments_games_are_exported_by_any_member(site: Site) -> None:
    made = site.call("POST", "/api/ladders", "boss", json={"name": "lad", **BOARD})
    assert made.status_code == 201, made.text
    for bot in ("builtin:random", "builtin:greedy"):
        joined = site.call("POST", "/api/ladders/lad/snakes", "boss", json={"snake": bot})
        assert joined.status_code == 201, joined.text
    assert site.call("POST", "/api/ladders/lad/run", "boss", json={"games": 2}).status_code == 202
    ladder = wait_for(
        lambda: (
            (d := site.call("GET", "/api/ladders/lad", "other").json())["games_played"] == 2 and d
        ),
        "the ladder's games",
    )
    ladder_games = [
        g["game_id"] for g in sorted(ladder["recent_games"], key=lambda g: -g["number"])
    ]
    job = site.call("POST", "/api/exports", "other", json={"kind": "ladder", "target": "lad"})
    assert job.status_code == 202, job.text
    done = finished_job(site, job.json()["id"], "other")
    assert done["state"] == "done" and done["total"] == 2 and done["done"] == 2
    check_archive(site, archive_of(site, done, "other"), ladder_games, "other")

    cup = site.call(
        "POST",
        "/api/tournaments",
        "boss",
        json={"name": "Cup", "snakes": ["builtin:random", "builtin:greedy"], **BOARD},
    )
    assert cup.status_code == 201, cup.text
    tid = cup.json()["id"]
    wait_for(
        lambda: site.call("GET", f"/api/tournaments/{tid}", "other").json()["finished"],
        "the tournament",
    )
    with site.store.db.session() as session:
        played = list(
            session.execute(
                sa.text(
                    "SELECT game_id FROM tournament_games WHERE tournament_id = :t "
                    "ORDER BY ordinal DESC"
                ),
                {"t": tid},
            ).scalars()
        )
    assert played
    job = site.call("POST", "/api/exports", "other", json={"kind": "tournament", "target": tid})
    assert job.status_code == 202, job.text
    done = finished_job(site, job.json()["id"], "other")
    assert done["state"] == "done" and done["filename"] == f"tournament-{tid}.zip"
    check_archive(site, archive_of(site, done, "other"), played, "other")


def test_who_may_export_read_and_download_what(site: Site) -> None:
    site.game("owner", 21)
    # Anonymous visitors export nothing.
    anonymous = site.call("POST", "/api/exports", None, json={"kind": "user", "target": "owner"})
    assert anonymous.status_code == 401
    assert site.call("GET", "/api/exports", None).status_code == 401
    # A member exports no one else's games; an admin may.
    other = site.call("POST", "/api/exports", "other", json={"kind": "user", "target": "owner"})
    assert other.status_code == 403
    assert other.json()["detail"] == (
        "target: the games of user 'owner' are exported by that user or an admin"
    )
    boss = site.call("POST", "/api/exports", "boss", json={"kind": "user", "target": "owner"})
    assert boss.status_code == 202, boss.text
    job = finished_job(site, boss.json()["id"], "boss")
    assert job["state"] == "done"
    # The job is its maker's (and the admins'): anyone else finds none.
    for who in ("other", "owner", None):
        status = site.call("GET", f"/api/exports/{job['id']}", who).status_code
        assert status == (401 if who is None else 404), who
        download = site.call("GET", job["download"], who).status_code
        assert download == (401 if who is None else 404), who
    assert job["id"] not in [j["id"] for j in site.call("GET", "/api/exports", "owner").json()]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "games", "target": "owner"}, "kind"),
        ({"kind": "user"}, "target"),
        ({"kind": "user", "target": ""}, "target"),
        ({"kind": "user", "target": "x" * 101}, "target"),
        ({"kind": "ladder", "target": "no-such-ladder"}, "target"),
        ({"kind": "tournament", "target": "no-such-cup"}, "target"),
        ({"kind": "user", "target": "owner", "format": "tar"}, "format"),
    ],
)
def test_bad_exports_are_refused_naming_the_field(
    site: Site, body: dict[str, Any], field: str
) -> None:
    answer = site.call("POST", "/api/exports", "boss", json=body)
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert isinstance(detail, list) and detail[0]["loc"][-1] == field, detail


def test_a_bad_job_id_is_a_json_4xx(site: Site) -> None:
    for path in ("/api/exports/NOT-HEX", "/api/exports/" + "a" * 33 + "/download"):
        answer = site.call("GET", path, "owner")
        assert answer.status_code == 422 and answer.json()["detail"][0]["loc"][-1] == "job_id"
    missing = site.call("GET", "/api/exports/" + "a" * 32, "owner")
    assert missing.status_code == 404 and "detail" in missing.json()


def test_an_export_past_the_size_cap_fails_saying_so(tmp_path: Any) -> None:
    db = tmp_path / "small.db"
    with Store(f"sqlite:///{db}") as store:
        headers = {"owner": make_user(store, "owner")}
        config = ServerConfig(
            database_url=f"sqlite:///{db}", public=True, signup="closed", export_max_bytes=2000
        )
        app = create_app(config, store=store)
        with serve(app) as url:
            small = Site(url, store, app.state.exports, headers)
            for seed in (1, 2, 3):
                small.game("owner", seed)
            job = small.call(
                "POST", "/api/exports", "owner", json={"kind": "user", "target": "owner"}
            )
            done = finished_job(small, job.json()["id"], "owner")
            assert done["state"] == "failed" and "cap of 2000 bytes" in done["error"]
            assert done["download"] is None
            refused = small.call("GET", f"/api/exports/{done['id']}/download", "owner")
            assert refused.status_code == 409 and "failed" in refused.json()["detail"]


def test_a_job_whose_server_stopped_is_failed_not_left_running(site: Site) -> None:
    when = dt.datetime.now(dt.UTC)
    owner = site.store.accounts.user("owner")
    with site.store.db.session() as session:
        session.add(
            ExportJobModel(
                id="f" * 32,
                owner_id=owner.id,
                kind="user",
                target="owner",
                state="running",
                total=5,
                done=2,
                size_bytes=100,
                error="",
                server_id="gone",
                lease_until=when - dt.timedelta(seconds=1),
                created_at=when,
                updated_at=when,
                expires_at=when + dt.timedelta(hours=1),
            )
        )
    job = job_state(site, "f" * 32, "owner")
    assert job["state"] == "failed" and "interrupted" in job["error"]


# -- saved games ---------------------------------------------------------------------------


def test_a_user_saves_titles_lists_and_forgets_games_of_their_own(site: Site) -> None:
    first, second = site.game("owner", 31), site.game("other", 32)
    for game_id, title in ((first, "My best"), (second, "Their loss")):
        saved = site.call("PUT", f"/api/saved/{game_id}", "owner", json={"title": title})
        assert saved.status_code == 200, saved.text
        assert saved.json()["title"] == title and saved.json()["url"] == f"/view/{game_id}"
    renamed = site.call("PUT", f"/api/saved/{first}", "owner", json={"title": "  Renamed "})
    assert renamed.json()["title"] == "Renamed"
    mine = site.call("GET", "/api/saved", "owner").json()
    assert [(s["game_id"], s["title"]) for s in mine] == [
        (second, "Their loss"),
        (first, "Renamed"),
    ]
    assert mine[1]["entrants"] == ["random", "greedy"] and mine[1]["status"] == "complete"
    # Another user's list is theirs alone.
    assert site.call("GET", "/api/saved", "other").json() == []
    assert site.call("GET", f"/api/saved/{first}", "other").status_code == 404
    assert site.call("DELETE", f"/api/saved/{first}", "other").status_code == 404
    assert site.call("DELETE", f"/api/saved/{first}", "owner").status_code == 204
    assert [s["game_id"] for s in site.call("GET", "/api/saved", "owner").json()] == [second]
    # The game itself stays.
    assert site.call("GET", f"/api/games/{first}", None).status_code == 200


def test_saving_is_for_users_and_bad_titles_and_games_are_refused(site: Site) -> None:
    game_id = site.game("owner", 41)
    assert site.call("PUT", f"/api/saved/{game_id}", None, json={"title": "x"}).status_code == 401
    assert site.call("GET", "/api/saved", None).status_code == 401
    for title in ("", "   ", "x" * 121):
        answer = site.call("PUT", f"/api/saved/{game_id}", "owner", json={"title": title})
        assert answer.status_code == 422 and answer.json()["detail"][0]["loc"][-1] == "title"
    extra = site.call("PUT", f"/api/saved/{game_id}", "owner", json={"title": "t", "x": 1})
    assert extra.status_code == 422 and extra.json()["detail"][0]["loc"][-1] == "x"
    missing = site.call("PUT", "/api/saved/no-such-game", "owner", json={"title": "t"})
    assert missing.status_code == 404 and "no-such-game" in missing.json()["detail"]


# -- link previews and embeds ------------------------------------------------------------------


def meta_tags(html: str) -> dict[str, str]:
    return {
        m[1]: m[2].replace("&amp;", "&")
        for m in re.finditer(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">', html)
    }


def has_gold(png: bytes) -> bool:
    """Whether a preview card (an 8-bit RGB PNG, filter 0 rows) has any gold pixel."""
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    at, data, width = 8, b"", 0
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            width = struct.unpack(">I", body[:4])[0]
        elif kind == b"IDAT":
            data += body
        at += 12 + length
    raw = zlib.decompress(data)
    stride = 1 + 3 * width
    return any(
        raw[y + 1 + 3 * x : y + 4 + 3 * x] == GOLD
        for y in range(0, len(raw), stride)
        for x in range(0, width, 4)
    )


def game_with_winner(site: Site) -> tuple[str, dict[str, Any]]:
    """A finished game with one winner (the preview must hide it)."""
    for seed in range(50, 60):
        game_id = site.game("owner", seed)
        game: dict[str, Any] = site.call("GET", f"/api/games/{game_id}", None).json()
        if game["winner"]:
            return game_id, game
    raise AssertionError("ten games and no winner")


def test_preview_tags_name_no_winner_unless_the_sharer_asked(site: Site) -> None:
    game_id, game = game_with_winner(site)
    page = site.call("GET", f"/view/{game_id}", None)
    tags = meta_tags(page.text)
    for name in ("og:title", "og:description", "og:image", "og:url", "twitter:card"):
        assert tags.get(name), name
    assert tags["twitter:card"] == "summary_large_image"
    assert tags["og:url"] == f"{site.url}/view/{game_id}"
    assert tags["og:image"] == f"{site.url}/api/games/{game_id}/preview.png"
    for name in ("og:title", "og:description", "twitter:title", "twitter:description"):
        assert " won" not in tags[name] and "winner" not in tags[name].lower(), tags[name]
    image = site.call("GET", f"/api/games/{game_id}/preview.png", None)
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    assert not has_gold(image.content)

    shared = meta_tags(site.call("GET", f"/view/{game_id}?turn=4&reveal=1", None).text)
    assert shared["og:description"].startswith(f"{game['winner']} won a game of")
    assert shared["og:url"] == f"{site.url}/view/{game_id}?turn=4&reveal=1"
    assert shared["og:image"].endswith("/preview.png?reveal=1")
    revealed = site.call("GET", f"/api/games/{game_id}/preview.png?reveal=1", None)
    assert has_gold(revealed.content)
    assert site.call("GET", "/api/games/nope/preview.png", None).status_code == 404


def test_the_embed_is_the_board_at_a_turn_that_any_site_may_frame(site: Site) -> None:
    game_id = site.game("owner", 61)
    moved = site.call("GET", f"/embed/{game_id}?turn=3", None, follow_redirects=False)
    assert moved.status_code == 307
    board = moved.headers["location"]
    assert "turn=3" in board and board.endswith("embed=1") and f"game={game_id}" in board
    framed = site.call("GET", board, None)
    assert framed.status_code == 200
    assert "frame-ancestors *" in framed.headers["content-security-policy"]
    assert "x-frame-options" not in framed.headers
    # Every other page stays framed by the site only, the game's page included.
    page = site.call("GET", f"/view/{game_id}", None)
    assert "frame-ancestors 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "SAMEORIGIN"
    plain = site.call("GET", board.replace("&embed=1", ""), None)
    assert "frame-ancestors 'self'" in plain.headers["content-security-policy"]
    assert site.call("GET", "/embed/no-such-game", None).status_code == 404


def test_the_pages_show_anonymous_visitors_no_control_that_changes_anything(site: Site) -> None:
    game_id = site.game("owner", 71)
    page = site.call("GET", f"/view/{game_id}", None).text
    assert 'data-testid="share-panel"' in page and 'data-testid="share-link"' in page
    for control in ("save-form", "save-game", "rematch"):
        assert f'data-testid="{control}"' not in page, control
    member = site.call("GET", f"/view/{game_id}", "other").text
    assert 'data-testid="save-form"' in member
    tv = site.call("GET", "/tv?dwell=7&ladder=lad", None)
    assert tv.status_code == 200 and 'data-dwell="7"' in tv.text and 'data-ladder="lad"' in tv.text
    assert 'method="post"' not in tv.text.lower()
    saved = site.call("GET", "/saved", None, follow_redirects=False)
    assert saved.status_code == 303 and saved.headers["location"] == "/login"
    # Seconds per game out of range come back in range, not as an error.
    assert 'data-dwell="3"' in site.call("GET", "/tv?dwell=1", None).text
    assert 'data-dwell="20"' in site.call("GET", "/tv?dwell=abc", None).text


def test_serve_takes_the_export_caps_and_refuses_bad_ones(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from snakewar.command import main

    configs = recorded_configs(monkeypatch)
    argv = ["serve", "--database", "memory", "--export-max-games", "50", "--export-max-mib", "2"]
    assert main(argv) == 0
    assert [(c.export_max_games, c.export_max_bytes) for c in configs] == [(50, 2 << 20)]
    capsys.readouterr()
    for flag, wrong, most in (
        ("--export-max-games", "0", 100_000),
        ("--export-max-mib", "1025", 1024),
    ):
        assert main(["serve", "--database", "memory", flag, wrong]) == 2
        assert capsys.readouterr().err == f"error: {flag} {wrong}: expected 1 to {most}\n"
    assert len(configs) == 1
    with pytest.raises(ValueError, match="export_workers 0: expected at least 1"):
        create_app(ServerConfig(database_url="memory", export_workers=0))


def test_a_server_that_stops_fails_its_exports_in_progress(tmp_path: Any) -> None:
    db = tmp_path / "stop.db"
    with Store(f"sqlite:///{db}") as store:
        headers = {"owner": make_user(store, "owner")}
        config = ServerConfig(database_url=f"sqlite:///{db}", public=True, signup="closed")
        app = create_app(config, store=store)
        held = Gate()  # never opened: the export waits before its first game
        with serve(app) as url:
            stopping = Site(url, store, app.state.exports, headers)
            stopping.game("owner", 1)
            stopping.exports.before_game = held
            job = stopping.call(
                "POST", "/api/exports", "owner", json={"kind": "user", "target": "owner"}
            ).json()
            wait_for(lambda: job_state(stopping, job["id"], "owner")["state"] == "running", "run")
        stopped = store.sharing.job(job["id"])
        assert stopped is not None and stopped.state == "failed"
        assert "the server stopped" in stopped.error


def test_ladder_and_tournament_pages_link_to_tv_mode_and_to_their_export(site: Site) -> None:
    made = site.call("POST", "/api/ladders", "boss", json={"name": "linked", **BOARD})
    assert made.status_code == 201, made.text
    cup = site.call(
        "POST",
        "/api/tournaments",
        "boss",
        json={"name": "Linked", "snakes": ["builtin:random"] * 2, "start": False, **BOARD},
    )
    assert cup.status_code == 201, cup.text
    tid = cup.json()["id"]
    for page, kind, target in (
        ("/ladders/linked", "ladder", "linked"),
        (f"/tournaments/{tid}", "tournament", tid),
    ):
        member = site.call("GET", page, "other").text
        assert f'href="/tv?{kind}={target}"' in member
        assert f'href="/saved?kind={kind}&amp;target={target}"' in member
        visitor = site.call("GET", page, None).text
        assert f'href="/tv?{kind}={target}"' in visitor and "/saved?" not in visitor
