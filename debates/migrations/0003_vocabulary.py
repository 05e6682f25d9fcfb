"""One meaning per name: a provider's ``protocol`` is its ``wire``; the roster's ``Seat`` is a
``Membership`` (a seat is a voice's place in one run); a vote's status takes the Outcome choices."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("debates", "0002_judgement"),
    ]

    operations = [
        migrations.RenameField(model_name="provider", old_name="protocol", new_name="wire"),
        migrations.AlterField(
            model_name="provider",
            name="wire",
            field=models.CharField(
                choices=[
                    ("openai", "OpenAI chat completions (and compatibles)"),
                    ("anthropic", "Anthropic Messages"),
                    ("gemini", "Google Gemini generateContent"),
                    ("local", "Embedded local model (llama.cpp)"),
                ],
                max_length=16,
                verbose_name="wire protocol",
            ),
        ),
        migrations.AlterField(
            model_name="provider",
            name="preset",
            field=models.CharField(
                blank=True,
                choices=[
                    ("openai", "OpenAI"),
                    ("deepseek", "DeepSeek"),
                    ("mistral", "Mistral"),
                    ("xai", "xAI (Grok)"),
                    ("perplexity", "Perplexity"),
                    ("openrouter", "OpenRouter"),
                    ("ollama", "Ollama"),
                    ("vllm", "vLLM"),
                    ("lmstudio", "LM Studio"),
                    ("llamacpp", "llama.cpp server"),
                    ("anthropic", "Anthropic"),
                    ("gemini", "Google Gemini"),
                    ("local", "Embedded SmolLM2-135M (no key)"),
                ],
                help_text="Fills the wire protocol and base URL when those are left blank.",
                max_length=32,
            ),
        ),
        migrations.RemoveConstraint(model_name="seat", name="one_seat_per_panelist"),
        migrations.RenameModel(old_name="Seat", new_name="Membership"),
        migrations.AlterField(
            model_name="membership",
            name="panel",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="memberships", to="debates.panel"
            ),
        ),
        migrations.AlterField(
            model_name="membership",
            name="panelist",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="memberships", to="debates.panelist"
            ),
        ),
        migrations.AddConstraint(
            model_name="membership",
            constraint=models.UniqueConstraint(fields=("panel", "panelist"), name="one_membership_per_panelist"),
        ),
        migrations.AlterField(
            model_name="vote",
            name="status",
            field=models.CharField(
                choices=[("done", "Done"), ("failed", "Failed"), ("gated", "Gated out (not an answer)")],
                max_length=16,
            ),
        ),
    ]
