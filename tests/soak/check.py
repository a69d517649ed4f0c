#!/usr/bin/env python3
"""The checker of the fault soak (docs/soak.md).

    check.py OUT

reads every store directory under OUT (one with a run.txt), checks the minters' logs and writes
OUT/report.md and OUT/<store>.png. Exit status 1 when a store has a duplicate ID, a segment
number handed out twice, an ID at or past the deadline its lease had confirmed, an ID whose
worker is not its lease's, or two tenures of one worker id whose IDs' times overlap.
"""

import bisect
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soak_png  # noqa: E402

# The twitter layout the minters use: 41 bits of ms since 2010-11-04, 5 datacenter, 5 worker,
# 12 sequence.
EPOCH_MS = 1288834974657


def id_time(i):
    return (i >> 22) + EPOCH_MS


def id_node(i):
    return (i >> 17) & 31, (i >> 12) & 31


# The minters' segments (minter.cpp): ranges of 50 numbers from a counter counting from 0.
SEGMENT_STEP = 50

# IDs of one tenure less than this far apart in time form one run: the time a holder used.
RUN_GAP_MS = 1000


class Tenure:
    """One lease of one process: its worker id and the runs of time its IDs cover."""

    def __init__(self, log, number, node):
        self.log, self.number, self.node = log, number, node
        self.runs = []  # [first, last] ms, in the order minted
        self.count = 0
        self.offsets = None  # the lowest and highest clock - wall of its bursts, ms
        self.wall = 0  # when it was taken (wall ms)

    def add(self, t, count=1):
        r = self.runs[-1] if self.runs else None
        if r is not None and r[0] - RUN_GAP_MS <= t <= r[1] + RUN_GAP_MS:
            r[0], r[1] = min(r[0], t), max(r[1], t)
        else:
            self.runs.append([t, t])
        self.count += count


