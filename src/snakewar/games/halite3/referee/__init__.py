"""Halite III's referee: bots as processes or built-ins, the official engine's logs."""
