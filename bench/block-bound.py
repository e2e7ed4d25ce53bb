#!/usr/bin/env python3
"""The block-fused DRAM bound of each network of issue 16's goals: the
conv-layer efficiency no compiler can beat on a machine if it runs the
network block by block (an inverted residual block, an MBConv block with
its squeeze-excitation, a ShuffleNet unit, a fire module, an inception
module, a ResNet bottleneck; a stem, head or plain conv a block of its own)
and keeps everything inside a block on chip. A block then moves only its
input, its output and its weights through DRAM, and takes at least
max(its conv MACs / the array's MACs, those bytes / the bytes a cycle the
channel sustains). The layer-serial bound that bench/efficiency-goals.py
prints is the same with every layer (or fused pair) a block and the bytes
its plan moves; this one asks what fusing whole blocks could reach, which is
the question a goal above the layer-serial bound raises.

Blocks are torchvision's modules of the same networks (the YAML models
mirror them: models/gen_models.py, MAC totals checked), so it needs torch
and torchvision for Debian's /usr/bin/python3. Scope: conv layers (the
classifier's fully connected layer is not one), batch 1, 224x224, int16
(2 bytes an element, weight or bias; batchnorm folded into the conv).

Usage: /usr/bin/python3 bench/block-bound.py [--hw zc706] [--bin build/bin]
(the hardware's MACs, clock and DRAM rate are read from `snowc --emit=plan-json`).
"""
import argparse
import json
import os
import subprocess
import sys

import roofline



def blocks(name, m):
    """torchvision model m's blocks, in order (None: not in torchvision)."""
    import torch.nn as nn
    if name == "mobilenet_v2":
        return list(m.features)
    if name == "efficientnet_b0":
        f = m.features
        return [f[0]] + [b for s in f[1:-1] for b in s] + [f[-1]]
    if name == "shufflenet_v2_x1_0":
        return [m.conv1] + [u for s in (m.stage2, m.stage3, m.stage4) for u in s] + [m.conv5]
    if name == "squeezenet1_1":
        from torchvision.models.squeezenet import Fire
        return [x for x in m.features if isinstance(x, (nn.Conv2d, Fire))] + [m.classifier[1]]
    if name == "googlenet":
        return [m.conv1, m.conv2, m.conv3] + [getattr(m, f"inception{k}") for k in
                                               ("3a", "3b", "4a", "4b", "4c", "4d", "4e", "5a",
                                                "5b")]
    if name in ("resnet50", "resnext50_32x4d"):
        return [m.conv1] + [b for s in (m.layer1, m.layer2, m.layer3, m.layer4) for b in s]
    if name in ("alexnet", "vgg16"):
        return [x for x in m.features if isinstance(x, nn.Conv2d)]
    return None  # MobileNet v1 is not in torchvision


def bound(name, hw, elem_bytes=2):
    """(conv MACs, block-fused bound in %) of torchvision's `name`, or None."""
    import torch
    import torch.nn as nn
    import torchvision
    if not hasattr(torchvision.models, name):
        return None
    kw = {"init_weights": False, "aux_logits": False} if name == "googlenet" else {}
    m = getattr(torchvision.models, name)(**kw).eval()
    bl = blocks(name, m)
    if bl is None:
        return None
    macs, io = {}, {}

    def conv_hook(c, i, o):
        macs[c] = o.numel() * c.in_channels // c.groups * c.kernel_size[0] * c.kernel_size[1]

    def block_hook(b, i, o):
        io[b] = i[0].numel() + o.numel()

    for c in m.modules():
        if isinstance(c, nn.Conv2d):
            c.register_forward_hook(conv_hook)
    for b in bl:
        b.register_forward_hook(block_hook)
    with torch.no_grad():
        m(torch.zeros(1, 3, 224, 224))
    rate = hw["dram_gbps"] * hw["dram_efficiency"] * 1e3 / hw["clock_mhz"]
    cycles, total, seen = 0.0, 0, set()
    for b in bl:
        convs = [c for c in b.modules() if isinstance(c, nn.Conv2d)]
        seen.update(convs)
        bm = sum(macs[c] for c in convs)
        words = sum(c.weight.numel() + c.out_channels for c in convs)  # bias folded in
        if bm:
            cycles += max(bm / hw["macs"], elem_bytes * (io[b] + words) / rate)
            total += bm
    assert seen == set(macs), f"{name}: a conv outside every block"
    return total, 100.0 * total / (cycles * hw["macs"])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--hw", default="zc706")
    args = ap.parse_args()
    try:
        import torchvision  # noqa: F401
    except ImportError as e:
        print(f"block-bound.py needs torch and torchvision (python3-torchvision): {e}")
        return 1
    r = subprocess.run([os.path.join(args.bin, "snowc"), "models/tiny.yaml", "--hw", args.hw,
                        "--emit=plan-json", "-o", "-"], check=True, capture_output=True, text=True)
    hw = json.loads(r.stdout)["hw"]
    print(f"hardware {args.hw}: {hw['macs']} MACs, {hw['dram_gbps']} GB/s x "
          f"{hw['dram_efficiency']}, batch 1, int16, conv layers\n")
    print("| model | conv MACs (M) | block-fused bound | goal |")
    print("|---|---|---|---|")
    for name, goal in roofline.ISSUE16_GOALS:
        b = bound(name, hw)
        if b is None:
            print(f"| {name} | | not in torchvision | ≥ {goal} % |")
            continue
        print(f"| {name} | {b[0] / 1e6:.1f} | {b[1]:.2f} % | ≥ {goal} % |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
