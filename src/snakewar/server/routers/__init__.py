"""The server's routers, one per resource (``app.include_router(module.router)``)."""
