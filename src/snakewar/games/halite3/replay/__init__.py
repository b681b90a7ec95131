"""Halite III's replays: the official ``.hlt`` format and its verification."""
