"""Fuzz every API operation with schemathesis: no input gives a server error.

Each operation of ``/openapi.json`` gets generated requests, valid ones and invalid
ones, on a local server and on a public one as an anonymous visitor, a user and an
admin, over real HTTP.  Bounded: ``$SNAKEWAR_FUZZ_EXAMPLES`` per operation and mode
(default 150), derandomized so that a failure reproduces.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.result import Ok

from snakewar.server.app import create_app
from snakewar.server.config import ServerConfig
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.server.accounts import make_user

EXAMPLES = int(os.environ.get("SNAKEWAR_FUZZ_EXAMPLES", "150"))


@contextmanager
def server(mode: str) -> Iterator[tuple[str, dict[str, str]]]:
    with Store("sqlite://") as store:
        headers: dict[str, str] = {}
        if mode in ("user", "admin"):
            headers = make_user(store, mode, admin=mode == "admin")
        config = ServerConfig(database_url="memory", public=mode != "local", signup="open")
        with serve(create_app(config, store=store)) as base:
            yield base, headers


@pytest.mark.parametrize("mode", ["local", "anonymous", "user", "admin"])
def test_no_request_gives_a_server_error(mode: str) -> None:
    with server(mode) as (base, headers):
        schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
        operations = []
        for result in schema.get_all_operations():
            assert isinstance(result, Ok), result  # the schema itself must be valid
            operations.append(result.ok())
        assert len(operations) >= 40
        errors: list[str] = []
        tried = 0
        for operation in operations:
            for generation in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

                @settings(
                    max_examples=EXAMPLES // 2,
                    deadline=None,
                    database=None,
                    derandomize=True,
                    suppress_health_check=list(HealthCheck),
                )
                @given(case=operation.as_strategy(generation_mode=generation))
                def run(case: Any) -> None:
                    nonlocal tried
                    tried += 1
                    response = case.call(base_url=base, headers=headers, timeout=60)
                    if response.status_code >= 500:
                        errors.append(
                            f"{case.method} {case.formatted_path} -> {response.status_code}: "
                            f"{response.text[:200]}"
                        )

                try:
                    run()
                except Unsatisfiable:
                    # An operation with no input (GET /api/catalogue) has nothing to
                    # make invalid; its valid requests ran above.
                    assert generation is GenerationMode.NEGATIVE, operation.path
        assert tried >= len(operations) * 2
        assert errors == [], "\n".join(errors[:20])
