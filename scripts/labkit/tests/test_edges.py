"""The pure parts of `lab edges`: its percentile, the status probe it runs in a namespace, the
relay delays it reads from an edge's capture, and a listener's registration state."""

import ast
import json
import struct
import tempfile
import unittest
from pathlib import Path

from labkit.edges import Edge, Stamped, percentile, status_probe
from labkit.edges_failover import Listener
from labkit.edges_load import relay_delays, rtp_timestamp


def pcap(packets: list[tuple[int, str, str, bytes]]) -> bytes:
    """A nanosecond Ethernet pcap of UDP datagrams (time ns, source, destination, payload)."""
    out = struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1)
    for time_ns, src, dst, payload in packets:
        udp = struct.pack("!HHHH", 40000, 40000, 8 + len(payload), 0) + payload
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                         bytes(int(x) for x in src.split(".")), bytes(int(x) for x in dst.split("."))) + udp
        frame = bytes(12) + b"\x08\x00" + ip
        out += struct.pack("<IIII", time_ns // 10**9, time_ns % 10**9, len(frame), len(frame)) + frame
    return out


def rtp(sequence: int, timestamp: int, ssrc: int) -> bytes:
    return struct.pack("!BBHII", 0x80, 0, sequence, timestamp, ssrc) + bytes(160)


class EdgesTests(unittest.TestCase):
    def test_percentile_is_nearest_rank(self):
        values = [float(v) for v in range(1, 101)]
        self.assertEqual(percentile(values, 99), 99.0)
        self.assertEqual(percentile(values, 50), 50.0)
        self.assertEqual(percentile([7.0], 99), 7.0)
        self.assertEqual(percentile([3.0, 1.0, 2.0], 100), 3.0)

    def test_the_status_probe_is_python_that_polls_the_edge_with_its_key(self):
        edge = Edge.__new__(Edge)
        edge.status_url, edge.secret = "http://198.18.21.2:8080/status", "s3cret"
        source = status_probe(edge)
        ast.parse(source)
        self.assertIn("http://198.18.21.2:8080/status", source)
        self.assertIn("remoteRegistrations", source)
        self.assertIn("Authorization", source)

    def test_only_rtp_has_a_timestamp(self):
        self.assertEqual(rtp_timestamp(rtp(1, 1234, 7)), 1234)
        self.assertIsNone(rtp_timestamp(struct.pack("!BBH", 0x80, 200, 6) + bytes(24)))  # RTCP sender report
        self.assertIsNone(rtp_timestamp(b"\x00\x01" + bytes(18)))  # STUN
        self.assertIsNone(rtp_timestamp(b"\x80\x00"))

    def test_relay_delays_match_each_departure_to_its_arrival_across_the_legs_offset(self):
        edge, client, peer = "198.18.21.2", "198.18.20.2", "198.18.22.2"
        packets = []
        # The client's stream in; the relay's out with its own SSRC, sequence numbers and a
        # timestamp offset, 300 µs later; the third packet dropped, the fifth 2 ms late.
        for index in range(6):
            arrival = 1_000_000_000 + index * 20_000_000
            packets.append((arrival, client, edge, rtp(100 + index, 5000 + 160 * index, 7)))
            if index == 2:
                continue
            extra = 2_000_000 if index == 4 else 0
            packets.append((arrival + 300_000 + extra, edge, peer, rtp(900 + index, 77_000 + 160 * index, 99)))
        packets.append((1_500_000_000, peer, edge, rtp(1, 1, 5)))  # the other direction: not this one's
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "edge.pcap"
            path.write_bytes(pcap(packets))
            delays = relay_delays(path, edge, {"out": (client, peer)})
        self.assertEqual([round(d, 3) for d in delays["out"]], [0.3, 0.3, 0.3, 2.3, 0.3])

    def test_stamped_lines_come_each_as_printed_and_end_with_the_stream(self):
        import io
        lines = Stamped(io.StringIO("one\ntwo\n"))
        self.assertEqual(list(lines.each(5)), ["one", "two"])
        self.assertEqual(lines.wait_for(lambda line: line == "two", 5)[0], 1)
        self.assertIsNone(lines.wait_for(lambda line: line == "three", 0.1))

    def test_a_listener_is_registered_after_registered_until_unregistered(self):
        listener = Listener.__new__(Listener)
        listener.events = Stamped.__new__(Stamped)

        class Running:
            def poll(self):
                return None

        listener.process = Running()
        lines = [{"event": "registered", "edge": "ws://a"}, {"event": "accepting"}, {"event": "unregistered", "error": {"code": 70109}}]
        listener.events.lines = [(float(i), json.dumps(line)) for i, line in enumerate(lines)]
        self.assertFalse(listener.registered())
        listener.events.lines.append((3.0, json.dumps({"event": "registered", "edge": "ws://b"})))
        listener.events.lines.append((4.0, json.dumps({"event": "ended"})))
        self.assertTrue(listener.registered())
        self.assertEqual([edge for _, edge in listener.registrations()], ["ws://a", "ws://b"])


if __name__ == "__main__":
    unittest.main()
