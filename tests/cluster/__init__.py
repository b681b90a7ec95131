"""The hosted arena on a real multi-node Ray cluster of this machine (issue 24)."""
