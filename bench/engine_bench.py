"""Rules-engine benchmark: latency of the exact probabilities and rolls per second.

    .venv/bin/python bench/engine_bench.py            # everything (about 50 s)
    .venv/bin/python bench/engine_bench.py --quick    # skips the fully cold Q10 pass

The "cold process" rows start fresh Python processes: one kind loads the app as
gunicorn does (`config.wsgi`, whose start builds the Q10 tables, rolls.apps), the
other imports only the engine (what every process met before the tables were built at
start); each times its first 10z10 odds calls.

Prints Markdown tables; docs/performance.md quotes them. Not a test: numbers
depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolls.engine import arsmagica, ciernie, forum1000, q10
from rolls.engine.dice import SystemDice

ROOT = Path(__file__).resolve().parents[1]
MS = 1e-6  # nanoseconds → milliseconds


def percentile(sorted_ns: list[int], fraction: float) -> float:
    """Nearest-rank percentile, in milliseconds."""
    index = max(0, min(len(sorted_ns) - 1, round(fraction * len(sorted_ns)) - 1))
    return sorted_ns[index] * MS


def summary(name: str, samples_ns: list[int]) -> str:
    ordered = sorted(samples_ns)
    return (
        f"| {name} | {len(ordered)} | {percentile(ordered, 0.5):.4f} | "
        f"{percentile(ordered, 0.99):.4f} | {ordered[-1] * MS:.3f} |"
    )


def timed(
    calls: Iterable[Callable[[], object]], before: Callable[[], None] | None = None
) -> list[int]:
    samples = []
    for call in calls:
        if before is not None:
            before()
        start = time.perf_counter_ns()
        call()
        samples.append(time.perf_counter_ns() - start)
    return samples


def q10_grid() -> list[q10.PoolTest]:
    """Every pool X ≤ 10, Y ≤ X, difficulty 0..60, raises 0..3 (16 104 tests)."""
    return [
        q10.PoolTest(x=x, y=y, difficulty=difficulty, raises=raises)
        for x in range(11)
        for y in range(x + 1)
        for difficulty in range(61)
        for raises in range(4)
    ]


def probability_tables(quick: bool) -> list[str]:
    grid = q10_grid()
    calls = [lambda test=test: q10.probability(test) for test in grid]
    rows = ["| probability | calls | p50 ms | p99 ms | max ms |", "|---|---:|---:|---:|---:|"]

    q10.clear_caches()
    rows.append(summary("q10, whole grid, cold start (caches cleared once)", timed(calls)))
    rows.append(summary("q10, whole grid, warm", timed(calls)))
    if not quick:
        rows.append(
            summary(
                "q10, whole grid, every call fully cold (caches cleared before each)",
                timed(calls, before=q10.clear_caches),
            )
        )

    attribute = forum1000.Attribute("Zręczność", 501)
    modifiers = (
        forum1000.Modifier(50, "attribute", attribute="Zręczność"),
        forum1000.Modifier(-100, "gm_difficulty"),
    )
    forum_tests = [forum1000.SkillTest(level, attribute, modifiers) for level in range(26)] * 40
    rows.append(
        summary(
            "forum1000 skill test", timed(lambda t=t: forum1000.probability(t) for t in forum_tests)
        )
    )
    opposed = [
        forum1000.OpposedTest(
            forum1000.AttributeTest(forum1000.Attribute("Siła", a)),
            forum1000.SkillTest(2, forum1000.Attribute("Siła", b)),
        )
        for a in range(0, 1100, 50)
        for b in range(0, 1100, 25)
    ]
    rows.append(
        summary(
            "forum1000 opposed (all four odds)",
            timed(lambda t=t: forum1000.opposed_odds(t) for t in opposed),
        )
    )

    ciernie_tests: list[ciernie.Test] = []
    for attribute_value in range(25):
        for difference in range(-3, 4):
            skill = ciernie.SkillTest(4 + difference, 4, attribute=attribute_value)
            ciernie_tests += [
                ciernie.AttributeTest(attribute_value),
                ciernie.ComparativeTest(attribute_value, 12),
                skill,
                ciernie.RerollTest(skill, 2),
            ]
    rows.append(
        summary(
            "ciernie (attribute, comparative, skill, reroll)",
            timed(lambda t=t: ciernie.probability(t) for t in ciernie_tests),
        )
    )

    stress = [
        arsmagica.StressTest(3, 5, ease, botch_dice=botch)
        for ease in range(-5, 200)
        for botch in range(4)
    ]
    rows.append(
        summary(
            "arsmagica stress (ease −5..199)",
            timed(lambda t=t: arsmagica.probability(t) for t in stress),
        )
    )
    simple = [arsmagica.SimpleTest(3, 5, ease) for ease in range(-5, 30)] * 20
    rows.append(
        summary("arsmagica simple", timed(lambda t=t: arsmagica.probability(t) for t in simple))
    )
    return rows


COLD_PROCESSES = 10
# One fresh process: load the app (or only the engine), then its first 10z10 odds calls,
# each a new difficulty, so each computes its Fraction (no odds are cached at start).
COLD_PROBE = """
import json, sys, time
started = time.perf_counter_ns()
if sys.argv[1] == "app":
    import config.wsgi  # as gunicorn loads it
