#!/usr/bin/env python3
"""Does the capacity model predict where a route saturates?

For routes of `loadlab origin` whose capacity is set (served at once, queue),
runs a study of the first 5 steps of a plan that steps past the capacity
(25 %..125 % of the nominal capacity, 1.5 s steps, 3 repetitions) and reads
the model's X_max and its 95 % interval from the report, then a study of 2
long steps past saturation (150 %, 200 %, 8 s each) and takes the higher
step's throughput as the throughput measured at saturation. Prints one line per repetition and a table per shape:
median |error| of X_max, how often it is within 10 %, and how often the
interval covers the measured saturation.

    bench/capacity.py [--reps N] [--loadlab PATH]

Default binary: target/debug/loadlab (the model is arithmetic on the stored
runs; the load is a few hundred req/s, well within a debug client).
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile

from common import ROOT

# name: (recipe capacity/latency YAML, nominal capacity in req/s)
SHAPES = {
    # examples/c5-vs-c6g.yaml's c5 route: ~20 ms median, 8 at once, 16 queued.
    "c5": ("latency: {median: 20ms, p99: 60ms}}]\n      capacity: {concurrency: 8, queue: 16, queue_timeout: 300ms}", 330),
    # A narrow route: 10 ms, 2 at once, 4 queued.
    "narrow": ("latency: 10ms}]\n      capacity: {concurrency: 2, queue: 4, queue_timeout: 100ms}", 200),
    # A wide slow route: 50 ms, 16 at once, 32 queued.
    "wide-slow": ("latency: 50ms}]\n      capacity: {concurrency: 16, queue: 32, queue_timeout: 500ms}", 320),
}

PLAN = """name: capacity-{shape}
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
  step: {step}
  warmup: 300ms
  cooldown: 200ms
  workers: 40
  timeout: 5s
repetitions: {reps}
"""

# The study's first 5 steps, as shares of the nominal capacity: a plan that
# steps past it, as examples/c5-vs-c6g.yaml's 100..800 req/s does.
STEPS = (0.25, 0.5, 0.75, 1.0, 1.25)

# The saturation study's step. A step's throughput is its successes over
# the step and the wait for its last answers (vegeta's): past the capacity
# the queue takes that wait to drain (100-200 ms on these routes), so a
# short step reads the capacity low by that share (1.5 s steps: 7-12 %).
SATURATION_STEP = "8s"

ROW = re.compile(r"^\| (\d+) req/s \| \d+ \| [^|]+ \| ([\d.]+) \(")
XMAX = re.compile(r"^\| Peak throughput X_max \(req/s\) \| ([\d.]+) \(([\d.]+)–([\d.]+)\)")


def study(loadlab, shape, rates, reps, work, step="1500ms"):
    recipe, _ = SHAPES[shape]
    plan = os.path.join(work, "plan.yaml")
    with open(plan, "w") as f:
        f.write(PLAN.format(shape=shape, recipe=recipe, rates=", ".join(map(str, rates)), reps=reps,
                            step=step))
    out = os.path.join(work, "out")
    subprocess.run([loadlab, "study", plan, "--out", out, "--db", os.path.join(work, "s.db")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    section = md[md.index("## Capacity model"):]
    xmax, steps = None, []
    for line in section.splitlines():
        if m := XMAX.match(line):
            xmax = tuple(float(v) for v in m.groups())
        if m := ROW.match(line):
            steps.append((int(m.group(1)), float(m.group(2))))
    refusal = next((l for l in section.splitlines() if l.startswith("No capacity model")), None)
    return xmax, steps, refusal


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--loadlab", default=os.path.join(ROOT, "target", "debug", "loadlab"))
    ap.add_argument("--shapes", default=",".join(SHAPES))
    a = ap.parse_args()
    results = {s: [] for s in a.shapes.split(",")}
    for rep in range(a.reps):
        for shape in results:
            cap = SHAPES[shape][1]
            with tempfile.TemporaryDirectory() as w1, tempfile.TemporaryDirectory() as w2:
                xmax, _, refusal = study(a.loadlab, shape, [round(cap * f) for f in STEPS], 3, w1)
                _, sat, _ = study(a.loadlab, shape, [round(cap * f) for f in (1.5, 2.0)], 1, w2,
                                  step=SATURATION_STEP)
            measured = max(x for _, x in sat)
            if xmax is None:
                print(f"{shape} rep {rep}: refused ({refusal}); measured {measured:.0f}", flush=True)
                results[shape].append((None, measured))
                continue
            err = xmax[0] / measured - 1
            cover = xmax[1] <= measured <= xmax[2]
            print(f"{shape} rep {rep}: X_max {xmax[0]:.0f} ({xmax[1]:.0f}–{xmax[2]:.0f}) vs measured "
                  f"{measured:.0f}: {err:+.1%} {'covered' if cover else 'NOT covered'}", flush=True)
            results[shape].append((xmax, measured))
    print("\n| Shape | Reps | Fitted | Median X_max | Median measured | Median abs error | Within 10 % | Interval covers |")
    print("|---|---|---|---|---|---|---|---|")
    for shape, rs in results.items():
        fitted = [(x, m) for x, m in rs if x is not None]
        errs = [abs(x[0] / m - 1) for x, m in fitted]
        within = sum(e <= 0.10 for e in errs)
        cover = sum(x[1] <= m <= x[2] for x, m in fitted)
        med = lambda v: f"{statistics.median(v):.0f}" if v else "—"
        print(f"| {shape} | {len(rs)} | {len(fitted)} | {med([x[0] for x, _ in fitted])} | "
              f"{med([m for _, m in rs])} | {statistics.median(errs) * 100 if errs else 0:.1f} % | "
              f"{within}/{len(fitted)} | {cover}/{len(fitted)} |")


if __name__ == "__main__":
    main()
