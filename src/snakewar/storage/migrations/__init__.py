"""The store's Alembic environment: ``env.py``, the revision template and ``versions/``.

:class:`snakewar.storage.database.Database` runs these migrations itself when it opens a
database; no ``alembic.ini`` is needed.  For development, ``python -m
snakewar.storage.migrations`` is the ``alembic`` command line with this environment:

* ``python -m snakewar.storage.migrations revision --autogenerate -m "add a column"``
  writes ``versions/vNNNN_add_a_column.py`` from the difference between the models
  in :mod:`snakewar.storage.models` and the newest revision (compared on a scratch
  SQLite database unless ``$SNAKEWAR_DATABASE_URL`` names one); review it, since
  autogenerate misses renames and server defaults.
* ``python -m snakewar.storage.migrations current`` / ``history`` / ``upgrade head``
  act on the database a ``Store()`` would open.
"""
