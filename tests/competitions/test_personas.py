"""The shared personas and factories build the world other tests rely on."""
import hashlib

from cupboard.competitions.viewer import Viewer
from tests.factories import make_qrels_release, make_topics
from tests.personas import PersonasTestCase, outsider, personas, staff  # noqa: F401


def test_it_gives_each_persona_its_role(personas):
    cup = personas.competition
    assert cup.is_organizer(personas.organizer)
    assert cup.is_organizer(personas.staff)
    for name in ("other_organizer", "participant", "teammate", "outsider", "anonymous"):
        assert not cup.is_organizer(getattr(personas, name)), name
    assert personas.other_competition.is_organizer(personas.other_organizer)
    assert set(personas.team_a.memberships.values_list("user__username", flat=True)) == {"participant", "teammate"}
    assert list(personas.team_b.memberships.values_list("user__username", flat=True)) == ["outsider"]


def test_it_hides_the_surprise_group_by_default(personas):
    codes = [s.code for s in Viewer(personas.outsider, personas.competition).subsets]
    assert codes == ["sw", "te"]
    assert [s.code for s in Viewer(personas.organizer, personas.competition).subsets] == ["sw", "te", "yo"]


def test_it_writes_topics_and_qrels_files_with_their_hash(personas):
    dev = personas.competition.phases.get(slug="dev")
    topics = make_topics(dev, "sw", ["1", "2"])
    assert topics.file.read() == b"1\tquery 1\n2\tquery 2\n"
    release = make_qrels_release(dev, {"sw": {"1": {"d1": 1, "d2": 0}}})
    qrels_file = release.files.get()
    content = qrels_file.file.read()
    assert content == b"1\tQ0\td1\t1\n1\tQ0\td2\t0\n"
    assert qrels_file.sha256 == hashlib.sha256(content).hexdigest()
    assert make_qrels_release(dev, {"sw": {"1": {"d1": 1}}}).number == 2


class PersonasBaseClassTestCase(PersonasTestCase):
    def test_it_logs_clients_in_as_the_persona(self):
        self.assertEqual(self.client_for(self.outsider).session["_auth_user_id"], str(self.outsider.pk))
        self.assertNotIn("_auth_user_id", self.client_for(self.anonymous).session)


def test_it_serves_single_personas_as_fixtures(outsider, staff):
    assert outsider.username == "outsider"
    assert staff.is_staff
