#!/usr/bin/env python3
"""Writes the seed corpora (Fuzz/Corpus/<target>/) and dictionaries (Fuzz/Dictionaries/).

Seeds are the test vectors of Tests/PreflightCoreTests (RFC 5769, the RTP fixtures, the signaling
and report examples) plus a few messages built here for the paths those vectors miss: STUN signed
with the harnesses' fixed key (so the integrity-success path is covered), TURN attributes, RTCP
report types, and access tokens in each of the harness's three input shapes. Re-run it after
changing a harness's key or input shape; the output is deterministic.
"""
import hashlib
import hmac
import json
import math
import os
import struct
import zlib

ROOT = os.path.dirname(os.path.abspath(__file__))
KEY = b"fuzz-password-0123456789"  # the STUN harnesses' fixed integrity key
COOKIE = 0x2112A442
TID = bytes.fromhex("b7e7a701bc34d686fa87dfae")


def hexbytes(text):
    return bytes.fromhex("".join(text.split()))


def attr(kind, value, pad=b"\0"):
    return struct.pack("!HH", kind, len(value)) + value + pad * ((4 - len(value) % 4) % 4)


def stun(mtype, attrs, integrity=None, sha256=False, fingerprint=False):
    """A STUN message; MESSAGE-INTEGRITY(-SHA256) and FINGERPRINT computed as RFC 8489 says."""
    body = b"".join(attrs)

    def header(length):
        return struct.pack("!HHI", mtype, length, COOKIE) + TID

    if integrity is not None:
        size = 32 if sha256 else 20
        digest = hashlib.sha256 if sha256 else hashlib.sha1
        mac = hmac.new(integrity, header(len(body) + 4 + size) + body, digest).digest()
        body += attr(0x001C if sha256 else 0x0008, mac)
    if fingerprint:
        crc = zlib.crc32(header(len(body) + 8) + body) ^ 0x5354554E
        body += attr(0x8028, struct.pack("!I", crc))
    return header(len(body)) + body


def xor_address(port, ip4):
    return struct.pack("!BBH", 0, 1, port ^ (COOKIE >> 16)) + struct.pack("!I", ip4 ^ COOKIE)


RFC5769 = [
    """00 01 00 58 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae 80 22 00 10 53 54 55 4e 20 74 65 73
    74 20 63 6c 69 65 6e 74 00 24 00 04 6e 00 01 ff 80 29 00 08 93 2f f9 b1 51 26 3b 36 00 06 00 09
    65 76 74 6a 3a 68 36 76 59 20 20 20 00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49
    c1 b5 71 a2 80 28 00 04 e5 7a 3b cf""",
    """01 01 00 3c 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae 80 22 00 0b 74 65 73 74 20 76 65 63
    74 6f 72 20 00 20 00 08 00 01 a1 47 e1 12 a6 43 00 08 00 14 2b 91 f5 99 fd 9e 90 c3 8c 74 89 f9
    2a f9 ba 53 f0 6b e7 d7 80 28 00 04 c0 7d 4c 96""",
    """01 01 00 48 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae 80 22 00 0b 74 65 73 74 20 76 65 63
    74 6f 72 20 00 20 00 14 00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9 00 08 00 14
    a3 82 95 4e 4b e6 7b f1 17 84 c9 7c 82 92 c2 75 bf e3 ed 41 80 28 00 04 c8 fb 0b 4c""",
    """00 01 00 60 21 12 a4 42 78 ad 34 33 c6 ad 72 c0 29 da 41 2e 00 06 00 12 e3 83 9e e3 83 88 e3 83
    aa e3 83 83 e3 82 af e3 82 b9 00 00 00 15 00 1c 66 2f 2f 34 39 39 6b 39 35 34 64 36 4f 4c 33 34
    6f 4c 39 46 53 54 76 79 36 34 73 41 00 14 00 0b 65 78 61 6d 70 6c 65 2e 6f 72 67 00 00 08 00 14
    f6 70 24 65 6d d6 4a 3e 02 b8 e0 71 2e 85 c9 a2 8c a8 96 66""",
]

ice_check = [attr(0x0006, b"fuzz:user"), attr(0x0024, struct.pack("!I", 1853824767)),
             attr(0x802A, bytes(8)), attr(0x0025, b"")]
