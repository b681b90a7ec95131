"""Battlesnake's referee: snake clients, the match runner, batches and their statistics.

The clients speak API v1, v0 and the legacy APIs, or call in-process bots.  The public
names are exported by :mod:`snakewar.referee` (imported on first use).
"""
