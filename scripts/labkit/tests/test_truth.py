"""Unit tests of the lab's pure parts: `python3 -m unittest discover -s scripts -p 'test_*.py'`."""

import struct
import tempfile
import unittest
from pathlib import Path

from labkit import truth as T
from labkit.bench import loss_bound, statistical_bound
from labkit.impair import DirectionModel, DirectionSpec
from labkit.pcap import UDPDatagram, read_udp


def datagram(t_ms: float, payload: bytes, src="198.18.1.2", dst="198.18.2.2") -> UDPDatagram:
    return UDPDatagram(int(t_ms * 1e6), src, 5000, dst, 6000, payload)


class JitterTests(unittest.TestCase):
    def test_rfc3550_vector(self):
        # Transits 10, 14, 10 ms: J = 4/16 = 0.25, then 0.25 + (4 − 0.25)/16 = 0.484375.
        self.assertEqual(T.rfc3550_jitter([10, 14, 10]), [0.0, 0.25, 0.484375])

    def test_constant_delay_has_no_jitter(self):
        self.assertEqual(max(T.rfc3550_jitter([42.0] * 100)), 0.0)


class DirectionTruthTests(unittest.TestCase):
    def test_matches_by_payload_counts_loss_reordering_and_duplicates(self):
        tx = [datagram(i * 20, bytes([i])) for i in range(5)]
        # Packet 2 lost, packets 3 and 4 swapped, packet 0 duplicated.
        rx = [datagram(5, bytes([0])), datagram(6, bytes([0])), datagram(25, bytes([1])),
              datagram(90, bytes([4])), datagram(91, bytes([3]))]
        d = T.direction_truth(tx, rx)
        self.assertEqual((d.sent, d.received, d.lost, d.duplicates, d.reordered), (5, 4, 1, 1, 1))
        self.assertAlmostEqual(d.loss_percent, 20.0)
        self.assertEqual([round(x, 3) for x in d.delays_ms], [5.0, 5.0, 10.0, 31.0])
        self.assertEqual(d.received_flags, [True, True, False, True, True])
        # The running jitter read at instants: before any arrival nothing, then J as it stood.
        self.assertEqual(d.jitter_at([1_000_000, 30_000_000]), [d.jitter_ms[1]])
        # The newest send among arrivals: packet 4 (sent at 80 ms) arrived before packet 3 (60 ms),
        # so after both the newest is still 80 ms; before any arrival there is none.
        self.assertEqual(d.latest_sent_before([1_000_000, 30_000_000, 90_500_000, 95_000_000]),
                         [20_000_000, 80_000_000, 80_000_000])

    def test_round_trip_figures(self):
        up = T.direction_truth([datagram(0, b"a")], [datagram(10, b"a")])
        down = T.direction_truth([datagram(0, b"b")], [datagram(15, b"b")])
        flow = T.FlowTruth(up, down)
        self.assertAlmostEqual(flow.rtt_ms, 25.0)
        self.assertAlmostEqual(flow.round_trip_loss_percent, 0.0)


    def test_a_loss_counts_in_the_second_it_can_be_known(self):
        # 50 packets a second for 3 s, 150 ms each way; packets 45-49 (the end of second 0) lost up.
        up_tx = [datagram(i * 20, bytes([1, i])) for i in range(150)]
        up_rx = [datagram(i * 20 + 150, bytes([1, i])) for i in range(150) if not 45 <= i < 50]
        down_tx = [datagram(i * 20 + 150, bytes([2, i])) for i in range(150) if not 45 <= i < 50]
        down_rx = [datagram(i * 20 + 300, bytes([2, i])) for i in range(150) if not 45 <= i < 50]
        flow = T.FlowTruth(T.direction_truth(up_tx, up_rx), T.direction_truth(down_tx, down_rx))
        self.assertEqual([round(s["loss"]) for s in flow.per_second()], [10, 0, 0])
        # Known a round trip (300 ms) later: in second 1, with the 15 packets sent after 700 ms.
        self.assertEqual([round(s["loss"]) for s in flow.per_second(lag_ns=300_000_000)], [0, 10, 0, 0])

    def test_must_needs_both_alignments_and_may_takes_either(self):
        # Bursts at the ends of seconds 0 and 1 and the start of second 2: by send time three
        # low-MOS seconds, a round trip later two (the last two bursts share a second); low-mos
        # may appear, but need not.
        lost = set(range(40, 50)) | set(range(90, 100)) | set(range(100, 110))
        up_tx = [datagram(i * 20, bytes([1, i >> 8, i & 255])) for i in range(300)]
        up_rx = [datagram(i * 20 + 150, bytes([1, i >> 8, i & 255])) for i in range(300) if i not in lost]
        down_tx = [datagram(i * 20 + 150, bytes([2, i >> 8, i & 255])) for i in range(300) if i not in lost]
        down_rx = [datagram(i * 20 + 300, bytes([2, i >> 8, i & 255])) for i in range(300) if i not in lost]
        flow = T.FlowTruth(T.direction_truth(up_tx, up_rx), T.direction_truth(down_tx, down_rx))
        must, may = T.expected_warnings(flow)
        self.assertIn("low-mos", T.warnings_raised(flow.per_second()))
        self.assertNotIn("low-mos", must)
        self.assertIn("low-mos", may)


