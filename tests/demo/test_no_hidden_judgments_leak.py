"""The demo, as a fresh clone loads it (no shared data: samples and synthetic data), never
publishes a hidden judgment: every download and page reachable anonymously or as a
participant (topics, qrels, run files, leaderboard exports, submission pages and status
JSON) is crawled, and no line may hold a relevant (query, document) pair of a phase whose
judgments are still hidden.

Found before: the synthetic generator used one seed for every competition, so Mr. TyDi's
hidden test judgments were MIRACL's public dev judgments of the same language; and
baselines' run files on hidden phases, generated from the judgments, were public.

A participant's own team's run files are left out of the check: they are the team's own
uploads (in the demo, generated from the judgments like every demo run)."""
from __future__ import annotations

import gzip
import re
import unittest
from collections import defaultdict
from urllib.parse import urljoin, urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import TestCase
from django.urls import reverse

from cupboard.competitions.models import Phase, QrelsFile, TopicSet
from cupboard.demo.services import demo_load
from cupboard.submissions.models import RunFile, Submission
from cupboard.teams.models import Membership
from tests.conftest import SHARED_DATA

HREF = re.compile(r'href="([^"#]+)')
TOKEN_SPLIT = re.compile(r"[\s,;\"'\[\]{}:]+")
SKIPPED = ("/admin/", "/accounts/", "/static/", "/leaderboards/plotly.min.js")


def hidden_relevant_pairs() -> dict[str, set[str]]:
    """{qid: relevant docids} over every qrels file of a phase whose judgments are hidden now."""
    pairs: dict[str, set[str]] = defaultdict(set)
    for qrels_file in QrelsFile.objects.select_related("release__phase__competition"):
        phase = qrels_file.release.phase
        if phase.qrels_are_public():
            continue
        with qrels_file.file.open("rb") as stored:
            for line in _text(stored.read()).splitlines():
                qid, _, docid, label = line.split()
                if int(label) >= phase.competition.relevance_level:
                    pairs[qid].add(docid)
    return pairs


def _text(body: bytes) -> str:
    return (gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body).decode("utf-8", "replace")


