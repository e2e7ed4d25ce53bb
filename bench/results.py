#!/usr/bin/env python3
"""Generates the measured tables of docs/results.md.

Compiles and simulates (timing only; cycles are identical to a functional run)
every model on the default hardware, then prints Markdown: the whole-network
table, each network's per-stage efficiency beside Snowflake's published
per-layer tables (REFERENCE.md §1), and the ablation table (each compiler pass
switched off in turn). Usage:  bench/results.py [--bin build/bin] > tables.md
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

MODELS = ["alexnet", "googlenet", "resnet50", "vgg16", "mobilenet_v1", "squeezenet1_1"]
ABLATION = ["", "--no-split-channels", "--no-gather", "--no-precise-deps",
            "--no-loop-reorder", "--no-double-buffer"]

# Snowflake's published per-layer efficiency (Gokhale et al. 2017), and how
# our layer names group into their rows. "actual ms" and efficiency as printed.
SNOWFLAKE = {
    "alexnet": [("L1", ["conv1"], 69.87), ("L2", ["conv2"], 99.07), ("L3", ["conv3"], 99.37),
                ("L4", ["conv4"], 97.22), ("L5", ["conv5"], 98.59)],
    "googlenet": [("layer1", ["conv1"], 73.7), ("layer2", ["conv2_reduce", "conv2"], 97.3),
                  ("3a", ["i3a_"], 86.9), ("3b", ["i3b_"], 95.4), ("4a", ["i4a_"], 88.3),
                  ("4b", ["i4b_"], 88.2), ("4c", ["i4c_"], 88.8), ("4d", ["i4d_"], 94.6),
                  ("4e", ["i4e_"], 94.4), ("5a", ["i5a_"], 94.0), ("5b", ["i5b_"], 95.4)],
    "resnet50": [("conv_1", ["conv1"], 65.7), ("conv_2", ["layer1_"], 97.2),
                 ("conv_3", ["layer2_"], 97.2), ("conv_4", ["layer3_"], 97.0),
                 ("conv_5", ["layer4_"], 97.0)],
}
PUBLISHED_TOTAL = {"alexnet": 94.07, "googlenet": 91.6, "resnet50": 95.5}


def run(binary, model, flags, tmp):
    prog = os.path.join(tmp, model + ".bin")
    stats = os.path.join(tmp, model + ".json")
    subprocess.run([os.path.join(binary, "snowc"), f"models/{model}.yaml", "-o", prog,
                    "--uniform-format"] + [f for f in flags if f], check=True)
    subprocess.run([os.path.join(binary, "snowsim"), prog, "--timing-only", "--quiet",
                    "--stats-json", stats], check=True)
    with open(stats) as f:
        return json.load(f)


def efficiency(layers, macs_per_cycle):
    macs = sum(l["macs"] for l in layers)
    cycles = sum(l["cycles"] for l in layers)
    return 100.0 * macs / (cycles * macs_per_cycle) if cycles else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", default="build/bin")
    args = ap.parse_args()
    out = sys.stdout
    with tempfile.TemporaryDirectory() as tmp:
        results = {m: run(args.bin, m, [], tmp) for m in MODELS}
        out.write("| model | cycles | utilization | conv-layer efficiency | G-ops/s | fps |"
                  " DRAM MB / frame |\n|---|---|---|---|---|---|---|\n")
        for m in MODELS:
            d = results[m]
            t, n = d["total"], d["hw"]["macs"]
            conv = [l for l in d["layers"] if l["type"] == "conv"]
            out.write(f"| {m} | {t['cycles']:,} | {100 * t['utilization']:.2f} % | "
                      f"{efficiency(conv, n):.2f} % | {t['gops']:.1f} | {t['fps']:.1f} | "
                      f"{(t['dram_read_bytes'] + t['dram_write_bytes']) / 1e6:.1f} |\n")

        for m, rows in SNOWFLAKE.items():
            d = results[m]
            n = d["hw"]["macs"]
            out.write(f"\n**{m}** (conv layers; Snowflake as published)\n\n"
                      "| Snowflake row | our layers | cycles | our efficiency | Snowflake |\n"
                      "|---|---|---|---|---|\n")
            conv = [l for l in d["layers"] if l["type"] == "conv"]
            for name, prefixes, theirs in rows:
                mine = [l for l in conv if any(l["name"] == p or (p.endswith("_") and
                        l["name"].startswith(p)) for p in prefixes)]
                cycles = sum(l["cycles"] for l in mine)
                out.write(f"| {name} | {len(mine)} | {cycles:,} | {efficiency(mine, n):.2f} % |"
                          f" {theirs} % |\n")
            out.write(f"| total | {len(conv)} | {sum(l['cycles'] for l in conv):,} | "
                      f"{efficiency(conv, n):.2f} % | {PUBLISHED_TOTAL[m]} % |\n")

        out.write("\n| model | " + " | ".join(f or "all on" for f in ABLATION) + " |\n|---|" +
                  "---|" * len(ABLATION) + "\n")
        for m in ["alexnet", "googlenet", "resnet50", "mobilenet_v1", "squeezenet1_1"]:
            cells = []
            for f in ABLATION:
                t = (results[m] if not f else run(args.bin, m, [f], tmp))["total"]
                cells.append(f"{t['cycles']:,} ({100 * t['utilization']:.2f} %)")
            out.write(f"| {m} | " + " | ".join(cells) + " |\n")


if __name__ == "__main__":
    main()
