#!/usr/bin/env python3
"""The YAML zoo against PyTorch: a model of models/ given torchvision's
weights (random, batch-norm statistics measured on frames as
accuracy.py's BN_FROM_DATA models are) as .npy files, compiled with
`snowc --calibrate` on 8 frames, simulated by `snowsim` on another,
compared with torchvision's own output: AlexNet, SqueezeNet 1.1, ShuffleNet
v2, MobileNet v2, EfficientNet-B0, ResNet-50, ResNeXt-50 and, when named,
VGG-16 (the generator's networks with a torchvision counterpart of the same
layout; not GoogLeNet, written as the paper's, nor MobileNet v1). What the MAC and parameter
counts (tests/ir/ModelZooTest.cpp, ChannelMovesTest.cpp) cannot see is
checked here: which half a ShuffleNet unit passes on, the direction of its
channel shuffles, the order of concatenated branches, where an activation
or a residual add is (one ReLU left out of ResNet-50's layer2_1 gives
cosine 0.997, a swapped ShuffleNet half 0.958).

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


def shufflenet_module(name, names):
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


def bottleneck_module(name, names):
    """ResNet-50's and ResNeXt-50's layers (models/gen_models.py,
    bottleneck_net) in torchvision's resnet modules."""
    if name in ("conv1", "bn1", "fc"):
        return name
    m = re.fullmatch(r"layer(\d)_(\d+)_(conv\d|bn\d|downsample_conv|downsample_bn)", name)
    if not m:
        return None
    part = {"downsample_conv": "downsample.0", "downsample_bn": "downsample.1"}.get(m.group(3),
                                                                                m.group(3))
    return "layer%s.%s.%s" % (m.group(1), m.group(2), part)


def inverted_residual_module(stem, head, features, stages, se):
    """A mapper for models/gen_models.py's inverted_residuals networks:
    stem and head are the YAML names of the first and last convs, features
    the index of the head in torchvision's features, stages the blocks per
    torchvision stage (EfficientNet nests its blocks in stages, MobileNet v2
    numbers them in features), se whether blocks squeeze and excite."""
    def module(name, names):
        fixed = {stem: "features.0.0", stem + "_bn": "features.0.1",
                 head: "features.%d.0" % features, head + "_bn": "features.%d.1" % features,
                 "fc": "classifier.1"}
        if name in fixed:
            return fixed[name]
        m = re.fullmatch(r"block(\d+)_(expand|dw|project|se_reduce|se_expand)(_bn)?", name)
        if not m:
            return None
        n = int(m.group(1))
        if stages:
            s, i = 1, n - 1
            while i >= stages[s - 1]:
                i -= stages[s - 1]
                s += 1
            block = "features.%d.%d.block" % (s, i)
        else:
            block = "features.%d.conv" % n
        e = int("block%d_expand" % n in names)
        if m.group(2) in ("se_reduce", "se_expand"):
            return "%s.%d.%s" % (block, e + 1, "fc1" if m.group(2) == "se_reduce" else "fc2")
        at = {"expand": 0, "dw": e, "project": e + 1 + int(se)}[m.group(2)]
        if m.group(2) == "project" and not stages:
            # MobileNet v2's projection is a bare conv and batchnorm.
            return "%s.%d" % (block, at + int(bool(m.group(3))))
        return "%s.%d.%d" % (block, at, int(bool(m.group(3))))
    return module


def indexed_module(table):
    """A mapper for networks whose layers torchvision keeps in Sequentials:
    table maps a YAML layer name to its module, a fire module's prefix to
    its features index."""
    def module(name, names):
        if name in table:
            return table[name]
        m = re.fullmatch(r"(fire\d+)_(squeeze|expand1x1|expand3x3)", name)
        return "%s.%s" % (table[m.group(1)], m.group(2)) if m else None
    return module


VGG16 = ["conv1_1", "conv1_2", "conv2_1", "conv2_2", "conv3_1", "conv3_2", "conv3_3", "conv4_1",
         "conv4_2", "conv4_3", "conv5_1", "conv5_2", "conv5_3"]
MODULES = {
    "alexnet": indexed_module({"conv1": "features.0", "conv2": "features.3", "conv3": "features.6",
                               "conv4": "features.8", "conv5": "features.10",
                               "fc6": "classifier.1", "fc7": "classifier.4",
                               "fc8": "classifier.6"}),
    "squeezenet1_1": indexed_module({"conv1": "features.0", "conv10": "classifier.1",
                                     **{"fire%d" % n: "features.%d" % k for n, k in
                                        zip(range(2, 10), [3, 4, 6, 7, 9, 10, 11, 12])}}),
    "vgg16": indexed_module({**{n: "features.%d" % k for n, k in
                                zip(VGG16, [0, 2, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28])},
                             "fc6": "classifier.0", "fc7": "classifier.3",
                             "fc8": "classifier.6"}),
    "shufflenet_v2_x1_0": shufflenet_module,
    "mobilenet_v2": inverted_residual_module("conv1", "conv_last", 18, None, se=False),
    "efficientnet_b0": inverted_residual_module("stem", "head", 8, [1, 2, 2, 3, 3, 4, 1], se=True),
    "resnext50_32x4d": bottleneck_module,
    "resnet50": bottleneck_module,
}
FILE_KEYS = {"weight": "weights_file", "bias": "bias_file"}
BN_KEYS = {"weight": "gamma_file", "bias": "beta_file", "running_mean": "mean_file",
           "running_var": "var_file"}


def yaml_with_weights(name, model, work):
    """models/NAME.yaml with every parameter from model as .npy files in
    work, and without its softmax (torchvision gives logits)."""
    state = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    used = set()
    out = []
    lines = open(os.path.join(ROOT, "models", name + ".yaml")).readlines()
    names = set(re.findall(r"\{name: ([^,]+),", "".join(lines)))
    for line in lines:
        m = re.match(r"  - \{name: ([^,]+), type: (\w+)", line)
        if m and m.group(2) == "softmax":
            continue
        if m and MODULES[name](m.group(1), names):
            prefix = MODULES[name](m.group(1), names)
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
    # VGG-16 only when named: 15.5 G MACs a frame simulated three times.
    ap.add_argument("models", nargs="*", default=sorted(set(MODULES) - {"vgg16"}))
    a = ap.parse_args()
    bad = 0
    for name in a.models:
        for kind in ("smooth", "noise", "gauss"):
            with tempfile.TemporaryDirectory() as work:
                bad += not check(name, os.path.join(a.build, "bin"), work, kind)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