STUN = [hexbytes(v) for v in RFC5769] + [
    stun(0x0001, ice_check, integrity=KEY, fingerprint=True),
    stun(0x0001, ice_check, integrity=KEY, sha256=True, fingerprint=True),
    stun(0x0101, [attr(0x0020, xor_address(40000, 0x7F000001))], integrity=KEY, fingerprint=True),
    stun(0x0113, [attr(0x0009, b"\0\0\x04\x01Unauthorized"), attr(0x0014, b"example.org"),
                  attr(0x0015, b"nonce-123"), attr(0x8022, b"coturn"), attr(0x000A, b"\0\x2a\x80\x99")]),
    stun(0x0103, [attr(0x0016, xor_address(50000, 0xC6120001)), attr(0x0020, xor_address(40000, 0x7F000001)),
                  attr(0x000D, struct.pack("!I", 600))], integrity=KEY, fingerprint=True),
    stun(0x0003, [attr(0x0019, b"\x11\0\0\0"), attr(0x0006, b"user"), attr(0x0014, b"example.org"),
                  attr(0x0015, b"nonce-123"), attr(0x001D, b"\0\x02\0\0"), attr(0x8002, b"\0\x01\0\0\0\x02\0\0")],
         integrity=KEY),
    stun(0x0016, [attr(0x0012, xor_address(50000, 0xC6120001)), attr(0x0013, b"hello")]),
    stun(0x0009, [attr(0x000C, b"\x40\0\0\0"), attr(0x0012, xor_address(50000, 0xC6120001))], integrity=KEY),
    stun(0x0001, [attr(0x8028, b"")]),  # a zero-length FINGERPRINT
    stun(0x0001, [attr(0x0008, b"")]),  # a zero-length MESSAGE-INTEGRITY
]

RTP = [
    hexbytes("92 80 12 34 00 00 06 40 de ad be ef 01 02 03 04 05 06 07 08 be de 00 03 10 a0 21 b0 b1 00 00"
             "33 c0 c1 c2 c3 ff 7f 00 80"),
    hexbytes("b0 60 ff ff ff ff ff ff 00 00 00 01 10 05 00 03 01 00 02 01 aa 00 03 04 b0 b1 b2 b3 11 22 33"
             "00 00 00 04"),
    hexbytes("80 00 00 01 00 00 00 a0 00 00 00 2a"),
    # The media extensions' shape: one-byte ids 1-3 carrying 8-byte times and an echo report.
    hexbytes("90 00 00 02 00 00 01 40 00 00 00 2a be de 00 05 17 00 00 00 00 00 01 e2 40 27 00 00 00 00 00"
             "03 0d 40 00 00 00 7f 7f 7f 7f"),
]

RTCP = [
    # SR with one report block, then SDES with a CNAME.
    hexbytes("81 c8 00 0c de ad be ef e9 00 00 00 80 00 00 00 00 00 06 40 00 00 00 0a 00 00 06 40"
             "00 00 00 2a 01 00 00 03 00 00 12 34 00 00 00 05 00 00 00 00 00 00 00 00"
             "81 ca 00 03 de ad be ef 01 05 61 6c 69 63 65 00"),
    # RR with no block, then BYE with a reason.
    hexbytes("80 c9 00 01 de ad be ef 81 cb 00 03 de ad be ef 04 64 6f 6e 65 00 00 00"),
    # RR, then an APP packet (an unknown type) with padding.
    hexbytes("80 c9 00 01 de ad be ef a0 cc 00 03 de ad be ef 6e 61 6d 65 00 00 00 04"),
]

CHANNEL_DATA = [hexbytes("40 00 00 05 68 65 6c 6c 6f 00 00 00"), hexbytes("4f ff 00 00"),
                hexbytes("40 01 00 04 de ad be ef")]


def records(stream, sizes):
    """The framer harness's input: each record is one size byte and that many stream bytes."""
    out, index, turn = b"", 0, 0
    while index < len(stream):
        size = sizes[turn % len(sizes)]
        out += bytes([size]) + stream[index:index + size]
        index, turn = index + size, turn + 1
    return out


stream = STUN[4] + CHANNEL_DATA[0] + STUN[7] + CHANNEL_DATA[1] + STUN[10]
FRAMER = [records(stream, [255]), records(stream, [1, 7, 3]), records(stream, [19, 20, 64]),
          records(CHANNEL_DATA[0] + b"\x80\0\0\0", [5])]

