"""Halite III's commands: ``snakewar halite`` (play, eval, bot, conformance)."""
