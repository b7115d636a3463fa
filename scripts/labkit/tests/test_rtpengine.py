"""rtpengine as the load benchmark's other relay (labkit.rtpengine): bencode, the ng client
against a fake server, the SDPs, and end to end against a real rtpengine (root, Debian's
rtpengine-daemon): ping, plain RTP calls relayed both ways, and SRTP calls that rtpengine
decrypts and re-encrypts with keys of its own. Without rtpengine or root the end-to-end tests
are skipped with the reason printed, unless CI=true: then they must run.

    cd scripts && python3 -m unittest labkit.tests.test_rtpengine -v"""

import base64
import os
import shutil
import socket
import struct
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

from labkit import rtpengine as R
from labkit import rtpengine_ng as N

try:
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
except ImportError:  # the SRTP tests say so and skip (or fail under CI)
    AESGCM = None


def unavailable(reason: str) -> None:
    """Skips with `reason` printed, or fails when CI=true (where everything must run)."""
    if os.environ.get("CI") == "true":
        raise AssertionError(f"CI=true, yet {reason}")
    print(f"\nskipped: {reason}", file=sys.stderr)
    raise unittest.SkipTest(reason)


def require_cryptography() -> None:
    if AESGCM is None:
        unavailable("the cryptography package is missing (pip install cryptography): no SRTP to check with")


def require_rtpengine() -> None:
    if shutil.which("rtpengine") is None:
        unavailable("rtpengine is not installed (Debian: apt-get install rtpengine-daemon)")
    if os.geteuid() != 0:
        unavailable("rtpengine must run as root")


def rtp(sequence: int, ssrc: int, payload: bytes) -> bytes:
    """A PCMU RTP packet like the generator's: 12-byte header, payload type 0."""
    return struct.pack("!BBHII", 0x80, 0, sequence & 0xFFFF, 160 * sequence & 0xFFFFFFFF, ssrc) + payload


class SRTP:
    """SRTP with AEAD_AES_128_GCM (RFC 7714 §8), the test's own: session key and salt from the
    master key ‖ salt by RFC 3711 §4.3's AES-CM PRF (labels 0 and 2; the 96-bit master salt
    padded with zeros to 112 bits, RFC 7714's erratum), IV = (00 00 ‖ SSRC ‖ ROC ‖ SEQ) XOR
    the session salt, the RTP header authenticated, the payload encrypted, a 16-byte tag.
    ROC 0: the tests send a handful of packets."""

    def __init__(self, master: bytes):
        key, salt = master[:16], master[16:28]
        self.aead = AESGCM(self.derive(key, salt, 0, 16))
        self.salt = self.derive(key, salt, 2, 12)

    @staticmethod
    def derive(master_key: bytes, master_salt: bytes, label: int, length: int) -> bytes:
        x = bytearray(master_salt.ljust(14, b"\0"))
        x[7] ^= label  # key_id = label ‖ r (r = 0) XOR the salt, label at bit 48 from the right
        encryptor = Cipher(algorithms.AES(master_key), modes.CTR(bytes(x) + b"\0\0")).encryptor()
        return encryptor.update(bytes(length)) + encryptor.finalize()

    @classmethod
    def with_session(cls, key: bytes, salt: bytes) -> "SRTP":
        srtp = cls.__new__(cls)
        srtp.aead, srtp.salt = AESGCM(key), salt
        return srtp

    def iv(self, packet: bytes) -> bytes:
        sequence, ssrc = struct.unpack_from("!H", packet, 2)[0], struct.unpack_from("!I", packet, 8)[0]
        return bytes(a ^ b for a, b in zip(struct.pack("!HIIH", 0, ssrc, 0, sequence), self.salt))

    @staticmethod
    def header_length(packet: bytes) -> int:
        length = 12 + 4 * (packet[0] & 0x0F)
        if packet[0] & 0x10:
            length += 4 + 4 * struct.unpack_from("!H", packet, length + 2)[0]
        return length

    def protect(self, packet: bytes) -> bytes:
        n = self.header_length(packet)
        return packet[:n] + self.aead.encrypt(self.iv(packet), packet[n:], packet[:n])

    def unprotect(self, packet: bytes) -> bytes:
        """The RTP packet; InvalidTag when it does not authenticate with this key."""
        n = self.header_length(packet)
        return packet[:n] + self.aead.decrypt(self.iv(packet), packet[n:], packet[:n])


