#!/usr/bin/env python3
"""How many probe runs does the ceiling search take, bisection against the
model-guided search (`ceiling: {method: model}`)?

For each route shape of bench/capacity.py (routes of `loadlab origin` with a
set capacity), runs the same study twice, once per method: a sweep at 40,
80, 120 and 160 % of the nominal capacity (stop after the first failed
step), an SLO of success >= 99 % and p99 <= 5x the route's latency, and a
ceiling search to 5 % of the capacity. Prints each study's bracket and
probe-run count (read from the report's ceiling table) and a table.

    bench/ceiling.py [--reps N] [--shapes c5,narrow] [--loadlab PATH]
"""
import argparse
import os
import re
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
        for rep in range(a.reps):
            for method in counts:
                with tempfile.TemporaryDirectory() as w:
                    p, f, n = study(a.loadlab, shape, method, w)
                print(f"{shape} rep {rep} {method}: passes at {p}, fails at {f}, {n} probe run(s)", flush=True)
                counts[method].append(n)
        rows.append((shape, a.reps, sum(counts["bisect"]), sum(counts["model"])))
    print("\n| Shape | Reps | Probe runs, bisect | Probe runs, model |")
    print("|---|---|---|---|")
    for shape, reps, b, m in rows:
        print(f"| {shape} | {reps} | {b} | {m} |")


if __name__ == "__main__":
    main()
