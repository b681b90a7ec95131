"""The server's routers, one module per resource; ``create_app`` includes them.

* :mod:`~snakewar.server.routers.pages`: the HTML pages (Jinja2 templates whose
  scripts are static ES modules in ``viewer/static/pages/``).
* :mod:`~snakewar.server.routers.docs`: the API docs (Swagger UI and ReDoc), served
  from the package, so they work offline.
* :mod:`~snakewar.server.routers.tester`: the snake tester's API.
"""
