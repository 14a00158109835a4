"""Steps run at once, one thread and one database connection each (PostgreSQL tests of locks)."""
import threading
from collections.abc import Callable

from django.db import connection


def at_once(*steps: Callable[[], object]) -> list[BaseException | None]:
    """Run the steps in threads released together: what each raised, None for one that returned,
    in the steps' order. Each thread's connection is closed when its step ends."""
    start = threading.Barrier(len(steps))
    outcomes: list[BaseException | None] = [None] * len(steps)

    def run(index: int, step: Callable[[], object]) -> None:
        try:
            start.wait()
            step()
        except BaseException as error:  # noqa: BLE001 - handed to the caller
            outcomes[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=pair) for pair in enumerate(steps)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a thread still waits after 120 s: a deadlock?"
    return outcomes
