"""Pool exports numbered within their phase (pool #1, #2, ...), not by the site-wide row id:
existing exports are numbered per phase in the order they were asked for."""
from django.db import migrations, models


def number_per_phase(apps, schema_editor):
    PoolExport = apps.get_model("judging", "PoolExport")
    numbers: dict[int, int] = {}
    for export in PoolExport.objects.order_by("phase_id", "created_at", "pk"):
        numbers[export.phase_id] = numbers.get(export.phase_id, 0) + 1
        PoolExport.objects.filter(pk=export.pk).update(number=numbers[export.phase_id])


class Migration(migrations.Migration):

    dependencies = [
        ('judging', '0003_release_standings_judgment_changes'),
    ]

    operations = [
        migrations.AddField(
            model_name='poolexport',
            name='number',
            field=models.PositiveIntegerField(default=0, help_text="Its number in the phase (pool #1, #2, ...): in its name and addresses, so assessors and pages of one competition never see another's count"),
            preserve_default=False,
        ),
        migrations.RunPython(number_per_phase, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='poolexport',
            constraint=models.UniqueConstraint(fields=('phase', 'number'), name='unique_pool_number_per_phase'),
        ),
    ]
