"""The log tail a team sees (cupboard.systems.sandbox_log): bounded, and never showing the topics."""
from __future__ import annotations

from cupboard.systems.sandbox_log import WINDOW_BYTES, WITHHELD, LogTail, Redactor

TOPICS = ["Who painted the Mona Lisa", "東京タワーの高さ", "Straße nach München", "hi"]


def redacted(text: str) -> str:
    return Redactor(TOPICS)(text)


def test_topic_words_whatever_their_case_and_spacing():
    assert redacted("query: who   PAINTED the\tmona_lisa!") == "query: who   [withheld] the\t[withheld]_[withheld]!"
    assert redacted("q1 Who painted the Mona Lisa done") == f"q1 Who {WITHHELD} the {WITHHELD} {WITHHELD} done"


def test_words_of_four_letters_or_more_but_not_short_common_ones():
    assert redacted("loaded 3 topics; painted lisas") == f"loaded 3 topics; {WITHHELD} lisas"
    assert redacted("this, the who") == "this, the who"  # words under four letters are left alone...
    assert redacted("hi, this") == f"{WITHHELD}, this"  # ...unless a topic is made of them only


def test_scripts_without_spaces_lose_every_two_character_piece():
    out = redacted("query=東京 and タワー and 高さ; 京都 is not one")
    assert out == f"query={WITHHELD} and {WITHHELD} and {WITHHELD}; 京都 is not one"


def test_casefolding_that_changes_lengths():
    out = redacted("STRASSE nach MÜNCHEN and straße")
    assert "MÜNCHEN" not in out and "straße" not in out and "STRASSE" not in out


def test_no_secrets_leaves_the_text_as_it_is():
    assert Redactor([])("anything at all") == "anything at all" and Redactor(["  "])("x") == "x"


def test_the_tail_is_bounded_and_drops_a_line_cut_at_the_window_edge():
    tail = LogTail()
    line = b"Who painted the Mona Lisa\n"
    for _ in range(3 * WINDOW_BYTES // len(line)):
        tail.feed(line)
    tail.feed(b"last line\n")
    assert len(tail.buffer) <= 2 * WINDOW_BYTES and tail.total > 3 * WINDOW_BYTES - len(line)
    text = tail.text(Redactor(TOPICS), 100)
    assert len(text) <= 100 and text.endswith("last line\n") and "Mona" not in text and WITHHELD in text
    assert not text.startswith("ithheld]"), "the cut falls on a line boundary"


def test_a_cut_window_never_starts_with_half_a_topic():
    tail = LogTail()
    tail.feed(b"x" * (2 * WINDOW_BYTES))
    tail.feed(b"the Mona Lisa\nok\n")
    # The window starts in the middle of the line of x's that ends with the topic: it goes whole.
    assert tail.text(Redactor(TOPICS), 10_000) == "ok\n"
    tail.feed(b"Mona Lisa painted\n")
    assert tail.text(Redactor(TOPICS), 10_000) == f"ok\n{WITHHELD} {WITHHELD} {WITHHELD}\n"


def test_control_characters_and_bad_bytes_do_not_reach_the_page():
    tail = LogTail()
    tail.feed(b"ok\x1b[31m red\x00\xff\xfe done\n")
    assert tail.text(Redactor([]), 100) == "ok[31m red\ufffd\ufffd done\n"

