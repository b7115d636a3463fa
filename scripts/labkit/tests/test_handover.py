"""The handover benchmark's pure parts (labkit.handover): RTP ids, sequence unwrapping, losses,
gaps, switch times, statistics, targets and the summary table."""

import math
import struct
import unittest

from labkit import handover as H


def rtp(seq: int, ssrc: int = 0x1234, pt: int = 0) -> bytes:
    return struct.pack("!BBHII", 0x80, pt, seq & 0xFFFF, 0, ssrc) + b"\x00" * 160


def ms(x: float) -> int:
    return int(x * 1_000_000)


class RTPTests(unittest.TestCase):
    def test_rtp_id_reads_ssrc_and_sequence(self):
        self.assertEqual(H.rtp_id(rtp(513, 0xCAFEBABE)), (0xCAFEBABE, 513))
        self.assertIsNone(H.rtp_id(b"\x80\x00\x00"))
        self.assertIsNone(H.rtp_id(b"\x00" * 20))  # version 0: not RTP

    def test_unwrap_counts_past_65535_and_places_late_packets_before(self):
        self.assertEqual(H.unwrap([65534, 65535, 0, 1]), [65534, 65535, 65536, 65537])
        # A late packet from before the wrap stays before it.
        self.assertEqual(H.unwrap([65535, 1, 0, 65534]), [65535, 65537, 65536, 65534])
        self.assertEqual(H.unwrap([5, 3, 7]), [5, 3, 7])


class LossTests(unittest.TestCase):
    def rows(self, seqs, ssrc=1, start_ms=0):
        return [(ms(start_ms + 20 * i), ssrc, s & 0xFFFF) for i, s in enumerate(seqs)]

    def test_missing_counts_holes_only(self):
        got = H.missing_sequences(self.rows([10, 11, 14, 12, 12, 16]))
        self.assertEqual(got, {(1, 13), (1, 15)})

    def test_missing_across_the_wrap(self):
        got = H.missing_sequences(self.rows([65533, 65535, 1, 2]))
        self.assertEqual(got, {(1, 65534), (1, 0)})

    def test_each_ssrc_apart(self):
        rows = self.rows([1, 2, 4], ssrc=1) + self.rows([100, 102], ssrc=2)
        self.assertEqual(H.missing_sequences(rows), {(1, 3), (2, 101)})

    def test_window_limits_the_range(self):
        # Arrivals every 20 ms; 2 and 8 missing; the window holds the packets from 40 ms to 100 ms
        # (seqs 3..6 at indexes 2..5): only holes between 3 and 6 count, none.
        rows = self.rows([0, 1, 3, 4, 5, 6, 7, 9])
        self.assertEqual(H.missing_sequences(rows, (ms(40), ms(100))), set())
        self.assertEqual(H.missing_sequences(rows, (ms(20), ms(100))), {(1, 2)})

    def test_drops_on_purpose_do_not_count(self):
        rows = self.rows([1, 2, 5, 6])
        self.assertEqual(H.packets_lost(rows, set()), 2)
        self.assertEqual(H.packets_lost(rows, {(1, 3)}), 1)
        self.assertEqual(H.packets_lost(rows, {(1, 3), (1, 4), (9, 9)}), 0)


class GapTests(unittest.TestCase):
    def test_longest_gap_between_arrivals(self):
        times = [ms(t) for t in (0, 20, 40, 300, 320)]
        self.assertAlmostEqual(H.longest_gap_ms(times, 0, ms(320)), 260.0)

    def test_a_dead_tail_counts_until_the_window_closes(self):
        times = [ms(t) for t in (0, 20, 40)]
        self.assertAlmostEqual(H.longest_gap_ms(times, 0, ms(1000)), 960.0)
        # And a late start from the window's start.
        self.assertAlmostEqual(H.longest_gap_ms([ms(500), ms(520)], 0, ms(540)), 500.0)

    def test_packets_outside_the_window_are_ignored(self):
        times = [ms(t) for t in (-5000, 0, 20, 40, 60, 9000)]
        self.assertAlmostEqual(H.longest_gap_ms(times, 0, ms(60)), 20.0)

    def test_nothing_received_is_the_whole_window_and_an_empty_window_is_nan(self):
        self.assertAlmostEqual(H.longest_gap_ms([], 0, ms(2000)), 2000.0)
        self.assertTrue(math.isnan(H.longest_gap_ms([1], 10, 10)))


