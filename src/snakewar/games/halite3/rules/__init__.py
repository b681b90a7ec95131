"""Halite III's pure rules: the game, its map generator, commands, constants and protocol.

No I/O, no clock, no global randomness; the official engine's Mersenne Twister is here so
that maps come out the same from the same seed.  The game's public names are
:mod:`snakewar.games.halite3`'s.
"""