candidate = {"foundation": "1", "component": 1, "transport": "udp", "priority": 2130706431,
             "address": "127.0.0.1", "port": 4000, "type": "host"}
ice = {"ufrag": "aB3d", "pwd": "0123456789abcdefghij+/", "lite": False, "candidates": [
    candidate, dict(candidate, foundation="2", type="srflx", relatedAddress="198.18.0.1", relatedPort=40000)]}
SIGNALING = [json.dumps(m, separators=(",", ":")).encode() for m in [
    {"type": "hello", "token": "eyJ.x.y", "client": "preflight-swift/0.1.0"},
    {"type": "welcome", "edge": "lab", "sessionId": "S1", "iceServers": [
        {"urls": ["stun:198.18.0.3:3478", "turn:198.18.0.3?transport=tcp"], "username": "u", "credential": "c"}],
     "resumeToken": "0123456789abcdef0123456789abcdef"},
    {"type": "resume", "sessionId": "SS00112233445566778899aabbccddeeff", "resumeToken": "0123456789abcdef0123456789abcdef"},
    {"type": "resumed", "sessionId": "SS00112233445566778899aabbccddeeff", "callSid": "CA1",
     "resumeToken": "fedcba9876543210fedcba9876543210"},
    {"type": "invite", "ice": ice, "codecs": ["PCMU", "opus"], "params": {"app": "echo"}},
    {"type": "ringing", "callSid": "CA123"},
    {"type": "answer", "callSid": "CA1", "codec": "PCMU", "payloadType": 0, "application": "echo", "ice": ice},
    {"type": "hangup", "callSid": "CA123", "reason": "completed", "code": 0},
    {"type": "error", "code": 20104, "message": "access token expired", "callSid": "CA1"},
    {"type": "invite", "ice": ice, "codecs": ["PCMU"], "params": {"To": "client:bob"},
     "srtp": {"profile": "AEAD_AES_128_GCM", "key": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw=="}},
    {"type": "register"},
    {"type": "registered", "identity": "bob"},
    {"type": "incoming", "callSid": "CA1", "from": "client:alice", "to": "client:bob", "params": {"Topic": "lunch"}},
    {"type": "cancel", "callSid": "CA1", "reason": "no answer", "code": 31480},
    {"type": "accept", "callSid": "CA1", "ice": ice, "codecs": ["PCMU"],
     "srtp": {"profile": "AEAD_AES_128_GCM", "key": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw=="}},
    {"type": "reject", "callSid": "CA1"},
    {"type": "message", "callSid": "CA1", "id": "KX1",
     "message": {"content": "{\"a\":1}", "contentType": "application/json", "messageType": "user-defined-message"}},
    {"type": "probe", "ice": ice, "expectedUplinkBitrate": 5000000, "expectedDownlinkBitrate": 100000},
    {"type": "probeTrain", "rate": 1500000, "size": 1200, "duration": 400},
    {"type": "probeArrivals", "records": [0, 1000, 1200, 1, 2000, 1200, 2, 2990, 1200], "dropped": 0},
    {"type": "messageStatus", "callSid": "CA1", "id": "KX1", "code": 31209, "reason": "too large"},
    {"type": "insights", "callSid": "CA1", "events": [
        {"group": "connection", "name": "ringing", "timestamp": 1700000000000, "payload": {}},
        {"group": "ice-candidate", "name": "ice-candidate", "timestamp": 1700000000001, "payload": {"candidateType": "host"}}]},
    {"type": "candidates", "callSid": "CA1", "candidates": [
        {"foundation": "7", "component": 1, "transport": "udp", "priority": 2122260223, "address": "198.18.2.2",
         "port": 50000, "type": "host"},
        {"foundation": "8", "component": 1, "transport": "udp", "priority": 1686052607, "address": "2001:db8::2",
         "port": 50002, "type": "srflx", "relatedAddress": "198.18.2.2", "relatedPort": 50000}]},
    {"type": "incoming", "callSid": "CA2", "from": "client:alice", "to": "client:bob", "params": {}, "codec": "opus"},
    {"type": "answer", "callSid": "CA2", "codec": "opus", "payloadType": 111, "application": "dial", "ice": ice},
]]

ICE_CANDIDATES = [s.encode() for s in [
    "candidate:1 1 udp 2130706431 198.18.0.1 40000 typ host",
    "a=candidate:2 1 UDP 1694498815 198.19.0.1 50000 typ srflx raddr 198.18.0.1 rport 40000 generation 0",
    "candidate:3 1 tcp 1518280447 ::1 9 typ host tcptype active",
    "candidate:4 1 udp 16777215 203.0.113.9 3478 typ relay raddr 0.0.0.0 rport 0 network-id 1",
]]

with open(os.path.join(ROOT, "..", "Tests", "PreflightCoreTests", "Fixtures", "example-report.json"), "rb") as f:
    REPORT = [f.read(), b'{"samples":[],"warnings":[]}']


def b64url(data):
    import base64
    return base64.urlsafe_b64encode(data).rstrip(b"=")


claims = {"jti": "SKfuzz-1700000000-1", "iss": "SKfuzz", "sub": "ACfuzz", "iat": 1699999000, "exp": 1700003600,
          "grants": {"identity": "alice", "voice": {"outgoing": {"application_sid": "AP1", "params": {"a": "b"}},
                                                    "incoming": {"allow": True}}}}
payload = json.dumps(claims, separators=(",", ":")).encode()
header = b'{"alg":"HS256","typ":"JWT","cty":"twilio-fpa;v=1"}'
TOKENS = [
    b"\x00" + b64url(header) + b"." + b64url(payload) + b".c2lnbmF0dXJl",
    b"\x01" + payload, b"\x05" + payload,
    b"\x01" + json.dumps(dict(claims, exp=-1e300), separators=(",", ":")).encode(),
    b"\x01" + json.dumps(dict(claims, nbf=1800000000), separators=(",", ":")).encode(),
    b"\x02" + header + b"\n" + payload,
    b"\x02" + b'{"alg":"none"}' + b"\n" + payload,
]

# RFC 7714 §16.1.1 (SRTP) and §17.1, §17.3 (SRTCP): the harness uses the RFC's session key and salt,
# so these authenticate; the plain packets cover the round-trip paths.
SRTP = [hexbytes(v) for v in [
    "8040f17b 8041f8d3 5501a0b2 47616c6c 69612065 7374206f 6d6e6973 20646976 69736120 696e2070 61727465 73207472 6573",
    "8040f17b 8041f8d3 5501a0b2 f24de3a3 fb34de6c acba861c 9d7e4bca be633bd5 0d294e6f 42a5f47a 51c7d19b 36de3adf"
    "8833899d 7f27beb1 6a9152cf 765ee439 0cce",
    "81c8000d 4d617273 63e94885 dcdab67c a727d766 2f6b7e99 7ff5c0f7 6c06f32d c676a5f1 730d6fda 4ce09b46 86303ded"
    "0bb9275b c84aa458 96cf4d2f c5abf872 45d9eade 800005d4",
    "81c8000d 4d617273 4e545031 4e545032 52545020 0000042a 0000e930 4c756e61 deadbeef deadbeef deadbeef deadbeef"
    "deadbeef 841dd968 3dd78ec9 2ae58790 125f62b3 000005d4",
    # Sequence numbers around the wrap for the sender/receiver agreement path.
    "fffa fffb fffc fffd fffe ffff 0000 0001 7fff 8000 0002 0001",
]] + RTP

# RFC 4733 §2.3 payloads as (timestamp, payload) records, and digit strings for the sender.
TELEPHONE_EVENTS = [
    hexbytes("000003e8 010a00a0 000003e8 010a0140 000003e8 018a0320 000003e8 018a0320 00000898 0b0a00a0 00000898 0b8a0320"),
    hexbytes("0b8a0320"),
    b"1w2", b"0123456789*#", b"12ww#", b"1x",
]

# Probe packets (RFC 3550 with the probe's payload type 127, the send-time extension and the
# 32-bit probe sequence number), and arrival records (14 bytes each: sequence, send µs, arrival µs,
# wire bytes) of a path that saturates at 1 Mbit/s after 20 packets.
def probe_records(count, knee):
    out = b""
    arrival = 10_000
    for seq in range(count):
        send = seq * 5_000
        arrival = max(arrival + (5_000 if seq < knee else 10_000), send + 10_000)
        out += seq.to_bytes(4, "big") + send.to_bytes(4, "big") + arrival.to_bytes(4, "big") + (1242).to_bytes(2, "big")
    return out


def probe_packet(seq, send, element, size):
    header = bytes([0x90, 0x7F]) + (seq & 0xFFFF).to_bytes(2, "big") + bytes(4) + (7).to_bytes(4, "big")
    extension = bytes.fromhex("bede0003") + bytes([element << 4 | 7]) + send.to_bytes(8, "big") + bytes(3)
    payload = seq.to_bytes(4, "big")
    return header + extension + payload + bytes(size - len(header) - len(extension) - len(payload))


PROBE = [probe_packet(1, 1000, 1, 200), probe_packet(70000, 2000, 4, 1200), probe_records(80, 20), probe_records(8, 2)]

def wav(channels, rate, samples, tag=1, bits=16, extra=b"", extensible=False, data_size=None):
    data = struct.pack("<%dh" % len(samples), *samples)
    fmt = struct.pack("<HHIIHH", 0xFFFE if extensible else tag, channels, rate, rate * channels * bits // 8,
                      channels * bits // 8, bits)
    if extensible:
        fmt += struct.pack("<HHI", 22, bits, 0) + struct.pack("<H", tag) + b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
    chunks = b"fmt " + struct.pack("<I", len(fmt)) + fmt + extra
    chunks += b"data" + struct.pack("<I", len(data) if data_size is None else data_size) + data
    return b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks


SINE = [int(16000 * math.sin(2 * math.pi * 1000 * n / 8000)) for n in range(80)]
WAV = [wav(1, 8000, SINE), wav(2, 48000, SINE), wav(1, 16000, SINE, extensible=True),
       wav(1, 8000, SINE[:9], extra=b"LIST\x03\x00\x00\x00abc\x00"), wav(1, 8000, SINE, data_size=0xFFFFFFFF),
       wav(1, 8000, SINE[:4], tag=3, bits=32)]

# Format index (0 YUYV, 1 NV12, 2 I420, 3 RGB24), width − 1, height − 1, padding, stride flag, buffer.
VIDEO_FRAMES = [bytes([0, 3, 1, 0, 0]) + bytes(range(16)), bytes([2, 7, 7, 0, 0]) + bytes(96),
                bytes([1, 15, 7, 3, 1]) + bytes(range(200)), bytes([3, 1, 1, 0, 0]) + bytes([255, 0, 0] * 4)]

# Opus packets: TOC bytes of the three modes and the four frame-count codes, with a little data.
OPUS = [bytes([0x78]) + bytes(20), bytes([0x08, 0x55] + [0] * 30), bytes([0xFC, 0xFF, 0xFE]), bytes([0x0B << 3 | 3, 0x02, 10, 10]) + bytes(20), b""]

# Init answers (two status bytes, then the body), video test payload headers, a result's JSON.
CONNECTIVITY = [
    bytes([0, 200]) + b'{"edge":"local","websocketUrl":"ws://127.0.0.1:8080/signaling","iceServers":[{"urls":["stun:127.0.0.1:3478"]}]}',
    bytes([1, 145]) + b'{"code":20107,"message":"access token: bad signature"}',
    bytes([1, 247]) + b'<html>bad gateway</html>',
    bytes([0, 0, 0, 7, 0, 1, 0, 2]) + bytes(40),
    b'{"testTimestamp":1795677103071,"state":"completed","signallingReport":{"isConnected":true,"isInitConnected":true,"websocketUrl":"ws://x"},'
    b'"mediaServerReport":{"isPublishICEConnected":true,"isSubcribeICEConnected":true,"connectionQualityScore":4.9,"stats":{"audio":{"bytesSent":1,'
    b'"bytesReceived":1,"packetsReceived":1,"packetsLost":0,"bitrateSent":1,"bitrateReceived":1,"roundTripTime":1,"packetsSent":1,"packetsLostDownlink":0,'
    b'"jitter":0},"video":{"bytesSent":1,"bytesReceived":1,"packetsReceived":1,"packetsLost":0,"bitrateSent":1,"bitrateReceived":1,"roundTripTime":1,'
    b'"packetsSent":1,"packetsLostDownlink":0,"jitter":0}},"publishIceCandidatesGathered":[],"subscribeIceCandidatesGathered":[]},'
    b'"deviceTestReport":{"camera":{"tested":false,"outcome":"notTested","source":"s"},"microphone":{"tested":false,"outcome":"notTested","source":"s"},'
    b'"speaker":{"tested":false,"outcome":"notTested","source":"s"}},"errors":[{"code":70401,"message":"m"}],"edge":"e","codec":"PCMU","mediaDuration":1}',
]

# Report uploads: the first byte picks the kind (0 preflightTest, 1 lastmileProbe,
# 2 connectivityCheck, 3 preCallDiagnosis), the rest is the body.
REPORT_UPLOADS = [
    b"\x00" + REPORT[0],
    b'\x00{"callSid":"CA1","callQuality":2,"isTurnRequired":"true","networkStats":{"mos":{"average":4.1},"rtt":{"average":40},'
    b'"jitter":{"average":1}},"networkTiming":{"iceConnection":{"start":1,"end":2,"duration":1}},"error":{"code":53405,"message":"m"}}',
    b'\x01{"state":"completed","rtt":12.5,"edge":"local","loopback":true,"qualities":[],"duration":4,"error":null}',
    b"\x02" + CONNECTIVITY[-1],
    b'\x03{"mos":4.2,"quality":"excellent","jitter":{"min":0,"max":0.01,"avg":0.001},"rtt":{"min":0.01,"max":0.05,"avg":0.02}}',
    b'\x00{"callSid":"../x"}',
]

# Checks to the ICE harness's agent (ufrag "fuzz", its password KEY) from the edge ("edge").
ICE_CHECKS = [
    stun(0x0001, [attr(0x0006, b"fuzz:edge"), attr(0x0024, struct.pack("!I", 1845501695)), attr(0x8029, b"\0" * 7 + b"\x2a")],
         integrity=KEY, fingerprint=True),
    stun(0x0001, [attr(0x0006, b"fuzz:edge")], integrity=KEY),
    stun(0x0001, [attr(0x0006, b"edge:fuzz")], integrity=KEY, fingerprint=True),
    stun(0x0101, [attr(0x0020, xor_address(5000, 0x0A000001))], integrity=KEY, fingerprint=True),
]

def netlink_recording():
    """The datagrams of the namespace recording the monitor's tests replay, joined by the
    harness's marker; and a text of overrides."""
    path = os.path.join(ROOT, "..", "Tests", "PreflightCoreTests", "Fixtures", "netlink-namespace.json")
    with open(path) as f:
        records = json.load(f)
    datagrams = [bytes.fromhex(r["hex"]) for r in records]
    marker = bytes([0xFF, 0xFE, 0xFD, 0xFC])
    return [marker.join(datagrams), marker.join(datagrams[:4]), datagrams[0], b"vc*=cellular,vw0=wifi, lo=ethernet"]


NETLINK = netlink_recording()

KEY_B64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw=="  # 28 bytes: an SRTP master key and salt
CLUSTER = [json.dumps(m, separators=(",", ":"), sort_keys=True).encode() for m in [
    {"kind": "registered", "from": "europe", "expiresAt": 1800000010000, "session": "SS01", "account": "AC1", "identity": "bob"},
    {"kind": "unregistered", "from": "europe", "expiresAt": 1800000010000, "session": "SS01", "account": "AC1", "identity": "bob"},
    {"kind": "invite", "from": "europe", "to": "america", "expiresAt": 1800000005000, "callSid": "CA1", "session": "SS02",
     "account": "AC1", "identity": "bob",
     "incoming": {"callSid": "CA1", "from": "client:alice", "to": "client:bob", "params": {"k": "v"}, "codec": "PCMU"},
     "trunk": {"address": "198.18.0.1:3478", "callerKey": {"profile": "AEAD_AES_128_GCM", "key": KEY_B64},
               "calleeKey": {"profile": "AEAD_AES_128_GCM", "key": KEY_B64}, "callerSSRC": 1, "calleeSSRC": 2}},
    {"kind": "accept", "from": "america", "to": "europe", "expiresAt": 1800000005000, "callSid": "CA1", "session": "SS03",
     "trunk": {"address": "[2001:db8::1]:3478"}},
    {"kind": "accepted", "from": "europe", "to": "america", "expiresAt": 1800000005000, "callSid": "CA1", "session": "SS03", "won": True},
    {"kind": "declined", "from": "america", "to": "europe", "expiresAt": 1800000005000, "callSid": "CA1", "code": 31486, "reason": "busy"},
    {"kind": "cancel", "from": "europe", "to": "america", "expiresAt": 1800000005000, "callSid": "CA1", "reason": "answered elsewhere"},
    {"kind": "hangup", "from": "america", "to": "europe", "expiresAt": 1800000010000, "callSid": "CA1", "code": 31005},
    {"kind": "message", "from": "america", "to": "europe", "expiresAt": 1800000010000, "callSid": "CA1",
     "userMessage": {"callSid": "CA1", "id": "m1", "message": {"content": "{}", "contentType": "application/json",
                                                              "messageType": "user-defined-message"}}},
]]

def path_error_queue():
    """Error-queue reads as Linux writes them (64-bit): a time exceeded quoting a probe, a port
    unreachable quoting 8 bytes only, an ICMPv6 time exceeded; and address blocks as text."""
    probe = struct.pack("!HHI", 1, 0, COOKIE) + bytes(range(12))

    def read(level, kind, origin, icmp_type, code, offender, payload):
        data = struct.pack("<IBBBBII", 113, origin, icmp_type, code, 0, 0, 0) + offender
        control = struct.pack("<QiI", 16 + len(data), level, kind) + data
        control += b"\0" * (-len(control) % 8)
        return b"\x00" + struct.pack("!H", len(control)) + control + payload

    v4 = lambda *a: struct.pack("<H", 2) + b"\x9c\x40" + bytes(a) + b"\0" * 8
    v6 = struct.pack("<H", 10) + b"\0" * 6 + bytes.fromhex("20010db8000000000000000000000001") + b"\0" * 4
    return [read(0, 11, 2, 11, 0, v4(198, 18, 41, 1), probe), read(0, 11, 2, 3, 3, v4(203, 0, 113, 5), b""),
            read(41, 25, 3, 3, 0, v6, probe), b"198.18.40.0/24", b"fc00::/7", b"10.0.0.1"]


PATH_ERROR_QUEUE = path_error_queue()

# A Chrome-shaped offer (audio, bundled video, a data channel), one with audio alone and PCMU,
# and one the edge cannot answer (a=setup:passive).
FINGERPRINT = ":".join("%02X" % (i * 7 & 0xFF) for i in range(32))
SDP_AUDIO = ("m=audio 9 UDP/TLS/RTP/SAVPF 111 0\r\nc=IN IP4 0.0.0.0\r\na=ice-ufrag:Xy7d\r\n"
             "a=ice-pwd:qY4mHbGx3ZkLr0pVn1uT2wS9\r\na=fingerprint:sha-256 " + FINGERPRINT + "\r\na=setup:actpass\r\n"
             "a=mid:0\r\na=sendrecv\r\na=rtcp-mux\r\na=rtpmap:111 opus/48000/2\r\na=fmtp:111 minptime=10;useinbandfec=1\r\n"
             "a=rtpmap:0 PCMU/8000\r\na=ssrc:1001 cname:abc\r\n")
SDP_VIDEO = ("m=video 9 UDP/TLS/RTP/SAVPF 96 97\r\nc=IN IP4 0.0.0.0\r\na=mid:1\r\na=sendrecv\r\na=rtcp-mux\r\n"
             "a=rtpmap:96 VP8/90000\r\na=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\na=ssrc:2001 cname:abc\r\n"
             "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:2\r\n")
SDP_HEAD = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
SDP_OFFERS = [(SDP_HEAD + "a=group:BUNDLE 0 1 2\r\n" + SDP_AUDIO + SDP_VIDEO).encode(),
              (SDP_HEAD + SDP_AUDIO.replace("111 0", "0")).encode(),
              (SDP_HEAD + SDP_AUDIO.replace("actpass", "passive")).encode()]

CORPORA = {
    "FuzzSTUNLayout": STUN, "FuzzSTUNMessage": STUN, "FuzzRTP": RTP, "FuzzRTCP": RTCP,
    "FuzzChannelData": CHANNEL_DATA, "FuzzTURNFramer": FRAMER, "FuzzSignalingJSON": SIGNALING,
    "FuzzICECandidate": ICE_CANDIDATES, "FuzzReportJSON": REPORT, "FuzzAccessToken": TOKENS,
    "FuzzSRTP": SRTP, "FuzzTelephoneEvent": TELEPHONE_EVENTS, "FuzzProbe": PROBE,
    "FuzzWAV": WAV,
    "FuzzVideoFrame": VIDEO_FRAMES,
    "FuzzOpus": OPUS,
    "FuzzConnectivityCheck": CONNECTIVITY,
    "FuzzICECheck": ICE_CHECKS,
    "FuzzReportUpload": REPORT_UPLOADS,
    "FuzzNetlink": NETLINK,
    "FuzzClusterMessage": CLUSTER,
    "FuzzSDP": SDP_OFFERS,
    "FuzzPathErrorQueue": PATH_ERROR_QUEUE,
}


def dictionary(entries):
    return "".join('"%s"\n' % "".join("\\x%02x" % b for b in e) for e in entries)


def json_keys(texts):
    keys = set()

    def walk(value):
        if isinstance(value, dict):
            for k, v in value.items():
                keys.add(k)
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
    for text in texts:
        walk(json.loads(text))
    return sorted(keys)


STUN_TYPES = [0x0001, 0x0006, 0x0008, 0x0009, 0x000A, 0x000C, 0x000D, 0x0012, 0x0013, 0x0014, 0x0015, 0x0016,
              0x0019, 0x001C, 0x001D, 0x001E, 0x0020, 0x0024, 0x0025, 0x8002, 0x8022, 0x8023, 0x8028, 0x8029, 0x802A]
DICTIONARIES = {
    "stun": dictionary([struct.pack("!I", COOKIE)] + [struct.pack("!H", t) for t in STUN_TYPES]
                       + [struct.pack("!H", t) for t in (0x0001, 0x0101, 0x0111, 0x0003, 0x0113, 0x0016, 0x0009)]),
    "rtp": dictionary([b"\xbe\xde", b"\x10\x00", b"\x80", b"\x90", b"\xb0"]),
    "rtcp": dictionary([bytes([t]) for t in (200, 201, 202, 203, 204)] + [b"\x81\xc8", b"\x81\xc9", b"\x81\xca"]),
    "json": "".join('"\\"%s\\""\n' % k for k in json_keys(SIGNALING + REPORT + [payload, CONNECTIVITY[-1]]))
    + "".join('"%s"\n' % s for s in ("hello", "welcome", "resume", "resumed", "invite", "ringing", "answer", "hangup", "error", "null",
                                     "true", "false", "1e300", "-1e300", "HS256", "JWT")),
    "wav": dictionary([b"RIFF", b"WAVE", b"fmt ", b"data", b"LIST", b"\xfe\xff", b"\x01\x00", b"\x10\x00"]),
    "sdp": "".join('"%s"\n' % s for s in ("candidate:", "a=", " typ ", "host", "srflx", "prflx", "relay", " raddr ",
                                          " rport ", " tcptype ", "udp", "tcp", "::1", "127.0.0.1", "\\x0D\\x0A", "v=0", "m=audio ",
                                          "m=video ", "m=application ", "UDP/TLS/RTP/SAVPF", "a=group:BUNDLE ", "a=mid:",
                                          "a=rtcp-mux", "a=ice-ufrag:", "a=ice-pwd:", "a=fingerprint:sha-256 ", "a=setup:",
                                          "actpass", "passive", "a=rtpmap:", "opus/48000/2", "PCMU/8000", "VP8/90000",
                                          "a=fmtp:", "a=ssrc:", "sendonly", "recvonly")),
}

for target, seeds in CORPORA.items():
    folder = os.path.join(ROOT, "Corpus", target)
    os.makedirs(folder, exist_ok=True)
    for index, seed in enumerate(seeds):
        with open(os.path.join(folder, "seed-%02d" % index), "wb") as f:
            f.write(seed)
os.makedirs(os.path.join(ROOT, "Dictionaries"), exist_ok=True)
for name, text in DICTIONARIES.items():
    with open(os.path.join(ROOT, "Dictionaries", name + ".dict"), "w") as f:
        f.write(text)
