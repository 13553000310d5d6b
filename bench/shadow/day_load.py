"""A compressed day of load for bench-shadow --day: a pure function from a seed, a duration and
the workloads to the changes hpa-sim is given, and when.

The run's duration is one day, starting at midnight. Each workload's load, in replicas' worth,
follows the day's curve (night low, morning ramp, midday plateau, evening peak, decline) from a
little above its HPA's minimum up to its own peak, shifted by up to an hour, times noise of a few
percent; a few workloads get a spike (about twice the load) or a drop (under half) for one or two
of their changes. Each workload changes at its own times, every 1 to 5 minutes of the run, so
changes never come all at once. A load never sits on a tolerance edge for any replica count (real
load is never exactly on it).

    python3 day_load.py [--minutes 30] [--seed 1]    prints the plan, one line per change
"""
import argparse
import bisect
import math
import random
from dataclasses import dataclass

from workloads import day_fleet

# (hour, share of the workload's peak); interpolated with a cosine so the curve has no corners.
DAY_SHAPE = [(0, 0.25), (4, 0.18), (6.5, 0.25), (9, 0.7), (12, 0.78), (14, 0.72), (17, 0.8), (20, 1.0),
             (22, 0.6), (24, 0.25)]
CHANGE_INTERVAL_SECONDS = (60, 300)
PHASE_HOURS = 1.0             # each workload's day starts up to this much earlier or later
NOISE = (0.03, 0.08)          # each workload's noise: the standard deviation of a change's factor
SPIKE = (0.10, 1.8, 2.5)      # chance per workload, factor range
DROP = (0.06, 0.3, 0.5)
LOWEST_LOAD = 0.3             # replicas' worth: an idle workload still reports something

# kube-controller-manager's default tolerance: a usage ratio of 1 +- 0.1 keeps the replicas.
TOLERANCE = 0.1
# How close to a tolerance edge a ratio may not come: CPU utilization is a whole percentage, so one
# step is 0.02 of a 50 % target, and spreading a load over pods rounds each pod's share.
EDGE_MARGIN = 0.025
# How close to a whole number of replicas a load may not come: ceil() of a ratio times the pods
# turns on it, and a ratio computed in floating point may land on either side.
WHOLE_MARGIN = 0.05
NUDGE = 0.01                  # replicas' worth per try when moving a load off the edges


@dataclass(frozen=True)
class DayStep:
    at: int            # seconds after the start; 0: the load the run starts with
    workload: str
    load: float        # replicas' worth, as served after rounding to the metric's unit
    change: dict       # hpa-sim's POST /set change


def day_curve(hour):
    """The share of the peak at `hour` of the day (any real number; the day repeats)."""
    hour %= 24
    i = max(1, bisect.bisect_right([h for h, _ in DAY_SHAPE], hour))
    (h0, v0), (h1, v1) = DAY_SHAPE[i - 1], DAY_SHAPE[i]
    t = (hour - h0) / (h1 - h0)
    return v0 + (v1 - v0) * (1 - math.cos(math.pi * t)) / 2


def off_edges(load, max_replicas):
    """Whether `load` (replicas' worth) is clear of every tolerance edge and whole-number edge
    for any replica count the HPA can have."""
    for replicas in range(1, max_replicas + 1):
        ratio = load / replicas
        if abs(ratio - (1 + TOLERANCE)) < EDGE_MARGIN or abs(ratio - (1 - TOLERANCE)) < EDGE_MARGIN:
            return False
    return abs(load - round(load)) >= WHOLE_MARGIN or round(load) > max_replicas


def served_load(workload, wanted, previous):
    """The load nearest `wanted` that is clear of the edges once rounded to the metric's unit, and
    not `previous` (a change changes something)."""
    per_replica = workload.milli_for(1)
    for k in range(1000):
        for candidate in ((wanted + k * NUDGE, wanted - k * NUDGE) if k else (wanted,)):
            served = workload.milli_for(max(LOWEST_LOAD, candidate)) / per_replica
            if served != previous and off_edges(served, workload.max_replicas):
                return served
    raise ValueError(f"{workload.name}: no load near {wanted} is clear of the tolerance edges")


def change_times(rng, seconds):
    """One workload's change instants after the start: its first within its first interval."""
    times, t = [], rng.uniform(0, rng.randint(*CHANGE_INTERVAL_SECONDS))
    while t < seconds:
        times.append(max(1, int(t)))
        t += rng.randint(*CHANGE_INTERVAL_SECONDS)
    return times


def event_factors(rng, count):
    """Per change: 1, or a spike's or a drop's factor on one or two consecutive changes."""
    factors = [1.0] * count
    for chance, low, high in (SPIKE, DROP):
        if count > 1 and rng.random() < chance:
            first = rng.randrange(1, count)  # never the starting load
            factor = rng.uniform(low, high)
            for i in range(first, min(count, first + rng.choice([1, 2]))):
                factors[i] = factor
    return factors


def workload_day(workload, seed, seconds):
    """One workload's steps: its starting load at 0, then each of its changes."""
    rng = random.Random(f"{seed}/{workload.name}")  # a workload's day does not depend on the others
    low = float(workload.min_replicas)  # the curve runs from a little above the minimum to the peak
    peak = rng.uniform(max(4.0, 3.0 * low), 0.85 * workload.max_replicas)
    phase = rng.uniform(-PHASE_HOURS, PHASE_HOURS)
    noise = rng.uniform(*NOISE)
    times = [0] + change_times(rng, seconds)
    factors = event_factors(rng, len(times))
    steps = []
    for at, factor in zip(times, factors):
        jitter = min(1 + 3 * noise, max(1 - 3 * noise, rng.gauss(1, noise)))
        wanted = (low + (peak - low) * day_curve(24.0 * at / seconds + phase)) * jitter * factor
        load = served_load(workload, wanted, steps[-1].load if steps else None)
        steps.append(DayStep(at, workload.name, load, workload.change_for(load)))
    return steps


def day_steps(seed, seconds, workloads):
    """Every workload's steps over a day compressed into `seconds`, in time order."""
    steps = [s for w in workloads for s in workload_day(w, seed, seconds)]
    return sorted(steps, key=lambda s: (s.at, s.workload))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=30)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    seconds = int(a.minutes * 60)
    for s in day_steps(a.seed, seconds, day_fleet(random.Random(a.seed))):
        print(f"{s.at:5d}s {24.0 * s.at / seconds:5.2f}h {s.workload} {s.load:6.2f} {s.change}")


if __name__ == "__main__":
    main()
