"""Battlesnake's own routes, which its adapter's ``routers()`` hook gives the server.

* :mod:`.engine`: the official Battlesnake board's engine API (``/games/{id}``,
  ``/games/{id}/frames``, the websocket ``/games/{id}/events``).
* :mod:`.tester`: the snake tester (``POST /api/test``, ``POST /api/test/stream``).
* :mod:`.pages`: its pages (``/replay``, the board's file picker; ``/test``, the tester).

Only the server imports them (through the hook): the pure rules, the command line and
the arena never load the web framework.
"""
