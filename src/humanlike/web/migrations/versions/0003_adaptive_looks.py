"""Adaptive studies (``serve init --design discriminate --adaptive``): one row per look, each written once.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "adaptive_looks",
        sa.Column("look", sa.Integer, primary_key=True),
        sa.Column("participants", sa.Integer, nullable=False),
        sa.Column("members", sa.Text, nullable=False),
        sa.Column("estimate", sa.Float), sa.Column("se", sa.Float), sa.Column("z", sa.Float),
        sa.Column("bound", sa.Float),
        sa.Column("decision", sa.String(16), nullable=False),
        sa.Column("probability", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade():
    op.drop_table("adaptive_looks")
