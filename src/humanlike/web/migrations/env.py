"""Alembic environment of the study database: migrations run on the connection humanlike.web.db.upgrade
passes in (no alembic.ini, no URL here)."""

from alembic import context


def run_migrations() -> None:
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=None)
    with context.begin_transaction():
        context.run_migrations()


# Alembic runs this file with its context set up; other importers (pytest's module collection) only read it.
if hasattr(context, "config"):
    run_migrations()
