#!/usr/bin/env python3
"""The soak checker's own test: logs written here with a duplicate ID, a segment number handed
out twice, an ID past its confirmed deadline, an ID of another worker and two holders of one
worker id at once must each be flagged; the same logs without them must pass."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402

T0 = 1_700_000_000_000  # a Unix ms


def make_id(t, worker, seq, dc=0):
    return ((t - check.EPOCH_MS) << 22) | (dc << 17) | (worker << 12) | seq


def burst(t, ids, deadline, tenure=1, segments=()):
    lines = [f"B {t} {t}"] + [f"I {i}" for i in ids] + [f"S {s}" for s in segments]
    return lines + [f"D {tenure} {deadline if deadline is not None else '-'}"]


def tenure(t, number, worker):
    return [f"T {t} {number} 0 {worker} {t + 1200}"]


class CheckerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = self.tmp.name
        self.store = os.path.join(self.out, "file")
        os.makedirs(self.store)
        with open(os.path.join(self.store, "run.txt"), "w", encoding="utf-8") as f:
            f.write(f"store file\nseed 1\nminters 2\nbegin {T0}\nend {T0 + 10_000}\nkinds -\n"
                    "max_ids 1\nttl_ms 1500\nguard_ms 500\n")
        with open(os.path.join(self.store, "faults.log"), "w", encoding="utf-8") as f:
            f.write(f"minter_pause slot1 {T0 + 1000} {T0 + 3000} -\n")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, lines):
        with open(os.path.join(self.store, name), "w", encoding="utf-8") as f:
            f.write("\n".join([f"P {T0} 1 file"] + lines) + "\n")

    def clean_logs(self):
        # Slot 0 holds worker 1 until T0 + 1000; slot 1 takes it at T0 + 5000 (after the
        # guard), and minted again after its pause.
        self.write("m0-1.log", tenure(T0, 1, 1) +
                   burst(T0, [make_id(T0, 1, 0), make_id(T0, 1, 1)], T0 + 1200, 1, [1, 2]) +
                   burst(T0 + 900, [make_id(T0 + 900, 1, 0)], T0 + 1200, 1, [3]))
        self.write("m1-1.log", tenure(T0 + 5000, 1, 1) +
                   burst(T0 + 5000, [make_id(T0 + 5000, 1, 0)], T0 + 6200, 1, [51]))

    def test_clean_logs_pass(self):
        self.clean_logs()
        c = check.check_store(self.store)
        self.assertEqual(c.id_count, 4)
        self.assertEqual(c.segment_count, 4)
        self.assertEqual(c.problems(), 0)
        self.assertEqual(check.main(["check.py", self.out]), 0)
        self.assertTrue(os.path.exists(os.path.join(self.out, "report.md")))
        with open(os.path.join(self.out, "file.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        # The paused slot's first ID after the pause: 2 s after its end.
        fault = check.read_faults(os.path.join(self.store, "faults.log"))[0]
        self.assertEqual(check.recovery(c, fault), 2000)

    def test_runs_of_ids_count_each_id_and_each_duplicate(self):
        self.clean_logs()
        a = make_id(T0 + 2000, 3, 10)
        self.write("m2-1.log", tenure(T0 + 2000, 1, 3) +
                   [f"B {T0 + 2000} {T0 + 2000}", f"R {a} 5", f"R {a + 3} 4",
                    f"D 1 {T0 + 3200} {T0 + 3200}"])
        c = check.check_store(self.store)
        self.assertEqual(c.id_count, 4 + 9)
        self.assertEqual(c.duplicate_count, 2)
        self.assertEqual([d[0] for d in c.duplicates], [a + 3, a + 4])
        self.assertEqual(c.problems(), 2)

    def test_a_run_past_the_last_sequence_of_its_tick_is_flagged(self):
        self.clean_logs()
        a = make_id(T0 + 2000, 3, 4094)
        self.write("m2-1.log", tenure(T0 + 2000, 1, 3) +
                   [f"B {T0 + 2000} {T0 + 2000}", f"R {a} 3", f"D 1 {T0 + 3200} {T0 + 3200}"])
        c = check.check_store(self.store)
        self.assertEqual(c.malformed, [(a, "m2-1.log", 3)])
        self.assertEqual(c.problems(), 1)

    def test_duplicate_and_segment_repeat_are_flagged(self):
        self.clean_logs()
        self.write("m1-2.log", tenure(T0 + 7000, 1, 2) +
                   burst(T0 + 7000, [make_id(T0 + 900, 1, 0)], T0 + 8200, 1, [2]))
        c = check.check_store(self.store)
        self.assertEqual([d[0] for d in c.duplicates], [make_id(T0 + 900, 1, 0)])
        self.assertEqual([s[0] for s in c.segment_repeats], [2])
        self.assertEqual(check.main(["check.py", self.out]), 1)

    def test_fence_violation_is_flagged(self):
        self.clean_logs()
        # An ID at its deadline (IDs lie strictly below it), and one minted with no lease.
        self.write("m1-2.log", tenure(T0 + 7000, 1, 2) +
                   burst(T0 + 7000, [make_id(T0 + 8200, 2, 0)], T0 + 8200))
        self.write("m2-1.log", burst(T0 + 7000, [make_id(T0 + 7000, 3, 0)], None))
        c = check.check_store(self.store)
        self.assertEqual(sorted(f[0] for f in c.fence),
                         sorted([make_id(T0 + 8200, 2, 0), make_id(T0 + 7000, 3, 0)]))
        self.assertEqual(check.main(["check.py", self.out]), 1)

    def test_wrong_worker_and_overlapping_holders_are_flagged(self):
        self.clean_logs()
        # Slot 2 mints worker 1's IDs at T0 + 500 under a lease on worker 1 while slot 0 holds
        # it (no duplicate: another sequence), and an ID of worker 4 under a lease on worker 3.
        self.write("m2-1.log", tenure(T0 + 500, 1, 1) +
                   burst(T0 + 500, [make_id(T0 + 500, 1, 7)], T0 + 1700) +
                   tenure(T0 + 600, 2, 3) +
                   burst(T0 + 600, [make_id(T0 + 600, 4, 0)], T0 + 1800, 2))
        c = check.check_store(self.store)
        self.assertEqual(len(c.duplicates), 0)
        self.assertEqual(len(c.overlaps), 1)
        self.assertEqual(c.overlaps[0][0], (0, 1))
        self.assertEqual([w[0] for w in c.wrong_worker], [make_id(T0 + 600, 4, 0)])


    def test_a_lease_lost_after_its_burst_bounds_the_burst_by_the_deadline_before(self):
        self.clean_logs()
        # The deadline read before the burst covers it; the lease was lost before the read
        # after it.
        self.write("m2-1.log", tenure(T0 + 7000, 1, 2) +
                   [f"B {T0 + 7000} {T0 + 7000}", f"I {make_id(T0 + 7000, 2, 0)}",
                    f"D 1 {T0 + 7500} -"])
        self.assertEqual(check.check_store(self.store).problems(), 0)

    def test_holders_whose_clocks_lie_apart_fail_also_when_the_store_forgot_between(self):
        self.clean_logs()
        # Slot 2's clock runs 30 s ahead: worker 2's IDs at T0 + 30 s, then (the store having
        # forgotten it) slot 3 mints worker 2 at that time on a true clock: the same ID. A
        # lease compares its clock with the store's, so neither a forgotten record nor the
        # skew excuses it.
        t = T0 + 30_000
        self.write("m2-1.log", tenure(T0, 1, 2) +
                   [f"B {T0} {t}", f"I {make_id(t, 2, 0)}", f"D 1 {t + 1200} {t + 1200}"])
        self.write("m3-1.log", tenure(t, 1, 2) +
                   [f"B {t} {t}", f"I {make_id(t, 2, 0)}", f"D 1 {t + 1200} {t + 1200}"])
        forget = {"kind": "forget", "start": T0 + 10_000, "end": T0 + 10_000}
        c = check.check_store(self.store, [forget])
        self.assertEqual(c.problems(), 2)
        self.assertEqual([d[0] for d in c.duplicates], [make_id(t, 2, 0)])
        self.assertEqual(len(c.overlaps), 1)
        self.assertEqual(c.overlaps[0][9], 30_000)

    def test_a_segment_number_again_after_a_wipe_is_beyond_the_contract_for_a_new_process(self):
        self.clean_logs()
        wipe = {"kind": "server_wipe", "start": T0 + 6000, "end": T0 + 6500}
        self.write("m2-1.log", tenure(T0 + 7000, 1, 2) +
                   burst(T0 + 7000, [make_id(T0 + 7000, 2, 0)], T0 + 8200, 1, [1]))
        c = check.check_store(self.store, [wipe])
        self.assertEqual(c.problems(), 0)
        self.assertEqual([r[0] for r in c.beyond(c.segment_repeats)], [1])
        # Without the wipe, the same repeat fails.
        self.assertEqual(check.check_store(self.store).problems(), 1)
        # The file store's whole directory removed is a wipe too; its lock files alone are not.
        gone = {"kind": "forget", "start": T0 + 6000, "end": T0 + 6000, "detail": "directory"}
        self.assertEqual(check.check_store(self.store, [gone]).problems(), 0)
        files = dict(gone, detail="lock_files")
        self.assertEqual(check.check_store(self.store, [files]).problems(), 1)

    def test_a_segment_held_across_a_wipe_repeats_beyond_the_contract_for_the_new_process(self):
        self.clean_logs()
        # Slot 0 took 1 to 3 of its segment before the wipe and serves 4 after it; slot 2,
        # started on the wiped counter, took 1 to 50 again and gave out 4 first.
        wipe = {"kind": "server_wipe", "start": T0 + 1000, "end": T0 + 1500}
        self.write("m2-1.log", tenure(T0 + 2000, 1, 2) +
                   burst(T0 + 2000, [make_id(T0 + 2000, 2, 0)], T0 + 3200, 1, [4]))
        self.write("m0-1.log", tenure(T0, 1, 1) +
                   burst(T0, [make_id(T0, 1, 0)], T0 + 1200, 1, [1, 2, 3]) +
                   burst(T0 + 3000, [make_id(T0 + 3000, 1, 0)], T0 + 4200, 1, [4]))
        c = check.check_store(self.store, [wipe])
        self.assertEqual([r[0] for r in c.beyond(c.segment_repeats)], [4])
        self.assertEqual(c.within(c.segment_repeats), [])
        # Had slot 0 taken that segment after the wipe, the repeat would fail.
        self.write("m0-1.log", tenure(T0, 1, 1) + burst(T0, [make_id(T0, 1, 0)], T0 + 1200, 1, [51]) +
                   burst(T0 + 3000, [make_id(T0 + 3000, 1, 0)], T0 + 4200, 1, [4]))
        self.assertEqual(check.check_store(self.store, [wipe]).problems(), 1)

    def test_a_fault_is_alone_with_no_other_within_the_quiet_time_on_either_side(self):
        f = {"kind": "forget", "start": T0 + 10_000, "end": T0 + 10_050}
        def alone(*others):
            return check.isolated(f, [f, *others], 3000, T0 + 60_000)
        self.assertTrue(alone())
        self.assertTrue(alone({"kind": "server_wipe", "start": T0, "end": T0 + 6_900}))
        # A wipe that ended 50 ms before it: the store was still recovering from that one.
        self.assertFalse(alone({"kind": "server_wipe", "start": T0 + 8_000, "end": T0 + 9_950}))
        self.assertFalse(alone({"kind": "fork", "start": T0 + 9_000, "end": T0 + 11_000}))
        self.assertFalse(alone({"kind": "fork", "start": T0 + 13_000, "end": T0 + 14_000}))
        self.assertTrue(alone({"kind": "fork", "start": T0 + 13_100, "end": T0 + 14_000}))
        self.assertFalse(check.isolated(f, [f], 3000, T0 + 20_000))  # too near the run's end


if __name__ == "__main__":
    unittest.main()
