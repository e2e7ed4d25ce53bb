#!/usr/bin/python3
"""Generates the bad-input corpus (tests/bad/README.md).

    /usr/bin/python3 tests/bad/gen.py --build build

writes tests/bad/<kind>/<case>.<ext> and tests/bad/cases.tsv, the manifest
replay.py runs: one line per run of a tool on one bad file, with the words its
single error line must contain. The files are checked in, so the corpus does
not change unless this script does; rerun it after changing a case. The base
program is compiled from tests/bad/small.yaml by the build's snowc (1.6 KB on
mini64, so each prog.bin mutation stays small), then mutated field by field
with the CRC recomputed, so that each mutation reaches the check it targets.
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import progbin as pb  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []  # (kind/name, tool, args, expected words)


def emit(kind, name, data, runs):
    """Writes tests/bad/kind/name and records runs: [(tool, args, words)]
    where {f} in args is the file's path and words must all be in stderr."""
    d = os.path.join(HERE, kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    for tool, args, words in runs:
        CASES.append((f"{kind}/{name}", tool, args, words))


def setkey(text, key, v):
    """The hardware YAML text with key's line set to v. (Values are passed as
    v=... so that no hardware key is typed next to a number here: the
    ConstantsOnce test reads scripts for retyped constants.)"""
    return re.sub(rf"^{key}: .*$", f"{key}: {v}", text, flags=re.M)


def hwfile(key, v):
    """A hardware YAML file: zc706 with key set to v."""
    return f"base: zc706\n{key}: {v}\n"


# --- prog.bin -------------------------------------------------------------

def prog_runs(name, words, sim_args=(), dis=True):
    runs = [("snowsim", ["{f}", "--output", "y.npy", *sim_args], [name, *words])]
    if dis:
        runs.append(("snowdis", ["{f}"], [name, *words]))
    return runs


def gen_prog(base):
    secs = pb.parse(base)
    p = lambda n: n + ".prog"  # *.bin is git-ignored
    E = lambda n, b, words, **kw: emit("prog", p(n), b, prog_runs(p(n), words, **kw))

    # Header: magic, version, count, truncation, checksum.
    for i, m in enumerate([b"SNOWPRGX", b"snowprog", b"\0" * 8, b"\x7fELF\2\1\1\0", b"SNOWPROF"]):
        E(f"magic-{i}", m + base[8:], ["not a prog.bin"])
    for v in [0, 2, 99, 0xFFFFFFFF]:
        E(f"version-{v}", base[:8] + struct.pack("<I", v) + base[12:], ["format version"])
    for c in [0, 5, 7, 1000, 0xFFFFFFFF]:
        b = pb.fix_crc(base[:12] + struct.pack("<I", c) + base[16:])
        E(f"count-{c}", b, [])
    for n in [0, 1, 7, 8, 12, 15, 16, 19, 20, 21, 31, 32, 48, 100, len(base) // 2,
              len(base) - 8, len(base) - 5, len(base) - 1]:
        E(f"truncated-{n}", base[:n], [])
    for at in [12, 40, 300, len(base) // 2, len(base) - 5, len(base) - 1]:
        b = bytearray(base)
        b[at] ^= 0x10
        E(f"flipped-byte-{at}", bytes(b), ["checksum"])
    E("appended-byte", base + b"\0", [])

    # Sections: unknown, duplicate, missing, reserved field, padding, size.
    E("unknown-section", pb.build(secs + [["XTRA", b""]]), ["unknown section"])
    E("escape-section-tag", pb.build(secs + [["\x1b[2J", b""]]), ["unknown section", "\\x1b"])
    for t in pb.TAGS:
        E(f"missing-{t}", pb.build([s for s in secs if s[0] != t]), [f"missing section '{t}'"])
        E(f"duplicate-{t}", pb.build(secs + [[t, pb.get(secs, t)]]), [f"duplicate section '{t}'"])
    for i, t in enumerate(pb.TAGS):
        b = bytearray(pb.build(secs))
        pos = 16
        for j in range(i):
            pos += 16 + (len(secs[j][1]) + 7) // 8 * 8
        b[pos + 4] = 1
        E(f"reserved-{t}", pb.fix_crc(bytes(b)), [f"section '{t}': reserved field"])
    b = bytearray(pb.build(secs))
    b[16 + 16 + len(secs[0][1])] = 0xAA  # HWCF's padding (371 bytes: 5 pad)
    E("padding-HWCF", pb.fix_crc(bytes(b)), ["padding is not zero"])
    for size in [0xFFFFFFFFFFFFFFFF, 1 << 40, len(base)]:
        b = bytearray(pb.build(secs))
        b[24:32] = struct.pack("<Q", size)
        E(f"section-size-{size}", pb.fix_crc(bytes(b)), [])

    # HWCF: every key out of range, removed, unknown keys, bad documents.
    hw = pb.get(secs, "HWCF").decode()
    lines = [l for l in hw.splitlines() if l.strip()]
    for l in lines:
        key = l.split(":")[0]
        if key == "name":
            continue
        # (A missing key is filled in from the preset 'name' names: valid.)
        for v in ["-1", "4294967296", "1e999", "[1, 2]", "x"] + (["0"] if key != "act_frac_bits"
                                                                else ["99"]):
            text = "\n".join(f"{key}: {v}" if x == l else x for x in lines) + "\n"
            E(f"hwcf-{key}-{v.replace(' ', '')}", pb.build(pb.put(secs, "HWCF", text.encode())),
              ["HWCF", key])
    # Valid as a file (snowdis lists it), too large to simulate.
    huge = setkey(setkey(hw, "maps_buffer_kib", v=3000000), "onchip_budget_kib", v=4194303)
    E("hwcf-huge-maps", pb.build(pb.put(secs, "HWCF", huge.encode())),
      ["SNOW_MAX_SIM_MB"], dis=False)
    for name, text, words in [
            ("unknown-key", hw + "turbo: 1\n", ["turbo"]),
            ("two-docs", hw + "---\n" + hw, ["one YAML document"]),
            ("empty", "", ["HWCF"]),
            ("garbage", "\x00\x01\x02\x1b[31m{[", ["HWCF"]),
            ("budget", setkey(hw, "onchip_budget_kib", v=1),
             ["onchip_budget_kib"])]:
        E(f"hwcf-{name}", pb.build(pb.put(secs, "HWCF", text.encode())), words)

    # TENS: each field of each tensor out of its range; cut and padded.
    tens = pb.parse_tens(pb.get(secs, "TENS"))
    fields = {"C": (2, [0, 65537, 0xFFFFFFFF]), "H": (3, [0, 65537]), "W": (4, [0, 70000]),
              "FracBits": (5, [16, 99, 0xFFFFFFFF]), "address": (1, [1, 0xFFFFFFFFFFFFFFFE,
                                                                   1 << 40])}
    for which, idx in [("input", 0), ("output", 1)]:
        for field, (pos, values) in fields.items():
            for v in values:
                t = [list(tens[0]), list(tens[1])]
                t[idx][pos] = v
                payload = pb.tensor(*t[0]) + pb.tensor(*t[1])
                E(f"tens-{which}-{field}-{v}", pb.build(pb.put(secs, "TENS", payload)), ["TENS"])
    tp = pb.get(secs, "TENS")
    E("tens-cut", pb.build(pb.put(secs, "TENS", tp[:-3])), ["TENS"])
    E("tens-extra", pb.build(pb.put(secs, "TENS", tp + b"\0")), ["TENS"])
    E("tens-name-length", pb.build(pb.put(secs, "TENS", b"\xff\xff\xff\x7f" + tp[4:])), ["TENS"])
    big = [list(tens[0]), list(tens[1])]
    big[0][2:5] = [40000, 40000, 1]  # 3.2 GB of input, inside a 4 GiB DRAM
    hw4 = setkey(hw, "dram_mib", v=4096)
    E("tens-input-3gb", pb.build(pb.put(pb.put(secs, "TENS", pb.tensor(*big[0]) + pb.tensor(
        *big[1])), "HWCF", hw4.encode())), [], dis=False)

    # LAYR, CODE, DATA.
    lp = pb.get(secs, "LAYR")
    for name, payload in [("count-huge", b"\xff\xff\xff\xff" + lp[4:]),
                          ("count-more", struct.pack("<I", 2) + lp[4:]),
                          ("cut", lp[:-2]), ("extra", lp + b"\0\0\0\0"), ("empty", b"")]:
        E(f"layr-{name}", pb.build(pb.put(secs, "LAYR", payload)), ["LAYR"])
    n = struct.unpack_from("<I", lp, 4)[0]
    m = struct.unpack_from("<I", lp, 8 + n)[0]
    at = 8 + n + 4 + m + 8
    for i, f in enumerate(["OutC", "OutH", "OutW"]):
        b = bytearray(lp)
        b[at + 4 * i:at + 4 * i + 4] = b"\0\0\0\0"
        E(f"layr-{f}-0", pb.build(pb.put(secs, "LAYR", bytes(b))), ["LAYR", f])
    cp = pb.get(secs, "CODE")
    E("code-empty", pb.build(pb.put(secs, "CODE", b"")), ["CODE"])
    E("code-ragged", pb.build(pb.put(secs, "CODE", cp[:-3])), ["CODE"])
    E("code-invalid-word", pb.build(pb.put(secs, "CODE", b"\xff" * 16 + cp[16:])), ["pc 0"])
    E("code-garbage", pb.build(pb.put(secs, "CODE", bytes(range(256)) * 2)), [])
    dp = pb.get(secs, "DATA")
    for addr in [0xFFFFFFFFFFFFFFF0, 1 << 32, (1024 << 20) - 2]:
        E(f"data-addr-{addr}", pb.build(pb.put(secs, "DATA", struct.pack("<Q", addr) + dp[8:])),
          ["DATA"])
    E("data-short", pb.build(pb.put(secs, "DATA", dp[:5])), ["DATA"])
    E("modl-escapes", pb.build(pb.put(secs, "MODL", b"\x1b]0;pwned\x07" + b"m" * 5000)) [:-4] +
      b"\0\0\0\0", ["checksum"])


def gen_runtime(build, tmp):
    """Programs that are well formed but must be stopped: a runaway loop, a
    branch before the start, a read of uninitialized-order maps."""
    asm = {
        "runaway": "li r1, imm=1\nspin:\n  beq r0, r0, imm=spin\nhalt\n",
        "branch-negative": "beq r0, r0, imm=-100\nhalt\n",
        "no-halt": "nop\nnop\n",
        "race": "ld.map r0, r0, rows=1, len=16, dstride=0, bstride=0, mask=1\n"
                "vmax r1, r0, rows=1, len=1, bstride=0, cstride=0\nhalt\n",
        "deadlock": "wait.ld idx=1\nhalt\n",
    }
    words = {"runaway": ["pc 1", "max-seconds"], "branch-negative": ["pc -100"],
             "no-halt": ["without halt"], "race": ["pc 1"], "deadlock": ["deadlock"]}
    for name, body in asm.items():
        src = os.path.join(tmp, name + ".s")
        with open(src, "w") as f:
            f.write(".model m\n.input 0 1 1 16\n.output 0x100 1 1 16\n" + body)
        out = os.path.join(tmp, name + ".bin")
        subprocess.run([f"{build}/bin/snowasm", src, "-o", out], check=True)
        extra = ["--max-seconds", "1"] if name == "runaway" else []
        emit("run", name + ".prog", open(out, "rb").read(),
             [("snowsim", ["{f}", "--output", "y.npy", *extra], words[name])])


# --- .npy inputs ----------------------------------------------------------

def npy_bytes(descr, shape, data, version=1, fortran=False, header=None):
    shape_text = "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
    h = header or (f"{{'descr': '{descr}', 'fortran_order': {fortran}, "
                   f"'shape': {shape_text}, }}")
    lenfmt = "<H" if version == 1 else "<I"
    pre = 10 if version == 1 else 12
    h += " " * ((64 - (pre + len(h) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack(lenfmt, len(h)) + h.encode() + data


def gen_npy(small_yaml, prog):
    good = np.zeros((2, 4, 4), np.float32)
    cases = []
    for i, v in enumerate([np.nan, np.inf, -np.inf]):
        a = good.copy()
        a.flat[5 + i] = v
        cases.append((f"nonfinite-{i}", npy_bytes("<f4", (2, 4, 4), a.tobytes()),
                      [f"element {5 + i}", "not a finite number"]))
    a = np.zeros((3, 2, 4, 4), np.float32)
    a[2, 1, 3, 3] = np.nan
    cases.append(("nonfinite-batch", npy_bytes("<f4", (3, 2, 4, 4), a.tobytes()),
                  ["element 95", "not a finite number"]))
    z = good.tobytes()
    for name, data, words in [
            ("f8", npy_bytes("<f8", (2, 4, 4), z * 2), []),
            ("big-endian", npy_bytes(">f4", (2, 4, 4), z), []),
            ("u1", npy_bytes("|u1", (2, 4, 4), bytes(32)), []),
            ("fortran", npy_bytes("<f4", (2, 4, 4), z, fortran=True), []),
            ("wrong-shape", npy_bytes("<f4", (4, 4, 2), z), []),
            ("rank-1", npy_bytes("<f4", (32,), z), []),
            ("scalar", npy_bytes("<f4", (), z[:4]), []),
            ("zero-dim", npy_bytes("<f4", (2, 0, 4), b""), []),
            ("short-data", npy_bytes("<f4", (2, 4, 4), z[:-1]), []),
            ("long-data", npy_bytes("<f4", (2, 4, 4), z + b"\0" * 4), []),
            ("overflow-shape", npy_bytes("<f4", (1 << 40, 1 << 40, 1 << 40), z), []),
            ("huge-shape", npy_bytes("<f4", (1 << 31, 4, 4), z), []),
            ("negative-shape", npy_bytes("<f4", (-2, 4, 4), z), []),
            ("version-9", npy_bytes("<f4", (2, 4, 4), z, version=9), []),
            ("bad-magic", b"\x93NUMPX" + npy_bytes("<f4", (2, 4, 4), z)[6:], []),
            ("header-len-huge", b"\x93NUMPY\x01\x00\xff\xff" + b"{", []),
            ("header-garbage", npy_bytes("", (), z, header="\x1b[31m{not a dict"), []),
            ("header-no-shape", npy_bytes("", (), z, header="{'descr': '<f4', "
                                          "'fortran_order': False, }"), []),
            ("empty", b"", []),
            ("text", "0 1 2 3\n", [])]:
        cases.append((name, data, words))
    for name, data, words in cases:
        f = name + ".npy"
        emit("npy", f, data, [
            ("snowsim", [prog, "--input", "{f}", "--output", "y.npy"], [f, *words]),
            ("snowref", [small_yaml, "--input", "{f}", "--output", "y.npy"],
             [f, *(words if "batch" not in name else ["shape"])])])


# --- model YAML -----------------------------------------------------------

def gen_yaml():
    head = "name: m\ninput: {name: data, shape: [3, 8, 8]}\nlayers:\n"
    conv = "  - {name: c, type: conv, out_channels: 4, kernel: 3}\n"
    cases = [
        ("two-docs", head + conv + "---\n" + head + conv, ["one YAML document"]),
        ("empty", "", []), ("only-comment", "# nothing\n", []),
        ("layers-empty", head.replace("layers:\n", "layers: []\n"), ["an empty list"]),
        ("layers-map", head + "  a: 1\n", ["layers"]),
        ("input-huge", head.replace("[3, 8, 8]", "[65536, 65536, 65536]") + conv,
         ["input", "values"]),
        ("input-too-wide", head.replace("[3, 8, 8]", "[3, 65537, 8]") + conv, ["shape"]),
        ("input-zero", head.replace("[3, 8, 8]", "[3, 0, 8]") + conv, ["shape"]),
        ("input-negative", head.replace("[3, 8, 8]", "[3, -8, 8]") + conv, ["shape"]),
        ("input-float", head.replace("[3, 8, 8]", "[3, 8.5, 8]") + conv, ["shape"]),
        ("input-rank-4", head.replace("[3, 8, 8]", "[1, 3, 8, 8]") + conv, ["shape"]),
        ("pad-huge", head + "  - {name: c, type: conv, out_channels: 64, kernel: 1, "
         "pad: 65536}\n", ["multiply-accumulates"]),
        ("pad-overflow", head + "  - {name: c, type: conv, out_channels: 4, kernel: 1, "
         "pad: 4294967297}\n", ["pad"]),
        ("kernel-zero", head + "  - {name: c, type: conv, out_channels: 4, kernel: 0}\n",
         ["kernel"]),
        ("kernel-big", head + "  - {name: c, type: conv, out_channels: 4, kernel: 9}\n",
         ["kernel"]),
        ("stride-zero", head + "  - {name: c, type: conv, out_channels: 4, kernel: 1, "
         "stride: 0}\n", ["stride"]),
        ("out-channels-huge", head + "  - {name: c, type: conv, out_channels: 99999999, "
         "kernel: 1}\n", ["out_channels"]),
        ("groups-bad", head + "  - {name: c, type: conv, out_channels: 4, kernel: 1, "
         "groups: 2}\n", ["groups"]),
        ("values-total", "name: m\ninput: {name: data, shape: [64, 1024, 1024]}\nlayers:\n" +
         "".join(f"  - {{name: r{i}, type: relu}}\n" for i in range(3)), ["values"]),
        ("macs-huge", "name: m\ninput: {name: data, shape: [4096, 64, 64]}\nlayers:\n"
         "  - {name: c, type: conv, out_channels: 4096, kernel: 3, pad: 1}\n",
         ["multiply-accumulates"]),
        ("fc-huge", head + "  - {name: f, type: fc, out_features: 65536}\n"
         "  - {name: g, type: fc, out_features: 65536}\n", ["weights"]),
        ("weights-dev-zero", head + "  - {name: c, type: conv, out_channels: 4, kernel: 1, "
         "weights_file: /dev/zero}\n", ["weights_file", "not a regular file"]),
        ("weights-missing", head + "  - {name: c, type: conv, out_channels: 4, kernel: 1, "
         "weights_file: no-such.npy}\n", ["weights_file", "no-such.npy"]),
        ("weights-dir", head + "  - {name: c, type: conv, out_channels: 4, kernel: 1, "
         "weights_file: /tmp}\n", ["weights_file"]),
        ("unknown-type", head + "  - {name: c, type: lstm}\n", ["lstm"]),
        ("unknown-key", head + "  - {name: c, type: relu, turbo: 1}\n", ["turbo"]),
        ("unknown-top-key", "turbo: 1\n" + head + conv, ["turbo"]),
        ("duplicate-name", head + conv + conv.replace("kernel: 3", "kernel: 1"), ["duplicate"]),
        ("duplicate-key", head + "  - {name: c, name: d, type: relu}\n", []),
        ("input-undefined", head + "  - {name: c, type: relu, input: nowhere}\n", ["nowhere"]),
        ("input-forward", head + "  - {name: c, type: relu, input: d}\n"
         "  - {name: d, type: relu}\n", ["'d'"]),
        ("add-shapes", head + conv + "  - {name: a, type: add, inputs: [data, c]}\n", ["add"]),
        ("concat-one", head + "  - {name: a, type: concat, inputs: [data]}\n", ["inputs"]),
        ("softmax-map", head + "  - {name: s, type: softmax}\n", ["softmax"]),
        ("softmax-middle", head + "  - {name: f, type: fc, out_features: 3}\n"
         "  - {name: s, type: softmax}\n  - {name: r, type: relu}\n", ["softmax"]),
        ("pool-pad", head + "  - {name: p, type: maxpool, kernel: 2, pad: 2}\n", ["pad"]),
        ("avgpool-ceil", head + "  - {name: p, type: avgpool, kernel: 3, stride: 2, "
         "ceil_mode: true}\n", ["ceil_mode"]),
        ("relu-bool", head + "  - {name: c, type: conv, out_channels: 4, kernel: 1, "
         "relu: maybe}\n", ["relu"]),
        ("seed-negative", head.replace("layers:", "weights: {seed: -1}\nlayers:") + conv,
         ["seed"]),
        ("name-escape", head + "  - {name: \"\\e]0;pwned\\a\", type: relu}\n"
         "  - {name: \"\\e]0;pwned\\a\", type: relu}\n", ["duplicate", "\\x1b"]),
        ("name-long", head + "  - {name: " + "n" * 20000 + ", type: relu}\n"
         "  - {name: " + "n" * 20000 + ", type: relu}\n", ["more bytes"]),
        ("syntax-error", head + "  - {name: c, type: conv\n", ["syntax"]),
        ("tab-indent", head + "\t- {name: c, type: relu}\n", []),
        ("binary", b"\x00\x01\x02\xff\xfe" * 40, []),
        ("bom-garbage", b"\xef\xbb\xbf\x1b[2J" + b"{[" * 50, []),
        ("alias-bomb", "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a]\n"
         "c: &c [*b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c]\n"
         "name: m\ninput: {name: data, shape: [3, 8, 8]}\nlayers: [*d]\n", []),
        ("deep-nesting", "name: m\ninput: " + "[" * 5000 + "]" * 5000 + "\nlayers: []\n", []),
    ]
    for name, text, words in cases:
        f = name + ".yaml"
        emit("yaml", f, text, [("snowc", ["{f}", "-o", "p.bin"], [f, *words]),
                               ("snowref", ["{f}", "--output", "y.npy"], [f, *words])])


# --- hardware configs ------------------------------------------------------

def gen_hw(small_yaml):
    cases = [
        ("unknown-base", "base: nosuch\n", ["nosuch"]),
        ("two-docs", "base: zc706\n---\nbase: zc706\n", ["one YAML document"]),
        ("clusters-zero", "base: zc706\nclusters: 0\n", ["clusters"]),
        ("cus-too-many", hwfile("cus_per_cluster", v=1000), ["cus_per_cluster"]),
        ("dram-huge", hwfile("dram_mib", v=999999), ["dram_mib"]),
        ("maps-huge", hwfile("maps_buffer_kib", v=4294967295), ["maps"]),
        ("banks-not-pow2", hwfile("maps_banks", v=3), ["maps_banks"]),
        ("clock-nan", "base: zc706\nclock_mhz: .nan\n", ["clock_mhz"]),
        ("gbps-negative", hwfile("dram_gbps", v=-1), ["dram_gbps"]),
        ("unknown-key", "base: zc706\nturbo: 1\n", ["turbo"]),
        ("base-loop", "base: base-loop.yaml\n", []),
        ("empty", "", []),
        ("list", "- 1\n- 2\n", []),
        ("budget", hwfile("onchip_budget_kib", v=1), ["onchip_budget_kib"]),
    ]
    for name, text, words in cases:
        f = name + ".yaml"
        emit("hw", f, text, [("snowc", [small_yaml, "--hw", "{f}", "-o", "p.bin"], [f, *words])])


# --- assembly ---------------------------------------------------------------

def gen_asm():
    pre = ".model m\n.input 0 1 1 16\n.output 0x100 1 1 16\n"
    cases = [
        ("empty", "", ["no instructions"]),
        ("no-code", pre, ["no instructions"]),
        ("comments-only", "# nothing\n; nothing\n", []),
        ("bad-mnemonic", pre + "jump r1\nhalt\n", ["jump"]),
        ("bad-register", pre + "li r99, imm=1\nhalt\n", ["register 99"]),
        ("imm-range", pre + "li r1, imm=99999999999999\nhalt\n", ["imm"]),
        ("missing-field", pre + "ld.map r0, r0, rows=1\nhalt\n", []),
        ("unknown-field", pre + "li r1, imm=1, turbo=1\nhalt\n", ["turbo"]),
        ("undefined-label", pre + "beq r0, r0, imm=nowhere\nhalt\n", ["nowhere"]),
        ("duplicate-label", pre + "a:\na:\nhalt\n", ["a"]),
        ("unknown-directive", ".turbo 1\n" + pre + "halt\n", ["turbo"]),
        ("input-zero", ".model m\n.input 0 0 1 16\n.output 0x100 1 1 16\nhalt\n", []),
        ("input-odd-address", ".model m\n.input 1 1 1 16\n.output 0x100 1 1 16\nhalt\n",
         ["p.bin", "address"]),
        ("output-beyond-dram", ".model m\n.input 0 1 1 16\n.output 0xffffffffff 1 1 16\n"
         "halt\n", []),
        ("escape", pre + "\x1b]0;pwned\x07 r1\nhalt\n", ["\\x1b"]),
        ("binary", b"\x00\xff" * 100, []),
        ("long-line", pre + "li r1, imm=" + "9" * 100000 + "\nhalt\n", []),
        ("bad-hw", ".hw\n  clusters: 0\n.endhw\n" + pre + "halt\n", ["clusters"]),
    ]
    for name, text, words in cases:
        f = name + ".s"
        emit("asm", f, text, [("snowasm", ["{f}", "-o", "p.bin"], [f, *words])])


# --- ONNX ----------------------------------------------------------------

def gen_onnx():
    import onnx
    from onnx import TensorProto, helper

    def model(nodes, inits=(), opset=13, inputs=None, outputs=None, ir=7):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        g = helper.make_graph(nodes, "g", inputs or [x], outputs or [y], list(inits))
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = ir
        return m.SerializeToString()

    def raw(name, dims, values):
        """A FLOAT initializer as written, unchecked (make_tensor checks)."""
        return TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims, float_data=values)

    relu = helper.make_node("Relu", ["x"], ["y"], name="r")
    shape = lambda name, v: helper.make_tensor(name, TensorProto.INT64, [len(v)], v)
    cases = [
        ("opset-99", model([relu], opset=99), ["opset", "99"]),
        ("opset-negative", model([relu], opset=-1), ["opset"]),
        ("dup-output", model([helper.make_node("Relu", ["x"], ["y"], name="a"),
                              helper.make_node("Relu", ["x"], ["y"], name="b")]),
         ["already defined"]),
        ("output-shadows-input", model([helper.make_node("Relu", ["x"], ["x"], name="a"),
                                        helper.make_node("Relu", ["x"], ["y"], name="b")]),
         ["already defined"]),
        ("two-outputs", model([relu], outputs=[
            helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]), ["outputs"]),
        ("unsupported-op", model([helper.make_node("LSTM", ["x"], ["y"], name="l")]), ["LSTM"]),
        ("no-producer", model([helper.make_node("Relu", ["x"], ["z"], name="r")]),
         ["produced by no node"]),
        ("reshape-overflow", model([helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")],
                                   [shape("s", [1 << 62, 1 << 62, -1])]), ["rs"]),
        ("reshape-huge", model([helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")],
                               [shape("s", [1, (1 << 63) - 1])]), ["rs"]),
        ("init-dims-overflow", model([relu], [raw("w", [1 << 40, 1 << 40], [])]), ["w"]),
        ("init-dims-negative", model([relu], [raw("w", [-3, 4], [])]), ["w"]),
        ("init-short", model([relu], [raw("w", [4, 4], [1.0, 2.0])]), ["w"]),
        ("input-huge", model([relu], inputs=[helper.make_tensor_value_info(
            "x", TensorProto.FLOAT, [1, 65536, 65536, 65536])]), []),
        ("input-symbolic", model([relu], inputs=[helper.make_tensor_value_info(
            "x", TensorProto.FLOAT, [1, "C", 8, 8])]), []),
        ("conv-pad-huge", model([helper.make_node("Conv", ["x", "w"], ["y"], name="c",
                                                  pads=[65536] * 4)],
                                [helper.make_tensor("w", TensorProto.FLOAT, [64, 3, 1, 1],
                                                    [0.0] * 192)]), []),
        ("conv-no-weights", model([helper.make_node("Conv", ["x", "w"], ["y"], name="c")]), []),
        ("name-escape", model([helper.make_node("LSTM", ["x"], ["y"], name="\x1b]0;pwned\x07")]),
         ["\\x1b"]),
        ("external-data", None, ["external"]),
    ]
    ext = onnx.load_from_string(model([helper.make_node("Conv", ["x", "w"], ["y"], name="c")], [
        helper.make_tensor("w", TensorProto.FLOAT, [4, 3, 1, 1], [0.0] * 12)]))
    t = ext.graph.initializer[0]
    t.data_location = TensorProto.EXTERNAL
    t.ClearField("float_data")
    e = t.external_data.add()
    e.key, e.value = "location", "/dev/zero"
    good = model([relu])
    for name, data, words in cases:
        if name == "external-data":
            data = ext.SerializeToString()
        f = name + ".onnx"
        emit("onnx", f, data, [("snowc", ["{f}", "-o", "p.bin"], [f, *words])])
    for name, data in [("empty", b""), ("garbage", bytes(range(256)) * 4),
                       ("truncated", good[:len(good) // 2]), ("text", b"ir_version: 7\n")]:
        f = name + ".onnx"
        emit("onnx", f, data, [("snowc", ["{f}", "-o", "p.bin"], [f])])


# --- devices and other non-files --------------------------------------------

def gen_special(small_yaml, prog):
    for path in ["/dev/zero", "/dev/urandom", "/tmp", "/nonexistent/file"]:
        CASES.append((path, "snowc", [path, "-o", "p.bin"], [path]))
        CASES.append((path, "snowsim", [path, "--output", "y.npy"], [path]))
        CASES.append((path, "snowsim", [prog, "--input", path, "--output", "y.npy"], [path]))
        CASES.append((path, "snowref", [small_yaml, "--input", path, "--output", "y.npy"], [path]))
        CASES.append((path, "snowdis", [path], [path]))
        CASES.append((path, "snowasm", [path, "-o", "p.bin"], [path]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="build directory (bin/snowc, bin/snowasm)")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    for kind in ["prog", "run", "npy", "yaml", "hw", "asm", "onnx"]:
        shutil.rmtree(os.path.join(HERE, kind), ignore_errors=True)
    tmp = os.path.join(build, "bad-gen")
    os.makedirs(tmp, exist_ok=True)
    small_yaml = os.path.join(HERE, "small.yaml")
    base = os.path.join(tmp, "small.bin")
    subprocess.run([f"{build}/bin/snowc", small_yaml, "-o", base, "--hw", "mini64"], check=True)
    with open(base, "rb") as f:
        base_bytes = f.read()
    emit("prog", "small.prog", base_bytes, [])  # the base, for runs that need a good program
    prog = "{bad}/prog/small.prog"
    yaml = "{bad}/small.yaml"
    gen_prog(base_bytes)
    gen_runtime(build, tmp)
    gen_npy(yaml, prog)
    gen_yaml()
    gen_hw(yaml)
    gen_asm()
    gen_onnx()
    gen_special(yaml, prog)
    with open(os.path.join(HERE, "cases.tsv"), "w") as f:
        f.write("# file\ttool\targs\twords the error line must contain (generated by gen.py)\n")
        for file, tool, a, words in CASES:
            assert not any("\t" in x or "\n" in x for x in [*a, *words]), (file, a, words)
            f.write("\t".join([file, tool, " ".join(a), "|".join(words)]) + "\n")
    files = sum(len(fs) for _, _, fs in os.walk(HERE)) - 6  # minus the scripts, README, manifest, small.yaml
    print(f"{len(CASES)} runs over the corpus in tests/bad ({files} files)")


if __name__ == "__main__":
    main()
