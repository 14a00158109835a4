from django.db import migrations

OLD, NEW = "Mixed.Avg", "M.Avg"


def relabel(old: str, new: str):
    """CLIRMatrix's mixed-pool average was headed "Mixed.Avg" where the site's other averages
    read K.Avg, S.Avg, ar.Avg: the benchmark now says M.Avg, and a competition loaded before
    says so too, so reloading its unchanged definition stays "nothing changed"."""
    def run(apps, schema_editor):
        SubsetGroup = apps.get_model("competitions", "SubsetGroup")
        SubsetGroup.objects.filter(competition__benchmark="clirmatrix", name="mixed", label=old).update(label=new)
    return run


class Migration(migrations.Migration):
    dependencies = [("competitions", "0013_competition_assessors_judging_labels")]

    operations = [migrations.RunPython(relabel(OLD, NEW), relabel(NEW, OLD))]
