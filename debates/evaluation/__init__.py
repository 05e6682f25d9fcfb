"""Evaluation: a labelled data set run through a panel, scored the way Du et al. (2023) report it.

``datasets`` reads the items (JSONL, CSV, or the built-in arithmetic task); ``answers`` reads
what a model answered and compares it with the expected answer; ``scoring`` scores one finished
question; ``summary`` adds items up (accuracy, Wilson intervals, cost); ``runner`` runs the items
through the normal engine path (runs.execute) and resumes an interrupted evaluation; ``export``
writes CSV and JSON; ``views`` serves the pages.
"""