class SwitchTests(unittest.TestCase):
    def test_first_packet_on_the_target_after_the_event(self):
        by = {"wifi0": [ms(t) for t in (0, 20, 40)], "cell0": [ms(t) for t in (10, 700, 720)]}
        got = H.switch_time(ms(50), ms(10_000), "cell0", by)
        self.assertEqual(got, {"ms": 650.0, "already": False})
        self.assertEqual(H.carrier_before(ms(50), by), "wifi0")

    def test_no_packet_on_the_target_before_the_next_event_is_none(self):
        by = {"wifi0": [ms(0)], "cell0": [ms(2000)]}
        self.assertEqual(H.switch_time(ms(50), ms(1000), "cell0", by), {"ms": None, "already": False})

    def test_media_that_stopped_long_before_is_not_already_on_the_target(self):
        # The only network came back at 10 s; its last packet was at 5 s: not "already".
        by = {"wifi0": [ms(t) for t in (4960, 4980, 10_700)]}
        self.assertIsNone(H.carrier_before(ms(10_000), by))
        self.assertEqual(H.switch_time(ms(10_000), ms(15_000), "wifi0", by), {"ms": 700.0, "already": False})

    def test_already_on_the_target(self):
        by = {"wifi0": [ms(0)], "cell0": [ms(30), ms(60)]}
        self.assertEqual(H.switch_time(ms(50), ms(1000), "cell0", by), {"ms": 10.0, "already": True})
        self.assertIsNone(H.carrier_before(ms(50), {"wifi0": [], "cell0": []}))


class StatisticsTests(unittest.TestCase):
    def test_median_and_nearest_rank_p95(self):
        self.assertEqual(H.median([3, 1, 2]), 2)
        self.assertEqual(H.median([4, 1, 3, 2]), 2.5)
        values = list(range(1, 21))  # 20 runs: p95 is the 19th value
        self.assertEqual(H.p95(values), 19)
        self.assertEqual(H.p95([5]), 5)
        self.assertEqual(H.median([None, 7, math.nan]), 7)
        self.assertTrue(math.isnan(H.p95([None])))


class OutcomeTests(unittest.TestCase):
    ok = {"callbacks": ["callDidStartRinging", "callDidConnect", "call:didDisconnectWithError:"], "error": None}

    def test_a_full_call_without_error_did_not_drop(self):
        self.assertFalse(H.call_dropped(self.ok, 0, 15_200_000_000, 15))

    def test_drops(self):
        self.assertTrue(H.call_dropped(None, 0, 1, 15))
        self.assertTrue(H.call_dropped(self.ok, None, 1, 15))
        self.assertTrue(H.call_dropped(dict(self.ok, error={"code": 53405, "message": "x"}), 0, 35_000_000_000, 45))
        self.assertTrue(H.call_dropped(self.ok, 0, 9_000_000_000, 15))  # ended 6 s early
        self.assertTrue(H.call_dropped({"callbacks": ["call:didFailToConnectWithError:"], "error": None}, 0, 15_000_000_000, 15))


def run(switches, **kw):
    switches = [dict({"down_ms": s.get("ms")}, **s) for s in switches]
    base = {"switches": switches, "gap_up_ms": 40.0, "gap_down_ms": 40.0, "lost_up": 0, "lost_down": 0,
            "dropped": False, "error_code": None}
    base.update(kw)
    return base


