#!/usr/bin/env python3
"""The YAML zoo against PyTorch: a model of models/ given torchvision's
weights (random, batch-norm statistics measured on frames as
accuracy.py's BN_FROM_DATA models are) as .npy files, compiled with
`snowc --calibrate` on 8 frames, simulated by `snowsim` on another,
compared with torchvision's own output. What the MAC and parameter counts
(tests/ir/ModelZooTest.cpp, ChannelMovesTest.cpp) cannot see is checked
here: which half a ShuffleNet unit passes on, the direction of its channel
shuffles, the order of concatenated branches.

    tests/torch/yaml_zoo.py [--build build] [MODEL...]

Prints cosine, max |error| / max |y| and top-1 agreement per model and kind
of frame (accuracy.py's bounds: cosine >= 0.999, max error <= 2 %, same
top-1); exit 1 if one misses them, 77 (skip) when torch is absent.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch  # noqa: F401 (accuracy.py needs it; the skip message is here)
except ImportError as e:  # pragma: no cover
    print("skipped: %s (Debian: apt-get install python3-torch python3-torchvision)" % e)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def shufflenet_module(name):
    """The torchvision module (state_dict prefix) of a layer of
    models/shufflenet_v2_x1_0.yaml, or None for a layer without parameters."""
    fixed = {"conv1": "conv1.0", "conv1_bn": "conv1.1", "conv5": "conv5.0",
             "conv5_bn": "conv5.1", "fc": "fc"}
    if name in fixed:
        return fixed[name]
    m = re.fullmatch(r"stage(\d)_(\d+)_(b1_dw|b1_pw|b2_pw1|b2_dw|b2_pw2)(_bn)?", name)
    if not m:
        return None
    index = {"b1_dw": ("branch1", 0), "b1_pw": ("branch1", 2), "b2_pw1": ("branch2", 0),
             "b2_dw": ("branch2", 3), "b2_pw2": ("branch2", 5)}[m.group(3)]
    return "stage%s.%s.%s.%d" % (m.group(1), m.group(2), index[0], index[1] + bool(m.group(4)))


MODULES = {"shufflenet_v2_x1_0": shufflenet_module}
FILE_KEYS = {"weight": "weights_file", "bias": "bias_file"}
BN_KEYS = {"weight": "gamma_file", "bias": "beta_file", "running_mean": "mean_file",
           "running_var": "var_file"}


def yaml_with_weights(name, model, work):
    """models/NAME.yaml with every parameter from model as .npy files in
    work, and without its softmax (torchvision gives logits)."""
    state = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    used = set()
    out = []
    for line in open(os.path.join(ROOT, "models", name + ".yaml")):
        m = re.match(r"  - \{name: ([^,]+), type: (\w+)", line)
        if m and m.group(2) == "softmax":
            continue
        if m and MODULES[name](m.group(1)):
            prefix = MODULES[name](m.group(1))
            keys = BN_KEYS if m.group(2) == "batchnorm" else FILE_KEYS
            extra = []
            for param, key in keys.items():
                if prefix + "." + param in state:
                    path = os.path.join(work, "%s.%s.npy" % (m.group(1), param))
                    np.save(path, state[prefix + "." + param])
                    used.add(prefix + "." + param)
                    extra.append("%s: %s" % (key, path))
            line = line.rstrip().rstrip("}") + ", " + ", ".join(extra) + "}\n"
        out.append(line)
    left = [k for k in state if k not in used and not k.endswith("num_batches_tracked")]
    if left:
        raise RuntimeError("%s: torchvision parameters no YAML layer takes: %s" % (name, left[:5]))
    path = os.path.join(work, name + ".yaml")
    open(path, "w").write("".join(out))
    return path


def check(name, bin_dir, work, kind):
    model = accuracy.build_model(name, seed=11, kind=kind)
    cal = accuracy.frames(8, seed=1, kind=kind)
    test = accuracy.frames(1, seed=2, kind=kind)
    with torch.no_grad():
        y = model(torch.from_numpy(test)).numpy().reshape(-1).astype(np.float64)
    yaml = yaml_with_weights(name, model, work)
    np.save(os.path.join(work, "cal.npy"), cal)
    np.save(os.path.join(work, "x.npy"), test[0])
    prog = os.path.join(work, name + ".bin")
    accuracy.run([os.path.join(bin_dir, "snowc"), yaml, "-o", prog, "--calibrate",
                  os.path.join(work, "cal.npy")])
    accuracy.run([os.path.join(bin_dir, "snowsim"), prog, "--input", os.path.join(work, "x.npy"),
                  "--output-float", os.path.join(work, "y.npy"), "--quiet"])
    got = np.load(os.path.join(work, "y.npy")).reshape(-1).astype(np.float64)
    cos = float(np.dot(got, y) / (np.linalg.norm(got) * np.linalg.norm(y)))
    err = float(np.max(np.abs(got - y)) / np.max(np.abs(y)))
    top1 = int(np.argmax(got)) == int(np.argmax(y))
    ok = cos >= 0.999 and err <= 0.02 and top1
    print("%-20s %-6s cosine %.6f  max err %6.2f %% of max|y|  top-1 %-7s  %s"
          % (name, kind, cos, 100 * err, "same" if top1 else "DIFFERS",
             "ok" if ok else "MISSES the bounds"))
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("models", nargs="*", default=sorted(MODULES))
    a = ap.parse_args()
    bad = 0
    for name in a.models:
        for kind in ("smooth", "noise", "gauss"):
            with tempfile.TemporaryDirectory() as work:
                bad += not check(name, os.path.join(a.build, "bin"), work, kind)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
