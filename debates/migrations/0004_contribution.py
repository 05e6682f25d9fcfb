"""Vote meant both any contribution and a ballot: the row of one voice's contribution in one
round is a Contribution (its table is renamed, no row is touched)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("debates", "0003_vocabulary"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="vote", name="one_vote_per_seat_per_round"),
        migrations.RenameModel(old_name="Vote", new_name="Contribution"),
        migrations.AlterField(
            model_name="contribution",
            name="round",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="contributions", to="debates.round"
            ),
        ),
        migrations.AlterField(
            model_name="contribution",
            name="panelist",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="contributions",
                to="debates.panelist",
            ),
        ),
        migrations.AddConstraint(
            model_name="contribution",
            constraint=models.UniqueConstraint(fields=("round", "seat"), name="one_contribution_per_seat_per_round"),
        ),
    ]
