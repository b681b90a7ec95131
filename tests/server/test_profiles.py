"""Profiles over real HTTP: the games API's filters and paging, snake and user pages,
the directory, ladder placement and secondary scorers, and ladder entry pages.

A public server on loopback (its snakes are real snake servers on loopback, which the
operator allows), its games real games stored as the server stores them.
"""

from __future__ import annotations

import datetime as dt
import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from snakewar.arena.config import MatchConfig
from snakewar.arena.ladder import Ladder, LadderSettings
from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.accounts import make_user
from tests.storage.test_profiles import game

T0 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
SMALL = MatchConfig.create("battlesnake", {"width": 7, "height": 7}, max_turns=60)


@dataclass
class Site:
    url: str
    store: Store
    servers: SnakeServers
    tokens: dict[str, dict[str, str]]

    def get(self, path: str, as_user: str | None = None, **params: Any) -> httpx.Response:
        headers = self.tokens[as_user] if as_user else {}
        return httpx.get(self.url + path, params=params, headers=headers, timeout=60)

    def send(self, method: str, path: str, as_user: str, **kwargs: Any) -> httpx.Response:
        headers = self.tokens[as_user]
        return httpx.request(method, self.url + path, headers=headers, timeout=60, **kwargs)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    db: Path = tmp_path_factory.mktemp("profiles") / "site.db"
    config = ServerConfig(
        database_url=f"sqlite:///{db}", public=True, allowed_networks=("127.0.0.0/8",)
    )
    with Store(f"sqlite:///{db}") as store, SnakeServers() as servers:
        tokens = {
            "boss": make_user(store, "boss", admin=True),
            "alice": make_user(store, "alice"),
            "bob": make_user(store, "bob"),
        }
        with serve(create_app(config, store=store)) as url:
            running = Site(url, store, servers, tokens)
            _populate(running)
            yield running


def _populate(site: Site) -> None:
    for owner, name, tags, visibility in (
        ("alice", "fang", ["python", "minimax"], "public"),
        ("alice", "secret", [], "private"),
        ("bob", "coil", ["go"], "public"),
    ):
        made = site.send(
            "POST",
            "/api/snakes",
            owner,
            json={
                "name": name,
                "url": site.servers.url("good"),
                "tags": tags,
                "visibility": visibility,
            },
        )
        assert made.status_code == 201, made.text
    alice = site.store.accounts.user("alice").id
    bob = site.store.accounts.user("bob").id
    # Twelve stored games, an hour apart, newest last.
    plan: list[tuple[tuple[str, str], str, int | None]] = [
        (("@alice/fang", "builtin:random"), "custom", alice),
        (("@bob/coil", "@alice/fang"), "ladder:club", None),
        (("@bob/coil", "builtin:greedy"), "tournament:cup", bob),
        (("builtin:random", "builtin:greedy"), "custom", bob),
    ] * 3
    for i, (names, source, starter) in enumerate(plan):
        played = game(1 + i % 4, f"game-{i:02d}", names, source)
        created = T0 + dt.timedelta(hours=i)
        site.store.games.save_played(played, created_at=created, owner_id=starter)
    site.store.games.add_calls(
        "game-00",
        1,
        [
            {"kind": "move", "name": "@alice/fang", "latency_ms": ms, "status": "ok"}
            for ms in (5, 7)
        ],
    )
    # A ladder with its placement at 4 games, played by built-ins and alice's fang.
    ladder = Ladder("club", SMALL, seed=3)
    for bot in ("random", "greedy"):
        ladder.add(f"builtin:{bot}", bot)
    ladder.settings = LadderSettings(placement_games=4)
    site.store.ladders.create(ladder)
    assert ladder.run(5, site.store) == 5


def ids(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    return [g["id"] for g in response.json()["games"]]


def field_of(response: httpx.Response) -> str:
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, list) and detail, detail
    return str(detail[0]["loc"][-1])


def test_games_are_filtered_by_snake_user_ladder_tournament_status_and_date(site: Site) -> None:
    assert ids(site.get("/api/games", snake="@alice/fang")) == [
        f"game-{i:02d}" for i in (9, 8, 5, 4, 1, 0)
    ]
    # alice started 0, 4, 8; her fang played 1, 5, 9 too.
    assert ids(site.get("/api/games", user="alice")) == ids(
        site.get("/api/games", snake="@alice/fang")
    )
    assert ids(site.get("/api/games", user="bob")) == [
        f"game-{i:02d}" for i in (11, 10, 9, 7, 6, 5, 3, 2, 1)
    ]
    assert ids(site.get("/api/games", user="nobody")) == []
    # The ladder's five games (played now) and the three stored as its, from March.
    club = site.get("/api/games", ladder="club", game="battlesnake")
    assert club.json()["total"] == 8
    assert ids(club)[-3:] == ["game-09", "game-05", "game-01"]
    assert ids(site.get("/api/games", ladder="club", game="halite3")) == []
    assert ids(site.get("/api/games", tournament="cup")) == ["game-10", "game-06", "game-02"]
    assert ids(site.get("/api/games", status="aborted")) == []
    window = {"from": "2026-03-01T02:00:00Z", "to": "2026-03-01T05:00:00"}  # no zone: UTC
    assert ids(site.get("/api/games", snake="@bob/coil", **window)) == ["game-02"]
    assert ids(site.get("/api/games", **window)) == ["game-04", "game-03", "game-02"]


