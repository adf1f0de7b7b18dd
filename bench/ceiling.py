#!/usr/bin/env python3
"""How many probe runs does the ceiling search take, bisection against the
model-guided search (`ceiling: {method: model}`)?

For each route shape of bench/capacity.py (routes of `loadlab origin` with a
set capacity), runs the same study twice, once per method: a sweep at 40,
80, 120 and 160 % of the nominal capacity (stop after the first failed
step), an SLO of success >= 99 % and p99 <= 5x the route's latency, and a
ceiling search to 5 % of the capacity. Prints each study's bracket and
probe-run count (read from the report's ceiling table) and a table: the
probe runs of each method, and how many of each method's ceilings lie
within the resolution of the bisection's median ceiling.

    bench/ceiling.py [--reps N] [--shapes c5,narrow] [--loadlab PATH]
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile

from capacity import SHAPES
from common import ROOT

LATENCY_MS = {"c5": 20, "narrow": 10, "wide-slow": 50}

PLAN = """name: ceiling-{shape}
origin:
  recipes:
    - route: /r
      random_content: 1kb
      stages: [{{at: 0, status: 200, {recipe}
targets:
  - name: r
    url: "{{origin}}/r"
load:
  rates: [{rates}]
  step: 1s
  warmup: 200ms
  workers: 40
  timeout: 5s
slo: {{success: 99%, p99: {p99}ms}}
stop: {{after_failures: 1}}
ceiling: {{resolution: {res}, method: {method}}}
"""

ROW = re.compile(r"^\| r \| (\d+|—) \| (\d+|—) \| [^|]+ \| (\d+) \|")


def study(loadlab, shape, method, work):
    recipe, cap = SHAPES[shape]
    plan = os.path.join(work, "plan.yaml")
    rates = ", ".join(str(round(cap * f)) for f in (0.4, 0.8, 1.2, 1.6))
    with open(plan, "w") as f:
        f.write(PLAN.format(shape=shape, recipe=recipe, rates=rates, p99=5 * LATENCY_MS[shape],
                            res=max(1, round(cap * 0.05)), method=method))
    out = os.path.join(work, "out")
    subprocess.run([loadlab, "study", plan, "--out", out, "--db", os.path.join(work, "s.db")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(out, "report.md")) as f:
        for line in f:
            if m := ROW.match(line):
                return m.group(1), m.group(2), int(m.group(3))
    return None, None, 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--loadlab", default=os.path.join(ROOT, "target", "debug", "loadlab"))
    ap.add_argument("--shapes", default=",".join(SHAPES))
    a = ap.parse_args()
    rows = []
    for shape in a.shapes.split(","):
        counts = {"bisect": [], "model": []}
        res = max(1, round(SHAPES[shape][1] * 0.05))
        ceilings = {"bisect": [], "model": []}
        for rep in range(a.reps):
            for method in counts:
                with tempfile.TemporaryDirectory() as w:
                    p, f, n = study(a.loadlab, shape, method, w)
                print(f"{shape} rep {rep} {method}: passes at {p}, fails at {f}, {n} probe run(s)", flush=True)
                counts[method].append(n)
                ceilings[method].append(int(p) if p and p.isdigit() else None)
        # Each study finds its own ceiling, and a route's wall moves a
        # little from study to study: both methods are held to the
        # bisection's median ceiling, within the resolution.
        found = [c for c in ceilings["bisect"] if c is not None]
        median = statistics.median(found) if found else None
        near = {k: sum(c is not None and median is not None and abs(c - median) <= res for c in v)
                for k, v in ceilings.items()}
        rows.append((shape, a.reps, sum(counts["bisect"]), sum(counts["model"]), median, res, near))
    print("\n| Shape | Reps | Probe runs, bisect | Probe runs, model | Bisection's median ceiling "
          "| Within ± resolution of it: bisect | model |")
    print("|---|---|---|---|---|---|---|")
    for shape, reps, b, m, median, res, near in rows:
        print(f"| {shape} | {reps} | {b} | {m} | {median} (± {res}) | {near['bisect']}/{reps} | {near['model']}/{reps} |")


if __name__ == "__main__":
    main()
