"""Starting an evaluation from the Evaluations page: a data set, a panel, how many items."""

from pathlib import Path
from typing import Any

from django import forms
from django.conf import settings

from debates.evaluation import datasets
from debates.evaluation.models import Evaluation
from debates.evaluation.runner import begin, runnable
from debates.models import Panel
from debates.refusal import Refused

ARITHMETIC = "arithmetic"
# Each item is a whole debate, paid for: more than this is a job for manage.py evaluate.
MAX_ITEMS = 200


def folder() -> Path:
    return Path(settings.TEOREMA["DATASETS_DIR"])


def dataset_files() -> list[str]:
    """The data set files offered: .jsonl and .csv files in TEOREMA_DATASETS_DIR, by name."""
    if not folder().is_dir():
        return []
    return sorted(p.name for p in folder().iterdir() if p.is_file() and p.suffix.lower() in datasets.SUFFIXES)


class EvaluationForm(forms.Form):
    dataset = forms.ChoiceField(
        label="Data set",
        error_messages={"invalid_choice": "There is no data set “%(value)s”: pick one from the list."},
    )
    panel = forms.ModelChoiceField(
        queryset=Panel.objects.none(),
        to_field_name="slug",
        empty_label=None,
        error_messages={"invalid_choice": "There is no panel “%(value)s”: pick one from the list."},
    )
    limit = forms.IntegerField(
        label="Items",
        initial=5,
        min_value=1,
        max_value=MAX_ITEMS,
        error_messages={
            "required": "Say how many items to run.",
            "invalid": "The number of items is a whole number, such as 5.",
            "min_value": "Run at least 1 item.",
            "max_value": "At most %(limit_value)s items from this page (each is a whole debate, paid for); "
            "manage.py evaluate runs more.",
        },
        help_text="The first N items of the data set (the arithmetic task generates N).",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        built_in = (ARITHMETIC, "Arithmetic (Du et al., generated)")
        dataset, panel = self.fields["dataset"], self.fields["panel"]
        assert isinstance(dataset, forms.ChoiceField)
        assert isinstance(panel, forms.ModelChoiceField)
        dataset.choices = [built_in, *((name, name) for name in dataset_files())]
        panel.queryset, panel.initial = Panel.objects.listed(), Panel.objects.default()

    def clean_panel(self) -> Panel:
        panel = self.cleaned_data["panel"]
        try:
            runnable(panel)
        except Refused as refused:
            raise forms.ValidationError(str(refused)) from refused
        return panel

    def source(self) -> str:
        """What datasets.load reads: the arithmetic task of N items, or the file in the data set folder."""
        name, limit = self.cleaned_data["dataset"], self.cleaned_data["limit"]
        return f"{ARITHMETIC}:{limit}" if name == ARITHMETIC else str(folder() / name)

    def start(self, owner: Any) -> tuple[Evaluation, bool] | None:
        """The evaluation begun (or the unfinished one of the same items resumed); None, with the
        error on the form, when the data set cannot be read."""
        try:
            return begin(self.source(), self.cleaned_data["panel"], owner, self.cleaned_data["limit"])
        except Refused as refused:
            self.add_error("dataset", str(refused))
            return None
