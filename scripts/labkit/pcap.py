"""A reader for classic pcap files (tcpdump -w), microsecond or nanosecond timestamps, Ethernet
or Linux cooked link types; yields the IPv4/UDP datagrams in them."""

from __future__ import annotations

import dataclasses
import hashlib
import struct
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class UDPDatagram:
    time_ns: int
    src: str
    sport: int
    dst: str
    dport: int
    payload: bytes

    @property
    def key(self) -> str:
        """The payload's hash, the same as the delayer's log uses."""
        return hashlib.blake2b(self.payload, digest_size=8).hexdigest()


class PcapError(Exception):
    pass


def read_udp(path: Path) -> list[UDPDatagram]:
    data = Path(path).read_bytes()
    if len(data) < 24:
        raise PcapError(f"{path}: not a pcap file (only {len(data)} bytes)")
    magic = data[:4]
    if magic == b"\xd4\xc3\xb2\xa1":
        endian, nano = "<", False
    elif magic == b"\x4d\x3c\xb2\xa1":
        endian, nano = "<", True
    elif magic == b"\xa1\xb2\xc3\xd4":
        endian, nano = ">", False
    elif magic == b"\xa1\xb2\x3c\x4d":
        endian, nano = ">", True
    else:
        raise PcapError(f"{path}: unknown pcap magic {magic.hex()}")
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    offset = 24
    out: list[UDPDatagram] = []
    while offset + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack(endian + "IIII", data[offset:offset + 16])
        offset += 16
        frame = data[offset:offset + caplen]
        offset += caplen
        if len(frame) < caplen:
            break  # a capture cut short by a stop: the last record is incomplete
        if linktype == 1:  # Ethernet
            if len(frame) < 14 or frame[12:14] != b"\x08\x00":
                continue
            ip = frame[14:]
        elif linktype == 113:  # Linux cooked (SLL)
            if len(frame) < 16 or frame[14:16] != b"\x08\x00":
                continue
            ip = frame[16:]
        elif linktype in (101, 12, 228):  # raw IPv4
            ip = frame
        else:
            raise PcapError(f"{path}: link type {linktype} not supported")
        if len(ip) < 28 or ip[0] >> 4 != 4 or ip[9] != 17:
            continue
        ihl = (ip[0] & 0x0F) * 4
        total = struct.unpack("!H", ip[2:4])[0]
        udp = ip[ihl:total]
        if len(udp) < 8:
            continue
        sport, dport = struct.unpack("!HH", udp[:4])
        t = sec * 1_000_000_000 + (frac if nano else frac * 1000)
        out.append(UDPDatagram(t, ".".join(map(str, ip[12:16])), sport, ".".join(map(str, ip[16:20])), dport, bytes(udp[8:])))
    return out