from rolls.engine import q10
loaded = time.perf_counter_ns() - started
samples = []
for difficulty in range(61):
    test = q10.PoolTest(x=10, y=10, difficulty=difficulty)
    start = time.thread_time_ns()  # CPU time: a shared machine's preemption is not the call's
    q10.probability(test)
    samples.append(time.thread_time_ns() - start)
q10.clear_caches()
start = time.thread_time_ns()
q10.warm()
print(json.dumps({"loaded": loaded, "samples": samples, "warm": time.thread_time_ns() - start}))
"""


def cold_process_tables() -> list[str]:
    env = os.environ | {"DJANGO_SETTINGS_MODULE": "config.settings"}
    env.setdefault("SECRET_KEY", "engine-bench")
    env.pop("DEBUG", None)
    rows = [
        "| cold process, first 10z10 odds (61 difficulties each) | processes | calls |"
        " p50 CPU ms | p99 CPU ms | max CPU ms | start s | q10.warm() CPU ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind, name in (
        ("app", "app started as production does (tables built at start)"),
        ("engine", "engine only, no tables built (before)"),
    ):
        samples, loads, warms = [], [], []
        for _ in range(COLD_PROCESSES):
            done = subprocess.run(
                [sys.executable, "-c", COLD_PROBE, kind],
                cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=120,
            )  # fmt: skip
            result = json.loads(done.stdout)
            samples += result["samples"]
            loads.append(result["loaded"])
            warms.append(result["warm"])
        ordered = sorted(samples)
        rows.append(
            f"| {name} | {COLD_PROCESSES} | {len(ordered)} | {percentile(ordered, 0.5):.4f} | "
            f"{percentile(ordered, 0.99):.4f} | {ordered[-1] * MS:.3f} | "
            f"{sorted(loads)[len(loads) // 2] / 1e9:.2f} | "
            f"{sorted(warms)[len(warms) // 2] * MS:.1f} |"
        )
    return rows


def rolls_per_second(seconds: float = 0.4) -> list[str]:
    dice = SystemDice()
    zr = forum1000.Attribute("Zręczność", 500)
    sz = forum1000.Attribute("Szybkość", 600)
    skill = forum1000.SkillTest(
        3, zr, (forum1000.Modifier(50, "attribute", attribute="Zręczność"),)
    )
    cases: list[tuple[str, Callable[[], object]]] = [
        ("forum1000 attribute", lambda: forum1000.roll(forum1000.AttributeTest(zr), dice)),
        ("forum1000 combined", lambda: forum1000.roll(forum1000.CombinedTest((zr, sz)), dice)),
        ("forum1000 skill", lambda: forum1000.roll(skill, dice)),
        ("forum1000 opposed", lambda: forum1000.roll(forum1000.OpposedTest(skill, skill), dice)),
        (
            "forum1000 initiative (5 characters)",
            lambda: forum1000.roll(
                forum1000.InitiativeTest(tuple(forum1000.InitiativeEntry(n, 500) for n in "ABCDE")),
                dice,
            ),
        ),
        ("forum1000 healing", lambda: forum1000.roll(forum1000.HealingTest(skill, 40, 100), dice)),
        ("q10 5z2", lambda: q10.roll(q10.PoolTest(x=5, y=2, difficulty=15), dice)),
        ("q10 10z5", lambda: q10.roll(q10.PoolTest(x=10, y=5, difficulty=30), dice)),
        ("ciernie attribute", lambda: ciernie.roll(ciernie.AttributeTest(10), dice)),
        ("ciernie skill", lambda: ciernie.roll(ciernie.SkillTest(2, 2, attribute=10), dice)),
        (
            "ciernie reroll",
            lambda: ciernie.roll(ciernie.RerollTest(ciernie.AttributeTest(10), 2), dice),
        ),
        ("arsmagica simple", lambda: arsmagica.roll(arsmagica.SimpleTest(2, 3, 9), dice)),
        (
            "arsmagica stress",
            lambda: arsmagica.roll(arsmagica.StressTest(2, 3, 9, botch_dice=2), dice),
        ),
    ]
    rows = ["| roll (SystemDice, test built each time, to_dict included) | rolls/s |", "|---|---:|"]
    for name, make in cases:
        count = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            for _ in range(100):
                make().to_dict()
            count += 100
        rows.append(f"| {name} | {count / seconds:,.0f} |")
    return rows


# Free-form expressions with every feature, and the largest ones still computed exactly
# (the next size up is refused as "too large to compute exactly").
NOTATION_ODDS = [
    "4d6k3", "10d10>=8", "3d6!", "3d6!!", "{1d20, 1d20}kh1", "4dF", "2d6r1", "(1d6+2)*2",
    "1d6/2", "4d6!kh3", "10d10>=8f1", "1d8[cut] + 2d6[fire]", "2d20kh1+5", "8d6", "6d10kh3",
    "20d6", "10d12", "1d100+1d100", "10d10>=8!", "1d1000*1d10",
]  # fmt: skip


def notation_odds_table(repeat: int = 30) -> list[str]:
    from rolls.engine.notation import OddsTooLarge, exact_odds, parse_notation

    parsed = [parse_notation(text) for text in NOTATION_ODDS]
    calls = [lambda n=n: exact_odds(n) for n in parsed] * repeat
    rows = [
        "| free-form exact odds | calls | p50 ms | p99 ms | max ms |",
        "|---|---:|---:|---:|---:|",
    ]
    rows.append(summary(f"{len(NOTATION_ODDS)} expressions × {repeat}", timed(calls)))

    def refused(text: str) -> None:
        try:
            exact_odds(parse_notation(text))
        except OddsTooLarge:
            return

    too_large = ["100d1000", "50d100", "10d6!kh3", "8d10!kh4"]
    refusals = [lambda t=t: refused(t) for t in too_large] * repeat
    rows.append(summary("past the limit (refused: " + ", ".join(too_large) + ")", timed(refusals)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the fully cold Q10 pass")
    parser.add_argument("--notation", action="store_true", help="only the free-form odds")
    arguments = parser.parse_args()
    quick = arguments.quick
    print(f"Python {platform.python_version()} on {platform.machine()}, {platform.system()}")
    print()
    print("\n".join(notation_odds_table()))
    if arguments.notation:
        return
    print()
    print("\n".join(probability_tables(quick)))
    print()
    print("\n".join(cold_process_tables()))
    print()
    print("\n".join(rolls_per_second()))


if __name__ == "__main__":
    main()
