"""``/health`` and ``/ready``: the probes a reverse proxy asks each replica."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from snakewar import __version__
from snakewar.bots.serving import app_server
from snakewar.server.app import create_app
from snakewar.server.config import ServerConfig
from snakewar.server.routers import health
from snakewar.storage import Store
from tests.server.accounts import BASE_URL, public_client


@pytest.fixture
def served(db_url: str) -> Iterator[TestClient]:
    """A public server on a fresh database (SQLite file or PostgreSQL), anonymous."""
    config = ServerConfig(
        database_url=db_url, public=True, allowed_hosts=("snakes.example.org",), store_workers=1
    )
    with (
        Store(db_url) as store,
        TestClient(
            create_app(config, store=store),
            base_url="http://snakes.example.org",
            raise_server_exceptions=False,
        ) as client,
    ):
        yield client


def test_health_names_the_replica_and_asks_nothing(served: TestClient) -> None:
    answer = served.get("/health")
    assert answer.status_code == 200, answer.text
    manager = served.app.state.manager  # type: ignore[attr-defined]
    assert answer.json() == {"status": "ok", "replica": manager.server_id, "version": __version__}


def test_ready_asks_the_database(served: TestClient, db_url: str) -> None:
    answer = served.get("/ready")
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "ready"
    assert answer.json()["database"] == ("sqlite" if db_url.startswith("sqlite") else "postgresql")


def test_ready_is_503_when_the_database_does_not_answer_in_time(
    served: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The store's one thread is held by a call that never returns in time: what a hung
    # database (or a saturated store) looks like from the replica.
    monkeypatch.setattr(health, "READY_TIMEOUT_S", 0.2)
    release = threading.Event()
    store = served.app.state.store  # type: ignore[attr-defined]
    store._pool.submit(release.wait, 60)
    try:
        answer = served.get("/ready")
        assert answer.status_code == 503, answer.text
        body = answer.json()
        assert body["status"] == "unready" and body["failed"] == ["database"]
        assert "no answer within 0.2 s" in body["detail"]
        assert served.get("/health").status_code == 200  # alive all the same
    finally:
        release.set()
    assert served.get("/ready").status_code == 200


def test_ready_is_503_when_the_database_is_gone(served: TestClient) -> None:
    served.app.state.store.store.close()  # type: ignore[attr-defined]
    answer = served.get("/ready")
    assert answer.status_code == 503, answer.text
    assert answer.json()["failed"] == ["database"]
    assert answer.json()["detail"].startswith("database: ")


def test_ready_is_503_while_the_server_shuts_down(served: TestClient) -> None:
    served.app.state.draining = True  # type: ignore[attr-defined]
    answer = served.get("/ready")
    assert answer.status_code == 503
    assert answer.json()["failed"] == ["shutting_down"]
    assert served.get("/health").status_code == 200


def test_a_stop_signal_marks_the_app_as_shutting_down() -> None:
    # What `snakewar serve` runs: its uvicorn server marks the app on SIGTERM, before it
    # drains open requests, so /ready turns 503 at once.
    app = create_app(ServerConfig(database_url="memory"))
    server = app_server(app)
    assert not getattr(app.state, "draining", False)
    server.handle_exit(signal.SIGTERM, None)
    assert app.state.draining is True and server.should_exit


def test_probes_answer_any_host_and_need_no_login(served: TestClient) -> None:
    # A proxy asks by the replica's address: the Host check lets the probes through
    # (and only them); anonymous, as often as it likes (no rate limit).
    by_address = {"Host": "10.1.2.3:8000"}
    assert served.get("/api/catalogue", headers=by_address).status_code == 400
    for _ in range(50):
        assert served.get("/ready", headers=by_address).status_code == 200
        assert served.get("/health", headers=by_address).status_code == 200


def test_the_probes_are_in_the_api_description() -> None:
    with public_client(as_user=None) as client:
        paths = client.get("/openapi.json").json()["paths"]
        assert "503" in paths["/ready"]["get"]["responses"]
        assert set(paths["/health"]["get"]["responses"]) == {"200"}


def test_the_local_server_has_them_too() -> None:
    with TestClient(create_app(ServerConfig(database_url="memory")), base_url=BASE_URL) as c:
        assert c.get("/ready").json()["status"] == "ready"
