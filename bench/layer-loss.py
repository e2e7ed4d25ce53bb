#!/usr/bin/env python3
"""Where a network's conv cycles go, by layer class.

Compiles a model with `snowc --emit=plan-json` (the exact cycles of the
timing engine, identical to `snowsim --timing-only`) and splits the conv
layers into classes: depthwise, grouped, the first layer (few input
channels), 1x1 with few output channels (< one group of vmacs x lanes, or a
remainder), 1x1, and other dense convs. For each class it prints the MACs,
the cycles, the ideal cycles (MACs / array MACs), the efficiency and the lost
cycles (cycles - ideal) with their share of all lost conv cycles, and the
layer-serial DRAM bound (bench/roofline.py): each layer, or fused pair as
one unit, takes at least max(MACs / array MACs, its DRAM bytes / bytes per
cycle), with the bytes its plan moves (measured), so "bound eff." is the
best conv efficiency any plan moving those bytes can reach while layers run
one after another (a fused pair's layers show the pair's).
With --layers it lists every conv layer too. MODEL: a model of models/ by
name, or a path to a model YAML or an ONNX file (ShuffleNet v2's export, as
bench/efficiency-goals.py makes it with torch).
Usage:  bench/layer-loss.py MODEL [MODEL...] [--bin build/bin] [--hw zc706] [--layers]
"""
import argparse
import json
import os
import subprocess
import tempfile

import roofline


def model_layers(path):
    """Conv attributes by name, read from the model YAML (the generated
    flow-style lines: one layer a line); {} for an ONNX file (see
    plan_attrs)."""
    if not path.endswith((".yaml", ".yml")):
        return {}
    import yaml
    with open(path) as f:
        m = yaml.safe_load(f)
    return {l["name"]: l for l in m["layers"]}


def summary_attrs(snowc, path, plan_layers):
    """Conv attributes for a model that is not YAML (an ONNX file), from
    `snowc --summary` (each layer's output shape and MACs): a depthwise plan
    says so in its order ("dw"), and its MACs a pixel and output channel are
    its kernel's taps; a dense conv's are its input channels x taps."""
    out = subprocess.run([snowc, path, "--summary"], check=True, capture_output=True,
                         text=True).stdout
    shapes = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 5 and f[1] == "conv" and "x" in f[2]:
            c, h, w = (int(v) for v in f[2].split("x"))
            shapes[f[0]] = (c, h * w, int(f[3].replace(",", "")))
    attrs = {}
    for l in plan_layers:
        if l["name"] not in shapes:
            continue
        c, hw, macs = shapes[l["name"]]
        per_out = macs / max(1, c * hw)
        dw = any("dw" in p["order"].split("+") for p in l["plan"])
        in_ch = sum(p["chunks"] * p["chunk_channels"] for p in l["plan"][:1]) or 1
        k = max(1, round((per_out if dw else per_out / in_ch) ** 0.5))
        attrs[l["name"]] = {"kernel": k, "groups": c if dw else 1, "out_channels": c}
    return attrs


def classify(attrs, plan_layer, in_ch, group):
    k = attrs.get("kernel", 1)
    k = k if isinstance(k, int) else max(k)
    groups = attrs.get("groups", 1)
    out = attrs["out_channels"]
    if groups > 1 and groups == out:
        return "depthwise"
    if groups > 1:
        return "grouped"
    if in_ch < 16:
        return "first (few input channels)"
    if out % group:
        return f"{k}x{k} out channels not a multiple of {group}"
    return "1x1" if k == 1 else f"dense {k}x{k}"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("models", nargs="+")
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--hw", default="zc706")
    ap.add_argument("--layers", action="store_true")
    ap.add_argument("--group", type=int, default=64, help="vmacs x lanes of the hardware")
    ap.add_argument("--flags", default="",
                    help="extra snowc flags (--uniform-format is always given)")
    args = ap.parse_args()
    for model in args.models:
        # A path (a YAML model or an ONNX file, e.g. ShuffleNet v2's export),
        # or the name of a model in models/.
        path = model if os.path.exists(model) else f"models/{model}.yaml"
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "plan.json")
            subprocess.run([os.path.join(args.bin, "snowc"), path, "--hw", args.hw,
                            "--uniform-format", "--emit=plan-json", "-o", out] +
                           [f for f in args.flags.split() if f != "--uniform-format"],
                           check=True)
            with open(out) as f:
                d = json.load(f)
        attrs = model_layers(path) or summary_attrs(os.path.join(args.bin, "snowc"), path,
                                                    d["layers"])
        n = d["hw"]["macs"]
        # Each layer's share of its unit's bound (a fused pair is one unit).
        bounds = roofline.layer_bounds(d["layers"], d["hw"], roofline.plan_orders(d))
        group = args.group
        # Input channels: the producer's out_channels (the model YAML has no
        # shapes); the layer's plan carries the chunking, so use that.
        classes = {}
        rows = []
        for l in d["layers"]:
            if l["type"] != "conv":
                continue
            a = attrs.get(l["name"], {"out_channels": 0})
            in_ch = sum(p["chunks"] * p["chunk_channels"] for p in l["plan"][:1]) or 0
            c = classify(a, l, in_ch, group)
            ideal = l["macs"] / n
            s = classes.setdefault(c, [0, 0, 0.0, 0, 0.0])
            s[0] += l["macs"]
            s[1] += l["cycles"]
            s[2] += ideal
            s[3] += 1
            s[4] += bounds[l["name"]]
            rows.append((l["name"], c, l["macs"], l["cycles"], ideal, bounds[l["name"]],
                         " + ".join(p["order"] for p in l["plan"])))
        total_lost = sum(s[1] - s[2] for s in classes.values())
        macs = sum(s[0] for s in classes.values())
        cyc = sum(s[1] for s in classes.values())
        bound = sum(s[4] for s in classes.values())
        print(f"\n{d['model']} on "
              f"{args.hw}: conv efficiency {100 * macs / (cyc * n):.2f} %, conv cycles {cyc:,}, "
              f"lost {total_lost:,.0f}; layer-serial DRAM bound {100 * macs / (bound * n):.2f} %")
        print("| class | layers | MACs (M) | cycles | efficiency | lost cycles | share of loss |"
              " bound eff. |")
        print("|---|---|---|---|---|---|---|---|")
        for c, (m, cy, ideal, cnt, bd) in sorted(classes.items(), key=lambda kv: -(kv[1][1] -
                                                                                  kv[1][2])):
            print(f"| {c} | {cnt} | {m / 1e6:.1f} | {cy:,} | {100 * m / (cy * n):.1f} % | "
                  f"{cy - ideal:,.0f} | {100 * (cy - ideal) / total_lost:.1f} % | "
                  f"{100 * m / (bd * n):.1f} % |")
        if args.layers:
            print("\n| layer | class | MACs (M) | cycles | efficiency | lost | bound eff. | plan |")
            print("|---|---|---|---|---|---|---|---|")
            for name, c, m, cy, ideal, bd, order in rows:
                print(f"| {name} | {c} | {m / 1e6:.2f} | {cy:,} | {100 * m / (cy * n):.1f} % | "
                      f"{cy - ideal:,.0f} | {100 * m / (bd * n):.1f} % | {order} |")


if __name__ == "__main__":
    main()
