"""Deprecated: moved to (re-exports) :mod:`snakewar.referee.addresses`.

The outbound address policy lives with the outbound code that applies it
(:mod:`snakewar.referee.outbound`); the protocol knows it as
:class:`snakewar.engine.protocol.OutboundPolicy`.
"""

from snakewar._lazy import warn_moved
from snakewar.referee.addresses import *  # noqa: F403
from snakewar.referee.addresses import __all__ as __all__

warn_moved("snakewar.engine.addresses", "snakewar.referee.addresses")
