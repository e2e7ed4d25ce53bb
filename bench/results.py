#!/usr/bin/env python3
"""Generates the measured tables of docs/results.md.

Compiles and simulates (timing only; cycles are identical to a functional run)
every model, then prints Markdown:
  * the whole-network table on the default hardware (zc706);
  * each network's per-stage efficiency beside Snowflake's published
    per-layer tables (REFERENCE.md section 1);
  * the ablation table: each compiler pass switched off in turn, every model;
  * the same compiler on other array sizes and DRAM speeds (HARDWARE below),
    every model; their shapes are read from the configs through snowhw.
Usage:  bench/results.py [--bin build/bin] [--jobs N] > tables.md
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import tempfile

MODELS = ["alexnet", "googlenet", "resnet50", "vgg16", "mobilenet_v1", "squeezenet1_1",
          "resnext50_32x4d", "mobilenet_v2",
          "efficientnet_b0", "shufflenet_v2_x1_0"]
# Each pass's switch (snowc --help); "" is everything on.
ABLATION = ["", "--no-split-channels", "--no-balance", "--no-multi-pixel", "--no-wide-traces", "--no-copied-windows", "--no-banked-reads",
            "--no-pipeline-pools", "--no-shared-pool-regions", "--no-two-pools-beside", "--no-pools-between-chunks", "--no-fuse-depthwise", "--no-beside-pairs", "--no-fuse-dense", "--no-fuse-conv-pools", "--no-fuse-expansions", "--no-fuse-blocks", "--no-large-triple-tiles", "--no-split-triples", "--no-fuse-concats", "--no-four-bank-areas", "--no-whole-map-windows", "--no-colocated-weights", "--no-mixed-windows", "--no-host-block-pools", "--no-pin-pair-weights", "--no-dw-pixel-pairs", "--no-dw-halves", "--no-dw-quarters", "--no-even-rows", "--no-flat-pointwise", "--no-chunk-banks", "--no-spread-group-loads", "--no-spread-map-loads", "--no-early-residuals", "--no-early-block-windows", "--no-feed-next", "--no-top-weights", "--no-defer-piece-stores", "--no-full-depth-pairs", "--no-full-depth", "--no-pad-pixels", "--no-blocked-concats", "--no-align-slices",
            "--no-grouped-vdw",
            "--no-schedule",
            "--no-balance-loads", "--no-start-on-rows", "--no-start-on-channels", "--no-start-after-host", "--no-early-weights", "--no-spread-weights", "--no-weight-riders", "--no-prefetch-windows", "--no-remainder-tiles", "--no-dma-loops", "--no-gather", "--no-precise-deps",
            "--no-loop-reorder", "--no-double-buffer"]

# Hardware points beside zc706: a preset (isa/presets) or a config file in
# bench/hw, and for a variant of zc706 how it compares with zc706. Labels and
# shapes are printed from the configs themselves (snowhw), never retyped here.
HW_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hw")
HARDWARE = [
    ("mini64", None),
    ("zc706", None),
    (os.path.join(HW_DIR, "zc706_2g1.yaml"), "half the DRAM bandwidth"),
    (os.path.join(HW_DIR, "zc706_12g8.yaml"), "3x the DRAM bandwidth"),
    ("big1024", None),
    (os.path.join(HW_DIR, "big4096.yaml"), None),
]


def hw_json(binary, hw):
    """The hardware config hw (preset or file) as snowhw prints it."""
    out = subprocess.run([os.path.join(binary, "snowhw"), hw], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["hw"][0]


def hardware_points(binary):
    """[(label, shape, --hw argument)] for HARDWARE, labels and shapes from the
    loaded configs."""
    points = []
    for arg, versus_zc706 in HARDWARE:
        c = hw_json(binary, arg)
        macs = c["derived"]["macs"]
        if versus_zc706:
            label = f"zc706 at {c['dram_gbps']:g} GB/s"
            shape = f"{macs} MACs, {versus_zc706}"
        else:
            label = c["name"]
            shape = (f"{macs} MACs ({c['clusters']}x{c['cus_per_cluster']}x{c['vmacs_per_cu']}x"
                     f"{c['lanes_per_vmac']}), {c['dram_gbps']:g} GB/s")
        points.append((label, shape, arg))
    return points

# Snowflake's published per-layer efficiency (Gokhale et al. 2017), and how
# our layer names group into their rows. Efficiency as printed.
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


def run(binary, tmp, model, hw, flags):
    """Compiles and simulates model; returns the stats JSON."""
    tag = "_".join([model, os.path.basename(hw)] + [f.strip("-") for f in flags if f])
    prog = os.path.join(tmp, tag + ".bin")
    stats = os.path.join(tmp, tag + ".json")
    subprocess.run([os.path.join(binary, "snowc"), f"models/{model}.yaml", "-o", prog,
                    "--hw", hw, "--uniform-format"] + [f for f in flags if f], check=True)
    subprocess.run([os.path.join(binary, "snowsim"), prog, "--timing-only", "--quiet",
                    "--stats-json", stats], check=True)
    with open(stats) as f:
        return json.load(f)


def efficiency(layers, macs_per_cycle):
    macs = sum(l["macs"] for l in layers)
    cycles = sum(l["cycles"] for l in layers)
    return 100.0 * macs / (cycles * macs_per_cycle) if cycles else 0.0


def conv_layers(d):
    return [l for l in d["layers"] if l["type"] == "conv"]


def conv_eff(d):
    return efficiency(conv_layers(d), d["hw"]["macs"])


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        points = hardware_points(args.bin)
        hw_arg = {name: arg for name, _, arg in points}
        jobs = {}
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for m in MODELS:
                for f in ABLATION:
                    jobs[(m, "zc706", f)] = pool.submit(run, args.bin, tmp, m, "zc706", [f])
                for name, *_ in points:
                    if name != "zc706":
                        jobs[(m, name, "")] = pool.submit(run, args.bin, tmp, m, hw_arg[name],
                                                          [])
            res = {k: v.result() for k, v in jobs.items()}
    base = {m: res[(m, "zc706", "")] for m in MODELS}
    out = []
    w = out.append

    w("| model | cycles | utilization | conv-layer efficiency | G-ops/s | fps |"
      " DRAM MB / frame |\n|---|---|---|---|---|---|---|\n")
    for m in MODELS:
        d = base[m]
        t = d["total"]
        w(f"| {m} | {t['cycles']:,} | {100 * t['utilization']:.2f} % | {conv_eff(d):.2f} % | "
          f"{t['gops']:.1f} | {t['fps']:.1f} | "
          f"{(t['dram_read_bytes'] + t['dram_write_bytes']) / 1e6:.1f} |\n")

    for m, rows in SNOWFLAKE.items():
        d = base[m]
        n = d["hw"]["macs"]
        w(f"\n**{m}** (conv layers; Snowflake as published)\n\n"
          "| Snowflake row | our layers | cycles | our efficiency | Snowflake |\n"
          "|---|---|---|---|---|\n")
        conv = conv_layers(d)
        for name, prefixes, theirs in rows:
            mine = [l for l in conv if any(l["name"] == p or (p.endswith("_") and
                    l["name"].startswith(p)) for p in prefixes)]
            cycles = sum(l["cycles"] for l in mine)
            w(f"| {name} | {len(mine)} | {cycles:,} | {efficiency(mine, n):.2f} % | {theirs} % |\n")
        w(f"| total | {len(conv)} | {sum(l['cycles'] for l in conv):,} | {conv_eff(d):.2f} % | "
          f"{PUBLISHED_TOTAL[m]} % |\n")

    w("\n**Ablation** on zc706: conv-layer efficiency / whole-network utilization with each "
      "pass switched off (snowc flag)\n\n| model | " +
      " | ".join(f"`{f}`" if f else "all on" for f in ABLATION) + " |\n|---|" +
      "---|" * len(ABLATION) + "\n")
    for m in MODELS:
        cells = []
        for f in ABLATION:
            d = res[(m, "zc706", f)]
            cells.append(f"{conv_eff(d):.2f} / {100 * d['total']['utilization']:.2f}")
        w(f"| {m} | " + " | ".join(cells) + " |\n")

    w("\n**Other hardware**: conv-layer efficiency / whole-network utilization, same "
      "compiler, default options\n\n| model | " +
      " | ".join(name for name, *_ in points) + " |\n|---|" + "---|" * len(points) + "\n")
    for m in MODELS:
        cells = []
        for name, *_ in points:
            d = res[(m, name, "")]
            cells.append(f"{conv_eff(d):.2f} / {100 * d['total']['utilization']:.2f}")
        w(f"| {m} | " + " | ".join(cells) + " |\n")
    w("\n| hardware | shape |\n|---|---|\n")
    for name, shape, _ in points:
        w(f"| {name} | {shape} |\n")
    print("".join(out), end="")


if __name__ == "__main__":
    main()
