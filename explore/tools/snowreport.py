#!/usr/bin/python3
# ===- snowreport.py - Sweep results as a self-contained HTML report -------===#
#
# snowreport DIR -o report.html [--run stats.json] [--plots-dir DIR]
#                               [--devices TABLE.yaml | --no-devices]
#
# Turns snowsweep output (DIR/results.json) into one HTML page that works
# offline: every plot is an SVG embedded as a data: URI, the style sheet is
# inline, there is no script. The same plots are also written as SVG and PNG
# files (--plots-dir, default REPORT_plots/) for papers.
#
# This file only lays out and draws. Every number it shows was computed by
# the C++ tools: sweep rows by snowsweep, device utilization by snowdevices
# (run from the directory this script is installed in), per-layer figures by
# snowsim --stats-json. docs/exploration.md explains why it is Python.
#
# The interpreter is Debian's /usr/bin/python3 on purpose: python3-matplotlib
# is installed for it, and `env python3` may find a pyenv or virtualenv
# interpreter without matplotlib.
#
# ===----------------------------------------------------------------------===#

import argparse
import base64
import html
import io
import json
import os
import subprocess
import sys

try:
    import matplotlib
except ImportError:
    sys.stderr.write("snowreport: error: matplotlib is missing for %s (Debian: apt-get install "
                     "python3-matplotlib)\n" % sys.executable)
    sys.exit(1)
matplotlib.use("Agg")  # No display: render to files only.
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as ticker  # noqa: E402

TOOL = "snowreport"
# The keys that decide the array's MAC count: points that differ only in
# other keys (DRAM, buffers, clock) form the series of a MAC-count plot.
ARRAY_KEYS = ("clusters", "cus_per_cluster", "vmacs_per_cu", "lanes_per_vmac")
# Columns of a results row that are not hardware keys.
RESULT_COLS = {
    "model", "point", "config", "status", "message", "macs", "array_macs", "peak_gops",
    "cycles", "utilization", "gops", "fps", "dram_mb", "ops_per_byte", "dram_gbps_used",
    "onchip_kib", "dram_bytes", "hw_hash", "model_hash", "energy_j", "watts", "gops_per_w"}


class UserError(Exception):
    """A mistake in the input: printed as one line, exit status 1."""


def fail(msg):
    sys.stderr.write("%s: error: %s\n" % (TOOL, " ".join(str(msg).split())))
    sys.exit(1)


def read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise UserError("cannot read %s '%s': %s" % (what, path, e.strerror))
    except ValueError as e:
        raise UserError("%s '%s' is not valid JSON: %s" % (what, path, e))


def load_sweep(out_dir):
    path = os.path.join(out_dir, "results.json")
    if not os.path.exists(path):
        raise UserError("no results.json in '%s': run snowsweep --out %s first "
                        "(or snowsweep --merge --out %s after shards)" % (out_dir, out_dir, out_dir))
    data = read_json(path, "sweep results")
    if not isinstance(data, dict) or "rows" not in data:
        raise UserError("'%s' is not snowsweep output (no 'rows')" % path)
    return data["rows"]


def load_devices(args):
    """Runs snowdevices for the computed reference figures (None: skipped)."""
    if args.no_devices:
        return None
    exe = os.path.join(os.path.dirname(os.path.realpath(__file__)), "snowdevices")
    cmd = [exe, "--json", "-"] + ([args.devices] if args.devices else [])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except OSError as e:
        raise UserError("cannot run '%s': %s (use --no-devices to leave the reference "
                        "devices out)" % (exe, e.strerror))
    if p.returncode != 0:
        raise UserError(p.stderr.strip() or "snowdevices failed")
    return json.loads(p.stdout)


def swept_keys(rows):
    """Hardware keys whose value differs between rows, in column order."""
    keys = []
    for k in rows[0].keys() if rows else []:
        if k in RESULT_COLS:
            continue
        if len({str(r.get(k)) for r in rows}) > 1:
            keys.append(k)
    return keys


def series_label(row, keys):
    other = [k for k in keys if k not in ARRAY_KEYS]
    return ", ".join("%s=%s" % (k, row[k]) for k in other)


def model_colors(models):
    cmap = plt.get_cmap("tab10")
    return {m: cmap(i % 10) for i, m in enumerate(models)}


LINESTYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def plot_vs_macs(ok, models, keys, panels, title):
    """One panel per (column, label, scale); a line per model and setting of
    the non-array keys, through the points ordered by MAC count."""
    colors = model_colors(models)
    groups = {}
    for r in ok:
        groups.setdefault((r["model"], series_label(r, keys)), []).append(r)
    labels = sorted({lab for _, lab in groups})
    # The legend goes under the panels, where it cannot hide a line.
    ncol = 3 if len(panels) > 1 else 2
    legend_rows = -(-len(groups) // ncol)
    legend_h = 0.22 * legend_rows + 0.2
    width = 6.2 * len(panels) if len(panels) > 1 else 8.5
    fig, axes = plt.subplots(1, len(panels), figsize=(width, 4.2 + legend_h), squeeze=False)
    for ax, (col, ylabel, scale) in zip(axes[0], panels):
        for (model, lab), rs in sorted(groups.items()):
            # Several points at one MAC count (other array shapes with the
            # same product): the line goes through the best of them.
            best = {}
            for r in rs:
                x = r["array_macs"]
                if x not in best or r[col] > best[x][col]:
                    best[x] = r
            xs = sorted(best)
            ys = [best[x][col] * scale for x in xs]
            i = labels.index(lab)
            ax.plot(xs, ys, linestyle=LINESTYLES[i % 4], marker=MARKERS[i % 8], color=colors[model],
                    label=model + (" (" + lab + ")" if lab else ""))
            ax.scatter([r["array_macs"] for r in rs], [r[col] * scale for r in rs], s=10,
                       color=colors[model], alpha=0.35)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("MACs in the array")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        if col == "fps":  # Models differ by orders of magnitude in frame rate.
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: "%g" % v))
            ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    handles, names = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=ncol, fontsize=7, frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, legend_h / (4.2 + legend_h), 1, 1))
    return fig


def plot_roofline(ok, models, devices):
    colors = model_colors(models)
    fig, ax = plt.subplots(figsize=(9.5, 6.2))
    xs = [r["ops_per_byte"] for r in ok if r["ops_per_byte"] > 0]
    dev = [d for d in (devices or {}).get("results", []) if d["ops_per_byte"] > 0 and d["gops"] > 0]
    allx = xs + [d["ops_per_byte"] for d in dev]
    lo, hi = (min(allx) / 3, max(allx) * 3) if allx else (0.1, 1000)
    grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    roofs = sorted({(r["peak_gops"], r["dram_gbps"]) for r in ok})
    if len(roofs) > 6:  # Too many to read: the extremes bound all the others.
        roofs = [roofs[0], roofs[-1]]
    for peak, bw in roofs:
        ax.plot(grid, [min(peak, bw * x) for x in grid], color="0.35", linewidth=1)
        ax.text(grid[-1], peak, " %g G-ops/s, %g GB/s" % (peak, bw), fontsize=7, va="center",
                ha="right", color="0.3")
    for m in models:
        rs = [r for r in ok if r["model"] == m and r["ops_per_byte"] > 0]
        ax.scatter([r["ops_per_byte"] for r in rs], [r["gops"] for r in rs], color=colors[m],
                   s=22, label="%s (simulated)" % m, zorder=3)
    if dev:
        ax.scatter([d["ops_per_byte"] for d in dev], [d["gops"] for d in dev], marker="D",
                   facecolor="white", edgecolor="black", s=30, zorder=4,
                   label="reference devices (published rate)")
        for d in dev:
            ax.annotate("%s %s" % (d["device_name"], d["workload"]), (d["ops_per_byte"], d["gops"]),
                        fontsize=5.5, xytext=(3, 2), textcoords="offset points", color="0.2")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("operational intensity (ops per DRAM byte)")
    ax.set_ylabel("G-ops/s")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("Roofline: simulated points at their DRAM traffic; devices at compulsory traffic")
    fig.tight_layout()
    return fig