def test_games_come_a_page_at_a_time(site: Site) -> None:
    seen: list[str] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        page = site.get("/api/games", user="bob", limit=4, offset=offset)
        body = page.json()
        assert body["total"] == 9
        seen += ids(page)
        offset = body["next_offset"]
        pages += 1
    assert pages == 3
    assert seen == ids(site.get("/api/games", user="bob", limit=50))


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"snake": "alice/fang"}, "snake"),
        ({"snake": "@Alice/fang"}, "snake"),
        ({"user": "Bad Name"}, "user"),
        ({"status": "won"}, "status"),
        ({"from": "yesterday"}, "from"),
        ({"to": "2026-13-01"}, "to"),
        ({"limit": "0"}, "limit"),
        ({"limit": "100000"}, "limit"),
        ({"offset": "-1"}, "offset"),
        ({"ladder": "x" * 200}, "ladder"),
        ({"from": "2026-03-02T00:00:00Z", "to": "2026-03-01T00:00:00Z"}, "to"),
        ({"ladder": "club", "tournament": "cup"}, "tournament"),
    ],
)
def test_a_bad_filter_is_a_422_naming_it(site: Site, params: dict[str, str], field: str) -> None:
    assert field_of(site.get("/api/games", **params)) == field


def test_the_directory_searches_and_pages_public_snakes(site: Site) -> None:
    def refs(as_user: str | None = None, **params: Any) -> list[str]:
        found = site.get("/api/snakes/directory", as_user, **params)
        assert found.status_code == 200, found.text
        return [s["ref"] for s in found.json()["snakes"]]

    assert refs() == ["@bob/coil", "@alice/fang"]
    assert refs("alice") == ["@bob/coil", "@alice/fang", "@alice/secret"]
    assert refs(q="minimax") == ["@alice/fang"]
    assert refs(q="bob") == ["@bob/coil"]
    assert refs(q="secret") == []  # someone else's private snake does not exist
    first = site.get("/api/snakes/directory", limit=1).json()
    assert (first["total"], first["next_offset"]) == (2, 1)
    # Nobody's address is shown but to its owner.
    assert all(s["url"] is None for s in site.get("/api/snakes/directory").json()["snakes"])
    assert field_of(site.get("/api/snakes/directory", q="x" * 101)) == "q"
    assert field_of(site.get("/api/snakes/directory", owner="No One")) == "owner"


def test_a_snakes_profile_has_its_ladders_latency_and_health(site: Site) -> None:
    coil = next(
        s for s in site.get("/api/snakes/directory").json()["snakes"] if s["name"] == "coil"
    )
    fang = next(
        s for s in site.get("/api/snakes/directory").json()["snakes"] if s["name"] == "fang"
    )
    profile = site.get(f"/api/snakes/{fang['id']}/profile").json()
    assert profile["snake"]["tags"] == ["python", "minimax"]
    assert profile["snake"]["url"] is None and profile["can_change"] is False
    assert profile["latency"] == {
        "games": 1,
        "calls": 2,
        "p50_ms": 5.0,
        "p95_ms": 7.0,
        "timeouts": 0,
    }
    assert profile["health"]["status"] == "unchecked"  # on no ladder: nothing checks it
    assert profile["ladders"] == []
    mine = site.get(f"/api/snakes/{fang['id']}/profile", "alice").json()
    assert mine["can_change"] is True and mine["snake"]["url"] == site.servers.url("good")
    # Paused by its owner: its health says so.
    assert site.send("PATCH", f"/api/snakes/{coil['id']}", "bob", json={"paused": True}).is_success
    assert site.get(f"/api/snakes/{coil['id']}/profile").json()["health"] == {
        "status": "paused",
        "detail": "paused by its owner",
    }
    assert site.send("PATCH", f"/api/snakes/{coil['id']}", "bob", json={"paused": False}).is_success
    secret = next(
        s
        for s in site.get("/api/snakes/directory", "alice").json()["snakes"]
        if s["name"] == "secret"
    )
    assert site.get(f"/api/snakes/{secret['id']}/profile").status_code == 404
    assert site.get(f"/api/snakes/{secret['id']}/profile", "bob").status_code == 404
    assert site.get(f"/api/snakes/{secret['id']}/profile", "alice").status_code == 200
    assert site.get("/api/snakes/999999/profile").status_code == 404


