"""A field that breaks its pattern is answered in words, never with the regular expression.

Every pattern-checked field of the API is sent a bad value on a public server; the 422
names the field and says what it takes ("1 to 32 lowercase letters, digits, _ or -,
starting with a letter or digit").  Every pattern in the OpenAPI description has its
words, and a pattern without any still gets a sentence, not the expression.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Query
from fastapi.testclient import TestClient

from snakewar.server.errors import add_error_handlers
from snakewar.server.patterns import (
    LABEL,
    LADDER_NAME,
    RULES,
    SNAKE_NAME,
    UNKNOWN_PATTERN_WORDS,
    USER_NAME,
    TextRule,
    pattern_words,
)
from snakewar.storage import Store, StoreError
from tests.server.accounts import make_user, public_client

USER_WORDS = "1 to 32 lowercase letters, digits, _ or -, starting with a letter or digit"


def only_error(response: httpx.Response) -> dict[str, Any]:
    """The one error of a 422 validation answer."""
    assert response.status_code == 422, response.text
    (error,) = response.json()["detail"]
    assert isinstance(error, dict)
    return error


def assert_no_regex(text: str) -> None:
    assert "pattern" not in text.lower()
    assert not re.search(r"[\^$\\]|\[[^\]]*\]", text), text


def test_the_user_name_rule_is_in_words() -> None:
    assert USER_NAME.rule == USER_WORDS


@pytest.mark.parametrize(
    ("path", "body", "field", "rule"),
    [
        ("/api/auth/signup", {"name": "Bad Name", "password": "a long password"}, "name",
         USER_NAME),
        ("/api/auth/login", {"name": "-ann", "password": "a long password"}, "name", USER_NAME),
        ("/api/snakes", {"name": ".dot", "url": "http://127.0.0.1:9/"}, "name", SNAKE_NAME),
        ("/api/tokens", {"label": "two\nlines"}, "label", LABEL),
        ("/api/ladders", {"name": "a ladder"}, "name", LADDER_NAME),
    ],
    ids=["signup", "login", "snake", "token", "ladder"],
)  # fmt: skip
def test_a_bad_body_field_is_answered_in_words(
    path: str, body: dict[str, Any], field: str, rule: TextRule
) -> None:
    with public_client(signup="open") as client:
        error = only_error(client.post(path, json=body))
    assert error["loc"] == ["body", field]
    assert error["type"] == "string_pattern_mismatch"
    assert error["msg"] == rule.rule
    assert_no_regex(error["msg"])


def test_a_bad_user_name_in_the_signup_is_the_brief_s_sentence() -> None:
    with public_client(signup="open", as_user=None) as client:
        error = only_error(
            client.post("/api/auth/signup", json={"name": "Ann", "password": "a long password"})
        )
    assert error == {"loc": ["body", "name"], "msg": USER_WORDS, "type": "string_pattern_mismatch"}


def test_bad_query_and_path_names_are_answered_in_words() -> None:
    with public_client() as client:
        upload = only_error(
            client.post(
                "/api/snakes/upload",
                params={"name": "no spaces", "language": "python3"},
                content=b"PK",
                headers={"Content-Type": "application/zip"},
            )
        )
        user = only_error(client.patch("/api/users/Not%20A%20Name", json={"role": "user"}))
    assert upload["loc"] == ["query", "name"] and upload["msg"] == SNAKE_NAME.rule
    assert user["loc"] == ["path", "name"] and user["msg"] == USER_WORDS


def test_every_pattern_of_the_api_has_its_words() -> None:
    with public_client() as client:
        spec = client.get("/openapi.json").json()
    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            pattern = node.get("pattern")
            if isinstance(pattern, str):
                found.add(pattern)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    assert found, "the API describes no pattern at all?"
    missing = {p for p in found if pattern_words(p) == UNKNOWN_PATTERN_WORDS}
    assert missing == set(), f"patterns without words in snakewar.server.patterns: {missing}"
    assert found <= {rule.pattern for rule in RULES}


def test_a_pattern_without_words_is_still_no_regex() -> None:
    app = FastAPI()
    add_error_handlers(app)

    @app.get("/echo")
    def echo(code: str = Query(pattern=r"^[xyz]{3}$")) -> str:
        return code

    with TestClient(app) as client:
        error = only_error(client.get("/echo", params={"code": "abc"}))
    assert error["msg"] == UNKNOWN_PATTERN_WORDS
    assert "xyz" not in json.dumps(error)


def test_other_validation_messages_are_left_as_pydantic_words() -> None:
    with public_client(signup="open", as_user=None) as client:
        error = only_error(
            client.post("/api/auth/signup", json={"name": "a" * 33, "password": "a long password"})
        )
    assert error["msg"] == "String should have at most 32 characters"


def test_a_user_made_in_the_store_has_a_name_the_rule_takes() -> None:
    # The storage's own check (snakewar.storage.accounts.USER_NAME) and the API's agree.
    with public_client() as client:
        store: Store = client.store
        make_user(store, "ok_name-1")
        assert re.fullmatch(USER_NAME.pattern, "ok_name-1")
        with pytest.raises(StoreError, match="expected 1 to 32 lowercase letters"):
            make_user(store, "Bad")
