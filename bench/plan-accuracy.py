#!/usr/bin/env python3
"""How far the planner's cost model is from the exact cycles.

For each model, runs `snowc MODEL --emit=plan-json` (exact per-layer cycles
from the timing engine, and the planner's estimate beside them) and prints,
over the layers that run code, the per-layer error of the estimate
(estimate / exact - 1): smallest, largest, mean absolute, and the total's.
Also checks that plan-json's cycles equal `snowsim --timing-only`'s.

  bench/plan-accuracy.py [--hw PRESET] [MODEL...]   (default: every models/*.yaml)
SNOW_BIN names another folder of tools (default build/bin).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("SNOW_BIN", os.path.join(ROOT, "build", "bin"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hw", default="zc706")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    models = a.models or sorted(glob.glob(os.path.join(ROOT, "models", "*.yaml")))
    print(f"hardware {a.hw}; error = estimate / exact - 1 per layer with code; "
          "exact = snowc --emit=plan-json = snowsim --timing-only\n")
    print("| model | layers | smallest | largest | mean abs | total estimate | total exact | total error | plan-json = snowsim |")
    print("|---|---|---|---|---|---|---|---|---|")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for m in models:
            name = os.path.splitext(os.path.basename(m))[0]
            plan, prog, stats = (os.path.join(tmp, f"{name}.{x}") for x in ("plan.json", "bin", "stats.json"))
            subprocess.run([f"{BIN}/snowc", m, "--hw", a.hw, "--emit=plan-json", "-o", plan], check=True)
            subprocess.run([f"{BIN}/snowc", m, "--hw", a.hw, "-o", prog], check=True)
            subprocess.run([f"{BIN}/snowsim", prog, "--timing-only", "--quiet", "--stats-json", stats], check=True)
            p, s = json.load(open(plan)), json.load(open(stats))
            errs = [l["estimate_cycles"] / l["cycles"] - 1 for l in p["layers"]
                    if l["plan"] and l["cycles"] > 0]
            same = [l["cycles"] for l in p["layers"]] == [l["cycles"] for l in s["layers"]] and \
                p["total"]["cycles"] == s["total"]["cycles"]
            ok &= same
            t = p["total"]
            print(f"| {name} | {len(errs)} | {100 * min(errs):+.1f} % | {100 * max(errs):+.1f} % | "
                  f"{100 * sum(map(abs, errs)) / len(errs):.1f} % | {t['estimate_cycles']:,} | "
                  f"{t['cycles']:,} | {100 * (t['estimate_cycles'] / t['cycles'] - 1):+.1f} % | "
                  f"{'yes' if same else 'NO'} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