def leaked_pairs(body: bytes, hidden: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Hidden pairs whose query and document both stand in one line of `body`, as two tokens
    (MIRACL's Yoruba queries are named like passages: `10020#0` asks about passage 10020#0)."""
    found = []
    for line in _text(body).splitlines():
        tokens = TOKEN_SPLIT.split(line)
        for qid in set(tokens) & hidden.keys():
            others = set(tokens[:tokens.index(qid)] + tokens[tokens.index(qid) + 1:])
            found += [(qid, docid) for docid in hidden[qid] & others]
    return found


def download_urls() -> list[str]:
    """Every download the site has, whoever may fetch it: the crawl also follows links."""
    urls = [reverse("competitions:list")]
    for phase in Phase.objects.select_related("competition"):
        slug = phase.competition.slug
        urls += [reverse("competitions:detail", args=[slug]), reverse("competitions:commitments", args=[slug]),
                 reverse("leaderboards:phase", args=[slug, phase.slug]),
                 reverse("leaderboards:export_csv", args=[slug, phase.slug]),
                 reverse("leaderboards:export_json", args=[slug, phase.slug]), reverse("audit:log", args=[slug]),
                 reverse("competitions:feed", args=[slug])]
    for topics in TopicSet.objects.select_related("phase__competition", "subset"):
        urls.append(reverse("competitions:topics", args=[topics.phase.competition.slug, topics.phase.slug,
                                                         topics.subset.code]))
    for qrels in QrelsFile.objects.select_related("release__phase__competition", "subset"):
        phase = qrels.release.phase
        urls.append(reverse("competitions:qrels", args=[phase.competition.slug, phase.slug, qrels.release.number,
                                                        qrels.subset.code]))
    for submission_id in Submission.objects.values_list("pk", flat=True):
        urls += [reverse(name, args=[submission_id]) for name in
                 ("submissions:detail", "submissions:status", "submissions:api_status")]
    for run_file in RunFile.objects.select_related("subset"):
        urls.append(reverse("submissions:download", args=[run_file.submission_id, run_file.subset.code]))
    return urls


class HiddenJudgmentsChecks:
    """The crawls, on the demo a TestCase loaded in setUpTestData (`hidden`: its
    `hidden_relevant_pairs()`). The demo of a fresh clone (no shared data) is test_load_demo's
    LoadDemoTests', loaded with the same arguments: one whole demo load serves both files."""
    data_dir = None  # a fresh clone: samples and synthetic data

    def crawl(self) -> dict[str, bytes]:
        """url -> body of every 200 answer, from the known downloads and every link they show."""
        queue, seen, bodies = download_urls(), set(), {}
        while queue:
            url = queue.pop()
            if url in seen or url.startswith(SKIPPED):
                continue
            seen.add(url)
            response = self.client.get(url)
            if response.status_code != 200:
                continue
            body = b"".join(response.streaming_content) if response.streaming else response.content
            bodies[url] = body
            if response["Content-Type"].startswith("text/html"):
                for href in HREF.findall(body.decode()):
                    link = urlsplit(urljoin(url, href.replace("&amp;", "&")))
                    if not link.netloc or link.netloc == "testserver":
                        queue.append(link.path)  # query strings only re-filter what the page shows
        return bodies

    def assert_nothing_hidden_in(self, bodies: dict[str, bytes], *, except_urls=frozenset()) -> None:
        leaks = {url: pairs[:3] for url, body in bodies.items()
                 if url not in except_urls and (pairs := leaked_pairs(body, self.hidden))}
        self.assertEqual(leaks, {})

    def test_the_demo_has_hidden_judgments_to_keep(self):
        hidden_phases = {str(p) for p in Phase.objects.filter(hidden_qrels=True) if not p.qrels_are_public()}
        self.assertIn("mrtydi/test", hidden_phases)
        self.assertIn("miracl-wsdm-cup/test-b", hidden_phases)
        self.assertGreater(sum(len(docids) for docids in self.hidden.values()), 100)

    def test_an_anonymous_visitor_finds_no_hidden_judgment(self):
        bodies = self.crawl()

        self.assertTrue(any("/qrels/" in url for url in bodies))  # the public dev judgments were read
        self.assertTrue(any("/files/" in url for url in bodies))  # and public baseline runs
        self.assert_nothing_hidden_in(bodies)

    def test_a_participant_finds_no_hidden_judgment_beyond_the_own_team_runs(self):
        alice = User.objects.get(username="alice")
        self.client.force_login(alice)
        own_teams = Membership.objects.filter(user=alice).values_list("team_id", flat=True)
        own_runs = {reverse("submissions:download", args=[f.submission_id, f.subset.code])
                    for f in RunFile.objects.filter(submission__team__in=own_teams).select_related("subset")}

        bodies = self.crawl()

        self.assertTrue(own_runs & set(bodies))  # the team's runs were fetched, and only they are exempt
        self.assert_nothing_hidden_in(bodies, except_urls=own_runs)

    def test_the_competitions_share_no_query_of_their_synthetic_data(self):
        if self.data_dir is not None:
            self.skipTest("real data: the Cup and its dry run share MIRACL's dev queries, in disjoint slices per phase")
        owners: dict[str, set[str]] = defaultdict(set)
        for topics in TopicSet.objects.select_related("phase__competition", "subset"):
            if topics.subset.code in ("sw", "yo"):
                continue  # the shipped MIRACL samples, shared by the Cup and its dry run on purpose
            with topics.file.open("rb") as stored:
                for line in _text(stored.read()).splitlines():
                    owners[line.split("\t")[0]].add(topics.phase.competition.slug)
        shared = {qid: slugs for qid, slugs in owners.items() if len(slugs) > 1}
        self.assertEqual(shared, {})


@pytest.mark.slow  # loads the whole demo and crawls every download
@pytest.mark.postgres
@unittest.skipUnless(SHARED_DATA.is_dir(), f"{SHARED_DATA} is absent (CI has it)")
class HiddenJudgmentsStayHiddenWithRealDataTests(HiddenJudgmentsChecks, TestCase):
    """The same crawl over the demo built from the real MIRACL dev and Mr. TyDi test files
    (slices of one subset's queries per phase; Mr. TyDi's test queries are not MIRACL dev's).
    It runs once, on PostgreSQL, the production database: the synthetic demo's crawl runs on
    SQLite, and `make test` runs the PostgreSQL pass beside the longer SQLite pass, which had
    this file's two minutes on its critical path (docs/development.md)."""

    data_dir = SHARED_DATA

    @classmethod
    def setUpTestData(cls):
        demo_load(data_dir=cls.data_dir, scale=0.25, per_team=1, log=lambda line: None)
        cls.hidden = hidden_relevant_pairs()
