#!/usr/bin/python3
"""GEMM / fc sweep against the roofline of a preset (issue 18, item 2).

An (M x K) by (K x N) matrix product is an fc layer with K inputs and M
outputs run at batch N: the model is one fc over a K x 1 x 1 input, compiled
with `snowc --batch N` (the N frames are the N columns of the right-hand
matrix; docs/batch.md) and timed with `snowsim --timing-only` (cycles equal a
functional run). The script writes the one-layer models itself; there is no
separate `gemm` layer type (docs/model-format.md, "GEMM workloads").

For every point: achieved G-ops/s (1 MAC = 2 ops, int16), utilization of the
MAC array, arithmetic intensity (ops per DRAM byte actually moved, from the
stats JSON's byte counters, and the compulsory intensity: every matrix moved
once, 2 x (MK + KN + MN) bytes) and the roofline
    roof(I) = min(peak G-ops/s, I x DRAM GB/s).
Peak MACs, clock and the DRAM channel come from `snowhw PRESET` (the preset
YAML), never from this script. The channel's rate is the one the timing model
charges (`derived.dram_bw_q8`: bytes per cycle in Q8, from `dram_gbps`), so
every point lies on or below its roof; the script checks that (and that no
utilization exceeds 100 %, that the stats' MACs are M x K x N and that the
run moved at least the compulsory bytes) and exits 1 if not. `--quick` (the
ctest GemmSweep.Quick, label e2e) runs two points with these checks, and one
small GEMM functionally: snowsim equals snowref frame by frame and W @ X.

Scope of every figure: one fc layer (a GEMM), batch N, int16 operands, 48-bit
accumulators, whole program (weights, inputs and outputs in DRAM at the start
and end), `snowc --uniform-format` (formats do not change cycles).

Usage:
  bench/gemm-sweep.py [--bin build/bin] [--hw zc706] [--out-dir docs]
  bench/gemm-sweep.py --quick      # two points, checks only, nothing written
Writes OUT/gemm-sweep-HW.csv, OUT/gemm-sweep-HW.md and
OUT/img/gemm-roofline-HW.svg (the SVG needs matplotlib).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

# Square GEMMs: K = M, batch N. Skinny ones: (K, M) of real fc layers and
# extreme aspect ratios, at a few batches.
SQUARE = [256, 512, 1024, 2048, 4096]
BATCHES = [1, 4, 16, 64, 256]
SKINNY = [
    (9216, 4096, "AlexNet fc6"),
    (4096, 1000, "AlexNet/VGG fc8"),
    (2048, 1000, "ResNet-50 fc"),
    (256, 4096, "wide, short K"),
    (4096, 256, "narrow, long K"),
]
SKINNY_BATCHES = [1, 16, 256]
QUICK = [(512, 512, 1, "square"), (1024, 1024, 64, "square")]

MODEL = """name: gemm_k{k}_m{m}
# A (M x K) by (K x N) GEMM: an fc with K inputs and M outputs, N = --batch.
input: {{name: x, shape: [{k}, 1, 1]}}
weights: {{seed: 1}}
layers:
  - {{name: gemm, type: fc, input: x, out_features: {m}, bias: false}}
