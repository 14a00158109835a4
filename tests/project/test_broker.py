"""The embedded broker (`filesystem://`, cupboard/broker.py) hands messages out in the order they
were sent, also when its clock gains a digit between two of them: kombu's own transport names
them by unpadded milliseconds and takes them in string order, so "10000" came before "9999"."""
from __future__ import annotations

import uuid
from unittest import mock

from kombu import Connection
from kombu.utils.json import dumps

import cupboard  # noqa: F401  (the Celery app registers the transport)
from cupboard import broker


def _queue_name() -> str:
    # kombu keeps the exchanges it declared per process: a name of each test's own.
    return f"fifo-{uuid.uuid4().hex[:8]}"


def _connection(tmp_path) -> Connection:
    folders = {name: tmp_path / name for name in ("queue", "processed", "control")}
    for folder in folders.values():
        folder.mkdir()
    return Connection("filesystem://", transport_options={
        "data_folder_in": str(folders["queue"]), "data_folder_out": str(folders["queue"]),
        "control_folder": str(folders["control"]), "processed_folder": str(folders["processed"]),
        "store_processed": True})


def _sent_then_taken(tmp_path, clock_values: list[int]) -> list[int]:
    """Send one message per clock value (both clocks kombu or cupboard may read show it), then
    take them all: the order they come back in."""
    ticks = iter(clock_values)
    with _connection(tmp_path) as connection:
        queue = connection.SimpleQueue(_queue_name())
        for number, tick in enumerate(ticks):
            with mock.patch("kombu.transport.filesystem.monotonic", return_value=tick / 1000), \
                 mock.patch.object(broker.time, "time_ns", return_value=tick * 1_000_000):
                queue.put({"number": number})
        taken = []
        for _ in clock_values:
            message = queue.get(timeout=5)
            message.ack()
            taken.append(message.payload["number"])
        queue.close()
    return taken


def test_filesystem_names_the_cupboard_transport():
    with Connection("filesystem://") as connection:
        assert type(connection.transport) is broker.Transport


def test_messages_come_out_in_the_order_sent_across_a_digit_boundary_of_the_clock(tmp_path):
    sent = [9_998, 9_999, 10_000, 10_001, 99_999, 100_000]
    assert _sent_then_taken(tmp_path, sent) == list(range(len(sent)))


def test_the_names_sort_by_sending_time_as_strings():
    names = [broker.message_name("celery", clock=lambda t=t: t) for t in (9, 10, 999_999, 10**18, 10**19)]
    assert sorted(names) == names
    assert all(name.endswith(".celery.msg") and name.partition(".")[2] == "celery.msg" for name in names)


def test_messages_an_older_version_left_in_the_queue_are_taken_first(tmp_path):
    with _connection(tmp_path) as connection:
        queue = connection.SimpleQueue(_queue_name())
        with mock.patch.object(broker, "message_name", lambda queue: f"123456_{uuid.uuid4()}.{queue}.msg"):
            queue.put({"number": 0})  # as kombu's transport names it
        queue.put({"number": 1})
        taken = [queue.get(timeout=5) for _ in range(2)]
        assert [m.payload["number"] for m in taken] == [0, 1]
        for message in taken:
            message.ack()
        queue.close()


def test_a_message_is_seen_under_its_name_only_once_written_whole(tmp_path):
    """kombu's reader takes any file of the queue's name, unlocked: a message created under its
    name and then written was read empty by a worker polling in between (JSONDecodeError)."""
    seen_while_writing = []
    name = _queue_name()
    with _connection(tmp_path) as connection:
        queue = connection.SimpleQueue(name)
        folder = tmp_path / "queue"

        def dumps_looking(payload):
            seen_while_writing.extend(p.name for p in folder.iterdir() if p.name.partition(".")[2] == f"{name}.msg")
            return dumps(payload)
        with mock.patch.object(broker, "dumps", dumps_looking):
            queue.put({"number": 0})
        assert seen_while_writing == []  # nothing a reader would take yet
        message = queue.get(timeout=5)
        assert message.payload == {"number": 0}
        message.ack()
        queue.close()
        assert not [p for p in folder.iterdir() if p.name.endswith(".part")]
