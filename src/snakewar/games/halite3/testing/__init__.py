"""Halite III's checkers: games recorded from the official engine, replayed exactly."""
