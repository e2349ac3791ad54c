"""Resuming and balanced rotation: each participant's design slot and latest activity (an abandoned session's
slot goes back to the rotation), their completion code, and the platform id that resumes a session.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("participants") as batch:
        batch.add_column(sa.Column("slot", sa.Integer))
        batch.add_column(sa.Column("last_seen_at", sa.DateTime(timezone=True)))
        batch.add_column(sa.Column("completion_code", sa.String(64)))
    # participants of a database made before: their ordinal was their id, their last activity unknown
    op.execute("UPDATE participants SET slot = id, last_seen_at = created_at")
    with op.batch_alter_table("platform_ids") as batch:
        batch.add_column(sa.Column("participant_key", sa.String(255)))
    op.create_index("uq_platform_ids_participant_key", "platform_ids", ["participant_key"], unique=True)


def downgrade():
    op.drop_index("uq_platform_ids_participant_key", "platform_ids")
    with op.batch_alter_table("platform_ids") as batch:
        batch.drop_column("participant_key")
    with op.batch_alter_table("participants") as batch:
        for column in ("completion_code", "last_seen_at", "slot"):
            batch.drop_column(column)