def plot_layers(stats):
    layers = [l for l in stats.get("layers", []) if l.get("macs", 0) > 0]
    types = sorted({l["type"] for l in layers})
    cmap = plt.get_cmap("tab10")
    fig, ax = plt.subplots(figsize=(max(8, 0.16 * len(layers) + 2), 4.6))
    xs = range(len(layers))
    ax.bar(xs, [100 * l["utilization"] for l in layers],
           color=[cmap(types.index(l["type"]) % 10) for l in layers])
    total = stats.get("total", {}).get("utilization", 0)
    ax.axhline(100 * total, color="black", linewidth=1, linestyle="--")
    ax.text(len(layers) - 0.5, 100 * total, "whole model %.1f %%" % (100 * total), ha="right",
            va="bottom", fontsize=8)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([l["name"] for l in layers], rotation=90,
                       fontsize=5 if len(layers) > 40 else 7)
    ax.set_ylim(0, 105)
    ax.set_ylabel("MAC utilization (%)")
    for i, t in enumerate(types):
        ax.bar([0], [0], color=cmap(i % 10), label=t)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # Outside the bars.
    hw = stats.get("hw", {})
    ax.set_title("Per-layer efficiency: %s on %s (%s MACs, %s MHz)" % (
        stats.get("model", "?"), hw.get("name", "?"), hw.get("macs", "?"), hw.get("clock_mhz", "?")))
    fig.tight_layout()
    return fig


def save(fig, name, plots_dir):
    """Writes NAME.svg and NAME.png; returns the SVG for embedding."""
    buf = io.BytesIO()
    fig.savefig(buf, format="svg")
    svg = buf.getvalue()
    with open(os.path.join(plots_dir, name + ".svg"), "wb") as f:
        f.write(svg)
    fig.savefig(os.path.join(plots_dir, name + ".png"), dpi=150)
    plt.close(fig)
    return svg


def figure_html(name, svg, caption):
    uri = "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
    return ('<figure class="plot" id="plot-%s"><img alt="%s" src="%s">'
            "<figcaption>%s</figcaption></figure>" % (name, html.escape(caption), uri, caption))


def fmt(v, digits=1):
    if v in (None, 0, ""):
        return "&ndash;"
    return "{:,.0f}".format(v) if abs(v) >= 1000 else "%.*f" % (digits, v)


def table(head, rows, cls=""):
    h = "".join("<th>%s</th>" % c for c in head)
    b = "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % c for c in r) for r in rows)
    return '<table class="%s"><thead><tr>%s</tr></thead><tbody>%s</tbody></table>' % (cls, h, b)


def short_config(row, keys):
    """The point by the keys that vary in this sweep (constant --set values
    say nothing about the point)."""
    return ", ".join("%s=%s" % (k, row[k]) for k in keys) or html.escape(row["config"])


def util_cell(u):
    """A utilization, or why there is none: a rate that would exceed the peak
    was counted with more ops than the device ran (never shown above 100 %)."""
    if u is None:
        return '<span class="nc" title="not comparable: see the flags">n/c</span>'
    assert u <= 1, "no comparison row above 100 %"
    return fmt(100 * u)


def comparison_html(ok, models, keys, devices):
    """Per network: the best simulated points beside each reference device."""
    out = []
    results = (devices or {}).get("results", [])
    # Price per device (the seed article's where it gives one: docs/devices.yaml).
    prices = {d["id"]: d["price_usd"]["value"] for d in (devices or {}).get("devices", [])
              if d.get("price_usd")}
    for m in models:
        rs = [r for r in ok if r["model"] == m]
        if not rs:
            continue
        rows = []
        for what, r in (("best fps", max(rs, key=lambda r: r["fps"])),
                        ("best utilization", max(rs, key=lambda r: r["utilization"]))):
            rows.append(["<b>simulated</b>, %s<br><small>%s</small>" % (what, short_config(r, keys)),
                         "int16",
                         "1", "whole network", "project model", fmt(r["fps"]), fmt(r["gops"]),
                         fmt(r["peak_gops"], 0), util_cell(r["utilization"]),
                         fmt(r.get("watts", 0), 2), fmt(r.get("gops_per_w", 0)), "&ndash;",
                         ("energy model of the hardware's table, %.2f W (docs/energy.md)"
                          % r["watts"]) if r.get("watts") else "no energy table for this hardware",
                         "snowsim, timing only"])
        for d in results:
            if d["model"] != m:
                continue
            flags = "; ".join(html.escape(f) for f in d["flags"])
            if d["variant"]:
                flags = html.escape("ran: " + d["variant"]) + ("; " + flags if flags else "")
            rows.append([html.escape(d["device_name"]), d["precision"],
                         str(d["batch"]) if d["batch"] else "n/s", d["scope"],
                         "source" if d["ops_counted_by"] == "source" else "project model",
                         fmt(d["fps"]), fmt(d["gops"]), fmt(d["peak_gops"], 0),
                         util_cell(d["utilization"]), fmt(d["power_w"], 2),
                         fmt(d["gops_per_w"]), fmt(prices.get(d["device"], 0), 0),
                         flags, ", ".join(d["sources"])])
        note = ""
        dev_macs = {d["model_macs"] for d in results if d["model"] == m}
        if dev_macs and rs[0]["macs"] not in dev_macs:
            note = ('<p class="warn">Not the same network size: the simulated %s does %.3f G MACs '
                    "per frame, the device figures are computed for %.3f G MACs (the device "
                    "table's model; another input size?).</p>" % (
                        html.escape(m), rs[0]["macs"] / 1e9, max(dev_macs) / 1e9))
        out.append("<h3>%s</h3>" % html.escape(m) + note + table(
            ["who", "precision", "batch", "scope", "ops counted by", "fps", "G-ops/s",
             "peak G-ops/s", "utilization %", "W", "G-ops/s per W", "price US$",
             "how the figures were obtained", "sources"], rows, "cmp"))
    if not out:
        return "<p>No simulated model matches a workload of the device table.</p>"
    return "".join(out)


