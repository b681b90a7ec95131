"""Uploaded bots are built in the background: the upload answers before its build ends.

The builds here wait on the test (:class:`tests.server.held_builds.HeldBuild`), so each
test proves an order of events: the answer says ``building`` while the build cannot
have ended, and the build then ends (``ready`` or ``failed``) once released.  A server
that stops fails its builds, saying so; one that died leaves builds that the next
server fails once nobody renews them.  Real sandboxes (``bubblewrap`` fixture), a real
server over real HTTP.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from snakewar.server.app import create_app
from snakewar.server.builds import INTERRUPTED, ORPHANED
from snakewar.server.config import ServerConfig
from snakewar.storage import Store
from snakewar.storage.models import SnakeModel
from tests.asgi_server import serve
from tests.server.accounts import make_user
from tests.server.held_builds import HeldBuild
from tests.server.test_bot_languages import upload, zip_of
from tests.waiting import wait_built

PATIENCE_S = 120.0


@pytest.fixture
def store() -> Iterator[Store]:
    with Store("sqlite://") as opened:
        yield opened


def server(store: Store, **config: Any) -> Any:
    settings = ServerConfig(database_url="memory", public=True, build_seconds=600.0, **config)
    return serve(create_app(settings, store=store))


@pytest.mark.usefixtures("bubblewrap")
def test_an_upload_answers_building_and_its_build_ends_once_released(store: Store) -> None:
    ann = make_user(store, "ann")
    held = HeldBuild()
    with server(store) as url, httpx.Client(base_url=url, timeout=PATIENCE_S) as client:
        made = upload(client, ann, held.archive(), "held")
        # Answered while the build waits on this test: it cannot have ended.
        assert made.status_code == 201, made.text
        snake = made.json()
        assert snake["build_status"] == "building" and snake["language"] == "python3", snake
        held.wait_waiting()
        assert client.get(f"/api/snakes/{snake['id']}", headers=ann).json()["build_status"] == (
            "building"
        )
        # A game of it is refused, as for any bot not built, naming why.
        game = client.post(
            "/api/games",
            json={"game": "halite3", "snakes": [snake["ref"], "builtin:greedy"]},
            headers=ann,
        )
        assert game.status_code == 400, game.text
        assert game.json()["detail"] == "snake @ann/held is still being built; try again soon"
        # A second build while this one runs is refused, naming why.
        again = client.post(f"/api/snakes/{snake['id']}/build", headers=ann)
        assert again.status_code == 409, again.text
        assert again.json()["detail"] == (
            "snake @ann/held is being built already; wait for its build to end"
        )
        held.release()
        built = wait_built(client, snake["id"], headers=ann, timeout=PATIENCE_S)
        assert built["build_status"] == "ready" and built["build_error"] is None, built
        log = client.get(f"/api/snakes/{snake['id']}/build", headers=ann).json()
        assert log["status"] == "ready" and "released" in log["log"], log

        # A rebuild is accepted at once (202), building, and ends the same way.
        rebuild = client.post(f"/api/snakes/{snake['id']}/build", headers=ann)
        assert rebuild.status_code == 202, rebuild.text
        assert rebuild.json()["status"] == "building" and rebuild.json()["log"] == ""
        held.wait_waiting()
        assert client.post(f"/api/snakes/{snake['id']}/build", headers=ann).status_code == 409
        held.release()
        assert wait_built(client, snake["id"], headers=ann)["build_status"] == "ready"


@pytest.mark.usefixtures("bubblewrap")
def test_a_build_that_fails_is_recorded_with_its_reason(store: Store) -> None:
    ann = make_user(store, "ann")
    failing = HeldBuild()
    script = f"#!/bin/bash\nsleep {failing.token}\necho broken >&2\nexit 3\n"
    data = zip_of({"MyBot.py": b"print('never built')\n", "install.sh": script.encode()})
    with server(store) as url, httpx.Client(base_url=url, timeout=PATIENCE_S) as client:
        made = upload(client, ann, data, "broken")
        assert made.status_code == 201 and made.json()["build_status"] == "building", made.text
        failing.release()  # its sleep is ended by a signal: the script then fails
        snake = wait_built(client, made.json()["id"], headers=ann)
        assert snake["build_status"] == "failed", snake
        assert snake["build_error"] == "install.sh failed; the log says why"
        build = client.get(f"/api/snakes/{snake['id']}/build", headers=ann).json()
        assert build["status"] == "failed" and "broken" in build["log"], build


@pytest.mark.usefixtures("bubblewrap")
def test_a_server_that_stops_fails_its_builds_and_kills_them(store: Store) -> None:
    ann = make_user(store, "ann")
    held = HeldBuild()
    with server(store) as url, httpx.Client(base_url=url, timeout=PATIENCE_S) as client:
        made = upload(client, ann, held.archive(), "held")
        assert made.status_code == 201, made.text
        held.wait_waiting()
    # The server stopped with the build waiting: it was failed, saying why, and killed.
    snake = store.snakes.get(made.json()["id"])
    assert (snake.build_status, snake.build_error) == ("failed", INTERRUPTED)
    assert store.snakes.build_log(snake.id) == f"(the build did not end: {INTERRUPTED})"
    deadline = time.monotonic() + PATIENCE_S
    while held.waiting() is not None:  # the sandbox dies with its killed launcher
        assert time.monotonic() < deadline, "the stopped build's sandbox still runs"
        time.sleep(0.1)


def test_a_build_its_server_left_behind_is_failed_by_the_next_server(store: Store) -> None:
    # A server died while building: the row says building, renewed by nobody.
    owner = make_user(store, "ann")
    ann = store.accounts.user("ann")
    left = store.snakes.register(
        ann.id, "left", "halite3", "upload", language="python3", archive=b"x",
        build_status="building",
    )  # fmt: skip
    with store.db.session() as session:
        row = session.get(SnakeModel, left.id)
        assert row is not None
        row.updated_at = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
    with server(store) as url, httpx.Client(base_url=url, timeout=PATIENCE_S) as client:
        snake = wait_built(client, left.id, headers=owner)
        assert snake["build_status"] == "failed" and snake["build_error"] == ORPHANED, snake
        # Its owner can build it again (it is no longer being built).
        again = client.post(f"/api/snakes/{left.id}/build", headers=owner)
        assert again.status_code == 202, again.text


@pytest.mark.usefixtures("bubblewrap")
def test_a_running_build_is_renewed_and_never_taken_for_a_left_one(store: Store) -> None:
    # A short lease: many beats pass while the build waits, each renewing it; the
    # sweep that fails left builds at each beat never takes this one.
    ann = make_user(store, "ann")
    held = HeldBuild()
    with (
        server(store, game_lease_s=1.0) as url,
        httpx.Client(base_url=url, timeout=PATIENCE_S) as client,
    ):
        made = upload(client, ann, held.archive(), "held")
        assert made.status_code == 201, made.text
        held.wait_waiting()
        seen = [store.snakes.get(made.json()["id"]).updated_at]
        deadline = time.monotonic() + PATIENCE_S
        # Renewed (its updated_at moved) over more than two leases, each beat's sweep past.
        while len(seen) < 4 or seen[-1] - seen[0] < dt.timedelta(seconds=2.0):
            now = store.snakes.get(made.json()["id"])
            assert now.build_status == "building", now
            if now.updated_at != seen[-1]:
                seen.append(now.updated_at)
            assert time.monotonic() < deadline, f"the build was not renewed: {seen}"
            time.sleep(0.1)
        held.release()
        assert wait_built(client, made.json()["id"], headers=ann)["build_status"] == "ready"
