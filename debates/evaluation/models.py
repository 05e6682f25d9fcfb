"""What an evaluation stores: the run (data set, panel, settings, totals) and one row per item.

Every item row is written when the evaluation starts, so resuming is a query: the items without
``finished_at`` are still to do, and one with a ``question`` already has its run (finished, or
to resume through the question's lease). Imported by debates.models, so the app sees them; they
name Panel and Question by their app label, so this module never imports debates.models back.
"""

from decimal import Decimal

from django.conf import settings as django_settings
from django.db import models
from django.urls import reverse

from debates.lib.labelled import Labelled


class EvaluationStatus(Labelled):
    RUNNING = "running", "Running"
    INTERRUPTED = "interrupted", "Interrupted"
    DONE = "done", "Done"


class EvaluationQuerySet(models.QuerySet["Evaluation"]):
    def visible_to(self, user) -> "EvaluationQuerySet":
        """An evaluation is for its owner and staff (its questions are private to them too)."""
        if not user.is_authenticated:
            return self.none()
        return self if user.is_staff else self.filter(owner=user)


class Evaluation(models.Model):
    dataset = models.CharField(max_length=200, help_text="The file's name, or arithmetic:N:SEED.")
    fingerprint = models.CharField(
        max_length=64, db_index=True, help_text="Items and panel: a re-run with the same arguments resumes this one."
    )
    panel = models.ForeignKey("debates.Panel", on_delete=models.PROTECT, related_name="evaluations")
    owner = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="evaluations"
    )
    settings = models.JSONField(default=dict, blank=True, help_text="limit, concurrency, source")
    status = models.CharField(max_length=16, choices=EvaluationStatus.choices(), default=EvaluationStatus.RUNNING)
    totals = models.JSONField(default=dict, blank=True, help_text="summary.Totals.as_dict(), after each item")
    wall_ms = models.PositiveBigIntegerField(default=0, help_text="Time spent running it, over every session")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = EvaluationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Evaluation {self.pk}: {self.dataset} on {self.panel}"

    def get_absolute_url(self) -> str:
        return reverse("debates:evaluation", args=[self.pk])


class EvaluationItem(models.Model):
    """One item: what was asked and expected, its question, and how each answer scored."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="items")
    index = models.PositiveIntegerField(help_text="Its place in the data set, from 0")
    item_id = models.CharField(max_length=200)
    line = models.PositiveIntegerField(default=0)
    text = models.TextField(help_text="The question as the panel got it")
    answer = models.TextField(help_text="The expected answer as the data set writes it")
    expected = models.TextField(help_text="The expected answer in the form answers are compared in")
    kind = models.CharField(max_length=8, help_text="number, option or text")
    options = models.JSONField(default=list, blank=True)
    question = models.ForeignKey(
        "debates.Question", on_delete=models.SET_NULL, null=True, blank=True, related_name="evaluation_items"
    )
    status = models.CharField(max_length=16, blank=True, help_text="The question's final status")
    answers = models.JSONField(
        default=list, blank=True, help_text="Per model, in roster order: name, model, answer, read, source, correct"
    )
    majority = models.TextField(blank=True)
    majority_correct = models.BooleanField(default=False)
    majority_tie = models.BooleanField(default=False)
    verdict = models.TextField(blank=True)
    verdict_read = models.TextField(blank=True)
    verdict_correct = models.BooleanField(default=False)
    grounded = models.BooleanField(default=False, help_text="SymPy computed maths for the panel before it answered")
    calls = models.PositiveIntegerField(default=0)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal(0))
    wall_ms = models.PositiveBigIntegerField(default=0)
    finished_at = models.DateTimeField(null=True, blank=True, help_text="Scored: never asked again")

    class Meta:
        ordering = ["evaluation", "index"]
        constraints = [models.UniqueConstraint(fields=["evaluation", "index"], name="one_item_per_index")]

    def __str__(self) -> str:
        return f"{self.evaluation_id} #{self.index + 1}: {self.item_id}"