def devices_html(devices):
    if not devices:
        return "<p>Reference devices left out (--no-devices).</p>"

    def fig(d, k):
        f = d.get(k)
        if not f:
            return "&ndash;"
        v = f["value"]
        def one(f):
            v = f["value"]
            s = "{:,.0f}".format(v) if v == int(v) else "%g" % v
            if f.get("derived"):
                s += " &dagger;"
            return '<span title="%s">%s</span> <sup>%s</sup>' % (
                html.escape(f.get("derived", "") or f.get("note", "")), s, f["source"])
        # Where sources disagree, every published value, the one used first.
        return "<br>".join([one(f)] + ["<small>also %s</small>" % one(a)
                                       for a in f.get("also", [])])

    rows = [[html.escape(d["name"]), d["kind"], d["precision"], fig(d, "peak_gops"),
             fig(d, "mem_gbps"), fig(d, "power_w"), fig(d, "price_usd")]
            for d in devices["devices"]]
    src = "".join('<li id="src-%s"><b>%s</b>: %s%s. <i>Checked:</i> %s</li>' % (
        k, k, html.escape(s["cite"]),
        ' &lt;<a href="%s">%s</a>&gt;' % (html.escape(s["url"]), html.escape(s["url"]))
        if s["url"] else "", html.escape(s["checked"]))
        for k, s in sorted(devices["sources"].items()))
    return (table(["device", "kind", "precision", "peak G-ops/s", "memory GB/s", "power W",
                   "price US$"], rows, "dev") +
            "<p>&dagger; derived from published numbers (hover for how); superscripts name the "
            "source.</p><h3>Sources</h3><ul class=\"src\">%s</ul>" % src)


CSS = """
body{font:14px/1.45 sans-serif;margin:24px auto;max-width:1250px;color:#222;padding:0 12px}
h1{font-size:22px} h2{margin-top:32px;border-bottom:1px solid #ccc}
figure.plot{margin:18px 0} figure.plot img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:12px;color:#555}
table{border-collapse:collapse;font-size:12px;margin:8px 0}
td,th{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f3f3f3} .warn{color:#a40;font-weight:bold} ul.src{font-size:12px} td{white-space:nowrap}
table.cmp{width:100%} table.cmp td:first-child{width:20%;white-space:normal}
table.cmp td:nth-child(13){width:34%;font-size:11px;color:#444;white-space:normal}
table.cmp td:nth-child(14),table.bad td:last-child{white-space:normal;overflow-wrap:anywhere}
"""