class WarningRuleTests(unittest.TestCase):
    def test_three_of_five_and_seven_sample_loss(self):
        seconds = [{"rtt": 450, "jitter": 1, "loss": 0}] * 3
        # 450 ms: high RTT, and MOS 3.1 (effective latency 462 ms) is low.
        self.assertEqual(T.warnings_raised(seconds), {"high-rtt", "low-mos"})
        self.assertEqual(T.warnings_raised(seconds[:2]), set())
        lossy = [{"rtt": 10, "jitter": 1, "loss": 4}] * 7
        self.assertIn("high-packets-lost-fraction", T.warnings_raised(lossy))
        self.assertNotIn("high-packets-lost-fraction", T.warnings_raised(lossy[:6]))

    def test_mos_matches_the_sdk_formula(self):
        # docs/measurement.md: 0 ms, 0 ms, 0 % gives R = 94.768 − 10/40 = 94.518.
        r = 94.518
        self.assertAlmostEqual(T.mos(0, 0, 0), 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6)
        self.assertEqual(T.call_quality(4.3), "excellent")
        self.assertEqual(T.call_quality(3.0), "degraded")


class ImpairmentTests(unittest.TestCase):
    def test_seeded_and_reproducible(self):
        a = DirectionModel(DirectionSpec(loss=0.3, delay=10, jitter=5), 9)
        b = DirectionModel(DirectionSpec(loss=0.3, delay=10, jitter=5), 9)
        self.assertEqual([a.decide(i * 0.02) for i in range(200)], [b.decide(i * 0.02) for i in range(200)])

    def test_gilbert_elliott_mean_and_bursts(self):
        spec = DirectionSpec.bursty(0.05, 3)
        self.assertAlmostEqual(spec.expected_loss(), 0.05)
        m = DirectionModel(spec, 1)
        drops = [m.decide(i * 0.02) is None for i in range(100_000)]
        self.assertAlmostEqual(sum(drops) / len(drops), 0.05, delta=0.005)
        bursts = sum(1 for i in range(1, len(drops)) if drops[i] and not drops[i - 1])
        self.assertAlmostEqual(sum(drops) / bursts, 3.0, delta=0.3)

    def test_fifo_never_reorders(self):
        m = DirectionModel(DirectionSpec(delay=50, jitter=40, fifo=True), 2)
        releases = [m.decide(i * 0.02) for i in range(1000)]
        self.assertEqual(releases, sorted(releases))

    def test_unknown_field_is_refused(self):
        with self.assertRaises(ValueError):
            DirectionSpec.from_dict({"latency": 5})


class BoundTests(unittest.TestCase):
    def test_loss_bounds(self):
        self.assertEqual(loss_bound(500), 0.5)
        self.assertEqual(loss_bound(250), 1.0)
        # 2 % over 500 packets: 4σ = 400·√(0.02·0.98/500) = 2.50 pp.
        self.assertAlmostEqual(statistical_bound(DirectionSpec(loss=0.02), 500), 2.504, places=2)


class PcapTests(unittest.TestCase):
    def test_reads_nanosecond_ethernet_udp(self):
        payload = b"hello"
        udp = struct.pack("!HHHH", 5000, 6000, 8 + len(payload), 0) + payload
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                         bytes([198, 18, 1, 2]), bytes([198, 18, 2, 2])) + udp
        frame = bytes(12) + b"\x08\x00" + ip
        header = struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1)
        record = struct.pack("<IIII", 7, 123, len(frame), len(frame)) + frame
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "x.pcap"
            path.write_bytes(header + record + record[:10])  # a cut-off last record is ignored
            [d] = read_udp(path)
        self.assertEqual((d.time_ns, d.src, d.sport, d.dst, d.dport, d.payload),
                         (7_000_000_123, "198.18.1.2", 5000, "198.18.2.2", 6000, payload))


if __name__ == "__main__":
    unittest.main()