class BencodeTests(unittest.TestCase):
    def test_round_trips(self):
        values = [0, -1, 42, 2**63 - 1, -(2**63), b"", b"\x00\xffbinary", [], {},
                  [1, [2, [3, b"x"]], {b"k": []}],
                  {b"command": b"offer", b"flags": [b"trust-address"], b"n": -7, b"d": {b"x": {b"y": b"z"}}}]
        for value in values:
            with self.subTest(value=value):
                self.assertEqual(N.bdecode(N.bencode(value)), value)

    def test_encoding_is_canonical(self):
        self.assertEqual(N.bencode({"b": 1, "a": "x", "c": [b"y", -2]}), b"d1:a1:x1:bi1e1:cl1:yi-2eee")
        self.assertEqual(N.bencode("é"), b"2:\xc3\xa9")
        self.assertEqual(N.bencode(("a", 0)), b"l1:ai0ee")

    def test_what_has_no_encoding_is_refused(self):
        for value in [True, 1.5, None, {1: b"x"}, {"a": object()}, {"a": 1, b"a": 2}]:
            with self.subTest(value=value):
                with self.assertRaises((TypeError, ValueError)):
                    N.bencode(value)
        nested: list = []
        for _ in range(N.MAX_DEPTH + 5):
            nested = [nested]
        with self.assertRaises(ValueError):
            N.bencode(nested)

    def test_rtpengine_replies_with_unsorted_keys(self):
        self.assertEqual(N.bdecode(b"d6:result2:ok3:sdp1:xe"), {b"result": b"ok", b"sdp": b"x"})
        self.assertEqual(N.bdecode(b"d3:sdp1:x6:result2:oke"), {b"result": b"ok", b"sdp": b"x"})

    def test_malformed_input_is_a_value_error(self):
        malformed = [
            b"", b"x", b"e", b"i", b"ie", b"i-e", b"i-0e", b"i01e", b"i1", b"i1.5e", b"i+1e", b"i 1e",
            b"i" + b"9" * 100 + b"e",  # longer than any 64-bit integer
            b"1", b"1:", b"01:a", b"-1:a", b"2:a", b"99999999999999999999:a", b"1:ab",
            b"l", b"li1e", b"le1:a", b"d", b"d1:a", b"d1:ae", b"di1ei2ee", b"dlee1:ae",
            b"d1:ai1e1:ai2ee",  # a duplicate key
            b"l" * (N.MAX_DEPTH + 2) + b"e" * (N.MAX_DEPTH + 2),  # too deep
            b"i1ei2e",  # two values
        ]
        for data in malformed:
            with self.subTest(data=data[:40]):
                with self.assertRaises(ValueError):
                    N.bdecode(data)

    def test_a_recursion_bomb_is_refused_quickly(self):
        started = time.monotonic()
        with self.assertRaises(ValueError):
            N.bdecode(b"l" * 60000)
        with self.assertRaises(ValueError):
            N.bdecode(b"d1:a" * 10000)
        self.assertLess(time.monotonic() - started, 1.0)
        with self.assertRaises(ValueError):
            N.bdecode(b"0:" * 40000)  # more than one datagram
        with self.assertRaises(TypeError):
            N.bdecode("d1:ai1ee")


