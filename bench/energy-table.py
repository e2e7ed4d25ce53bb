#!/usr/bin/env python3
"""Energy and power of every model on a preset with an energy table.

Compiles each model (snowc --uniform-format, batch 1) and runs
`snowsim --timing-only --stats-json`; prints the Markdown table of
docs/results.md, "Energy and power": fps, watts, millijoules a frame,
G-ops/J (1 MAC = 2 ops, whole network, our op counts), frames/J and the
dynamic share of the energy (all but static power). The energies come from
the simulator's table for the preset (docs/energy.md).
Usage:  bench/energy-table.py [--bin build/bin] [--hw zc706] [MODEL...]
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import tempfile

MODELS = ["alexnet", "googlenet", "resnet50", "vgg16", "mobilenet_v1", "squeezenet1_1",
          "resnext50_32x4d", "mobilenet_v2", "efficientnet_b0", "shufflenet_v2_x1_0"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(binary, tmp, hw, model):
    prog = os.path.join(tmp, model + ".bin")
    stats = os.path.join(tmp, model + ".json")
    subprocess.run([os.path.join(binary, "snowc"), os.path.join(ROOT, "models", model + ".yaml"),
                    "--uniform-format", "--hw", hw, "-o", prog], check=True)
    subprocess.run([os.path.join(binary, "snowsim"), prog, "--timing-only", "--stats-json", stats,
                    "--quiet"], check=True)
    with open(stats) as f:
        return json.load(f)["total"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--hw", default="zc706")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    models = a.models or MODELS
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(2) as ex:
        totals = list(ex.map(lambda m: measure(a.bin, tmp, a.hw, m), models))
    print(f"hardware {a.hw}; whole network, batch 1, int16, 1 MAC = 2 ops, our op counts; "
          "snowsim --timing-only with the preset's energy table\n")
    print("| model | fps | W | mJ / frame | G-ops/J | frames/J | dynamic share |")
    print("|---|---|---|---|---|---|---|")
    for m, t in zip(models, totals):
        if "energy_j" not in t:
            print(f"| {m} | {t['fps']:.1f} | (no energy table for {a.hw}) | | | | |")
            continue
        e = t["energy_j"]
        print(f"| {m} | {t['fps']:.1f} | {t['watts']:.2f} | {1000 * e:.1f} | "
              f"{t['gops_per_j']:.1f} | {1 / e:.2f} | {100 * (e - t['static_j']) / e:.0f} % |")


if __name__ == "__main__":
    main()
