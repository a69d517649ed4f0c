#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The flakeid authors
"""Compile time of flakeid's headers next to a bare <atomic> + <chrono> translation unit.

    python3 bench/compile_time.py [--cxx g++] [--runs 7] [--include include] [--markdown out.md]
    python3 bench/compile_time.py --layers   # lines per layer only (.ci/header-check)

Each translation unit is compiled to an object file (-std=c++20 -O2) `--runs` times, the units
taking turns; the median CPU time of each (user + system time of the compiler and its children,
which other work on the machine disturbs far less than wall time) is reported with its ratio to
the bare one, measured in the same run. It also counts the lines each unit has after preprocessing
and lists the heavy standard headers it pulls in, so a header that creeps into the engine's
include path shows up. Last, it counts the lines of flakeid's own headers per layer (LAYERS).
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile

UNITS = [
    ("bare <atomic> + <chrono>", "#include <atomic>\n#include <chrono>\n"
     "std::atomic<long long> a{std::chrono::system_clock::now().time_since_epoch().count()};\n"),
    ("<flakeid/snowflake.hpp>", "#include <flakeid/snowflake.hpp>\n"
     "flakeid::classic_snowflake<> g{flakeid::worker_id{1}};\n"
     "unsigned long long f() { return g.next_id(); }\n"),
    ("<flakeid/flakeid.hpp>", "#include <flakeid/flakeid.hpp>\n"
     "flakeid::classic_snowflake<> g{flakeid::worker_id{1}};\n"
     "unsigned long long f() { return g.next_id(); }\n"),
]
# The layers of include/flakeid, for the line counts: each header goes to the first layer with a
# pattern that its path (relative to include/flakeid) starts with; the rest are "other".
LAYERS = [
    ("core engine", ("version.hpp", "errors.hpp", "layout.hpp", "layouts.hpp", "policies.hpp",
                     "clock.hpp", "tsc_clock.hpp", "worker_id.hpp", "detail/civil_time.hpp",
                     "detail/text_util.hpp", "detail/fork_guard.hpp", "detail/min_max.hpp",
                     "detail/counted_ptr.hpp")),
    ("generators", ("snowflake", "striped", "backfill", "detail/snowflake_",
                    "detail/thread_blocks")),
    ("leases", ("lease", "host_worker_id", "clock_guard", "detail/callback", "detail/lease_skew")),
    ("segments", ("segment",)),
    ("stores", ("store/", "detail/server_store", "detail/posix_file", "detail/lease_directory",
                "detail/uri")),
    ("adapters", ("adapters/",)),
    ("text/sql", ("text.hpp", "text_converter.hpp", "format.hpp", "fmt.hpp", "sql.hpp",
                  "layout_spec.hpp")),
    ("registry", ("registry",)),
    ("umbrella", ("flakeid.hpp",)),
]
HEAVY = ("filesystem", "fstream", "random", "thread", "regex", "iostream", "format", "mutex",
         "condition_variable", "future")


def cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def compile_once(cxx, include, src, obj):
    start = cpu_of_children()
    subprocess.run([cxx, "-std=c++20", "-O2", "-I", include, "-c", src, "-o", obj], check=True)
    return cpu_of_children() - start


def preprocessed_lines(cxx, include, src):
    out = subprocess.run([cxx, "-std=c++20", "-I", include, "-E", "-P", src],
                         check=True, capture_output=True, text=True).stdout
    return out.count("\n")


def heavy_headers(cxx, include, src):
    out = subprocess.run([cxx, "-std=c++20", "-I", include, "-H", "-fsyntax-only", src],
                         check=True, capture_output=True, text=True).stderr
    found = set()
    for line in out.splitlines():
        name = line.strip(". ").rsplit("/", 1)[-1]
        if line.startswith(".") and name in HEAVY:
            found.add(name)
    return sorted(found)


def layer_lines(include):
    root = os.path.join(include, "flakeid")
    lines = {name: [0, 0] for name, _ in LAYERS + [("other", ())]}
    for top, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".hpp"):
                continue
            path = os.path.join(top, f)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            layer = next((name for name, pats in LAYERS if rel.startswith(pats)), "other")
            with open(path, encoding="utf-8") as h:
                lines[layer][0] += sum(1 for _ in h)
            lines[layer][1] += 1
    return [(name, n, k) for name, (n, k) in lines.items() if k > 0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--include", default=os.path.join(os.path.dirname(__file__), "..", "include"))
    ap.add_argument("--markdown")
    ap.add_argument("--layers", action="store_true",
                    help="print only the lines per layer, 'layer<TAB>headers<TAB>lines', and exit")
    args = ap.parse_args()
    if args.layers:
        for name, n, k in layer_lines(args.include):
            print(f"{name}\t{k}\t{n}")
        return
    if args.runs < 1:
        sys.exit("compile_time.py: --runs must be at least 1")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        units = []
        for i, (name, code) in enumerate(UNITS):
            src = os.path.join(tmp, f"unit{i}.cpp")
            with open(src, "w", encoding="utf-8") as f:
                f.write(code)
            obj = os.path.join(tmp, f"unit{i}.o")
            compile_once(args.cxx, args.include, src, obj)  # warm the file cache
            units.append((name, src, obj, []))
        # Round-robin, so that other work starting or stopping on the machine during the run
        # weighs on every unit alike and the ratios hold.
        for _ in range(args.runs):
            for _, src, obj, times in units:
                times.append(compile_once(args.cxx, args.include, src, obj))
        for name, src, _, times in units:
            rows.append((name, statistics.median(times), preprocessed_lines(args.cxx, args.include, src),
                         heavy_headers(args.cxx, args.include, src)))
    version = subprocess.run([args.cxx, "--version"], capture_output=True, text=True).stdout
    base = rows[0][1]
    lines = [f"Compiler: {version.splitlines()[0] if version else args.cxx}; -std=c++20 -O2 -c; "
             f"median CPU time of {args.runs} runs", "",
             "| translation unit | median CPU | ratio to bare | preprocessed lines "
             "| heavy standard headers |",
             "|---|---:|---:|---:|---|"]
    for name, t, pp, heavy in rows:
        lines.append(f"| {name} | {t:.2f} s | {t / base:.1f}x | {pp} | {', '.join(heavy) or '-'} |")
    lines += ["", "| layer | headers | lines |", "|---|---:|---:|"]
    for name, n, k in layer_lines(args.include):
        lines.append(f"| {name} | {k} | {n} |")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