class FakeNg:
    """A UDP server standing in for rtpengine: `behave(cookie, message, copy)` returns the reply
    datagrams to send (copy counts the datagrams seen with that cookie)."""

    def __init__(self, behave):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self.behave, self.seen, self.running = behave, {}, True
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        held = []
        while self.running:
            try:
                data, peer = self.sock.recvfrom(70000)
            except socket.timeout:
                for datagram, destination in held:  # late replies go out when traffic pauses
                    self.sock.sendto(datagram, destination)
                held = []
                continue
            cookie, _, body = data.partition(b" ")
            self.seen[cookie] = self.seen.get(cookie, 0) + 1
            for reply in self.behave(cookie, N._text(N.bdecode(body)), self.seen[cookie]):
                if reply[:1] == b"@":
                    held.append((reply[1:], peer))
                else:
                    self.sock.sendto(reply, peer)

    def close(self):
        self.running = False
        self.thread.join()
        self.sock.close()


class NgClientTests(unittest.TestCase):
    def serve(self, behave) -> FakeNg:
        server = FakeNg(behave)
        self.addCleanup(server.close)
        return server

    def test_pipelined_replies_are_matched_by_cookie_and_kept_in_order(self):
        # Every fifth request loses its first copy, odd ones are answered late (out of order),
        # and every answer comes twice.
        copies: dict[int, int] = {}

        def behave(cookie, message, copy):
            copies[message["n"]] = copy
            if copy == 1 and message["n"] % 5 == 0:
                return []
            reply = cookie + b" " + N.bencode({"result": "ok", "n": message["n"]})
            return [b"@" + reply] * 2 if message["n"] % 2 else [reply] * 2

        server = self.serve(behave)
        with N.NgClient(server.port, timeout=0.3, tries=3) as client:
            replies = client.requests([{"command": "x", "n": n} for n in range(30)], window=8)
        self.assertEqual([r["n"] for r in replies], list(range(30)))
        self.assertEqual(copies, {n: 2 if n % 5 == 0 else 1 for n in range(30)}, "retransmitted when unanswered only")

    def test_errors_carry_rtpengine_s_reason(self):
        server = self.serve(lambda cookie, m, copy: [cookie + b" " + N.bencode(
            {"result": "error", "error-reason": "Unknown call-id"})])
        with N.NgClient(server.port) as client:
            with self.assertRaises(N.NgError) as caught:
                client.delete("gone")
            self.assertEqual(caught.exception.reason, "Unknown call-id (call-id gone)")
            self.assertEqual(client.requests([{"command": "delete", "call-id": "gone"}], check=False)[0]["result"], "error")

    def test_silence_and_garbage_are_errors(self):
        server = self.serve(lambda cookie, m, copy: [])
        with N.NgClient(server.port, timeout=0.05, tries=2) as client:
            started = time.monotonic()
            with self.assertRaisesRegex(N.NgError, "after 2 tries"):
                client.ping()
            self.assertLess(time.monotonic() - started, 1.0)
        server = self.serve(lambda cookie, m, copy: [cookie + b" d6:result"])
        with N.NgClient(server.port) as client:
            with self.assertRaisesRegex(N.NgError, "undecodable"):
                client.ping()


RTPENGINE_OFFER = (  # what rtpengine 10.5 sends the callee (keys shortened to one suite each)
    "v=0\r\no=- 1 1 IN IP4 127.64.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
    "m=audio 30116 RTP/SAVP 0\r\na=rtpmap:0 PCMU/8000\r\na=sendrecv\r\na=rtcp:30117\r\n"
    "a=crypto:1 AEAD_AES_128_GCM inline:Q1z9+0cDHWnsyflH1PRl+ISjwPnZAXWjyc3TEA\r\n"
    "a=crypto:2 AEAD_AES_256_GCM inline:bf6VBZPlPz4OxPzzFHemTe1LoJPnhTcUaR2AuRWkZQIBB2Isa9zlt3Yv8uw|2^31\r\n"
    "a=ptime:20\r\n")


