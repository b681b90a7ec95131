"""Issue 30: entrant names bound to their owner's namespace, through a public server.

A registered snake plays as ``@owner/name`` and a built-in as ``builtin:NAME``; a name
a request gives holds no ``@``, ``/`` or ``:``.  So the probe's imitation (a built-in
entered as ``alice/s61`` before alice entered her snake, which then was refused) cannot
happen: the free name is refused, and alice's entry is hers whatever came first.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.accounts import make_user, public_client

BOARD: dict[str, Any] = {"width": 7, "height": 7, "maxTurns": 10}


def _detail(answer: Any) -> str:
    return str(answer.json()["detail"])


@pytest.mark.parametrize("name", ["alice/s61", "@alice/s61", "builtin:hunter", "a:b", "x/y"])
def test_a_free_name_that_could_imitate_an_entry_is_refused_everywhere(name: str) -> None:
    with public_client() as admin:
        assert admin.post("/api/ladders", json={"name": "club", **BOARD}).status_code == 201
        # Even an admin, who may name entries, cannot take a namespaced name.
        entered = admin.post("/api/ladders/club/snakes", json={"snake": "random", "name": name})
        assert entered.status_code == 422, entered.text
        assert entered.json()["detail"][0]["loc"] == ["body", "name"], entered.text
        assert "may not" in _detail(entered)
        game = admin.post("/api/games", json={"snakes": ["random"], "names": [name], **BOARD})
        assert game.status_code == 422 and "names[0]" in _detail(game), game.text
        cup = admin.post(
            "/api/tournaments",
            json={"name": "t", "snakes": ["random", "greedy"], "names": ["ok", name], **BOARD},
        )
        assert cup.status_code == 422 and "names[1]" in _detail(cup), cup.text


def test_the_probes_imitation_cannot_keep_alice_out() -> None:
    with public_client() as admin:
        alice = make_user(admin.store, "alice")
        assert admin.post("/api/ladders", json={"name": "club", **BOARD}).status_code == 201
        # The probe's move: a built-in entered under alice's snake's name, first.
        squat = admin.post(
            "/api/ladders/club/snakes", json={"snake": "random", "name": "alice/s61"}
        )
        assert squat.status_code == 422, squat.text
        bot = admin.post("/api/ladders/club/snakes", json={"snake": "random"})
        assert bot.status_code == 201, bot.text
        made = admin.post(
            "/api/snakes", json={"name": "s61", "url": "http://8.8.8.8/"}, headers=alice
        )
        assert made.status_code == 201, made.text
        joined = admin.post("/api/ladders/club/snakes", json={"snake": "@alice/s61"}, headers=alice)
        assert joined.status_code == 201, joined.text
        entries = {s["snake"] for s in admin.get("/api/ladders/club").json()["standings"]}
        assert entries == {"random", "@alice/s61"}


def test_a_registered_snake_plays_under_its_reference_and_cannot_be_renamed() -> None:
    with public_client() as admin:
        alice = make_user(admin.store, "alice")
        admin.post("/api/snakes", json={"name": "s61", "url": "http://8.8.8.8/"}, headers=alice)
        renamed = admin.post(
            "/api/games",
            json={"snakes": ["@alice/s61", "random"], "names": ["friendly"], **BOARD},
            headers=alice,
        )
        assert renamed.status_code == 422, renamed.text
        assert "@alice/s61 plays under its own name" in _detail(renamed)
        two = admin.post(
            "/api/games", json={"snakes": ["random", "random"], **BOARD}, headers=alice
        )
        assert two.status_code == 201, two.text
        assert [e["name"] for e in two.json()["entrants"]] == ["random", "random-2"]
        admin.post(f"/api/games/{two.json()['id']}/cancel", headers=alice)


@pytest.mark.parametrize(("snake", "name"), [("greedy", "random"), ("greedy", "hunter-2")])
def test_only_a_built_in_plays_under_a_built_ins_name(snake: str, name: str) -> None:
    with public_client() as admin:
        assert admin.post("/api/ladders", json={"name": "club", **BOARD}).status_code == 201
        # Another built-in would pass for the bot, and so would a URL snake (an admin may
        # name one in a game; ladders on a public server take no URL).
        entered = admin.post("/api/ladders/club/snakes", json={"snake": snake, "name": name})
        assert entered.status_code == 422, entered.text
        assert "is the name of the built-in bot" in _detail(entered)
        for entrant in (snake, "http://8.8.8.8/"):
            game = admin.post("/api/games", json={"snakes": [entrant], "names": [name], **BOARD})
            assert game.status_code == 422 and "names[0]" in _detail(game), game.text
            assert "is the name of the built-in bot" in _detail(game)
        # The bot itself may take its own name, numbered too.
        base = name.split("-")[0]
        ok = admin.post("/api/games", json={"snakes": [base], "names": [name], **BOARD})
        assert ok.status_code == 201, ok.text
        admin.post(f"/api/games/{ok.json()['id']}/cancel")
