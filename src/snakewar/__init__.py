"""Snakewar: an exact Battlesnake rules engine, referee and arena."""

__version__ = "0.1.0"
