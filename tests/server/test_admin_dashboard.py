"""``/api/admin/dashboard`` and ``/admin/dashboard``: what an operator watches (admins only).

A local server on a SQLite file plays a Halite game whose program bot crashes (its
error log is a bot error), a Battlesnake game to its end, and has one game aborted with
its reason (what a dying cluster worker's server records): the dashboard then counts
the games by status, lists the failed game with its reason and the bot's error, the
sign-ups, the workers and queues, and the space the database takes.  A public server
shows it to admins only: a user gets 403, a visitor 401 (the page: a redirect to log in).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.server.accounts import BASE_URL, make_user, public_client

CRASHER = """\
import sys
sys.stderr.write("boom: the bot fell over on purpose\\n")
sys.stderr.flush()
sys.exit(3)
"""

HALITE: dict[str, Any] = {"game": "halite3", "width": 32, "height": 32, "maxTurns": 15}


def wait_over(client: TestClient, game_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        game: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
        if game["status"] != "running":
            return game
        assert time.monotonic() < deadline, f"game {game_id} never ended"
        time.sleep(0.05)


def test_the_dashboard_counts_games_and_lists_errors_sign_ups_and_space(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'games.db'}"
    bot = tmp_path / "crasher"
    bot.mkdir()
    (bot / "MyBot.py").write_text(CRASHER)
    with Store(database) as store:
        app = create_app(ServerConfig(database_url=database), store=store)
        with TestClient(app, base_url=BASE_URL, raise_server_exceptions=False) as client:
            local = store.accounts.user("local")
            store.snakes.register(
                local.id,
                "crasher",
                "halite3",
                "program",
                argv=["python3", "MyBot.py"],
                workdir=str(bot),
            )
            halite = client.post(
                "/api/games", json={**HALITE, "snakes": ["@local/crasher", "builtin:random"]}
            )
            assert halite.status_code == 201, halite.text
            assert wait_over(client, halite.json()["id"])["status"] == "complete"
            snake = client.post("/api/games", json={"snakes": ["builtin:random"] * 2, "seed": 5})
            assert snake.status_code == 201, snake.text
            assert wait_over(client, snake.json()["id"])["status"] == "complete"
            # A game whose cluster worker died for good: its server aborts it with why.
            paused = client.post(
                "/api/games", json={"snakes": ["builtin:random"] * 2, "step": True}
            )
            assert paused.status_code == 201, paused.text
            failed_id = paused.json()["id"]
            store.games.abort(failed_id, "RayActorError: the worker died (3 retries spent)")

            answer = client.get("/api/admin/dashboard")
            assert answer.status_code == 200, answer.text
            data = answer.json()
            assert data["replica"] == client.app.state.manager.server_id  # type: ignore[attr-defined]
            assert data["games_by_status"] == {
                "running": 0,
                "complete": 2,
                "aborted": 1,
                "cancelled": 0,
            }
            [failed] = data["failed_games"]
            assert failed["id"] == failed_id
            assert failed["reason"] == "RayActorError: the worker died (3 retries spent)"
            errors = [e for e in data["bot_errors"] if e["game_id"] == halite.json()["id"]]
            assert errors and "boom: the bot fell over on purpose" in errors[0]["text"], data
            assert errors[0]["game"] == "halite3"
            assert [u["name"] for u in data["sign_ups"]] == ["local"]
            live = data["live"]
            assert live["runner"] == "local" and live["max_concurrent"] == 32
            assert live["running"] == 1 and live["paused"] == 1  # the stepped game, still live
            assert data["queue"] == {"builtin_workers": 0, "arena_runs_waiting": 0}
            assert data["scheduler"]["here"] is True
            disk = data["disk"]
            assert disk["database"] == "sqlite" and disk["games"] == 3
            assert disk["database_bytes"] >= (tmp_path / "games.db").stat().st_size > 0
            assert disk["frames"] > 0
            # The Halite game is kept whole: its replay file is counted.
            assert disk["replay_bytes"] > 0
            assert data["notifications"] == {"pending": 0, "sent": 0, "failed": 0, "capped": 0}
            client.post(f"/api/games/{failed_id}/cancel")


def test_only_admins_see_the_dashboard() -> None:
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        assert admin.get("/api/admin/dashboard").status_code == 200
        refused = admin.get("/api/admin/dashboard", headers=ann)
        assert refused.status_code == 403, refused.text
        page = admin.get("/admin/dashboard", headers=ann)
        assert page.status_code == 403
        assert 'data-testid="admins-only"' in page.text
        assert 'data-testid="dashboard"' not in page.text
        shown = admin.get("/admin/dashboard")
        assert shown.status_code == 200 and 'data-testid="dashboard"' in shown.text
        assert '<script type="module" src="/static/viewer/pages/admin_dashboard.js">' in shown.text
        admin.headers.pop("Authorization")
        assert admin.get("/api/admin/dashboard").status_code == 401
        visitor = admin.get("/admin/dashboard", follow_redirects=False)
        assert visitor.status_code == 303 and visitor.headers["location"] == "/login"
        # The sign-ups list names accounts: on a public server, never for visitors.
        assert "ann" not in admin.get("/admin/dashboard").text