"""

# Relative slack for the roofline check: the stats' floating-point division.
EPS = 1e-9


def preset(binary, hw):
    """The hardware figures of the roofline, as the preset defines them."""
    out = subprocess.run([os.path.join(binary, "snowhw"), hw], check=True,
                         capture_output=True, text=True).stdout
    h = json.loads(out)["hw"][0]
    d = h["derived"]
    clock_ghz = h["clock_mhz"] / 1000
    return {
        "name": h["name"],
        "macs": d["macs"],
        "clock_mhz": h["clock_mhz"],
        "peak_gops": 2 * d["macs"] * clock_ghz,
        "dram_gbps": h["dram_gbps"],
        # What the timing model charges: dram_bw_q8 / 256 bytes per cycle.
        "channel_gbps": d["dram_bw_q8"] / 256 * clock_ghz,
        "acc_entries": h["acc_entries"],
        "act_frac_bits": h["act_frac_bits"],
    }


def roof(hw, intensity):
    return min(hw["peak_gops"], intensity * hw["channel_gbps"])


def run_point(binary, tmp, hw, k, m, n, note):
    model = os.path.join(tmp, f"gemm-{k}-{m}.yaml")
    if not os.path.exists(model):
        with open(model, "w") as f:
            f.write(MODEL.format(k=k, m=m))
    prog = os.path.join(tmp, f"gemm-{k}-{m}-{n}.bin")
    stats = os.path.join(tmp, f"gemm-{k}-{m}-{n}.json")
    subprocess.run([os.path.join(binary, "snowc"), model, "-o", prog, "--hw", hw["name"],
                    "--uniform-format", "--batch", str(n)], check=True)
    subprocess.run([os.path.join(binary, "snowsim"), prog, "--timing-only", "--quiet",
                    "--stats-json", stats], check=True)
    with open(stats) as f:
        total = json.load(f)["total"]
    ops = 2 * m * k * n
    if total["macs"] * 2 != ops:
        raise SystemExit(f"gemm-sweep: K={k} M={m} N={n}: stats count {total['macs']} MACs, "
                         f"expected {m * k * n}")
    seconds = total["cycles"] / (hw["clock_mhz"] * 1e6)
    gops = ops / seconds / 1e9
    dram = total["dram_read_bytes"] + total["dram_write_bytes"]
    intensity = ops / dram
    compulsory = ops / (2 * (m * k + k * n + m * n))
    return {
        "hw": hw["name"], "K": k, "M": m, "N": n, "note": note,
        "cycles": total["cycles"], "gops": gops,
        "util_pct": 100 * gops / hw["peak_gops"],
        "dram_mb": dram / 1e6,
        "ops_per_byte": intensity,
        "compulsory_ops_per_byte": compulsory,
        "roof_gops": roof(hw, intensity),
        "pct_of_roof": 100 * gops / roof(hw, intensity),
        "compulsory_roof_gops": roof(hw, compulsory),
        "dram_busy_pct": 100 * total["dram_busy_cycles"] / total["cycles"],
        # The simulator's energy model (docs/energy.md), where the preset has
        # a table; empty otherwise.
        "watts": total.get("watts", ""),
        "gops_per_j": total.get("gops_per_j", ""),
    }


def functional_check(binary, tmp, hw):
    """The GEMM the sweep times is the GEMM it claims: an odd-sized product
    (K=300, M=70, N=5) with the left-hand matrix as the fc's weights_file and
    the N columns as frames. snowsim's output equals snowref's for every
    frame bit for bit, and W @ X (numpy, float) within the int16 formats'
    rounding. Returns a list of errors."""
    import numpy as np
    k, m, n = 300, 70, 5
    rng = np.random.default_rng(18)
    w = rng.uniform(-0.06, 0.06, (m, k)).astype(np.float32)
    x = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    np.save(os.path.join(tmp, "w.npy"), w)
    np.save(os.path.join(tmp, "x.npy"), np.ascontiguousarray(x.T).reshape(n, k, 1, 1))
    model = os.path.join(tmp, "gemm-check.yaml")
    with open(model, "w") as f:
        f.write(MODEL.format(k=k, m=m).replace("bias: false}",
                                               f"bias: false, weights_file: {tmp}/w.npy}}"))
    prog = os.path.join(tmp, "gemm-check.bin")
    subprocess.run([os.path.join(binary, "snowc"), model, "-o", prog, "--hw", hw["name"],
                    "--uniform-format", "--batch", str(n)], check=True)
    subprocess.run([os.path.join(binary, "snowsim"), prog, "--quiet", "--input",
                    os.path.join(tmp, "x.npy"), "--output", os.path.join(tmp, "y.npy"),
                    "--output-float", os.path.join(tmp, "yf.npy")], check=True)
    y = np.load(os.path.join(tmp, "y.npy")).reshape(n, m)
    errors = []
    for f in range(n):
        np.save(os.path.join(tmp, f"x{f}.npy"), np.ascontiguousarray(x[:, f]).reshape(k, 1, 1))
        subprocess.run([os.path.join(binary, "snowref"), model, "--hw", hw["name"],
                        "--uniform-format", "--input", os.path.join(tmp, f"x{f}.npy"),
                        "--output", os.path.join(tmp, f"r{f}.npy")],
                       check=True, stdout=subprocess.DEVNULL)
        r = np.load(os.path.join(tmp, f"r{f}.npy")).reshape(m)
        if not (r == y[f]).all():
            errors.append(f"functional GEMM: frame {f} differs from snowref")
    got = np.load(os.path.join(tmp, "yf.npy")).reshape(n, m).T
    want = w @ x
    # Rounding of the int16 inputs, weights and outputs: a few LSBs of the
    # activation format (2^-act_frac_bits), far below a wrong layout's error.
    tol = 4 * 2.0 ** -hw["act_frac_bits"]
    err = float(np.abs(got - want).max())
    if err > tol:
        errors.append(f"functional GEMM: |snowsim - W @ X| = {err:.4f} > {tol:.4f}")
    else:
        print(f"functional GEMM K={k} M={m} N={n}: bit-exact with snowref frame by frame, "
              f"max |snowsim - W @ X| = {err:.4f} (<= {tol:.4f})")
    return errors


def check(points):
    bad = []
    for p in points:
        if p["util_pct"] > 100 * (1 + EPS):
            bad.append(f"K={p['K']} M={p['M']} N={p['N']}: utilization {p['util_pct']:.3f} % > 100 %")
        if p["gops"] > p["roof_gops"] * (1 + EPS):
            bad.append(f"K={p['K']} M={p['M']} N={p['N']}: {p['gops']:.3f} G-ops/s above its roof "
                       f"{p['roof_gops']:.3f} (intensity {p['ops_per_byte']:.2f} ops/B)")
        # A run cannot move fewer bytes than the three matrices hold.
        if p["ops_per_byte"] > p["compulsory_ops_per_byte"] * (1 + EPS):
            bad.append(f"K={p['K']} M={p['M']} N={p['N']}: DRAM counters show fewer bytes than the "
                       f"matrices hold ({p['ops_per_byte']:.2f} > {p['compulsory_ops_per_byte']:.2f} ops/B)")
    return bad


COLUMNS = [("K", "K", "d"), ("M", "M", "d"), ("N", "N (batch)", "d"),
           ("note", "layer", "s"), ("gops", "G-ops/s", ".1f"), ("util_pct", "util %", ".1f"),
           ("ops_per_byte", "ops/B (moved)", ".1f"),
           ("compulsory_ops_per_byte", "ops/B (compulsory)", ".1f"),
           ("roof_gops", "roof G-ops/s", ".1f"), ("pct_of_roof", "% of roof", ".1f"),
           ("dram_mb", "DRAM MB", ".2f"), ("dram_busy_pct", "channel busy %", ".1f"),
           ("watts", "W (model)", ".2f"), ("gops_per_j", "G-ops/J (model)", ".1f")]


def markdown(hw, points):
    lines = [f"`{hw['name']}`: {hw['macs']} MACs at {hw['clock_mhz']} MHz, peak "
             f"{hw['peak_gops']:g} G-ops/s, DRAM {hw['dram_gbps']:g} GB/s "
             f"(ridge at {hw['peak_gops'] / hw['channel_gbps']:.1f} ops/B). Scope: one fc layer "
             f"(GEMM M×K by K×N, N = batch), int16, 1 MAC = 2 ops, `snowsim --timing-only`. "
             f"W and G-ops/J: the simulator's energy model for this preset (docs/energy.md), "
             f"board power, — where the preset has none. Generated by bench/gemm-sweep.py.",
             "",
             "| " + " | ".join(c[1] for c in COLUMNS) + " |",
             "|" + "|".join("---" if c[2] == "s" else "---:" for c in COLUMNS) + "|"]
    for p in points:
        lines.append("| " + " | ".join("—" if p[c[0]] == "" else format(p[c[0]], c[2])
                                       for c in COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def plot(hw, points, path):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "gemm-sweep"  # reproducible ids
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.2))
    lo = min(p["ops_per_byte"] for p in points) / 2
    hi = max(p["ops_per_byte"] for p in points) * 2
    ridge = hw["peak_gops"] / hw["channel_gbps"]
    xs = [lo, ridge, hi]
    ax.plot(xs, [roof(hw, x) for x in xs], color="black", lw=1.5,
            label=f"roofline: min({hw['peak_gops']:g} G-ops/s, I × {hw['dram_gbps']:g} GB/s)")
    batches = sorted({p["N"] for p in points})
    cmap = plt.get_cmap("viridis")
    for i, n in enumerate(batches):
        color = cmap(i / max(1, len(batches) - 1))
        sq = [p for p in points if p["N"] == n and p["note"] == "square"]
        sk = [p for p in points if p["N"] == n and p["note"] != "square"]
        if sq:
            ax.scatter([p["ops_per_byte"] for p in sq], [p["gops"] for p in sq], color=color,
                       marker="o", s=30, label=f"N = {n}, square (K = M = 256…4096)")
        if sk:
            ax.scatter([p["ops_per_byte"] for p in sk], [p["gops"] for p in sk], color=color,
                       marker="^", s=36, edgecolors="black", linewidths=0.5,
                       label=f"N = {n}, skinny / real fc")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (ops per DRAM byte moved)")
    ax.set_ylabel("achieved G-ops/s (1 MAC = 2 ops)")
    ax.set_title(f"GEMM as one fc layer on {hw['name']} ({hw['macs']} int16 MACs, "
                 f"{hw['clock_mhz']} MHz), snowc --batch N, snowsim --timing-only", fontsize=9)
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--hw", default="zc706", help="preset name or YAML file")
    ap.add_argument("--out-dir", default="docs", help="where the CSV, table and SVG go")
    ap.add_argument("--quick", action="store_true",
                    help="two points, check them against the roofline, write nothing")
    args = ap.parse_args()

    hw = preset(args.bin, args.hw)
    if args.quick:
        todo = QUICK
    else:
        todo = [(s, s, n, "square") for s in SQUARE for n in BATCHES]
        todo += [(k, m, n, note) for k, m, note in SKINNY for n in SKINNY_BATCHES]
    points = []
    print(f"{hw['name']}: peak {hw['peak_gops']:g} G-ops/s, DRAM {hw['dram_gbps']:g} GB/s; "
          f"scope: one fc layer (GEMM), batch N, int16, 1 MAC = 2 ops")
    print(f"{'K':>5} {'M':>5} {'N':>4} {'G-ops/s':>8} {'util %':>7} {'ops/B':>7} "
          f"{'roof':>7} {'% roof':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for k, m, n, note in todo:
            p = run_point(args.bin, tmp, hw, k, m, n, note)
            points.append(p)
            print(f"{k:>5} {m:>5} {n:>4} {p['gops']:>8.2f} {p['util_pct']:>7.2f} "
                  f"{p['ops_per_byte']:>7.1f} {p['roof_gops']:>7.1f} {p['pct_of_roof']:>7.1f}",
                  flush=True)
        bad = check(points)
        if args.quick:
            bad += functional_check(args.bin, tmp, hw)
    for b in bad:
        print(f"gemm-sweep: error: {b}", file=sys.stderr)
    if bad:
        return 1
    print(f"all {len(points)} points on or below the roofline, none above 100 % utilization")
    if args.quick:
        return 0

    os.makedirs(args.out_dir, exist_ok=True)
    base = os.path.join(args.out_dir, f"gemm-sweep-{hw['name']}")
    with open(base + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(points[0].keys()), lineterminator="\n")
        w.writeheader()
        for p in points:
            w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in p.items()})
    with open(base + ".md", "w") as f:
        f.write(markdown(hw, points))
    svg = os.path.join(args.out_dir, "img", f"gemm-roofline-{hw['name']}.svg")
    plot(hw, points, svg)
    print(f"wrote {base}.csv, {base}.md, {svg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
