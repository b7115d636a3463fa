"""rtpengine's `ng` control protocol: bencoding (strict and bounded: replies come from a socket)
and a UDP client. A request is a cookie, a space and a bencoded dictionary in one datagram; the
reply carries the same cookie (rtpengine's README, "The ng Control Protocol")."""

from __future__ import annotations

import re
import secrets
import select
import socket
import time
from collections.abc import Sequence

# --- bencode --------------------------------------------------------------------------------

MAX_DEPTH = 32  # nested lists/dicts; ng messages nest 3 deep at most
MAX_INTEGER_DIGITS = 20  # 64-bit integers and their sign
MAX_MESSAGE = 65535  # one UDP datagram

BValue = int | bytes | str | list | tuple | dict


def bencode(value: BValue) -> bytes:
    """The bencoding of `value` (dict, list/tuple, int, bytes, str as UTF-8). Dictionary keys
    are sorted as the spec asks (rtpengine does not care, but a canonical form keeps requests
    comparable). `bool` is refused: it is an int in Python, and the ng protocol has no booleans
    (its flags are strings), so True would silently become `i1e`."""
    out: list[bytes] = []
    _encode(value, out, 0)
    return b"".join(out)


def _encode(value: BValue, out: list[bytes], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ValueError(f"bencode: nested deeper than {MAX_DEPTH}")
    if isinstance(value, bool):
        raise TypeError("bencode: booleans have no encoding (use a string or 0/1)")
    if isinstance(value, int):
        out.append(b"i%de" % value)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        out.append(b"%d:" % len(data))
        out.append(data)
    elif isinstance(value, str):
        _encode(value.encode(), out, depth)
    elif isinstance(value, (list, tuple)):
        out.append(b"l")
        for item in value:
            _encode(item, out, depth + 1)
        out.append(b"e")
    elif isinstance(value, dict):
        keys: dict[bytes, BValue] = {}
        for key, item in value.items():
            if isinstance(key, str):
                key = key.encode()
            if not isinstance(key, bytes):
                raise TypeError(f"bencode: dictionary key {key!r} is not a string")
            if key in keys:
                raise ValueError(f"bencode: duplicate dictionary key {key!r}")
            keys[key] = item
        out.append(b"d")
        for key in sorted(keys):
            _encode(key, out, depth + 1)
            _encode(keys[key], out, depth + 1)
        out.append(b"e")
    else:
        raise TypeError(f"bencode: cannot encode {type(value).__name__}")


def bdecode(data: bytes | bytearray | memoryview, max_length: int = MAX_MESSAGE) -> BValue:
    """The value bencoded in `data`, strings as bytes and dictionaries keyed by bytes. Strict,
    because the bytes come from a socket: exactly one value and nothing after it, integers
    without leading zeros or `-0`, string lengths within the data, string keys, no duplicate
    keys, nesting at most MAX_DEPTH deep (the recursion is bounded by that, not by the input),
    input at most `max_length` bytes. Anything else raises ValueError. Dictionary keys need
    not be sorted: rtpengine's README says it does not sort them."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("bdecode: input must be bytes")
    data = bytes(data)
    if len(data) > max_length:
        raise ValueError(f"bdecode: {len(data)} bytes, more than {max_length}")
    value, end = _decode(data, 0, 0)
    if end != len(data):
        raise ValueError(f"bdecode: trailing data at offset {end}")
    return value


_INTEGER = re.compile(rb"i(-?(?:0|[1-9][0-9]*))e")
_LENGTH = re.compile(rb"(0|[1-9][0-9]*):")


def _decode(data: bytes, at: int, depth: int) -> tuple[BValue, int]:
    if depth > MAX_DEPTH:
        raise ValueError(f"bdecode: nested deeper than {MAX_DEPTH}")
    if at >= len(data):
        raise ValueError("bdecode: truncated")
    lead = data[at:at + 1]
    if lead == b"i":
        match = _INTEGER.match(data, at, min(len(data), at + MAX_INTEGER_DIGITS + 3))
        if not match or match.group(1) == b"-0":
            raise ValueError(f"bdecode: malformed integer at offset {at}")
        return int(match.group(1)), match.end()
    if lead.isdigit():
        match = _LENGTH.match(data, at, min(len(data), at + 12))
        if not match:
            raise ValueError(f"bdecode: malformed string length at offset {at}")
        length = int(match.group(1))
        start = match.end()
        if start + length > len(data):
            raise ValueError(f"bdecode: string at offset {at} runs past the end")
        return data[start:start + length], start + length
    if lead == b"l":
        items: list[BValue] = []
        at += 1
        while True:
            if at >= len(data):
                raise ValueError("bdecode: unterminated list")
            if data[at:at + 1] == b"e":
                return items, at + 1
            item, at = _decode(data, at, depth + 1)
            items.append(item)
    if lead == b"d":
        entries: dict[bytes, BValue] = {}
        at += 1
        while True:
            if at >= len(data):
                raise ValueError("bdecode: unterminated dictionary")
            if data[at:at + 1] == b"e":
                return entries, at + 1
            if not data[at:at + 1].isdigit():
                raise ValueError(f"bdecode: dictionary key at offset {at} is not a string")
            key, at = _decode(data, at, depth + 1)
            if key in entries:
                raise ValueError(f"bdecode: duplicate dictionary key {key!r}")
            entries[key], at = _decode(data, at, depth + 1)
    raise ValueError(f"bdecode: unexpected byte {lead!r} at offset {at}")


def _text(value: BValue) -> object:
    """A decoded ng reply with its strings as str (ng strings are ASCII: SDP, tags, reasons)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list):
        return [_text(item) for item in value]
    if isinstance(value, dict):
        return {key.decode("utf-8", "replace"): _text(item) for key, item in value.items()}
    return value