class TargetTests(unittest.TestCase):
    def test_a(self):
        good = run([{"target": "wifi0", "ms": 800.0}])
        self.assertTrue(H.run_meets_target("a", good))
        self.assertFalse(H.run_meets_target("a", run([{"target": "wifi0", "ms": None}])))
        self.assertFalse(H.run_meets_target("a", dict(good, lost_up=1)))
        self.assertFalse(H.run_meets_target("a", dict(good, gap_down_ms=61.0)))
        self.assertFalse(H.run_meets_target("a", dict(good, gap_up_ms=None)))

    def test_both_ways(self):
        self.assertEqual(H.both_ways({"ms": 300.0, "down_ms": 500.0}), 500.0)
        self.assertIsNone(H.both_ways({"ms": 300.0, "down_ms": None}))
        self.assertIsNone(H.both_ways({"ms": None, "down_ms": 20.0}))
        # The caller's audio back in time but the edge's never: not a working call.
        self.assertFalse(H.run_meets_target("b", run([{"target": "cell0", "ms": 1400.0, "down_ms": None}])))

    def test_b_c_d_e(self):
        self.assertTrue(H.run_meets_target("b", run([{"target": "cell0", "ms": 1400.0}])))
        self.assertFalse(H.run_meets_target("b", run([{"target": "cell0", "ms": 1600.0}])))
        self.assertFalse(H.run_meets_target("b", run([{"target": "cell0", "ms": 100.0}], dropped=True)))
        flaps = [{"target": "cell0", "ms": 300.0}, {"target": "wifi0", "ms": None, "already": True}]
        self.assertTrue(H.run_meets_target("c", run(flaps)))
        self.assertFalse(H.run_meets_target("c", run(flaps + [{"target": "cell0", "ms": None, "already": False}])))
        self.assertTrue(H.run_meets_target("d", run([{"target": None}, {"target": "wifi0", "ms": 900.0}])))
        self.assertFalse(H.run_meets_target("d", run([{"target": None}, {"target": "wifi0", "ms": 1100.0}])))
        self.assertTrue(H.run_meets_target("e", run([], dropped=True, error_code=53405)))
        self.assertFalse(H.run_meets_target("e", run([], dropped=True, error_code=53001)))
        self.assertFalse(H.run_meets_target("e", run([], dropped=False)))


class SummaryTests(unittest.TestCase):
    def test_summary_and_table(self):
        runs = [run([{"target": "cell0", "ms": float(t)}], gap_up_ms=float(g), lost_up=l)
                for t, g, l in ((100, 50, 0), (300, 70, 2), (200, 60, 1))]
        runs.append(run([{"target": "cell0", "ms": None}], dropped=True, error_code=53405, failure="x"))
        s = H.summarize("b", runs)
        self.assertEqual((s["runs"], s["switch_median_ms"], s["switch_p95_ms"]), (4, 200.0, 300.0))
        self.assertEqual((s["switches_seen"], s["switches_expected"]), (3, 4))
        self.assertEqual((s["gap_up_median_ms"], s["gap_up_p95_ms"]), (55.0, 70.0))
        self.assertEqual((s["lost_up"], s["lost_down"], s["dropped"], s["error_codes"], s["failed_runs"]), (3, 0, 1, [53405], 1))
        self.assertEqual(s["met"], 3)
        table = H.format_table([s])
        self.assertIn("| b | 4 | 200 / 300 (3/4) | 200 / 300 (3/4) | 55 / 70 | 40 / 40 | 3 / 0 | 1 | 53405 |", table)
        self.assertIn("3/4 |", table)

    def test_empty_figures_print_as_dashes(self):
        s = H.summarize("e", [run([], gap_up_ms=None, gap_down_ms=None, dropped=True, error_code=53405)])
        self.assertIn("| e | 1 | – / – (0/0) | – / – (0/0) | – / – | – / – |", H.format_table([s]))


def stun(kind: int, txid: bytes, use_candidate: bool = False) -> bytes:
    attributes = b""
    if use_candidate:
        attributes += struct.pack("!HH", 0x0025, 0)
    attributes += struct.pack("!HH", 0x0006, 5) + b"ab:cd\x00\x00\x00"  # USERNAME, padded
    return struct.pack("!HHI", kind, len(attributes), 0x2112A442) + txid + attributes


