"""The track record: outcomes of verdicts, and how each model has done across the history.

outcomes (judging a verdict), reading (each finished question read once into Standing rows),
figures (the SQL aggregates), measures (kappa, independent voices), svg (the plots), sql (JSON
reads the ORM cannot spell), views (the Models page). docs/track-record.md explains each figure.
"""
