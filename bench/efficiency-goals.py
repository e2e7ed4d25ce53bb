#!/usr/bin/env python3
"""Conv-layer efficiency, whole-network utilization and fps of every model
against the goals of issue 16 (grouped, depthwise and small convolutions).

Compiles each model (snowc --uniform-format, as bench/results.py) and runs
`snowsim --timing-only` (cycles equal a functional run). Figures are batch 1,
224x224, int16; conv-layer efficiency = sum of conv MACs / (conv cycles x the
array's MACs); utilization = all MACs / (all cycles x the array's MACs);
1 MAC = 2 ops. ShuffleNet v2 runs from its YAML model (canonicalize() folds
its shuffles and halves into the convs that read them) and, beside it, from
its ONNX export (torchvision, needs python3-torch), whose importer does the
same on import.
Beside each goal: the conv layers' layer-serial DRAM bound (bench/roofline.py,
as bench/layer-loss.py prints it): each conv layer, or fused pair as one unit,
takes at least max(MACs / array MACs, its DRAM bytes / the bytes a cycle the
channel sustains), with the bytes the simulator books to it; a goal above it
needs less traffic (layers fused on chip) or layers that overlap, not a
better plan for each layer. A second table splits each network's conv-layer
cycles by the simulator's stalls (computing, idle lanes or CUs, waiting for
DRAM or the control core, other operations) beside the DRAM channel's busy
share of the whole run: what a goal above its bound is waiting for.
With --tune, each model's program is the one `snowc --tune` finds
(per-layer options searched by running candidates in the timing engine,
docs/compiler.md, "Tuning"): minutes a model, the seconds printed.
Usage:  bench/efficiency-goals.py [--bin build/bin] [--hw zc706] [--jobs N]
                                  [--flags "--no-grouped-vdw"] [--tune]
                                  [--models squeezenet1_1,googlenet]
Exit status 1 if a goal is missed (a model that could not be measured does not count).
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import roofline

# (model, conv-layer efficiency goal in %): issue 16. The last three are
# floors: the classic networks must not regress.
GOALS = roofline.ISSUE16_GOALS
# Networks measured through their ONNX export as well (torchvision's layout
# and weights' shapes, seeded weights: timing does not depend on values): the
# importer folds ShuffleNet's channel moves on import (docs/onnx.md, "Channel
# moves"), canonicalize() the YAML model's (docs/model-format.md, step 4b),
# each its own way. Needs torch and torchvision for Debian's /usr/bin/python3;
# without them the row says so.
ONNX = [("shufflenet_v2_x1_0", 85)]
EXPORT = """
import sys, torch, torchvision
torch.manual_seed(0)
m = getattr(torchvision.models, sys.argv[1])().eval()
torch.onnx.export(m, torch.zeros(1, 3, 224, 224), sys.argv[2], opset_version=13)
"""


def run(binary, tmp, model, hw, flags, source=None):
    """The run's stats JSON, with the plan orders of its layers (which
    layers run as fused pairs) under "orders". A model run from its YAML
    file and from its ONNX export (source) at once writes files of its own
    for each."""
    stem = os.path.join(tmp, model + (".onnx" if source else ""))
    prog, stats, plan = stem + ".bin", stem + ".json", stem + ".plan.json"
    snowc = [os.path.join(binary, "snowc"), source or f"models/{model}.yaml", "--hw", hw,
             "--uniform-format"] + flags
    start = time.monotonic()
    r = subprocess.run(snowc + ["-o", prog], check=True, capture_output=True, text=True)
    compile_s = time.monotonic() - start
    if "--tune" in flags:
        # The plan of the program tuned: the same options, not searched again.
        snowc = [a for a in snowc if a != "--tune" and not a.startswith("--tune-passes")]
        snowc += ["--layer-off=" + a for a in re.findall(r"--layer-off='([^']*)'", r.stderr)]
    subprocess.run(snowc + ["--emit=plan-json", "-o", plan], check=True)
    subprocess.run([os.path.join(binary, "snowsim"), prog, "--timing-only", "--quiet",
                    "--stats-json", stats], check=True)
    with open(stats) as f:
        d = json.load(f)
    with open(plan) as f:
        d["orders"] = roofline.plan_orders(json.load(f))
    d["compile_s"] = compile_s
    return d


def run_onnx(binary, tmp, model, hw, flags):
    """The model's ONNX export run as run() runs a YAML model; None (and why)
    where torch cannot export it here."""
    path = os.path.join(tmp, model + ".onnx")
    r = subprocess.run(["/usr/bin/python3", "-c", EXPORT, model, path], capture_output=True,
                       text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "export failed"
    return run(binary, tmp, model, hw, flags, source=path), None


def conv_eff(d):
    conv = [l for l in d["layers"] if l["type"] == "conv"]
    return 100.0 * sum(l["macs"] for l in conv) / (sum(l["cycles"] for l in conv) *
                                                    d["hw"]["macs"])


def conv_bound(d):
    """The conv layers' efficiency in % if each (each fused pair) ran at its
    own roofline."""
    return roofline.bound_efficiency(d["layers"], d["hw"], d["orders"])


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--hw", default="zc706")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--flags", default="", help="extra snowc flags")
    ap.add_argument("--tune", action="store_true", help="snowc --tune each model")
    ap.add_argument("--models", default="",
                    help="comma-separated models of the goals to measure (default: all)")
    args = ap.parse_args()
    only = set(filter(None, args.models.split(",")))
    unknown = only - {m for m, _ in GOALS}
    if unknown:
        ap.error(f"no goal for {', '.join(sorted(unknown))}; the models: "
                 f"{', '.join(m for m, _ in GOALS)}")
    goals = [(m, g) for m, g in GOALS if not only or m in only]
    onnx_goals = [(m, g) for m, g in ONNX if not only or m in only]
    if args.tune:
        args.flags = (args.flags + " --tune").strip()
    with tempfile.TemporaryDirectory() as tmp:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            jobs = {m: pool.submit(run, args.bin, tmp, m, args.hw, args.flags.split())
                    for m, _ in goals}
            onnx = {m: pool.submit(run_onnx, args.bin, tmp, m, args.hw, args.flags.split())
                    for m, _ in onnx_goals}
            res = {m: j.result() for m, j in jobs.items()}
            onnx_res = {m: j.result() for m, j in onnx.items()}
    print(f"hardware {args.hw}, batch 1, int16, timing-only simulation"
          f"{', snowc ' + args.flags if args.flags else ''}\n")
    tuned = "--tune" in args.flags.split()
    print("| model | conv-layer efficiency | goal | met | layer-serial bound |"
          " utilization (whole network) | fps | cycles |" + (" search |" if tuned else ""))
    print("|---|---|---|---|---|---|---|---|" + ("---|" if tuned else ""))
    missed = 0
    rows = [(m, goal, res[m], "") for m, goal in goals]
    for m, goal in onnx_goals:
        d, why = onnx_res[m]
        rows.append((m, goal, d, why or " (its ONNX export)"))
    for m, goal, d, note in rows:
        if d is None:
            print(f"| {m} | not measured | ≥ {goal} % | — | | its ONNX export failed: {note} | | |")
            continue
        e = conv_eff(d)
        t = d["total"]
        ok = e >= goal
        missed += not ok
        print(f"| {m}{note} | {e:.2f} % | ≥ {goal} % | {'yes' if ok else 'no'} | "
              f"{conv_bound(d):.2f} % | {100 * t['utilization']:.2f} % | {t['fps']:.1f} | "
              f"{t['cycles']:,} |" + (f" {d['compile_s']:.0f} s |" if tuned else ""))
    print_losses(rows)
    return 1 if missed else 0


def print_losses(rows):
    """Where each network's conv-layer cycles go (the simulator's stalls,
    docs/stats-json.md): MAC steps that compute (the efficiency), MAC steps
    on idle lanes or CUs, waiting for DRAM, waiting for the control core,
    other operations (bias, writeback, pooling, pipeline drain); and how
    busy the DRAM channel is over the whole run."""
    print("\nWhere the conv-layer cycles go (% of them), and the DRAM channel's busy share of "
          "the whole run:\n")
    print("| model | computing | idle lanes or CUs | waiting for DRAM | waiting for the control "
          "core | other operations | DRAM channel busy |")
    print("|---|---|---|---|---|---|---|")
    for m, _, d, note in rows:
        if d is None:
            continue
        conv = [l for l in d["layers"] if l["type"] == "conv"]
        cycles = sum(l["cycles"] for l in conv)
        stall = lambda k: 100.0 * sum(l["stalls"][k] for l in conv) / cycles
        other = stall("other_ops") + stall("pipeline_drain")
        busy = 100.0 * d["total"]["dram_busy_cycles"] / d["total"]["cycles"]
        print(f"| {m}{note} | {conv_eff(d):.1f} % | {stall('lanes_idle_equiv'):.1f} % | "
              f"{stall('wait_dram'):.1f} % | {stall('ctrl_issue'):.1f} % | {other:.1f} % | "
              f"{busy:.1f} % |")


if __name__ == "__main__":
    sys.exit(main())
