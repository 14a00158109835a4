"""The files of an execution on the host side: the inputs handed to the sandbox and the runs taken out.

The sandbox's uid is not the runner's, so what it reads must be readable by others: the topics are
copied into a private staging folder with modes of their own, and the corpus (the operator's,
shared by every execution) is checked. What the system leaves in /output is copied out of the
sandbox's own tmpfs, through a descriptor the runner opened before the command started, taking only
regular files with plain names: no symlink, fifo or folder the system made can point the runner at
anything else. No Django here.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

#: Names an output file may have to be kept (a run per language: `en.trec`, `zh-TW.trec`...).
OUTPUT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


class CorpusUnreadable(RuntimeError):
    """The corpus folder has something the sandbox's uid could not read (an operator's mistake)."""


def check_readable(corpus: Path) -> None:
    """The corpus folder and what is directly in it, readable (and searchable) by every uid."""
    for path in [corpus, *corpus.iterdir()]:
        mode = path.stat().st_mode
        if not mode & 0o004 or (path.is_dir() and not mode & 0o001):
            raise CorpusUnreadable(f"{path} must be readable by everyone (chmod -R a+rX): the sandbox runs as another uid")


def stage_topics(source: Path, staged: Path) -> Path:
    """A private copy of the topic files, readable by the sandbox's uid whatever the source's modes."""
    staged.mkdir()
    for path in sorted(source.iterdir()):
        if path.is_file() and not path.is_symlink() and path.suffix == ".tsv":
            shutil.copyfile(path, staged / path.name)
            (staged / path.name).chmod(0o444)
    staged.chmod(0o555)
    return staged


def collect_outputs(output_fd: int, output_dir: Path, limit: int) -> tuple[list[str], int, bool]:
    """Copies the plain files of the sandbox's /output to output_dir: (names, bytes, was the tmpfs full)."""
    names, total = [], 0
    for name in sorted(os.listdir(output_fd)):
        if not OUTPUT_NAME.fullmatch(name):
            continue
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=output_fd)
        except OSError:
            continue
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            os.close(fd)
            continue
        with os.fdopen(fd, "rb") as source:
            with open(output_dir / name, "wb") as target:
                shutil.copyfileobj(source, target, 1 << 20)
            total += found.st_size
        names.append(name)
    space = os.fstatvfs(output_fd)
    full = space.f_bavail * space.f_frsize < 64 * 1024 and total + 64 * 1024 >= limit
    return names, total, full
