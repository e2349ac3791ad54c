"""The first schema of the study database (see humanlike.web.db for what each table holds).

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table("study_meta",
                    sa.Column("key", sa.String(64), primary_key=True),
                    sa.Column("value", sa.Text, nullable=False))
    op.create_table("stimuli",
                    sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("opaque", sa.String(64), nullable=False, unique=True),
                    sa.Column("key", sa.Text, nullable=False, unique=True))
    op.create_table("participants",
                    sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("token", sa.String(64), nullable=False, unique=True),
                    sa.Column("pseudonym", sa.String(32), nullable=False, unique=True),
                    sa.Column("status", sa.String(16), nullable=False),
                    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
                    sa.Column("finished_at", sa.DateTime(timezone=True)),
                    sa.Column("n_trials", sa.Integer, nullable=False))
    op.create_table("platform_ids",
                    sa.Column("participant_id", sa.Integer, sa.ForeignKey("participants.id", ondelete="CASCADE"),
                              primary_key=True),
                    sa.Column("params", sa.Text, nullable=False))
    op.create_table("trials",
                    sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("participant_id", sa.Integer, sa.ForeignKey("participants.id", ondelete="CASCADE"),
                              nullable=False),
                    sa.Column("position", sa.Integer, nullable=False),
                    sa.Column("kind", sa.String(16), nullable=False),
                    sa.Column("spec", sa.Text, nullable=False),
                    sa.UniqueConstraint("participant_id", "position", name="uq_trials_participant_position"))
    op.create_index("ix_trials_participant_id", "trials", ["participant_id"])
    op.create_table("responses",
                    sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("trial_id", sa.Integer, sa.ForeignKey("trials.id", ondelete="CASCADE"), nullable=False,
                              unique=True),
                    sa.Column("participant_id", sa.Integer, sa.ForeignKey("participants.id", ondelete="CASCADE"),
                              nullable=False),
                    sa.Column("response", sa.String(200), nullable=False),
                    sa.Column("correct", sa.Boolean),
                    sa.Column("rt_ms", sa.Float),
                    sa.Column("stimulus_ms", sa.Float),
                    sa.Column("frames", sa.Integer),
                    sa.Column("refresh_hz", sa.Float),
                    sa.Column("window_w", sa.Integer),
                    sa.Column("window_h", sa.Integer),
                    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False))
    op.create_index("ix_responses_participant_id", "responses", ["participant_id"])


def downgrade():
    for table in ("responses", "trials", "platform_ids", "participants", "stimuli", "study_meta"):
        op.drop_table(table)