def test_a_users_profile_has_their_snakes_and_bots(site: Site) -> None:
    alice = site.get("/api/users/alice/profile").json()
    assert [s["ref"] for s in alice["snakes"]] == ["@alice/fang"]
    assert alice["bots"] == []
    assert [s["ref"] for s in site.get("/api/users/alice/profile", "alice").json()["snakes"]] == [
        "@alice/fang",
        "@alice/secret",
    ]
    assert site.get("/api/users/nobody/profile").status_code == 404
    assert field_of(site.get("/api/users/No%20One/profile")) == "name"


def test_a_ladder_shows_placement_and_secondary_scorers(site: Site) -> None:
    ladder = site.get("/api/ladders/club").json()
    assert ladder["placement_games"] == 4
    assert [s["key"] for s in ladder["scorers"]] == ["food", "length", "turns_alive"]
    standings = ladder["standings"]
    assert {s["snake"] for s in standings} == {"random", "greedy"}
    for line in standings:
        assert line["games"] == 5 and not line["in_placement"] and line["rank"] is not None
        assert 0.0 <= line["win_rate"] <= 1.0
        assert line["win_rate"] == pytest.approx(line["wins"] / line["games"])
        assert set(line["stats"]) == {"food", "length", "turns_alive"}
    # A higher placement puts both back in placement: unranked, listed with what is left.
    changed = site.send("PATCH", "/api/ladders/club", "boss", json={"placementGames": 8})
    assert changed.status_code == 200, changed.text
    standings = site.get("/api/ladders/club").json()["standings"]
    assert all(s["rank"] is None and s["in_placement"] for s in standings)
    assert all(s["placement_left"] == 3 for s in standings)
    assert site.send("PATCH", "/api/ladders/club", "boss", json={"placementGames": 4}).is_success
    # Only its admin changes it, and within bounds.
    refused = site.send("PATCH", "/api/ladders/club", "alice", json={"placementGames": 0})
    assert refused.status_code == 403
    too_many = site.send("PATCH", "/api/ladders/club", "boss", json={"placementGames": 1001})
    assert field_of(too_many) == "placementGames"


def test_a_ladder_entry_has_its_history_with_deltas(site: Site) -> None:
    entry = site.get("/api/ladders/club/entries/random").json()
    assert (entry["ladder"], entry["entrant"], entry["games"]) == ("club", "random", 5)
    history = entry["history"]
    assert len(history) == 5 and history[0]["delta"] is None
    for before, step in itertools.pairwise(history):
        assert step["delta"] == pytest.approx(step["rating"] - before["rating"])
        assert step["viewer"] == f"/view/{step['game_id']}"
    assert entry["rating"] == pytest.approx(history[-1]["rating"])
    assert sum(entry["placements"].values()) == 5
    assert entry["wins"] == sum(1 for step in history if step["won"])
    assert entry["rank"] in (1, 2) and entry["ranked"] == 2
    assert site.get("/api/ladders/club/entries/nobody").status_code == 404
    assert site.get("/api/ladders/nope/entries/random").status_code == 404


def test_a_live_game_is_listed_by_its_filters(site: Site) -> None:
    started = site.send(
        "POST",
        "/api/games",
        "alice",
        json={"snakes": ["@bob/coil", "builtin:random"], "params": {"width": 7, "height": 7}},
    )
    assert started.status_code == 201, started.text
    game_id = started.json()["id"]
    deadline = time.monotonic() + 120
    while True:
        found = site.get("/api/games", snake="@bob/coil", limit=1).json()
        listed = [g["id"] for g in found["live"]] + [g["id"] for g in found["games"]]
        if game_id in listed:
            break
        assert time.monotonic() < deadline, found
        time.sleep(0.05)
    # alice started it: it is hers too; not fang's.
    mine = site.get("/api/games", user="alice", limit=1).json()
    assert game_id in [g["id"] for g in mine["live"]] + [g["id"] for g in mine["games"]]
    fangs = site.get("/api/games", snake="@alice/fang").json()
    assert game_id not in [g["id"] for g in fangs["live"]] + [g["id"] for g in fangs["games"]]


def test_tags_are_checked(site: Site) -> None:
    bad = site.send(
        "POST",
        "/api/snakes",
        "bob",
        json={"name": "tagged", "url": site.servers.url("good"), "tags": ["Not A Tag"]},
    )
    assert bad.status_code == 422 and "tags" in [str(p) for p in bad.json()["detail"][0]["loc"]]
