"""Topics stored before versions were kept become each phase's change 1 (migration 0019): their
files are that change's files, so the first replacement is change 2 and the old file is listed."""
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE, AFTER = ("competitions", "0018_assessor_fields"), ("competitions", "0019_topics_versions")


def test_stored_topics_become_change_1():
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    apps = executor.loader.project_state([BEFORE]).apps
    Competition, Phase = apps.get_model("competitions", "Competition"), apps.get_model("competitions", "Phase")
    Group, Subset = apps.get_model("competitions", "SubsetGroup"), apps.get_model("competitions", "Subset")
    TopicSet = apps.get_model("competitions", "TopicSet")
    from django.utils import timezone

    now = timezone.now()
    competition = Competition.objects.create(slug="old", title="Old", benchmark="generic", starts_at=now)
    phase = Phase.objects.create(competition=competition, slug="dev", name="Dev", opens_at=now,
                                 closes_at=now + timezone.timedelta(days=1))
    group = Group.objects.create(competition=competition, name="known", label="Known")
    for code in ("sw", "te"):
        subset = Subset.objects.create(competition=competition, code=code, name=code, group=group)
        TopicSet.objects.create(phase=phase, subset=subset, file=f"topics/2025/topics.{code}.tsv",
                                original_name=f"topics.{code}.tsv", sha256=code * 32, query_count=3)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([AFTER])
    apps = executor.loader.project_state([AFTER]).apps
    version = apps.get_model("competitions", "TopicsVersion").objects.get(phase_id=phase.pk)
    files = apps.get_model("competitions", "TopicsFile").objects.filter(version=version).order_by("subset__code")
    assert version.number == 1
    assert [(f.original_name, f.file.name, f.sha256) for f in files] == [
        ("topics.sw.tsv", "topics/2025/topics.sw.tsv", "sw" * 32), ("topics.te.tsv", "topics/2025/topics.te.tsv", "te" * 32)]
    assert set(apps.get_model("competitions", "TopicSet").objects.values_list("version", flat=True)) == {1}
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