class SdpTests(unittest.TestCase):
    def test_leg_addresses_are_the_generator_s(self):
        self.assertEqual([R.leg_address(i) for i in (0, 1, 249, 250, 15999)],
                         ["127.64.0.1", "127.64.0.2", "127.64.0.250", "127.64.1.1", "127.64.63.250"])
        for leg in (-1, 16000):
            with self.assertRaises(ValueError):
                R.leg_address(leg)

    def test_a_party_s_sdp_reads_back(self):
        key = bytes(range(28))
        sdp = R.party_sdp("127.64.0.3", 40000, [(1, R.SUITE, key)], version=2, rtcp_mux=True)
        self.assertIn("m=audio 40000 RTP/SAVP 0\r\n", sdp)
        self.assertIn("a=rtpmap:0 PCMU/8000\r\na=ptime:20\r\na=sendrecv\r\na=rtcp-mux\r\n", sdp)
        self.assertIn(f"a=crypto:1 AEAD_AES_128_GCM inline:{base64.b64encode(key).decode()}\r\n", sdp)
        self.assertEqual(R.parse_sdp(sdp), R.MediaDescription("127.64.0.3", 40000, "RTP/SAVP", {1: (R.SUITE, key)}))
        plain = R.party_sdp("127.64.0.4", 40000)
        self.assertIn("m=audio 40000 RTP/AVP 0\r\n", plain)
        self.assertNotIn("crypto", plain)

    def test_rtpengine_s_sdp_unpadded_keys_and_parameters(self):
        media = R.parse_sdp(RTPENGINE_OFFER)
        self.assertEqual((media.address, media.port, media.protocol), ("127.0.0.1", 30116, "RTP/SAVP"))
        self.assertEqual({tag: (suite, len(key)) for tag, (suite, key) in media.crypto.items()},
                         {1: ("AEAD_AES_128_GCM", 28), 2: ("AEAD_AES_256_GCM", 44)})
        self.assertEqual(media.crypto[1][1], base64.b64decode("Q1z9+0cDHWnsyflH1PRl+ISjwPnZAXWjyc3TEA=="))
        for bad in [RTPENGINE_OFFER.replace("inline:Q1z9", "inline:Q1*9"), "v=0\r\nm=audio 1 RTP/AVP 0\r\n"]:
            with self.assertRaises(ValueError):
                R.parse_sdp(bad)

    def test_the_command_line(self):
        argv = R.rtpengine_argv(2223, 20000, 59999)
        for option in ["--config-file=none", "--foreground", "--table=-1", "--interface=127.0.0.1",
                       "--listen-ng=127.0.0.1:2223", "--port-min=20000", "--port-max=59999", "--num-threads=1",
                       "--media-num-threads=0", "--timeout=3600", "--silent-timeout=3600", "--delete-delay=0"]:
            self.assertIn(option, argv)
        self.assertFalse([a for a in argv if "record" in a or "redis" in a or "kernel" in a])


class SRTPHelperTests(unittest.TestCase):
    """The test's SRTP against the RFCs' vectors, so that what the end-to-end test concludes
    about rtpengine rests on a checked implementation."""

    def setUp(self):
        require_cryptography()

    def test_rfc3711_key_derivation(self):  # RFC 3711 appendix B.3
        key, salt = bytes.fromhex("E1F97A0D3E018BE0D64FA32C06DE4139"), bytes.fromhex("0EC675AD498AFEEBB6960B3AABE6")
        self.assertEqual(SRTP.derive(key, salt, 0, 16).hex(), "c61e7a93744f39ee10734afe3ff7a087")
        self.assertEqual(SRTP.derive(key, salt, 2, 14).hex(), "30cbbc08863d8c85d49db34a9ae1")

    def test_rfc7714_encryption(self):  # RFC 7714 §16.1.1
        srtp = SRTP.with_session(bytes(range(16)), bytes.fromhex("517569642070726f2071756f"))
        packet = bytes.fromhex("8040f17b8041f8d35501a0b2") + b"Gallia est omnis divisa in partes tres"
        self.assertEqual(srtp.iv(packet).hex(), "51753c6580c2726f20718414")
        protected = srtp.protect(packet)
        self.assertEqual(protected[12:].hex(), "f24de3a3fb34de6cacba861c9d7e4bcabe633bd50d294e6f42a5f47a51c7d19b"
                                               "36de3adf8833899d7f27beb16a9152cf765ee4390cce")
        self.assertEqual(srtp.unprotect(protected), packet)
        with self.assertRaises(InvalidTag):
            srtp.unprotect(protected[:-1] + bytes([protected[-1] ^ 1]))


