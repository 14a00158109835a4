"""The embedded broker (`filesystem://`, the default on a laptop and in the demo), first in,
first out.

kombu's filesystem transport names each message by the host's monotonic clock in
milliseconds, unpadded, and a reader takes the files in `sorted()` string order. Each time that
clock gains a digit (at 16.7 min, 2.8 h, 27.8 h and 11.6 days of uptime) the messages sent
after the step sort before those sent just before it ("9999" > "10000") and are taken first.
Here a message is named by the wall clock in nanoseconds, zero-padded to a fixed width, so the
string order is the order of sending; the wall clock, unlike the monotonic one, also keeps
messages left in the folder across a reboot ahead of new ones. The names start with a letter
that sorts after every digit, so messages a previous version left in the queue (unpadded
digits) are taken before the new ones.

A message is also written whole before it is visible: kombu creates the file under its final
name and then writes it, while its reader takes any file of the queue's name without a lock
(moves it away and reads it), so a worker polling at that instant read an empty file and died
of a JSONDecodeError (seen under load in the journeys' test). Here it is written under a name
the reader skips (`.part` after the queue's) and renamed to its own once complete, which is
atomic within the folder.

`register()` (called by cupboard/celery.py) makes `filesystem://` this transport; everything
else (folders, reading) is kombu's.
"""
from __future__ import annotations

import os
import time
import uuid

from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

WIDTH = 20  # digits of nanoseconds since 1970: enough until the year 5138
PREFIX = "t"  # sorts after "0".."9": older, unpadded names first


def message_name(queue: str, *, clock=time.time_ns) -> str:
    """`t<nanoseconds, zero-padded>_<uuid>.<queue>.msg`: sorted as strings, sorted by sending."""
    return f"{PREFIX}{clock():0{WIDTH}d}_{uuid.uuid4()}.{queue}.msg"


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """kombu's `_put` with `message_name`, visible under that name only once written whole."""
        path = os.path.join(self.data_folder_out, message_name(queue))
        try:
            with open(f"{path}.part", "wb", buffering=0) as handle:
                handle.write(str_to_bytes(dumps(payload)))
            os.replace(f"{path}.part", path)
        except OSError as exc:
            raise filesystem.ChannelError(f"Cannot add file {path!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel


def register() -> None:
    """`filesystem://` names this transport from now on, in this process."""
    TRANSPORT_ALIASES["filesystem"] = f"{__name__}:Transport"
