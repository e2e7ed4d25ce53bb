#!/usr/bin/python3
"""Whole-network utilization of batched programs against the goals of issue
18, item 5 (docs/batch.md), with batch 1 beside.

Compiles each model twice (snowc --uniform-format, batch 1 and `--batch N`)
and runs `snowsim --timing-only` (cycles equal a functional run). Scope: whole
network (every layer's cycles, pooling and fc included), 224x224, int16,
utilization = all MACs of the batch / (cycles of the run x the array's MACs),
1 MAC = 2 ops; fps counts frames (N per run). The 4096x4096 fc is a one-layer
model (input 4096x1x1). Also prints the code size, which grows with the batch
(conv steps are unrolled per frame; the RTL's IMEM holds 2^18 instructions),
and a bound: the utilization if every layer (a fused pair as one unit,
bench/roofline.py) ran at its own roofline for the traffic it has, max(MACs /
array MACs, DRAM bytes / sustained bytes a cycle) summed over the units (no
overlap between them, no instruction fetch). A goal above the bound needs
less traffic or layers that overlap (a pool beside a conv passes it), not a
better plan per layer: AlexNet's fc weights (117 MB a batch) stream at the
sustained DRAM share whatever the batch.
And a cap ("fc cap"): the utilization of a program of one batch with every
layer but the fc layers at the array's full MAC rate (no DRAM, no fetch,
overlapping anything), and the fc layers after them, each taking max(its
MACs / array MACs, its weights' bytes / sustained bytes a cycle): an fc
layer reads every frame of the batch, so it starts after the last conv, and
its weights (int16, read once a batch) are far larger than the buffers. No
schedule of one batch passes it; a goal above it needs another batch's
convs beside the fc layers, or fewer weight bytes.
Usage:  bench/batch-goals.py [--bin build/bin] [--hw zc706] [--batch 16]
Exit status 1 if a goal is missed.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import roofline

# (model, batch or None for --batch, whole-network utilization goal in %).
GOALS = [("alexnet", None, 90), ("vgg16", None, 95), ("resnet50", None, 97),
         ("googlenet", None, 95), ("fc4096", 256, 95)]

FC4096 = """name: fc4096
input: {name: data, shape: [4096, 1, 1]}
weights: {seed: 3}
layers:
  - {name: fc, type: fc, input: data, out_features: 4096}
"""


def run(binary, tmp, model_path, name, hw, batch):
    prog = os.path.join(tmp, f"{name}-{batch}.bin")
    stats = os.path.join(tmp, f"{name}-{batch}.json")
    subprocess.run([os.path.join(binary, "snowc"), model_path, "-o", prog, "--hw", hw,
                    "--uniform-format", "--batch", str(batch)], check=True)
    subprocess.run([os.path.join(binary, "snowsim"), prog, "--timing-only", "--quiet",
                    "--stats-json", stats], check=True)
    plan = os.path.join(tmp, f"{name}-{batch}.plan.json")
    subprocess.run([os.path.join(binary, "snowc"), model_path, "-o", plan, "--hw", hw,
                    "--uniform-format", "--batch", str(batch), "--emit=plan-json"], check=True)
    with open(stats) as f:
        d = json.load(f)
    with open(plan) as f:
        d["orders"] = roofline.plan_orders(json.load(f))
    return d


def roofline_bound(stats):
    """Utilization in % with every unit at max(compute, its DRAM traffic):
    a layer, or a fused pair (compiler.md, step 9b; pairs fuse over a
    batch's frames since 2026-11-29) as one."""
    return roofline.bound_efficiency(stats["layers"], stats["hw"], stats["orders"],
                                     conv_only=False)


def fc_cap(stats, batch):
    """Utilization in % with everything but the fc layers at the full MAC
    rate and each fc layer at max(MACs, weight bytes / sustained rate)."""
    hw = stats["hw"]
    rate = roofline.bytes_per_cycle(hw)
    ideal = cycles = 0.0
    for l in stats["layers"]:
        mac_cycles = l["macs"] / hw["macs"]
        ideal += mac_cycles
        if l["type"] == "fc":
            weight_bytes = 2 * l["macs"] / batch  # in x out int16 weights
            cycles += max(mac_cycles, weight_bytes / rate)
        else:
            cycles += mac_cycles
    return 100 * ideal / cycles if cycles else 0.0


def count_instructions(binary, prog):
    listing = subprocess.run([os.path.join(binary, "snowdis"), prog, "--no-data", "--no-pc"],
                             check=True, capture_output=True, text=True).stdout
    n = 0
    for line in listing.splitlines():
        s = line.split("#", 1)[0].strip()
        if not s or s.startswith(".") or s.endswith(":"):
            continue
        if ":" in s.split()[0]:  # "label: inst"
            s = s.split(":", 1)[1].strip()
            if not s:
                continue
        n += 1
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--hw", default="zc706")
    ap.add_argument("--batch", type=int, default=16)
    args = ap.parse_args()
    missed = 0
    print(f"hardware {args.hw}; scope: whole network, int16, 1 MAC = 2 ops, snowsim --timing-only")
    print(f"{'model':<10} {'batch':>5} {'util %':>7} {'fps':>9} {'ms/frame':>9} {'ms/batch':>9} "
          f"{'insts':>9} {'bound %':>8} {'fc cap %':>8} | {'batch 1 util %':>14} {'fps':>8} | goal")
    with tempfile.TemporaryDirectory() as tmp:
        fc_path = os.path.join(tmp, "fc4096.yaml")
        with open(fc_path, "w") as f:
            f.write(FC4096)
        for model, batch, goal in GOALS:
            batch = batch or args.batch
            path = fc_path if model == "fc4096" else f"models/{model}.yaml"
            one = run(args.bin, tmp, path, model, args.hw, 1)["total"]
            stats = run(args.bin, tmp, path, model, args.hw, batch)
            many = stats["total"]
            insts = count_instructions(args.bin, os.path.join(tmp, f"{model}-{batch}.bin"))
            util = 100 * many["utilization"]
            ok = util >= goal
            missed += not ok
            print(f"{model:<10} {batch:>5} {util:>7.2f} {many['fps']:>9.1f} "
                  f"{many['frame_ms']:>9.3f} {many['batch_ms']:>9.2f} {insts:>9} "
                  f"{roofline_bound(stats):>8.2f} {fc_cap(stats, batch):>8.2f} | "
                  f"{100 * one['utilization']:>14.2f} {one['fps']:>8.1f} | "
                  f">= {goal} % {'met' if ok else 'MISSED'}", flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
