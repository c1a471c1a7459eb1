"""The composition root: settings in, a wired application out. The only package that names
concrete adapters. Tests call `bootstrap_memory` (or pass overrides) to build the same
application on fakes.

One module per way of building it: `in_memory` (fakes), `production` (the SQL wiring, used by
`bootstrap` and `assemble`), `rate_limiter`, `refresh`, `asgi` (the served app and the worker
factory) and `server` (`serve`). The names below are what the rest of the code imports; ASGI
servers load `schooldata.bootstrap:asgi_from_environment`.
"""

from schooldata.bootstrap.asgi import asgi_from_environment, build_asgi
from schooldata.bootstrap.in_memory import TEST_SECRET, bootstrap_memory
from schooldata.bootstrap.production import assemble, bootstrap
from schooldata.bootstrap.refresh import build_refresh
from schooldata.bootstrap.server import serve, server_loop

__all__ = [
    "TEST_SECRET",
    "asgi_from_environment",
    "assemble",
    "bootstrap",
    "bootstrap_memory",
    "build_asgi",
    "build_refresh",
    "serve",
    "server_loop",
]
