"""The permissions matrix in the cup's other states: after the surprise reveal, after the
test-B reveal, and under each final-phase rule of test B (`Phase.before_reveal`). The rows and
the expected statuses are those of test_permissions_matrix, generated from the Viewer's rules;
their GET rows run here (a state changes what may be read, never what may be done; a final-phase
rule only test B's rows). Under each final-phase rule the scores a status answer carries must be exactly those `Viewer.sees_scores`
allows.
"""
from __future__ import annotations

import json

import pytest
from django.db import transaction

from cupboard.competitions.viewer import Viewer
from tests.rules.test_permissions_matrix import PERSONAS, STATES, Row, WorldTestCase, about_test_b, mismatches_in, request, rows


@pytest.mark.slow
class PermissionsInEveryStateTests(WorldTestCase):
    def _gets(self):
        return [row for row in rows(self.world) if row.method == "GET"]

    def test_after_each_reveal_every_persona_gets_the_expected_status(self):
        found = []
        for state in STATES[2:4]:
            found += mismatches_in(self.world, state, self._gets())
        assert not found, "\n".join(found)

    def test_under_each_final_phase_rule_every_persona_gets_the_expected_status(self):
        found, test_b_rows = [], [row for row in self._gets() if about_test_b(self.world, row)]
        for state in STATES[4:]:
            found += mismatches_in(self.world, state, test_b_rows)
        assert not found, "\n".join(found)

    def test_under_each_final_phase_rule_scores_reach_exactly_whom_the_viewer_allows(self):
        w, wrong = self.world, []
        for state in STATES[4:]:
            with transaction.atomic():
                state.change(w)
                for submission in (w.sub_a_test_b, w.baseline_test_b):
                    submission.phase.refresh_from_db()
                    for name in ("submissions:status", "submissions:api_status"):
                        for persona in PERSONAS:
                            response = request(w, Row(name, (submission.pk,), "GET", ()), persona)
                            if response.status_code != 200:
                                continue
                            shown = bool(json.loads(response.content)["scores"])
                            allowed = Viewer(getattr(w, persona), w.competition).sees_scores(submission)
                            if shown != allowed:
                                wrong.append(f"[{state.name}] {name} #{submission.pk} as {persona}: "
                                             f"scores {'shown' if shown else 'hidden'}")
                transaction.set_rollback(True)
        assert not wrong, "\n".join(wrong)
        assert {s.name for s in STATES[4:]} == {f"test B shows {r} before its reveal"
                                                for r in ("everything", "own", "status")}