# --- the ng control protocol ----------------------------------------------------------------

class NgError(RuntimeError):
    """rtpengine refused a request (`result` not ok: `reason` is its `error-reason`) or did not
    answer it."""

    def __init__(self, command: str, reason: str, reply: dict | None = None):
        super().__init__(f"rtpengine {command}: {reason}")
        self.command, self.reason, self.reply = command, reason, reply


class NgClient:
    """A client of rtpengine's ng port over UDP. Each request carries a fresh random cookie
    and its reply is matched by it, so requests can be pipelined (`requests`) and late
    duplicates ignored. A request unanswered after `timeout` s is sent again with the same
    cookie (rtpengine caches replies by cookie, so a retransmitted offer is not a second offer)
    up to `tries` times in all."""

    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 1.0, tries: int = 3):
        self.address = (host, port)
        self.timeout, self.tries = timeout, tries
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # Replies to 50 pipelined offers are 50 SDPs: room for them while we are busy sending.
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 21)
        self.sock.connect(self.address)

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> NgClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def request(self, message: dict, check: bool = True) -> dict:
        """rtpengine's reply to one message (a dict with "command"), its strings as str."""
        return self.requests([message], check=check)[0]

    def requests(self, messages: Sequence[dict], window: int = 50, check: bool = True) -> list[dict]:
        """The replies to `messages`, in their order, with at most `window` unanswered at a
        time: one round trip each would make thousands of calls take seconds, and an unbounded
        burst would overflow the socket buffers (rtpengine's or ours) and cost retransmissions.
        With `check`, the first reply whose result is not ok raises NgError (the requests
        before it have taken effect)."""
        if window < 1:
            raise ValueError(f"window {window}: at least 1")
        encoded = [bencode(m) for m in messages]
        replies: list[dict | None] = [None] * len(messages)
        pending: dict[bytes, list] = {}  # cookie -> [index, datagram, deadline, tries]
        following = 0
        answered = 0
        while answered < len(messages):
            now = time.monotonic()
            while following < len(messages) and len(pending) < window:
                cookie = secrets.token_hex(8).encode()
                datagram = cookie + b" " + encoded[following]
                self._send(datagram, messages[following])
                pending[cookie] = [following, datagram, now + self.timeout, 1]
                following += 1
            soonest = min(entry[2] for entry in pending.values())
            readable, _, _ = select.select([self.sock], [], [], max(0.0, soonest - time.monotonic()))
            if readable:
                while True:
                    try:
                        data = self.sock.recv(MAX_MESSAGE + 64, socket.MSG_DONTWAIT)
                    except (BlockingIOError, InterruptedError):
                        break
                    except ConnectionRefusedError:
                        raise NgError(str(messages[0].get("command")), self._refused()) from None
                    cookie, _, body = data.partition(b" ")
                    entry = pending.pop(cookie, None)
                    if entry is None:
                        continue  # the reply to a retransmission whose first reply came
                    index = entry[0]
                    try:
                        reply = _text(bdecode(body))
                    except ValueError as error:
                        raise NgError(str(messages[index].get("command")), f"undecodable reply ({error})") from None
                    if not isinstance(reply, dict):
                        raise NgError(str(messages[index].get("command")), f"reply is not a dictionary: {reply!r}")
                    replies[index] = reply
                    answered += 1
                    if check:
                        _check(messages[index], reply)
            now = time.monotonic()
            for cookie, entry in pending.items():
                if entry[2] <= now:
                    if entry[3] >= self.tries:
                        command = str(messages[entry[0]].get("command"))
                        raise NgError(command, f"no reply from {self.address[0]}:{self.address[1]} after {self.tries} tries "
                                               f"of {self.timeout:g} s")
                    self._send(entry[1], messages[entry[0]])
                    entry[2], entry[3] = now + self.timeout, entry[3] + 1
        return replies  # type: ignore[return-value]

    def _send(self, datagram: bytes, message: dict) -> None:
        try:
            self.sock.send(datagram)
        except ConnectionRefusedError:  # an ICMP port unreachable from an earlier datagram
            raise NgError(str(message.get("command")), self._refused()) from None

    def _refused(self) -> str:
        return f"nothing listens on {self.address[0]}:{self.address[1]} (ICMP port unreachable)"

    def ping(self) -> None:
        self.request({"command": "ping"})

    def offer(self, call_id: str, from_tag: str, sdp: str, **options) -> dict:
        """The offer from `from_tag`; the reply's "sdp" is for the callee."""
        return self.request(offer_message(call_id, from_tag, sdp, **options))

    def answer(self, call_id: str, from_tag: str, to_tag: str, sdp: str, **options) -> dict:
        """The callee's (`to_tag`) answer; the reply's "sdp" is for the caller."""
        return self.request(answer_message(call_id, from_tag, to_tag, sdp, **options))

    def delete(self, call_id: str, from_tag: str | None = None) -> dict:
        message = {"command": "delete", "call-id": call_id}
        if from_tag:
            message["from-tag"] = from_tag
        return self.request(message)

    def query(self, call_id: str) -> dict:
        """rtpengine's view of a call: its tags, streams and the packets it counted."""
        return self.request({"command": "query", "call-id": call_id})


def _check(message: dict, reply: dict) -> None:
    result = reply.get("result")
    expected = "pong" if message.get("command") == "ping" else "ok"
    if result != expected:
        reason = reply.get("error-reason") or f"result {result!r}"
        raise NgError(str(message.get("command")), f"{reason} (call-id {message.get('call-id', '-')})", reply)


def offer_message(call_id: str, from_tag: str, sdp: str, **options) -> dict:
    return {"command": "offer", "call-id": call_id, "from-tag": from_tag, "sdp": sdp, **options}


def answer_message(call_id: str, from_tag: str, to_tag: str, sdp: str, **options) -> dict:
    return {"command": "answer", "call-id": call_id, "from-tag": from_tag, "to-tag": to_tag, "sdp": sdp, **options}
