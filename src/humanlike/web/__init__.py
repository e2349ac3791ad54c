"""``humanlike serve``: a web experiment server that collects classification and difference judgements
(docs/run-your-own-experiment.md).

An optional part of the package (``pip install "humanlike[web]"``): nothing outside this subpackage and the
command line's handlers imports it. Importing this package itself is light; the server's dependencies
(Starlette, uvicorn, SQLAlchemy, Alembic) are imported by the modules that use them.
"""
