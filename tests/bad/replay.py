#!/usr/bin/python3
"""Replays the bad-input corpus (tests/bad/cases.tsv, made by gen.py).

    /usr/bin/python3 tests/bad/replay.py --build build [-j 2] [--filter WORD]

Each line runs one tool on one bad file, in a fresh empty directory, under
an address-space cap of 2 GiB (RLIMIT_AS, what `ulimit -v` sets) and a 10 s
timeout, and requires: a non-zero exit that is not a signal; stderr exactly
one line, containing "error" and each expected word (the file's name first);
no crash text; and the directory still empty (no output file, no temporary).
Prints each failure with its command line, then the slowest and largest
runs; exits 1 if any case failed.

In a sanitizer build (SNOW_SANITIZE in the build's CMakeCache.txt; the
sanitizer tier, scripts/sanitize-tests.sh) ASan reserves terabytes of
address space for its shadow, so the cap is ASan's own hard_rss_limit_mb
(2048: a case that grows past it is reported as a crash) and the timeout is
three times longer (the tools run several times slower there).
"""
import argparse
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
MEM_CAP = 2 << 30
TIMEOUT = 10
CRASH = ["Stack dump", "PLEASE submit", "Assertion", "terminate called", "LLVM ERROR",
         "Segmentation fault", "AddressSanitizer", "runtime error:"]


SANITIZED = False


def limit():
    if not SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (MEM_CAP, MEM_CAP))


def sanitized_build(build):
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            return any(line.startswith("SNOW_SANITIZE:BOOL=ON") for line in f)
    except OSError:
        return False


def run_case(build, case):
    file, tool, args, words = case
    path = file if file.startswith("/") else os.path.join(HERE, file)
    argv = [os.path.join(build, "bin", tool)] + [
        a.replace("{f}", path).replace("{bad}", HERE) for a in args.split(" ") if a]
    with tempfile.TemporaryDirectory(prefix="snow-bad-") as d:
        with open(os.path.join(d, "..", os.path.basename(d) + ".err"), "w+") as err:
            start = time.monotonic()
            p = subprocess.Popen(argv, cwd=d, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=err, preexec_fn=limit)
            timed_out = False
            while True:
                pid, status, usage = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() - start > TIMEOUT:
                    p.kill()
                    timed_out = True
                    pid, status, usage = os.wait4(p.pid, 0)
                    break
                time.sleep(0.005)
            secs = time.monotonic() - start
            err.seek(0)
            text = err.read()
        os.unlink(err.name)
        left = sorted(os.listdir(d))
    problems = []
    if timed_out:
        problems.append(f"still running after {TIMEOUT} s")
    elif os.WIFSIGNALED(status):
        problems.append(f"killed by signal {os.WTERMSIG(status)}")
    elif os.WEXITSTATUS(status) == 0:
        problems.append("exit status 0")
    if not timed_out:
        if text.count("\n") != 1 or not text.endswith("\n"):
            problems.append("stderr is not exactly one line")
        if "error" not in text:
            problems.append("stderr does not say 'error'")
        for w in [w for w in words.split("|") if w]:
            if w not in text:
                problems.append(f"stderr lacks {w!r}")
        for c in CRASH:
            if c in text:
                problems.append(f"crash text {c!r}")
    if left:
        problems.append(f"left files behind: {left}")
    return case, argv, problems, secs, usage.ru_maxrss, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--filter", default="")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    global SANITIZED, TIMEOUT
    SANITIZED = sanitized_build(build)
    if SANITIZED:
        TIMEOUT *= 3
        os.environ["ASAN_OPTIONS"] = ":".join(
            o for o in [os.environ.get("ASAN_OPTIONS", ""), f"hard_rss_limit_mb={MEM_CAP >> 20}"]
            if o)
    cases = []
    with open(os.path.join(HERE, "cases.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            parts = line.rstrip("\n").split("\t")
            if args.filter in line:
                cases.append(tuple(parts + [""] * (4 - len(parts))))
    with ThreadPoolExecutor(args.j) as ex:
        results = list(ex.map(lambda c: run_case(build, c), cases))
    failed = [r for r in results if r[2]]
    for case, argv, problems, secs, rss, text in failed:
        print(f"FAIL {case[0]} ({case[1]}): {'; '.join(problems)}\n  $ "
              f"{' '.join(shlex.quote(a) for a in argv)}\n  {text.strip()[:600]}")
    files = {c[0] for c in cases}
    print(f"{len(results) - len(failed)}/{len(results)} runs over {len(files)} bad inputs "
          f"refused as required")
    for label, key in [("slowest", 3), ("largest", 4)]:
        worst = sorted(results, key=lambda r: r[key], reverse=True)[:3]
        print(f"{label}: " + ", ".join(f"{r[0][0]} ({r[0][1]}) {r[3]:.2f} s {r[4] >> 10} MiB"
                                       for r in worst))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
