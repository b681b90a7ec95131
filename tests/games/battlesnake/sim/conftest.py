"""The simulator's tests run on every backend: ``backend`` is each of them in turn."""

from __future__ import annotations

import pytest

from snakewar.games.battlesnake.sim.core import jax_available, numba_available
from tests.system_tools import IN_CI


def require_numba() -> None:
    """Skip the calling test without numba (a failure under CI, where the test extra has it)."""
    if numba_available():
        return
    message = "numba is not installed (pip install 'snakewar[sim]'; the test extra has it)"
    if IN_CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def require_jax() -> None:
    """Skip the calling test without jax (a failure under CI, where the test extra has it)."""
    if jax_available():
        return
    message = "jax is not installed (pip install 'snakewar[gpu]'; the test extra has it)"
    if IN_CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(params=["numpy", "numba"])
def backend(request: pytest.FixtureRequest) -> str:
    """A simulator backend; the numba one needs numba."""
    name: str = request.param
    if name == "numba":
        require_numba()
    return name