class ProcLog:
    """What one minter's log says: bursts with IDs (wall ms), its span, its tenures."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        m = re.match(r"m(\d+)-(\d+)\.log", self.name)
        self.slot = int(m.group(1)) if m else -1
        self.child = ".child-" in self.name
        self.minted_at = []  # wall ms of each burst that minted, with its count
        self.counts = []
        self.start = None
        self.end = None
        self.tenures = []
        self.first_segment = None  # wall ms of its first segment number
        self.blocks = {}  # segment (numbers of one range) -> wall ms of its first number here


class StoreCheck:
    """Every check over one store's logs; `problems` counts what failed within the contract."""

    def __init__(self, name, wipes=()):
        self.name = name
        self.wipes = sorted(wipes)  # (start, end) ms of each server_wipe
        self.id_runs = []  # (first ID, count, log) of every run of consecutive IDs
        self.id_count = 0
        self.segments = {}  # number -> [(wall ms of its burst, its process)]
        self.segment_count = 0
        self.duplicates = []  # (ID, log) of the first thousand duplicates
        self.duplicate_count = 0
        self.malformed = []  # runs that leave their tick and worker (the minter never writes one)
        self.segment_repeats = []
        self.fence = []
        self.wrong_worker = []
        self.overlaps = []
        self.child_ids = 0
        self.node_minted = {}  # worker id -> wall ms of the bursts that minted on it
        self.procs = []
        self.errors = {}

    def problems(self):
        return (self.duplicate_count + len(self.within(self.segment_repeats)) +
                len(self.fence) + len(self.wrong_worker) + len(self.overlaps) +
                len(self.malformed))

    @staticmethod
    def within(found):
        """What the contract rules out (the rest: `beyond`)."""
        return [f for f in found if not f[-1]]

    @staticmethod
    def beyond(found):
        return [f for f in found if f[-1]]

    def read_log(self, path):
        p = ProcLog(path)
        self.procs.append(p)
        tenure = None
        pending = []  # (first ID, count) of the burst's runs, checked against its deadline
        burst_wall = None
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                self._line(p, line.split(), pending)
                if line.startswith("B "):
                    w = line.split()
                    burst_wall = int(w[1])
                    p.start = burst_wall if p.start is None else p.start
                    p.end = burst_wall
                    n_before = self.id_count
                    if tenure is not None:
                        off = int(w[2]) - burst_wall
                        o = tenure.offsets
                        tenure.offsets = [off, off] if o is None else [min(o[0], off),
                                                                         max(o[1], off)]
                elif line.startswith("S ") and burst_wall is not None:
                    self._segment(p, int(line.split()[1]), burst_wall)
                elif line.startswith("T "):
                    w = line.split()
                    tenure = Tenure(p.name, int(w[2]), (int(w[3]), int(w[4])))
                    tenure.wall = int(w[1])
                    p.tenures.append(tenure)
                elif line.startswith("D "):
                    self._deadline(p, tenure, line.split(), pending)
                    minted = self.id_count - n_before if burst_wall is not None else 0
                    if minted > 0:
                        p.minted_at.append(burst_wall)
                        p.counts.append(minted)
                        if tenure is not None:
                            self.node_minted.setdefault(tenure.node, []).append(burst_wall)
                    pending.clear()
        # A burst is one write, so a log never ends inside one; IDs without their deadline line
        # (a log cut short) count as past the fence.
        if pending:
            self._deadline(p, tenure, ["D", "-", "-"], pending)
        return p

    def _line(self, p, w, pending):
        if not w:
            return
        if w[0] in ("R", "I"):  # R <first> <count>: consecutive IDs; I <id>: one
            first = int(w[1])
            count = int(w[2]) if w[0] == "R" else 1
            self.id_count += count
            if p.child:
                self.child_ids += count
            if (first & 4095) + count > 4096:  # past the last sequence of its tick
                self.malformed.append((first, p.name, count))
            self.id_runs.append((first, count, p.name))
            pending.append((first, count))
        elif w[0] == "X" and len(w) > 2:
            self.errors[w[2]] = self.errors.get(w[2], 0) + 1

    def _segment(self, p, n, wall):
        self.segment_count += 1
        if p.first_segment is None:
            p.first_segment = wall
        p.blocks.setdefault((n - 1) // SEGMENT_STEP, wall)
        self.segments.setdefault(n, []).append((wall, p))

    def check_segments(self):
        """Each number handed out more than once, in time order: a repeat is beyond the contract
        when the two lie on the two sides of a wipe: the earlier one from a process that took
        numbers before the wipe (it may serve a segment it holds after it), the later one from
        a process that took its first number after the wipe began, from a counter the store
        lost, which a process started on the empty store cannot tell from a new one
        (docs/segments.md)."""
        for n, seen in self.segments.items():
            if len(seen) < 2:
                continue
            seen.sort(key=lambda s: s[0])
            for (q_wall, q), (wall, p) in zip(seen, seen[1:]):
                # Either may be the one that started on the wiped counter: the later one, or the
                # earlier one when the later serves a segment it took before the wipe.
                took = p.blocks[(n - 1) // SEGMENT_STEP]
                wiped = any(q.first_segment < start <= min(wall, p.first_segment) or
                            took < start <= min(q_wall, q.first_segment)
                            for start, _ in self.wipes)
                self.segment_repeats.append((n, p.name, wiped))

    def _deadline(self, p, tenure, w, pending):
        # D <tenure> <before> [<after>]: the later of the deadlines confirmed before and after
        # the burst bounds each of its IDs.
        known = [int(v) for v in w[2:4] if v != "-"]
        deadline = max(known) if known else None
        # The IDs of a run share their time and worker.
        for first, count in pending:
            t = id_time(first)
            ids = range(first, first + count)
            if tenure is None:
                self.fence += [(i, p.name, t, None) for i in ids]
                continue
            if deadline is None or t >= deadline:
                self.fence += [(i, p.name, t, deadline) for i in ids]
            if id_node(first) != tenure.node:
                self.wrong_worker += [(i, p.name, id_node(first), tenure.node) for i in ids]
            tenure.add(t, count)

    def find_duplicates(self):
        """The IDs that lie in two runs: the runs in order of their first ID, each against the
        furthest ID the runs before it reached."""
        self.id_runs.sort()
        reach = 0  # one past the highest ID of the runs so far
        for first, count, log in self.id_runs:
            for i in range(first, min(first + count, reach)):
                self.duplicate_count += 1
                if len(self.duplicates) < 1000:
                    self.duplicates.append((i, log))
            reach = max(reach, first + count)
        self.id_runs = []

    def check_tenures(self):
        """Two tenures of one worker id whose IDs' time spans overlap: two holders at once."""
        by_node = {}
        for p in self.procs:
            for t in p.tenures:
                for r in t.runs:
                    by_node.setdefault(t.node, []).append((r[0], r[1], t))
        for node, runs in by_node.items():
            runs.sort(key=lambda r: r[0])
            widest = None  # the run seen so far that reaches furthest
            for r in runs:
                if widest is not None and r[0] <= widest[1] and r[2] is not widest[2]:
                    a, b = widest, r
                    oa, ob = a[2].offsets or [0, 0], b[2].offsets or [0, 0]
                    skew = max(oa[1] - ob[0], ob[1] - oa[0])
                    self.overlaps.append((node, a[2].log, a[2].number, a[0], a[1], b[2].log,
                                          b[2].number, b[0], b[1], skew))
                if widest is None or r[1] > widest[1]:
                    widest = r


def read_faults(path):
    faults = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                w = line.split()
                if len(w) >= 4:
                    faults.append({"kind": w[0], "target": w[1], "start": int(w[2]),
                                   "end": int(w[3]), "detail": w[4] if len(w) > 4 else "-"})
    return faults


def recovery(check, fault):
    """ms from the fault's end to the first ID again of a process it hit (None: never)."""
    m = re.match(r"(slot|clock)(\d+)$", fault["target"])
    procs = [p for p in check.procs if not p.child and (m is None or p.slot == int(m.group(2)))]
    best = None
    for p in procs:
        k = bisect.bisect_left(p.minted_at, fault["end"])
        if k < len(p.minted_at):
            d = p.minted_at[k] - fault["end"]
            best = d if best is None else min(best, d)
    return best


def ids_back(check, fault):
    """ms from the fault's end until every worker id the store's minters used has minted again
    (by any process; None: one never did): the time the store needs to mint at full strength
    again."""
    worst = 0
    for times in check.node_minted.values():
        times.sort()
        k = bisect.bisect_left(times, fault["end"])
        if k == len(times):
            return None
        worst = max(worst, times[k] - fault["end"])
    return worst


def isolated(fault, faults, quiet_ms, run_end):
    """Whether no other fault runs within `quiet_ms` of `fault` (none ends in the `quiet_ms`
    before it starts, when the store may still be recovering from it, none runs at its end or
    starts in the `quiet_ms` after it), and the run goes on for 10 s after it (time enough to
    see the store recover)."""
    return fault["end"] + 10_000 <= run_end and not any(
        g is not fault and g["start"] <= fault["end"] + quiet_ms and
        g["end"] >= fault["start"] - quiet_ms
        for g in faults)


def availability(p):
    """The share of the process's seconds in which it minted."""
    if p.start is None or p.end is None or p.end <= p.start:
        return None
    seconds = set(t // 1000 for t in p.minted_at)
    return len(seconds) / max(1, (p.end - p.start) // 1000 + 1)


def read_run(path):
    run = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            run[k] = v
    return run


def check_store(d, faults=()):
    # A wipe, or the file store's whole directory removed (its segment counters with it).
    wipes = [(f["start"], f["end"]) for f in faults
             if f["kind"] == "server_wipe" or (f["kind"] == "forget" and f.get("detail") == "directory")]
    c = StoreCheck(os.path.basename(d), wipes)
    for path in sorted(glob.glob(os.path.join(d, "m*.log*"))):
        c.read_log(path)
    c.find_duplicates()
    c.check_tenures()
    c.check_segments()
    return c


def fmt_ms(v):
    return "-" if v is None else f"{v / 1000:.2f} s"


def store_section(d, c, run, faults):
    """The report's section on one store (Markdown lines)."""
    out = [f"## {c.name}", ""]
    out.append(f"Seed {run.get('seed', '?')}, {run.get('minters', '?')} minters, max_ids "
               f"{run.get('max_ids', '?')}, ttl {run.get('ttl_ms', '?')} ms, safe_guard "
               f"{run.get('guard_ms', '?')} ms, "
               f"{(int(run.get('end', 0)) - int(run.get('begin', 0))) / 1000:.0f} s; fault kinds: "
               f"{run.get('kinds', '-')}.")
    out.append("")
    out.append("| check | count |")
    out.append("|---|---|")
    out.append(f"| IDs checked | {c.id_count} |")
    out.append(f"| segment numbers checked | {c.segment_count} |")
    out.append(f"| duplicate IDs | {c.duplicate_count} |")
    out.append(f"| segment numbers handed out twice | {len(c.within(c.segment_repeats))} |")
    out.append(f"| IDs at or past their confirmed deadline | {len(c.fence)} |")
    out.append(f"| IDs of another worker than their lease's | {len(c.wrong_worker)} |")
    out.append(f"| runs of IDs that leave their tick and worker (a log the minter cannot write) | "
               f"{len(c.malformed)} |")
    out.append(f"| tenures of one worker id overlapping in time | {len(c.within(c.overlaps))} |")
    out.append(f"| beyond the contract: segment numbers again from a process that started on a "
               f"wiped counter | {len(c.beyond(c.segment_repeats))} |")
    out.append(f"| IDs minted by forked children | {c.child_ids} |")
    out.append(f"| minter processes (logs) | {len(c.procs)} |")
    out.append("")
    avail = [a for a in (availability(p) for p in c.procs if not p.child) if a is not None]
    if avail:
        out.append(f"Availability (share of each process's seconds with IDs): median "
                   f"{statistics.median(avail):.1%}, min {min(avail):.1%}.")
        out.append("")
    # Recovery, two ways: a process the fault hit minting again (it may wait its turn for an
    # id, `max_ids` lying below the minters), and every worker id minting again, after the
    # faults that no other fault follows within ttl + safe_guard + 1 s.
    quiet_ms = int(run.get("ttl_ms", 1500)) + int(run.get("guard_ms", 500)) + 1000
    kinds = {}
    for f in faults:
        back = ids_back(c, f) if isolated(f, faults, quiet_ms, int(run.get("end", 0))) else "busy"
        kinds.setdefault(f["kind"], []).append((recovery(c, f), back))
    out.append(f"| fault | count | a process it hit mints again: recovered, median, max | alone "
               f"(no other fault within {quiet_ms / 1000:g} s) | every worker id mints again: "
               f"median, max |")
    out.append("|---|---|---|---|---|")
    for k in sorted(kinds):
        rs = [r for r, _ in kinds[k] if r is not None]
        alone = [b for _, b in kinds[k] if b != "busy"]
        backs = [b for b in alone if b is not None]
        out.append(f"| {k} | {len(kinds[k])} | {len(rs)}, "
                   f"{fmt_ms(statistics.median(rs) if rs else None)}, "
                   f"{fmt_ms(max(rs) if rs else None)} | {len(alone)} | "
                   f"{fmt_ms(statistics.median(backs) if backs else None)}, "
                   f"{fmt_ms(max(backs) if backs else None)}"
                   f"{'' if len(backs) == len(alone) else f' ({len(alone) - len(backs)} never)'} |")
    out.append("")
    if c.errors:
        out.append("Refusals and errors the minters logged (by kind): " +
                   ", ".join(f"{k} {v}" for k, v in sorted(c.errors.items())) + ".")
        out.append("")
    out += problem_lines(c)
    if os.path.exists(os.path.join(os.path.dirname(d), c.name + ".png")):
        out.append(f"![{c.name} timeline]({c.name}.png)")
        out.append("")
    return out


def problem_lines(c):
    out = []
    for i, log in c.duplicates[:10]:
        out.append(f"- duplicate ID {i} (time {id_time(i)}, node {id_node(i)}) in {log}")
    for found in (c.within(c.segment_repeats)[:10], c.beyond(c.segment_repeats)[:3]):
        for n, log, beyond in found:
            out.append(f"- segment number {n} again in {log}" +
                       (" (after a wipe, from a process that started on it)" if beyond else ""))
    for i, log, t, dl in c.fence[:10]:
        out.append(f"- ID {i} in {log}: time {t}, confirmed deadline {dl}")
    for i, log, got, want in c.wrong_worker[:10]:
        out.append(f"- ID {i} in {log}: node {got}, its lease's {want}")
    for o in c.overlaps[:10]:
        out.append(f"- worker {o[0]}: {o[1]} tenure {o[2]} [{o[3]}, {o[4]}] overlaps {o[5]} "
                   f"tenure {o[6]} [{o[7]}, {o[8]}], clocks up to {o[9]} ms apart")
    return out + ([""] if out else [])


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = argv[1]
    lines = ["# Fault soak report", ""]
    failed = False
    dirs = sorted(d for d in glob.glob(os.path.join(out, "*")) if
                  os.path.exists(os.path.join(d, "run.txt")))
    for d in dirs:
        run = read_run(os.path.join(d, "run.txt"))
        faults = read_faults(os.path.join(d, "faults.log"))
        c = check_store(d, faults)
        soak_png.timeline(os.path.join(out, c.name + ".png"), c, faults, int(run["begin"]),
                          int(run["end"]))
        lines += store_section(d, c, run, faults)
        verdict = "FAILED" if c.problems() else "ok"
        print(f"{c.name}: {c.id_count} IDs, {c.segment_count} segment numbers, {len(faults)} "
              f"faults: {c.duplicate_count} duplicates, "
              f"{len(c.within(c.segment_repeats))} segment repeats, {len(c.fence)} past the "
              f"fence, {len(c.wrong_worker)} wrong worker, {len(c.overlaps)} overlapping "
              f"tenures; segment numbers again after a wipe, from a process that started on "
              f"it: {len(c.beyond(c.segment_repeats))}: {verdict}")
        failed |= c.problems() > 0
    lines += soak_png.legend_lines()
    with open(os.path.join(out, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"report: {os.path.join(out, 'report.md')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