def udp(t_ms, payload, src, sport, dst, dport):
    from labkit.pcap import UDPDatagram
    return UDPDatagram(ms(t_ms), src, sport, dst, dport, payload)


class EdgeVerificationTests(unittest.TestCase):
    EDGE, A, B = "198.18.2.2", "198.18.2.20", "198.18.2.21"

    def test_stun_message(self):
        self.assertEqual(H.stun_message(stun(0x0001, b"x" * 12, True)), (0x0001, b"x" * 12, True))
        self.assertEqual(H.stun_message(stun(0x0101, b"y" * 12)), (0x0101, b"y" * 12, False))
        self.assertIsNone(H.stun_message(rtp(1)))  # RTP: version bits set
        self.assertIsNone(H.stun_message(b"\x00\x01" + b"\x00" * 18))  # no magic cookie

    def test_verified_and_nominated_addresses_and_what_the_edge_takes(self):
        e, a, b = self.EDGE, self.A, self.B
        caps = [
            udp(0, stun(0x0001, b"1" * 12, True), a, 5000, e, 7000),
            udp(1, stun(0x0101, b"1" * 12), e, 7000, a, 5000),
            udp(10, rtp(1), a, 5000, e, 7000),
            udp(20, rtp(2), b, 5001, e, 7000),  # from B before any check: dropped
            udp(30, stun(0x0001, b"2" * 12), b, 5001, e, 7000),
            udp(31, stun(0x0101, b"2" * 12), e, 7000, b, 5001),  # B verified, not nominated
            udp(40, stun(0x0001, b"3" * 12, True), b, 5002, e, 7000),  # another port: unanswered
            udp(50, rtp(3), b, 5001, e, 7000),
            udp(60, rtp(4), b, 5002, e, 7000),
            udp(70, stun(0x0101, b"9" * 12), e, 7000, b, 5001),  # answers nothing we saw
        ]
        verified, nominations = H.edge_verifications(caps, e)
        self.assertEqual(verified, {(a, 5000): ms(1), (b, 5001): ms(31)})
        self.assertEqual(nominations, [(ms(1), (a, 5000))])
        taken = H.accepted_by_edge([d for d in caps if H.stun_message(d.payload) is None], verified)
        self.assertEqual([H.rtp_id(d.payload)[1] for d in taken], [1, 3])


class MonitorTests(unittest.TestCase):
    def test_ip_monitor_times_and_the_first_message_about_a_device(self):
        import datetime
        text = ("[2026-01-02T03:04:05.000100] 3: wifi0@if4: <BROADCAST,MULTICAST> state DOWN\n"
                "    link/ether aa:bb:cc:dd:ee:ff\n"
                "[2026-01-02T03:04:05.000300] Deleted 3: wifi0    inet 198.18.21.2/24 scope global wifi0\n"
                "[2026-01-02T03:04:06.000000] 2: cell0: <UP> state UP\n")
        parsed = H.parse_monitor(text)
        base = int(datetime.datetime(2026, 1, 2, 3, 4, 5).timestamp()) * 1_000_000_000
        self.assertEqual([t - base for t, _ in parsed], [100_000, 300_000, 1_000_000_000])
        self.assertEqual(H.kernel_time(parsed, "wifi0", base, base + 10**9), base + 100_000)
        self.assertEqual(H.kernel_time(parsed, "wifi0", base + 200_000, base + 10**9), base + 300_000)
        self.assertEqual(H.kernel_time(parsed, "cell0", base, base + 10**9), base + 1_000_000_000)
        self.assertIsNone(H.kernel_time(parsed, "eth0", base, base + 2 * 10**9))
        self.assertIsNone(H.kernel_time(parsed, "wifi", base, base + 10**9))  # a whole name only


if __name__ == "__main__":
    unittest.main()