def build(args):
    rows = load_sweep(args.dir)
    devices = load_devices(args)
    stats = read_json(args.run, "--run statistics") if args.run else None
    plots_dir = args.plots_dir or os.path.splitext(args.output)[0] + "_plots"
    os.makedirs(plots_dir, exist_ok=True)

    ok = [r for r in rows if r["status"] == "ok"]
    bad = [r for r in rows if r["status"] != "ok"]
    models = sorted({r["model"] for r in rows})
    keys = swept_keys(rows)
    figs = []
    if ok:
        figs.append(("util_gops_vs_macs", plot_vs_macs(
            ok, models, keys, [("utilization", "MAC utilization (%)", 100),
                               ("gops", "G-ops/s", 1)], "Utilization and throughput vs MAC count"),
            "Utilization and G-ops/s against the array's MAC count, per model; a line per "
            "setting of the other swept keys through the best point at each MAC count."))
        figs.append(("fps_vs_macs", plot_vs_macs(
            ok, models, keys, [("fps", "frames per second", 1)], "Frames per second vs MAC count"),
            "Frames per second (batch 1) against the array's MAC count."))
        figs.append(("roofline", plot_roofline(ok, models, devices),
                     "Roofline. Simulated configurations (dots) at their measured DRAM traffic, "
                     "under the roofs of the swept peak and bandwidth; reference devices "
                     "(diamonds) at their published rate, placed at the compulsory traffic of the "
                     "workload (weights once per batch, input and output once per image), which "
                     "is derived, not measured."))
    if stats:
        figs.append(("layers", plot_layers(stats),
                     "Per-layer MAC utilization of one run (%s); the dashed line is the whole "
                     "model. Layers without MACs (pooling, concat) are left out."
                     % html.escape(os.path.basename(args.run))))
    parts = [figure_html(n, save(f, n, plots_dir), c) for n, f, c in figs]

    count = {}
    for r in rows:
        count[r["status"]] = count.get(r["status"], 0) + 1
    summary = ", ".join("%d %s" % (n, s) for s, n in sorted(count.items()))
    bad_rows = [[html.escape(r["model"]), html.escape(r["config"]), r["status"],
                 html.escape(r["message"])] for r in bad]
    body = [
        "<h1>Snowflake design-space sweep</h1>",
        "<p>%d rows from <code>%s</code> (%s); models: %s; swept keys: %s.</p>" % (
            len(rows), html.escape(os.path.abspath(args.dir)), summary,
            ", ".join(map(html.escape, models)), ", ".join(keys) or "none"),
        "<p>Conventions: 1 MAC = 2 ops; utilization = achieved ops/s &divide; peak ops/s. "
        "Simulated figures are cycle counts of the timing-only simulator at batch 1, whole "
        "network, ops counted on the project's models. Device utilization is <b>computed by "
        "snowdevices</b> as images/s &times; ops per image &divide; published peak, with the "
        "source's own op count where the source states one (its network is what ran) and the "
        "project model's otherwise, never one's rate with the other's count; each row says "
        "which, and its scope (whole network or conv layers). No row claims more than 100 %: "
        "where the count would give more, the source ran fewer multiplies than counted "
        "(Winograd, a smaller variant) and the row says <i>n/c</i> (not comparable).</p>",
        "<h2>Plots</h2>", "".join(parts) or "<p>No successful points to plot.</p>",
        "<h2>Simulated efficiency beside the reference devices</h2>",
        comparison_html(ok, models, keys, devices),
        "<h2>Points that did not run</h2>",
        table(["model", "config", "status", "why"], bad_rows, "bad") if bad_rows
        else "<p>None: every point compiled and ran.</p>",
        "<h2>Reference devices</h2>", devices_html(devices),
        "<p>Plots as files: <code>%s</code> (SVG and PNG).</p>" % html.escape(
            os.path.abspath(plots_dir)),
    ]
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>Snowflake sweep report</title><style>%s</style></head><body>%s</body></html>\n"
            % (CSS, "\n".join(body)))
    tmp = args.output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, args.output)  # All or nothing, like the C++ tools.


def main():
    ap = argparse.ArgumentParser(prog=TOOL, description="HTML report of a snowsweep output "
                                 "directory, with the reference devices beside it.")
    ap.add_argument("dir", help="snowsweep output directory (holds results.json)")
    ap.add_argument("-o", dest="output", required=True, help="the HTML file to write")
    ap.add_argument("--run", help="snowsim --stats-json file of one run, for per-layer bars")
    ap.add_argument("--plots-dir", help="where the SVG/PNG plots go (default OUTPUT_plots/)")
    ap.add_argument("--devices", help="device table (default: snowdevices' own, "
                    "docs/devices.yaml of the source tree)")
    ap.add_argument("--no-devices", action="store_true", help="leave the reference devices out")
    ap.error = lambda msg: fail(msg)  # Usage errors are one line too.
    args = ap.parse_args()
    try:
        build(args)
    except UserError as e:
        fail(e)
    except OSError as e:
        fail("%s: %s" % (e.filename or "", e.strerror))


if __name__ == "__main__":
    main()
