"""The layer-serial DRAM bound shared by bench/efficiency-goals.py,
bench/layer-loss.py and bench/batch-goals.py.

Layers run one after another, so a layer takes at least max(its MACs / the
array's MACs, its DRAM bytes / the bytes a cycle the channel sustains), with
the bytes the simulator books to it (a prefetch goes to the layer that
issues it). A fused pair (compiler.md, step 9b) runs as one unit, its layers'
steps interleaved over the same tiles, and the simulator books all of the
pair's traffic to the producer (the 1x1 consumers read the on-chip area):
its bound is max(the unit's MACs / array MACs, the unit's bytes / rate).
Bounding the producer and the consumers apart would charge the pair its
traffic and its multiplies one after the other (MobileNet v1's conv layers:
80.78 % where the pairs allow 86.79 %, 2026-11-28, zc706).
"""

# Issue 16's goals: (model, conv-layer efficiency in %), zc706, batch 1.
ISSUE16_GOALS = [
    ("mobilenet_v1", 90), ("resnext50_32x4d", 90), ("squeezenet1_1", 95), ("googlenet", 97),
    ("alexnet", 98), ("resnet50", 98), ("vgg16", 99), ("mobilenet_v2", 90),
    ("efficientnet_b0", 85), ("shufflenet_v2_x1_0", 85),
]


def bytes_per_cycle(hw):
    """The bytes a cycle the DRAM channel sustains: the pin rate times the
    controller's efficiency (isa/presets/zc706.yaml: 80 %)."""
    return hw["dram_gbps"] * hw["dram_efficiency"] * 1e3 / hw["clock_mhz"]


def plan_orders(plan_json):
    """Each layer's plan orders ('maps+dw+fused>', ...) by name, from
    `snowc --emit=plan-json` output."""
    return {l["name"]: [p["order"] for p in l.get("plan", [])] for l in plan_json["layers"]}


def units(layers, orders, conv_only):
    """The layers (dicts with name, type, macs, dram bytes) grouped into the
    units that run as one: a fused pair's producer ('+fused>') with the
    consumers that follow it ('+fused<'), every other layer alone. With
    conv_only, layers other than convs are left out, and so is a pool
    producer (its consumers count alone: the scope has no pool cycles)."""
    out, open_unit = [], None
    for l in layers:
        o = orders.get(l["name"], [])
        conv = l["type"] == "conv"
        if conv_only and not conv:
            open_unit = None
            continue
        if any("fused<" in x for x in o) and open_unit is not None:
            open_unit.append(l)
            continue
        out.append([l])
        open_unit = out[-1] if any("fused>" in x for x in o) else None
    return out


def serial_cycles(layers, hw, orders=None, conv_only=True):
    """For each unit (see units()): its layers and its bound in cycles."""
    rate = bytes_per_cycle(hw)
    res = []
    for u in units(layers, orders or {}, conv_only):
        macs = sum(l["macs"] for l in u)
        dram = sum(l["dram_read_bytes"] + l["dram_write_bytes"] for l in u)
        res.append((u, max(macs / hw["macs"], dram / rate)))
    return res


def layer_bounds(layers, hw, orders=None, conv_only=True):
    """Each layer's share of its unit's bound in cycles, by name (a unit's
    bound split by its layers' MACs, so a fused pair's layers show the
    pair's bound efficiency)."""
    share = {}
    for u, b in serial_cycles(layers, hw, orders, conv_only):
        macs = sum(l["macs"] for l in u)
        for l in u:
            share[l["name"]] = b * (l["macs"] / macs if macs else 1 / len(u))
    return share


def bound_efficiency(layers, hw, orders=None, conv_only=True):
    """The efficiency (or utilization) in % if every unit ran at its bound."""
    cycles = sum(b for _, b in serial_cycles(layers, hw, orders, conv_only))
    macs = sum(l["macs"] for l in layers if l["type"] == "conv" or not conv_only)
    return 100.0 * macs / (cycles * hw["macs"])
