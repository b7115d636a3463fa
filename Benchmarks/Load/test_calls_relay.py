#!/usr/bin/env python3
"""A tiny relay to test `loadgen --mode calls` without the edge or rtpengine (see README.md).

    test_calls_relay.py --calls 20 --out calls.txt [--plain | --mixed] [--checks]

Writes a calls file for N calls whose legs all send to this relay's one UDP socket (127.0.0.1),
prints `listening PORT`, then relays until SIGINT or SIGTERM and prints its counters. A leg is
known by its source address (127.64.x.y); its packets are authenticated and decrypted with its
SEND_KEY, re-originated for the partner leg (another SSRC, sequence numbers that wrap 100 packets
in, a header extension) and encrypted with the partner's RECEIVE_KEY, so the generator's ROC
estimation and its parsing of re-originated packets are exercised. --plain: no keys; --mixed:
even calls SRTP, odd calls plain; --checks: the legs of odd calls send a STUN check first, which
the relay answers. Python standard library and `cryptography` (AES-GCM, AES-ECB for the KDF).
"""
import argparse
import os
import signal
import socket
import struct
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.exceptions import InvalidTag


def kdf(master: bytes, label: int, length: int) -> bytes:
    """RFC 3711 4.3.1 AES-CM PRF, rate 0; a 12-byte salt padded on the right (as libsrtp)."""
    x = bytearray(master[16:].ljust(14, b"\0"))
    x[7] ^= label
    enc = Cipher(algorithms.AES(master[:16]), modes.ECB()).encryptor()
    stream = b"".join(enc.update(bytes(x) + struct.pack("!H", j)) for j in range((length + 15) // 16))
    return stream[:length]


assert kdf(bytes.fromhex("E1F97A0D3E018BE0D64FA32C06DE4139" "0EC675AD498AFEEBB6960B3AABE6"), 0, 16) == \
    bytes.fromhex("C61E7A93744F39EE10734AFE3FF7A087"), "RFC 3711 B.3"


class Srtp:
    """One direction of AEAD_AES_128_GCM SRTP (RFC 7714); the receiver estimates the index."""

    def __init__(self, master: bytes):
        self.aead, self.salt, self.highest = AESGCM(kdf(master, 0, 16)), kdf(master, 2, 12), None

    def iv(self, header: bytes, index: int) -> bytes:
        raw = b"\0\0" + header[8:12] + struct.pack("!IH", index >> 16, index & 0xFFFF)
        return bytes(a ^ b for a, b in zip(raw, self.salt))

    def protect(self, packet: bytes, index: int) -> bytes:
        h = header_len(packet)
        return packet[:h] + self.aead.encrypt(self.iv(packet, index), packet[h:], packet[:h])

    def unprotect(self, packet: bytes) -> bytes | None:
        h = header_len(packet)
        if h is None or len(packet) < h + 16:
            return None
        seq = struct.unpack("!H", packet[2:4])[0]
        index = seq  # RFC 3711 Appendix A
        if self.highest is not None:
            roc, s_l = self.highest >> 16, self.highest & 0xFFFF
            v = roc - 1 if s_l < 32768 and seq > s_l + 32768 else roc + 1 if s_l >= 32768 and seq < s_l - 32768 else roc
            index = max(v, 0) << 16 | seq
        try:
            plain = self.aead.decrypt(self.iv(packet, index), packet[h:], packet[:h])
        except InvalidTag:
            return None
        self.highest = index if self.highest is None else max(self.highest, index)
        return packet[:h] + plain


def header_len(p: bytes) -> int | None:
    if len(p) < 12 or p[0] >> 6 != 2:
        return None
    h = 12 + 4 * (p[0] & 0x0F)
    if p[0] & 0x10:
        if h + 4 > len(p):
            return None
        h += 4 + 4 * struct.unpack("!H", p[h + 2:h + 4])[0]
    return h if h <= len(p) else None


def leg_of(ip: str, legs: int) -> int | None:
    a = [int(x) for x in ip.split(".")]
    i = a[2] * 250 + a[3] - 1
    return i if a[:2] == [127, 64] and 1 <= a[3] <= 250 and i < legs else None


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--out", required=True, help="the calls file to write")
    p.add_argument("--plain", action="store_true", help="no SRTP at all")
    p.add_argument("--mixed", action="store_true", help="even calls SRTP, odd calls plain RTP")
    p.add_argument("--checks", action="store_true", help="odd calls' legs send a STUN check first")
    a = p.parse_args()
    legs = 2 * a.calls
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srtp = [not a.plain and not (a.mixed and i // 2 % 2) for i in range(legs)]
    send_keys = [os.urandom(28) if s else None for s in srtp]  # what each leg protects with
    recv_keys = [os.urandom(28) if s else None for s in srtp]  # what the relay protects with for it
    lines = ["# test_calls_relay.py: RELAY_IP RELAY_PORT SEND_KEY RECEIVE_KEY CHECK"]
    for i in range(legs):
        check = "-"
        if a.checks and i // 2 % 2:
            check = struct.pack("!HHII8s", 0x0001, 0, 0x2112A442, i, os.urandom(8)).hex()
        lines.append(f"127.0.0.1 {port} {send_keys[i].hex() if send_keys[i] else '-'} "
                     f"{recv_keys[i].hex() if recv_keys[i] else '-'} {check}")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    rx = [Srtp(k) if k else None for k in send_keys]
    tx = [Srtp(k) if k else None for k in recv_keys]
    where: list = [None] * legs
    out_index = [65536 - 100] * legs  # the relay's own sequence: wraps 2 s in
    out_ssrc = [struct.unpack("!I", os.urandom(4))[0] for _ in range(legs)]
    n = {"relayed": 0, "auth_failures": 0, "no_partner_yet": 0, "checks": 0, "stray": 0}
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    print(f"listening {port}", flush=True)
    try:
        while True:
            data, src = sock.recvfrom(2048)
            leg = leg_of(src[0], legs)
            if len(data) >= 20 and data[0] < 0x40 and data[4:8] == b"\x21\x12\xa4\x42":
                if struct.unpack("!H", data[:2])[0] == 0x0001:  # Binding request: success, same transaction
                    sock.sendto(struct.pack("!HH", 0x0101, 0) + data[4:20], src)
                    n["checks"] += 1
                continue
            h = header_len(data)
            if leg is None or h is None:
                n["stray"] += 1
                continue
            where[leg] = src
            plain = rx[leg].unprotect(data) if rx[leg] else data
            if plain is None:
                n["auth_failures"] += 1
                continue
            to = leg ^ 1
            if where[to] is None:
                n["no_partner_yet"] += 1
                continue
            # Re-originated: X set, one extension word, the relay's own SSRC and sequence.
            index = out_index[to]
            out_index[to] += 1
            header = struct.pack("!BBHII", 0x90, plain[1], index & 0xFFFF, struct.unpack("!I", plain[4:8])[0], out_ssrc[to])
            packet = header + struct.pack("!HHI", 0xBEDE, 1, 0x10AA0000) + plain[header_len(plain):]
            sock.sendto(tx[to].protect(packet, index) if tx[to] else packet, where[to])
            n["relayed"] += 1
    except KeyboardInterrupt:
        pass
    print("relay: " + ", ".join(f"{k} {v}" for k, v in n.items()), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
