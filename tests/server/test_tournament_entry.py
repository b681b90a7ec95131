"""Tournaments people enter, over real HTTP on a public server (uvicorn on loopback).

Registration open, closed and owner-only, with a deadline and caps (in all and per
owner); qualifying from a ladder's top N with a per-owner cap; edits refused once it
started; bad input answered with a 4xx JSON error naming the field; the next round run
by an admin; a scheduled tournament started and played round by round by the elected
tournament scheduler, which tells its ``on_started`` callbacks.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from snakewar.server import ServerConfig, create_app
from snakewar.server.tournament_scheduler import LEASE_NAME, TournamentStarted
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.accounts import make_user
from tests.server.multi_server import wait_until

BOARD = {"width": 7, "height": 7}


@dataclass
class Site:
    """A public server, its app and store, snake servers, and API tokens by user."""

    url: str
    app: FastAPI
    store: Store
    servers: SnakeServers
    tokens: dict[str, dict[str, str]] = field(default_factory=dict)
    started: list[TournamentStarted] = field(default_factory=list)

    def call(self, who: str | None, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = self.tokens[who] if who is not None else {}
        return httpx.request(method, self.url + path, headers=headers, timeout=60, **kwargs)

    def user(self, name: str, *, admin: bool = False) -> str:
        self.tokens[name] = make_user(self.store, name, admin=admin)
        return name

    def snake(self, owner: str, name: str) -> str:
        made = self.call(
            owner, "POST", "/api/snakes", json={"name": name, "url": self.servers.url("good")}
        )
        assert made.status_code == 201, made.text
        return f"@{owner}/{name}"

    def tournament(self, **body: Any) -> str:
        made = self.call(
            "boss",
            "POST",
            "/api/tournaments",
            json={"name": "Cup", "start": False, **BOARD, **body},
        )
        assert made.status_code == 201, made.text
        tid: str = made.json()["id"]
        return tid

    def get(self, tid: str, who: str | None = "boss") -> dict[str, Any]:
        got = self.call(who, "GET", f"/api/tournaments/{tid}")
        assert got.status_code == 200, got.text
        data: dict[str, Any] = got.json()
        return data


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    db = tmp_path_factory.mktemp("entry") / "site.db"
    config = ServerConfig(
        database_url=f"sqlite:///{db}",
        public=True,
        signup="invite",
        allowed_networks=("127.0.0.0/8",),  # the test's snakes run on loopback
        scheduler_lease_s=3.0,
    )
    with Store(f"sqlite:///{db}") as store, SnakeServers() as servers:
        app = create_app(config, store=store)
        with serve(app) as url:
            found = Site(url, app, store, servers)
            found.user("boss", admin=True)
            found.user("root", admin=True)
            app.state.tournament_scheduler.on_started.append(found.started.append)
            yield found


def detail(response: httpx.Response) -> str:
    body = response.json()["detail"]
    return body if isinstance(body, str) else " ".join(e["msg"] for e in body)


def field_of(response: httpx.Response) -> str:
    loc: list[str] = response.json()["detail"][0]["loc"]
    return loc[-1]


def names(data: dict[str, Any]) -> list[str]:
    return [s["name"] for s in data["snakes"]]


def test_open_registration_takes_users_own_snakes_until_it_starts(site: Site) -> None:
    amy, bob = site.user("amy"), site.user("bob")
    mine, theirs = site.snake(amy, "one"), site.snake(bob, "two")
    tid = site.tournament(registration="open")
    cup = site.get(tid, None)
    assert cup["phase"] == "registering" and cup["registration"]["open"] is True
    assert cup["creator"] == "boss" and cup["snakes"] == []
    path = f"/api/tournaments/{tid}/entrants"
    anonymous = site.call(None, "POST", path, json={"snake": mine})
    assert anonymous.status_code == 401
    not_hers = site.call(amy, "POST", path, json={"snake": theirs})
    assert not_hers.status_code == 403 and "their own snakes" in detail(not_hers)
    builtin = site.call(amy, "POST", path, json={"snake": "builtin:random"})
    assert builtin.status_code == 403 and "registered snake" in detail(builtin)
    entered = site.call(amy, "POST", path, json={"snake": mine})
    assert entered.status_code == 201, entered.text
    assert names(entered.json()) == [mine]
    twice = site.call(amy, "POST", path, json={"snake": mine})
    assert twice.status_code == 409 and "entered already" in detail(twice)
    assert site.call(bob, "POST", path, json={"snake": theirs}).status_code == 201
    # Admins enter anything the game takes; the owner, or an admin, withdraws an entrant.
    assert site.call("boss", "POST", path, json={"snake": "builtin:greedy"}).status_code == 201
    assert names(site.get(tid)) == [mine, theirs, "greedy"]
    bobs = site.call(amy, "DELETE", f"{path}/{theirs}")
    assert bobs.status_code == 403 and "not yours" in detail(bobs)
    assert site.call(bob, "DELETE", f"{path}/{theirs}").status_code == 204
    assert site.call(bob, "DELETE", f"{path}/{theirs}").status_code == 404
    assert names(site.get(tid)) == [mine, "greedy"]
    # Once started, the entrants are what they are.
    ran = site.call("boss", "POST", f"/api/tournaments/{tid}/round")
    assert ran.status_code == 202, ran.text
    assert ran.json()["phase"] == "running"
    late = site.call(bob, "POST", path, json={"snake": theirs})
    assert late.status_code == 409 and "has started" in detail(late)
    gone = site.call(amy, "DELETE", f"{path}/{mine}")
    assert gone.status_code == 409 and "has started" in detail(gone)


def test_closed_and_owner_only_registration(site: Site) -> None:
    cat = site.user("cat")
    hers = site.snake(cat, "cs")
    root = site.snake("root", "rs")
    boss = site.snake("boss", "bs")
    closed = site.tournament()
    path = f"/api/tournaments/{closed}/entrants"
    refused = site.call(cat, "POST", path, json={"snake": hers})
    assert refused.status_code == 403 and "registration is closed" in detail(refused)
    assert site.get(closed, None)["phase"] == "upcoming"
    # Its admins enter snakes whatever the registration says.
    assert site.call("boss", "POST", path, json={"snake": hers}).status_code == 201
    owner = site.tournament(registration="owner")
    path = f"/api/tournaments/{owner}/entrants"
    users = site.call(cat, "POST", path, json={"snake": hers})
    assert users.status_code == 403 and "creator and of admins" in detail(users)
    # Not even an admin enters a user's snake: only the creator's and admins' snakes play.
    by_admin = site.call("boss", "POST", path, json={"snake": hers})
    assert by_admin.status_code == 403
    assert site.call("boss", "POST", path, json={"snake": boss}).status_code == 201
    assert site.call("root", "POST", path, json={"snake": root}).status_code == 201
    assert names(site.get(owner)) == [boss, root]


def test_a_deadline_closes_registration_for_users(site: Site) -> None:
    dan = site.user("dan")
    first, second = site.snake(dan, "d1"), site.snake(dan, "d2")
    soon = dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
    tid = site.tournament(registration="open", registration_closes_at=soon.isoformat())
    path = f"/api/tournaments/{tid}/entrants"
    assert site.call(dan, "POST", path, json={"snake": first}).status_code == 201
    past = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
    moved = site.call(
        "boss",
        "PATCH",
        f"/api/tournaments/{tid}",
        json={"registration_closes_at": past.isoformat()},
    )
    assert moved.status_code == 200, moved.text
    assert moved.json()["registration"]["open"] is False and moved.json()["phase"] == "upcoming"
    late = site.call(dan, "POST", path, json={"snake": second})
    assert late.status_code == 409 and "registration closed at" in detail(late)
    # A deadline cleared: open until it starts.
    cleared = site.call(
        "boss", "PATCH", f"/api/tournaments/{tid}", json={"registration_closes_at": None}
    )
    assert cleared.json()["registration"]["closes_at"] is None
    assert site.call(dan, "POST", path, json={"snake": second}).status_code == 201


def test_caps_in_all_and_per_owner(site: Site) -> None:
    eve, fay = site.user("eve"), site.user("fay")
    e1, e2, f1 = site.snake(eve, "e1"), site.snake(eve, "e2"), site.snake(fay, "f1")
    tid = site.tournament(registration="open", per_owner=1, max_entrants=2)
    path = f"/api/tournaments/{tid}/entrants"
    assert site.call(eve, "POST", path, json={"snake": e1}).status_code == 201
    capped = site.call(eve, "POST", path, json={"snake": e2})
    assert capped.status_code == 409 and "per_owner 1" in detail(capped)
    assert site.call(fay, "POST", path, json={"snake": f1}).status_code == 201
    full = site.call("boss", "POST", path, json={"snake": "builtin:random"})
    assert full.status_code == 409 and "is full" in detail(full)
    cup = site.get(tid)
    assert names(cup) == [e1, f1]
    assert cup["registration"] == {
        "mode": "open",
        "closes_at": None,
        "open": True,
        "max_entrants": 2,
        "per_owner": 1,
    }


def test_edits_are_refused_once_it_started(site: Site) -> None:
    tid = site.tournament(snakes=["builtin:random", "builtin:greedy"], registration="open")
    cup = f"/api/tournaments/{tid}"
    assert site.call("boss", "PATCH", cup, json={"per_owner": 3}).status_code == 200
    assert site.call("boss", "POST", f"{cup}/round").status_code == 202
    for body in ({"registration": "closed"}, {"name": "x"}, {"add": ["builtin:hunter"]}):
        refused = site.call("boss", "PATCH", cup, json=body)
        assert refused.status_code == 409, body
        assert "has started" in detail(refused) and "fixed now" in detail(refused)
    qualify = site.call("boss", "POST", f"{cup}/qualify", json={"ladder": "x", "top": 2})
    assert qualify.status_code == 409 and "has started" in detail(qualify)
    assert site.get(tid)["registration"]["per_owner"] == 3


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"registration": "everyone"}, "registration"),
        ({"per_owner": 0}, "per_owner"),
        ({"max_entrants": 1}, "max_entrants"),
        ({"round_gap_s": -1}, "round_gap_s"),
        ({"starts_at": "2030-01-01T00:00:00"}, "starts_at"),  # no time zone
        ({"registration_closes_at": "tomorrow"}, "registration_closes_at"),
        (
            {
                "starts_at": "2030-01-01T00:00:00Z",
                "registration_closes_at": "2030-01-02T00:00:00Z",
            },
            "registration_closes_at",
        ),
        ({"start": True, "starts_at": "2030-01-01T00:00:00Z"}, "start"),
        ({"start": True}, "snakes"),  # started now, with nobody
    ],
)
def test_bad_settings_are_a_422_naming_the_field(
    site: Site, body: dict[str, Any], named: str
) -> None:
    made = site.call(
        "boss", "POST", "/api/tournaments", json={"name": "Bad", "start": False, **body}
    )
    assert made.status_code == 422, made.text
    assert field_of(made) == named, made.json()


def test_bad_entries_and_qualifiers_are_4xx_json_naming_what_is_wrong(site: Site) -> None:
    tid = site.tournament(registration="open")
    cup = f"/api/tournaments/{tid}"
    for body, status, named in (
        ({"snake": ""}, 422, "snake"),
        ({"snake": "x" * 101}, 422, "snake"),
        ({"snake": "@boss/a", "extra": 1}, 422, "extra"),
        ({}, 422, "snake"),
    ):
        bad = site.call("boss", "POST", f"{cup}/entrants", json=body)
        assert bad.status_code == status and field_of(bad) == named, bad.text
    missing = site.call("boss", "POST", f"{cup}/entrants", json={"snake": "@boss/nothing"})
    assert missing.status_code == 404 and "@boss/nothing" in detail(missing)
    for body, named in (
        ({"ladder": "main", "top": 1}, "top"),
        ({"ladder": "", "top": 4}, "ladder"),
        ({"ladder": "main", "top": 4, "per_owner": 0}, "per_owner"),
        ({"ladder": "main"}, "top"),
    ):
        bad = site.call("boss", "POST", f"{cup}/qualify", json=body)
        assert bad.status_code == 422 and field_of(bad) == named, bad.text
    nowhere = site.call("boss", "POST", f"{cup}/qualify", json={"ladder": "nowhere", "top": 4})
    assert nowhere.status_code == 404 and "nowhere" in detail(nowhere)
    member = site.user("gil")
    admins_only: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", f"{cup}/qualify", {"ladder": "main", "top": 4}),
        ("POST", f"{cup}/round", None),
        ("PATCH", cup, {"registration": "closed"}),
    ]
    for method, path, payload in admins_only:
        refused = site.call(member, method, path, json=payload)
        assert refused.status_code == 403, (path, refused.text)
    too_few = site.call("boss", "POST", f"{cup}/round")
    assert too_few.status_code == 409 and "needs 2" in detail(too_few)
    assert site.call("boss", "POST", "/api/tournaments/nope/round").status_code == 404


def test_qualifying_takes_a_ladders_top_n_with_at_most_k_per_owner(site: Site) -> None:
    hal, ivy = site.user("hal"), site.user("ivy")
    snakes = [site.snake(hal, "h1"), site.snake(hal, "h2"), site.snake(hal, "h3")]
    snakes.append(site.snake(ivy, "i1"))
    made = site.call("boss", "POST", "/api/ladders", json={"name": "qual", **BOARD})
    assert made.status_code == 201, made.text
    for entrant in [*snakes, "builtin:random", "builtin:greedy"]:
        joined = site.call("boss", "POST", "/api/ladders/qual/snakes", json={"snake": entrant})
        assert joined.status_code == 201, joined.text
    ran = site.call("boss", "POST", "/api/ladders/qual/run", json={"games": 18})
    assert ran.status_code == 202, ran.text
    wait_until(
        "the ladder's games",
        lambda: not site.call("boss", "GET", "/api/ladders/qual").json()["running"],
    )
    ladder = site.call("boss", "GET", "/api/ladders/qual").json()
    rated = [s["snake"] for s in ladder["standings"] if s["games"] > 0]
    expected: list[str] = []
    for name in rated:  # best first: at most one of each user's snakes, four in all
        owner = name[1:].split("/")[0] if name.startswith("@") else None
        if owner is not None and any(e.startswith(f"@{owner}/") for e in expected):
            continue
        expected.append(name)
    expected = expected[:4]
    assert len(expected) >= 2
    tid = site.tournament(registration="open", snakes=["builtin:hunter"])
    qualified = site.call(
        "boss",
        "POST",
        f"/api/tournaments/{tid}/qualify",
        json={"ladder": "qual", "top": 4, "per_owner": 1},
    )
    assert qualified.status_code == 200, qualified.text
    cup = qualified.json()
    assert names(cup) == expected  # replaced, seeded by their place on the ladder
    assert sum(1 for n in names(cup) if n.startswith("@hal/")) == 1
    assert cup["qualifier"] == {"ladder": "qual", "top": 4, "per_owner": 1}
    assert [s["entrant"] for s in cup["standings"]] == expected
    # Another game's ladder is refused, naming the ladder.
    made = site.call(
        "boss", "POST", "/api/tournaments", json={"name": "H", "game": "halite3", "start": False}
    )
    assert made.status_code == 201, made.text
    other = site.call(
        "boss",
        "POST",
        f"/api/tournaments/{made.json()['id']}/qualify",
        json={"ladder": "qual", "top": 4},
    )
    assert other.status_code == 400 and "ladder: 'qual' plays battlesnake" in detail(other)


def test_the_next_round_is_run_by_its_admin_round_by_round(site: Site) -> None:
    tid = site.tournament(
        format="single_elimination",
        snakes=["builtin:random", "builtin:greedy", "builtin:hunter?depth=1", "builtin:random"],
    )
    before = len(site.started)
    cup = site.get(tid)
    assert cup["phase"] == "upcoming" and cup["next_round"]["name"] == "Round 1"
    assert cup["next_round"]["matches"] == ["R1-1", "R1-2"]
    first = site.call("boss", "POST", f"/api/tournaments/{tid}/round")
    assert first.status_code == 202, first.text
    wait_until("the first round", lambda: not site.get(tid)["running"])
    cup = site.get(tid)
    statuses = {m["id"]: m["status"] for m in cup["matches"]}
    assert statuses == {"R1-1": "done", "R1-2": "done", "R2-1": "pending"}, statuses
    assert cup["run"]["state"] == "done" and cup["run"]["games"] == 1
    assert not cup["finished"] and cup["phase"] == "running"
    assert cup["next_round"]["name"] == "Final"
    # Its start was announced once, as an admin's.
    assert [e.id for e in site.started[before:]] == [tid]
    assert site.started[before].scheduled is False
    assert site.started[before].entrants == tuple(names(cup))
    final = site.call("boss", "POST", f"/api/tournaments/{tid}/round")
    assert final.status_code == 202, final.text
    wait_until("the final", lambda: site.get(tid)["finished"])
    cup = site.get(tid)
    assert cup["phase"] == "finished" and cup["champion"] and cup["next_round"] is None
    assert [e.id for e in site.started[before:]] == [tid]  # announced once
    over = site.call("boss", "POST", f"/api/tournaments/{tid}/round")
    assert over.status_code == 400 and "finished" in detail(over)


def test_a_scheduled_tournament_is_started_and_played_by_the_elected_scheduler(
    site: Site,
) -> None:
    jo = site.user("jo")
    mine = site.snake(jo, "js")
    later = dt.datetime.now(dt.UTC) + dt.timedelta(days=1)
    tid = site.tournament(
        format="single_elimination",
        snakes=["builtin:random", "builtin:greedy", "builtin:hunter?depth=1"],
        registration="open",
        starts_at=later.isoformat(),
        round_gap_s=1,
    )
    path = f"/api/tournaments/{tid}/entrants"
    assert site.call(jo, "POST", path, json={"snake": mine}).status_code == 201
    assert site.get(tid)["phase"] == "registering"
    before = len(site.started)
    # Its start time comes: the scheduler starts it and plays round after round.
    now = dt.datetime.now(dt.UTC).isoformat()
    moved = site.call("boss", "PATCH", f"/api/tournaments/{tid}", json={"starts_at": now})
    assert moved.status_code == 200, moved.text
    wait_until("the scheduler's start", lambda: site.get(tid)["started"])
    wait_until("every round", lambda: site.get(tid)["finished"])
    cup = site.get(tid)
    assert cup["phase"] == "finished" and {m["status"] for m in cup["matches"]} == {"done"}
    assert len(cup["matches"]) == 3 and mine in names(cup)
    assert [(e.id, e.scheduled) for e in site.started[before:]] == [(tid, True)]
    # One scheduler holds the lease: this server's.
    lease = site.store.leases.get(LEASE_NAME)
    assert lease is not None and lease.held_by(site.app.state.tournament_scheduler.holder)
    wait_until(
        "the scheduler to note it finished",
        lambda: site.store.tournaments.settings(tid).finished_at is not None,
    )
    assert site.store.tournaments.due()[0] == []


def test_of_two_servers_on_one_database_one_scheduler_plays_a_scheduled_tournament(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    db = f"sqlite:///{tmp_path_factory.mktemp('two') / 'two.db'}"
    config = ServerConfig(database_url=db, public=True, signup="invite", scheduler_lease_s=3.0)
    started: list[tuple[str, TournamentStarted]] = []
    with Store(db) as first_store, Store(db) as second_store:
        boss = make_user(first_store, "boss", admin=True)
        first, second = (
            create_app(config, store=first_store),
            create_app(config, store=second_store),
        )
        with serve(first) as url, serve(second):
            holders = {}
            for name, app in (("first", first), ("second", second)):
                scheduler = app.state.tournament_scheduler
                holders[scheduler.holder] = name
                scheduler.on_started.append(lambda e, name=name: started.append((name, e)))
            made = httpx.post(
                f"{url}/api/tournaments",
                headers=boss,
                timeout=60,
                json={
                    "name": "Twice",
                    "start": False,
                    "format": "round_robin",
                    "snakes": ["builtin:random", "builtin:greedy", "builtin:hunter?depth=1"],
                    "starts_at": dt.datetime.now(dt.UTC).isoformat(),
                    **BOARD,
                },
            )
            assert made.status_code == 201, made.text
            tid = made.json()["id"]

            def cup() -> dict[str, Any]:
                got: dict[str, Any] = httpx.get(f"{url}/api/tournaments/{tid}", timeout=60).json()
                return got

            wait_until("the scheduled tournament", lambda: cup()["finished"])
            lease = first_store.leases.get(LEASE_NAME)
            assert lease is not None and lease.holder in holders
            # Started, and announced, once: by one scheduler of the two.
            assert [(e.id, e.scheduled) for _, e in started] == [(tid, True)]
            assert started[0][0] in holders.values()
            # Each match's games are numbered 0, 1, ... once: no round was played twice.
            matches = cup()["matches"]
            assert len(matches) == 3 and all(m["status"] == "done" for m in matches)
            played = first_store.tournaments.get(tid)
            assert played is not None and sorted(played.games) == sorted(m["id"] for m in matches)
            for games in played.games.values():
                assert [g.number for g in games] == list(range(len(games)))