def free_udp_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class RtpengineTests(unittest.TestCase):
    """One rtpengine for the class; each test sets up its calls and tears them down."""
    PORT_MIN, PORT_MAX = 21000, 21999  # below the ephemeral range, where the generator's port is

    @classmethod
    def setUpClass(cls):
        require_rtpengine()
        cls.workdir = tempfile.TemporaryDirectory(prefix="test-rtpengine-")
        cls.engine = R.start_rtpengine(free_udp_port(), cls.PORT_MIN, cls.PORT_MAX, workdir=cls.workdir.name)
        cls.client = cls.engine.client()
        cls.generator_port = free_udp_port("127.64.0.1")

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        status = cls.engine.stop()
        if status != 0:
            print(f"rtpengine exited {status}; its log:\n{cls.engine.log_tail()}", file=sys.stderr)
        cls.workdir.cleanup()

    def legs(self, count: int) -> list[socket.socket]:
        """The parties' sockets, 127.64.0.1.. at the generator's port."""
        sockets = []
        for leg in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self.addCleanup(sock.close)
            sock.bind((R.leg_address(leg), self.generator_port))
            sock.settimeout(2)
            sockets.append(sock)
        return sockets

    def calls(self, count: int, srtp: bool, rtcp_mux: bool = False) -> list[list[str]]:
        """Calls set up (and torn down after the test), the calls file's lines cut into fields."""
        prefix = f"test-{'srtp' if srtp else 'plain'}{'-mux' if rtcp_mux else ''}-{os.getpid()}"
        lines = R.setup_calls(self.client, count, self.generator_port, srtp, call_prefix=prefix, rtcp_mux=rtcp_mux)
        self.addCleanup(lambda: self.assertEqual(R.teardown_calls(self.client, count, call_prefix=prefix), count))
        self.assertEqual(len(lines), 2 * count)
        fields = [line.split(" ") for line in lines]
        for f in fields:
            self.assertEqual(len(f), 5)
            self.assertEqual(f[0], "127.0.0.1")
            self.assertTrue(self.PORT_MIN <= int(f[1]) <= self.PORT_MAX)
            self.assertEqual(f[4], "-")
        self.assertEqual(len({f[1] for f in fields}), 2 * count, "a relay port per leg")
        return fields

    def test_ping_and_the_process_that_forwards(self):
        self.client.ping()
        pid = R.rtpengine_pid(self.engine)
        self.assertEqual(pid, self.engine.process.pid)
        self.assertEqual(os.path.basename(os.path.realpath(f"/proc/{pid}/exe")), "rtpengine")
        threads = self.engine.threads()
        self.assertEqual(threads.count("poller"), 1, threads)
        self.assertFalse([t for t in threads if t in ("media player", "send timer", "codec timer", "websocket")], threads)
        hard = int(Path("/proc/self/limits").read_text().split("Max open files")[1].split()[1])
        self.assertGreaterEqual(self.engine.open_files_limit(), min(R.OPEN_FILES, hard))
        with self.assertRaisesRegex(N.NgError, "Unknown call-id"):
            self.client.query("no-such-call")
        self.assertEqual(R.teardown_calls(self.client, 3, call_prefix="no-such-calls"), 0)

    def test_plain_calls_are_relayed_both_ways(self):
        fields = self.calls(3, srtp=False)
        self.assertTrue(all(f[2] == f[3] == "-" for f in fields))
        legs = self.legs(6)
        for k in range(3):
            for sender, receiver in ((2 * k, 2 * k + 1), (2 * k + 1, 2 * k)):
                with self.subTest(call=k, sender=sender):
                    packet = rtp(100 + sender, 0x1000 + sender, os.urandom(160))
                    legs[sender].sendto(packet, (fields[sender][0], int(fields[sender][1])))
                    data, source = legs[receiver].recvfrom(2048)
                    self.assertEqual(data, packet, "forwarded as is: SSRC, sequence, timestamp kept")
                    self.assertEqual(source, (fields[receiver][0], int(fields[receiver][1])),
                                     "from the port the receiver sends to")

    def test_srtp_calls_are_decrypted_and_re_encrypted(self):
        require_cryptography()
        fields = self.calls(3, srtp=True)
        for k in range(3):
            caller, callee = fields[2 * k], fields[2 * k + 1]
            keys = [caller[2], caller[3], callee[2], callee[3]]
            self.assertTrue(all(len(key) == 56 for key in keys))
            self.assertEqual(len(set(keys)), 4, "four different keys per call: nothing passed through")
        legs = self.legs(6)
        for k in range(3):
            self.exchange_srtp(fields, legs, k)

    def test_sockets_per_call_and_rtcp_mux(self):
        before = self.open_sockets()
        self.calls(3, srtp=False)
        self.assertEqual(self.open_sockets() - before, 3 * R.sockets_per_call(False))
        require_cryptography()
        before = self.open_sockets()
        fields = self.calls(2, srtp=True, rtcp_mux=True)
        self.assertEqual(self.open_sockets() - before, 2 * R.sockets_per_call(True))
        legs = self.legs(4)
        for k in range(2):
            self.exchange_srtp(fields, legs, k)

    def open_sockets(self) -> int:
        """rtpengine's open files once the count holds still: a deleted call's sockets close
        a moment after `delete` has been answered."""
        counts: list[int] = []
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and (len(counts) < 3 or len(set(counts[-3:])) > 1):
            counts.append(len(os.listdir(f"/proc/{self.engine.pid}/fd")))
            time.sleep(0.05)
        return counts[-1]

    def exchange_srtp(self, fields: list[list[str]], legs: list[socket.socket], k: int) -> None:
        """Call k's parties send each other SRTP: each receives what the other sent, re-encrypted
        with its RECEIVE_KEY, and rtpengine drops a packet that does not authenticate."""
        for sender, receiver in ((2 * k, 2 * k + 1), (2 * k + 1, 2 * k)):
            with self.subTest(call=k, sender=sender):
                send = SRTP(bytes.fromhex(fields[sender][2]))
                receive = SRTP(bytes.fromhex(fields[receiver][3]))
                relay = (fields[sender][0], int(fields[sender][1]))
                packets = [rtp(200 + n, 0x2000 + sender, os.urandom(160)) for n in range(2)]
                # A packet whose tag does not verify: rtpengine must drop it, which it does only
                # if it authenticates (decrypts) what it relays.
                forged = bytearray(send.protect(packets[0]))
                forged[-1] ^= 0x01
                legs[sender].sendto(bytes(forged), relay)
                for packet in packets:
                    protected = send.protect(packet)
                    legs[sender].sendto(protected, relay)
                    data, source = legs[receiver].recvfrom(2048)
                    self.assertEqual(source, (fields[receiver][0], int(fields[receiver][1])))
                    self.assertEqual(len(data), len(protected))
                    self.assertNotEqual(data, protected, "re-encrypted, not passed through")
                    self.assertEqual(receive.unprotect(data), packet, "same header and payload")
                    with self.assertRaises(InvalidTag):
                        send.unprotect(data)

if __name__ == "__main__":
    unittest.main()
