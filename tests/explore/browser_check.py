#!/usr/bin/python3
# ===- browser_check.py - Open a report in headless Chromium and inspect it -===#
#
# browser_check.py REPORT.html SCREENSHOT.png
#
# Loads the page in a real browser (Debian's chromium, headless) and prints one
# JSON object: the plots found and whether each image decoded, the tables,
# every console message, uncaught exception and log entry of level error,
# and every request the page made to something other than its own file or a
# data: URI (a self-contained report makes none). A full-page screenshot goes
# to SCREENSHOT.png. ReportTest.cpp judges the JSON.
#
# It speaks the DevTools protocol over --remote-debugging-pipe (file
# descriptors 3 and 4, messages separated by NUL bytes), so it needs nothing
# beyond the Python standard library: no websocket client, no Selenium.
#
# ===----------------------------------------------------------------------===#

import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT = 45  # Seconds for the whole check; the page is static.

# What the test reads back from the page once it has loaded.
PROBE = r"""
(() => {
  const figs = [...document.querySelectorAll('figure.plot')].map(f => {
    const img = f.querySelector('img');
    const r = img ? img.getBoundingClientRect() : {width: 0, height: 0};
    return {id: f.id, decoded: !!(img && img.complete && img.naturalWidth > 0),
            width: r.width, height: r.height,
            svg: !!(img && img.src.startsWith('data:image/svg+xml'))};
  });
  return JSON.stringify({
    title: document.title,
    figures: figs,
    tables: document.querySelectorAll('table').length,
    comparison_rows: document.querySelectorAll('table.cmp tbody tr').length,
    scripts: document.querySelectorAll('script').length,
    height: document.documentElement.scrollHeight,
  });
})()
"""


class Browser:
    def __init__(self, exe):
        self.profile = tempfile.mkdtemp(prefix="snow-chromium-")
        # Parent writes to the child's fd 3, reads the child's fd 4.
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def wire():
            # In the child: put the pipe ends at 3 and 4 as inheritable
            # descriptors. Duplicating first keeps this right even when a
            # pipe end already is 3 or 4 (dup2 onto itself would leave it
            # close-on-exec); every other descriptor stays close-on-exec.
            r, w = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--user-data-dir=" + self.profile, "--remote-debugging-pipe",
                 "--hide-scrollbars", "about:blank"]
        self.proc = subprocess.Popen([exe] + flags, close_fds=False,
                                     preexec_fn=wire, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self.next_id = 0
        self.buf = b""
        self.events = []
        self.deadline = time.time() + TIMEOUT

    def _read_message(self):
        while b"\0" not in self.buf:
            left = self.deadline - time.time()
            if left <= 0:
                raise TimeoutError("no answer from chromium within %d s" % TIMEOUT)
            ready, _, _ = select.select([self.from_child], [], [], left)
            if ready:
                chunk = os.read(self.from_child, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, session=None, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read_message()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method):
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                return self.events.pop(i)
        while True:
            m = self._read_message()
            if m.get("method") == method:
                return m
            self.events.append(m)

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:  # noqa: BLE001 - closing is best effort
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def main():
    report, shot = os.path.abspath(sys.argv[1]), sys.argv[2]
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        print(json.dumps({"skip": "chromium not installed"}))
        return
    b = Browser(exe)
    try:
        target = b.call("Target.createTarget", url="about:blank")["targetId"]
        s = b.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            b.call(domain + ".enable", session=s)
        b.call("Emulation.setDeviceMetricsOverride", session=s, width=1280, height=900,
               deviceScaleFactor=1, mobile=False)
        url = "file://" + report
        b.call("Page.navigate", session=s, url=url)
        b.wait_event("Page.loadEventFired")
        probe = json.loads(b.call("Runtime.evaluate", session=s, expression=PROBE,
                                  returnByValue=True)["result"]["value"])
        # The whole page in one image, at most 20000 px tall.
        b.call("Emulation.setDeviceMetricsOverride", session=s, width=1280,
               height=min(int(probe["height"]), 20000), deviceScaleFactor=1, mobile=False)
        png = b.call("Page.captureScreenshot", session=s, format="png")["data"]
        with open(shot, "wb") as f:
            f.write(base64.b64decode(png))
        console, errors, requests = [], [], []
        for m in b.events:
            p = m.get("params", {})
            if m.get("method") == "Runtime.consoleAPICalled":
                console.append({"type": p["type"], "text": " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", []))})
            elif m.get("method") == "Runtime.exceptionThrown":
                errors.append(p["exceptionDetails"].get("text", "exception"))
            elif m.get("method") == "Log.entryAdded" and p["entry"]["level"] == "error":
                errors.append(p["entry"]["text"])
            elif m.get("method") == "Network.requestWillBeSent":
                u = p["request"]["url"]
                if u != url and not u.startswith("data:"):
                    requests.append(u)
        probe.update(console=console, errors=errors, external_requests=requests)
        print(json.dumps(probe))
    finally:
        b.close()


if __name__ == "__main__":
    main()
