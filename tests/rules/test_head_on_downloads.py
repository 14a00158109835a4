"""Every download answers HEAD (`require_safe`) as it answers GET: the same status and headers
(type, disposition, length), and no body, for every persona, on every download row of the
permissions matrix; in the published state and once test B's official results are frozen.
Link checkers, download managers and `curl -I` ask HEAD first; it answered 405 (issue 23)."""
from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.db import transaction
from django.test import TestCase
from django.urls import reverse

from tests.personas import client_for
from tests.rules.matrix_rows import rows
from tests.rules.world import build_world

PERSONAS = ("anonymous", "participant", "teammate", "outsider", "organizer", "other_organizer", "staff")
DOWNLOADS = {
    "competitions:topics", "competitions:topics_variant", "competitions:qrels", "competitions:topics_archive",
    "competitions:sample_submission",
    "submissions:download", "judging:pool_zip", "judging:pool_tsv", "competitions:manage_export",
    "competitions:manage_runs", "leaderboards:export_csv", "leaderboards:export_json",
    "leaderboards:official_csv", "leaderboards:official_json", "submissions:per_topic_csv",
    "competitions:manage_per_topic", "competitions:definition_download", "leaderboards:paper_table",
    "competitions:manage_topics_file", "systems:image",
}


class HeadOnDownloadsTests(TestCase):

    @classmethod
    def setUpTestData(cls):
        cls.world = build_world()

    def compare(self) -> set[str]:
        """GET and HEAD of every download row by every persona; the names that answered 200. Each
        persona logs in once per call, at its instant, not once per row (a log-in writes a session
        and the user's last_login)."""
        served = set()
        clients = {persona: client_for(getattr(self.world, persona)) for persona in PERSONAS}
        for row in rows(self.world):
            if row.method != "GET" or row.name not in DOWNLOADS:
                continue
            url = reverse(row.name, args=row.args)
            for persona, client in clients.items():
                get, head = client.get(url, row.data or {}), client.head(url, row.data or {})
                where = f"{row.name}{row.args} {row.data or ''} as {persona}"
                self.assertEqual(head.status_code, get.status_code, where)
                self.assertEqual(dict(head.headers), dict(get.headers), where)
                self.assertEqual(b"".join(head.streaming_content) if head.streaming else head.content, b"", where)
                if get.status_code == 200:
                    served.add(row.name)
        return served

    @pytest.mark.slow  # every persona GETs and HEADs every download, before and after the freeze
    def test_every_download_answers_head_as_get(self):
        from cupboard.leaderboards.snapshots import snapshot_freeze

        served = self.compare()
        with transaction.atomic():  # test B's official results, frozen at its reveal
            after = self.world.test_b.reveal_at + timedelta(seconds=1)
            self.assertIsNotNone(snapshot_freeze(phase=self.world.test_b, now=after))
            with time_machine.travel(after, tick=False):
                served |= self.compare()
            transaction.set_rollback(True)
        self.assertEqual(served, DOWNLOADS)  # each was served whole at least once, so its headers were compared

    def test_every_url_that_answers_an_attachment_is_a_download_above(self):
        """So a new download cannot be left on require_GET: as the organizer (who may fetch the
        most), no other GET row of the matrix answers a file to save."""
        client = client_for(self.world.organizer)
        for row in rows(self.world):
            if row.method == "GET" and row.name not in DOWNLOADS:
                response = client.get(reverse(row.name, args=row.args), row.data or {})
                self.assertNotIn("attachment", response.get("Content-Disposition", ""), row.name)
