"""Sources in one shape: a contribution's citations (URLs) become sources, with its searches counted;
a panelist may search the web (and what a search costs), a panel may forbid it, a question turn it off."""

from decimal import Decimal

import django.core.validators
from django.db import migrations, models


def urls_to_sources(apps, schema_editor):
    """A stored URL becomes a source with that URL; what is already a source stays."""
    Contribution = apps.get_model("debates", "Contribution")
    for row in Contribution.objects.exclude(sources=[]).only("pk", "sources").iterator():
        row.sources = [{"url": item} if isinstance(item, str) else item for item in row.sources]
        row.save(update_fields=["sources"])


def sources_to_urls(apps, schema_editor):
    Contribution = apps.get_model("debates", "Contribution")
    for row in Contribution.objects.exclude(sources=[]).only("pk", "sources").iterator():
        row.sources = [item["url"] for item in row.sources if isinstance(item, dict) and item.get("url")]
        row.save(update_fields=["sources"])


def perplexity_searches(apps, schema_editor):
    """Perplexity's panelists searched before the setting existed: they keep doing so."""
    Panelist = apps.get_model("debates", "Panelist")
    Panelist.objects.filter(provider__preset="perplexity").update(search=True)


class Migration(migrations.Migration):
    dependencies = [("debates", "0015_attachments")]

    operations = [
        migrations.RenameField("contribution", "citations", "sources"),
        migrations.AlterField(
            model_name="contribution",
            name="sources",
            field=models.JSONField(
                blank=True, default=list, help_text="What it cites or looked up (providers.base.Source, as stored)"
            ),
        ),
        migrations.RunPython(urls_to_sources, sources_to_urls),
        migrations.AddField(
            model_name="contribution",
            name="searches",
            field=models.PositiveIntegerField(default=0, help_text="Web searches the provider made for it"),
        ),
        migrations.AddField(
            model_name="panelist",
            name="search",
            field=models.BooleanField(
                default=False,
                help_text="Its answers may search the web with the provider's own tool (OpenAI's search models, "
                "Anthropic's web search, Gemini's Google Search grounding, Perplexity, OpenRouter's web plugin); "
                "what it cites is shown under each answer. A question or a panel can still turn it off.",
                verbose_name="may search the web",
            ),
        ),
        migrations.AddField(
            model_name="panelist",
            name="price_search",
            field=models.DecimalField(
                decimal_places=4,
                default=Decimal("0"),
                help_text="What the provider bills for its web searches (see docs/sources.md): the estimate and "
                "the cost of each answer count them.",
                max_digits=10,
                validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                verbose_name="$ per 1,000 searches",
            ),
        ),
        migrations.RunPython(perplexity_searches, migrations.RunPython.noop),
        migrations.AddField(
            model_name="panel",
            name="forbid_search",
            field=models.BooleanField(
                default=False,
                help_text="No voice of this panel searches the web, whatever its panelist may do (the answers rest "
                "on what the models know; no search is billed).",
                verbose_name="forbid web search",
            ),
        ),
        migrations.AddField(
            model_name="question",
            name="search",
            field=models.BooleanField(
                default=True,
                help_text="Voices whose panelist may search the web do so for this question (unless its panel "
                "forbids it).",
            ),
        ),
    ]
