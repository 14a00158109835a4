"""The load test's scenarios: a deadline rush and burst, worker kills, a Redis and a PostgreSQL outage.

Each one plans uploads at fixed moments (spread over the four teams, each upload a
submission set its team has not sent before), sends them on a thread pool, and breaks
the stack at planned moments meanwhile. Sizes are the issue's; `--quick` scales the
counts and spans down for a run of a few minutes.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from .database import Database
from .datasets import RunSet
from .report import Fault, Scenario
from .stack import Stack
from .uploads import Client, Traffic, Upload

TEAMS = 4


@dataclass(frozen=True)
class Sizes:
    rush: tuple[int, float]  # uploads, seconds
    burst: tuple[int, float]
    kills: tuple[int, float, int]  # uploads, seconds, kills
    outage: tuple[int, float, float, float]  # uploads, seconds, outage start, outage length

    @property
    def uploads(self) -> int:
        return self.rush[0] + self.burst[0] + self.kills[0] + 2 * self.outage[0]


FULL = Sizes(rush=(200, 300.0), burst=(100, 25.0), kills=(30, 30.0, 5), outage=(35, 35.0, 5.0, 15.0))
QUICK = Sizes(rush=(24, 30.0), burst=(20, 5.0), kills=(10, 10.0, 2), outage=(20, 20.0, 4.0, 8.0))


class Runner:
    def __init__(self, *, stack: Stack, client: Client, database: Database, sets: list[RunSet], sizes: Sizes):
        self.stack, self.client, self.database, self.sets, self.sizes = stack, client, database, sets, sizes
        self.sent = 0  # uploads planned so far: upload k goes to team k % 4 with set k // 4

    def _plan(self, scenario: str, count: int, seconds: float) -> list[tuple[float, Upload]]:
        """`count` uploads evenly over `seconds`."""
        plan = []
        for number in range(count):
            k = self.sent + number
            plan.append((number * seconds / count, Upload(scenario, number + 1, k % TEAMS, self.sets[k // TEAMS])))
        self.sent += count
        return plan

    def _say(self, text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)

    def steady(self, name: str, label: str, count: int, seconds: float) -> Scenario:
        self._say(label)
        self.stack.mark(name)
        traffic = Traffic(self.client)
        traffic.start(self._plan(name, count, seconds))
        return Scenario(name, label, traffic.finish())

    def kills(self) -> Scenario:
        """kill -9 a whole worker at even moments during the uploads (one that is scoring, see
        `_victim`), and watch the submissions its processes were scoring."""
        count, seconds, kills = self.sizes.kills
        label = f"{kills} worker kills during {count} uploads"
        self._say(label)
        self.stack.mark("kills")
        traffic = Traffic(self.client)
        traffic.start(self._plan("kills", count, seconds))
        faults = []
        for index in range(kills):
            traffic.sleep_until((index + 0.5) * seconds / kills)
            victim, scoring = self._victim()
            start = time.time()
            killed = self.stack.kill_worker(victim)
            faults.append(Fault(f"kill {index + 1}", start, time.time(), _held(scoring, killed)))
        return Scenario("kills", label, traffic.finish(), faults)

    def _victim(self, patience: float = 10.0) -> tuple[int, list[tuple[int, str]]]:
        """The worker to kill and what was being scored: the first worker seen scoring a
        submission (by the claim's pid; up to `patience` seconds), else the busier one."""
        deadline = time.monotonic() + patience
        while time.monotonic() < deadline:
            scoring = self.database.scoring_now()
            for _, claimed in scoring:
                pid = claimed.rpartition(":")[2]
                index = self.stack.worker_of(int(pid)) if pid.isdigit() else None
                if index is not None:
                    return index, scoring
            time.sleep(0.2)
        return self.stack.busiest_worker(), self.database.scoring_now()

    def outage(self, server: str) -> Scenario:
        """Stop our own Redis or PostgreSQL for the outage's length in the middle of the uploads."""
        count, seconds, at, length = self.sizes.outage
        label = f"{length:.0f} s {'Redis' if server == 'redis' else 'PostgreSQL'} outage during {count} uploads"
        self._say(label)
        self.stack.mark(server)
        traffic = Traffic(self.client)
        traffic.start(self._plan(server, count, seconds))
        traffic.sleep_until(at)
        target = self.stack.redis if server == "redis" else self.stack.postgres
        start = time.time()
        target.stop()
        traffic.sleep_until(at + length)
        target.start()
        fault = Fault(server, start, time.time())
        return Scenario(server, label, traffic.finish(), [fault])

    def drain(self, scenarios: list[Scenario]) -> None:
        """Wait until the scenarios' submissions are all final, or 3 minutes after their last upload."""
        for scenario in scenarios:
            until = scenario.ended + 180
            while time.time() < until:
                pending = self.database.pending(scenario.name)
                if pending == 0:
                    break
                time.sleep(2)
        self._say("drained: " + ", ".join(f"{s.name} {self.database.pending(s.name)} pending" for s in scenarios))

    def run_all(self) -> list[Scenario]:
        sizes = self.sizes
        rush = self.steady("rush", f"deadline rush: {sizes.rush[0]} uploads in {sizes.rush[1]:.0f} s", *sizes.rush)
        burst = self.steady("burst", f"burst: {sizes.burst[0]} uploads in {sizes.burst[1]:.0f} s", *sizes.burst)
        self.drain([rush, burst])
        done = [rush, burst]
        for step in (self.kills, lambda: self.outage("redis"), lambda: self.outage("postgres")):
            scenario = step()
            self.drain([scenario])
            done.append(scenario)
        return done


def _held(scoring: list[tuple[int, str]], killed: set[int]) -> list[int]:
    """The submissions the killed processes held: by their claims' pids where claims record one,
    else every submission being scored (the other worker's too)."""
    if scoring and all(claimed for _, claimed in scoring):
        return [pk for pk, claimed in scoring if claimed.rpartition(":")[2].isdigit()
                and int(claimed.rpartition(":")[2]) in killed]
    return [pk for pk, _ in scoring]
