"""rtpengine (Sipwise's media relay, Debian's `rtpengine-daemon`) as the other relay of the load
benchmark: it runs as a subprocess in userspace mode, calls are set up through its `ng` control
protocol, and the calls it relays are written as the load generator's calls file.

The ng protocol is a cookie, a space and a bencoded dictionary in one UDP datagram each way
(rtpengine's README, "The ng Control Protocol"). A call is an `offer` from the caller (the SDP
it sends) answered with the SDP for the callee, rewritten to one of rtpengine's ports, and an
`answer` from the callee answered with the SDP for the caller.

The calls file has one line per leg, legs 2k (the caller) and 2k+1 (the callee) of call k:
`RELAY_IP RELAY_PORT SEND_KEY RECEIVE_KEY CHECK` (see `setup_calls`)."""

from __future__ import annotations

import base64
import binascii
import ctypes
import os
import re
import resource
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from labkit.rtpengine_ng import NgClient, NgError, answer_message, offer_message


# --- the rtpengine process ------------------------------------------------------------------

DEFAULT_PORT_MIN = 20000  # rtpengine's media ports: 40,000 of them by default, 16,000 legs at
DEFAULT_PORT_MAX = 59999  # 2 ports each and spare (the generator's port must be outside)
OPEN_FILES = 1 << 16  # wanted RLIMIT_NOFILE: 2 sockets per leg for 16,000 legs, and spare
_PR_SET_PDEATHSIG = 1


class RtpengineError(RuntimeError):
    """rtpengine did not start (the message carries its log's tail) or misbehaved."""


def rtpengine_argv(ng_port: int, port_min: int = DEFAULT_PORT_MIN, port_max: int = DEFAULT_PORT_MAX,
                   binary: str = "rtpengine", threads: int = 1, log_level: int = 5) -> list[str]:
    """rtpengine's command line for the benchmark: one relay thread forwarding in userspace on
    127.0.0.1, nothing else running. Why each option:
    - --config-file=none: Debian's /etc/rtpengine/rtpengine.conf is read by default and sets
      table=0 (kernel forwarding), tos=184, timeout=60, HTTP and CLI listeners and a recording
      directory; none of it may leak into the measurement.
    - --foreground: no fork, so the PID we start is the process that forwards (its CPU is what
      the benchmark measures); --log-stderr with it, to our log file.
    - --table=-1: no kernel module; every packet goes through the userspace poller, the work the
      edge does too (with the module, forwarding would be softirq time charged to no process).
    - --interface=127.0.0.1, --listen-ng=127.0.0.1:PORT: loopback only.
    - --port-min/--port-max: each leg takes an even/odd pair (RTP and RTCP, even with rtcp-mux
      offered: see sockets_per_call). Each allocation starts 6-19 ports past the previous one
      (PORT_RANDOM_MIN/MAX in media_socket.c) but wraps around and fills the gaps: 1,000 calls
      fit in 4,000 ports, 1,001 do not. The generator's port must be outside the range.
    - --num-threads=1: one poller thread reads every socket, forwards, and handles ng requests:
      one relay thread against the edge's single media thread. Without it rtpengine starts
      max(4, cores) pollers.
    - --media-num-threads=0: no media-player, send-timer and codec-timer threads (they exist for
      playback and transcoding, which a relay does not do). What remains beside the poller:
      the main thread (joins the others), the signal handler, the 1 s poller timer (timeouts)
      and the ICE thread, all idle here.
    - --log-level=5 (notice): one line per new call, nothing per packet (6, info, logs each ng
      request and each call's streams when it ends).
    - --timeout/--silent-timeout/--offer-timeout=3600: a call without media for 60 s (the default
      --timeout) is deleted, and setting up thousands of calls before the load starts, or a
      pause between windows, may take that long. --final-timeout stays off (the default).
    - --delete-delay=0: a deleted call frees its ports at once (the default keeps it 30 s), so
      setups can follow each other in one rtpengine.
    - --reject-invalid-sdp: an SDP of ours that rtpengine cannot parse is an error, not a
      silently half-processed call.
    No recording (no --recording-*), no Redis, no jitter buffer, no DTMF logging, no
    --poller-per-thread (it would add a second poller)."""
    return [binary, "--config-file=none", "--foreground", "--log-stderr", "--table=-1",
            "--interface=127.0.0.1", f"--listen-ng=127.0.0.1:{ng_port}",
            f"--port-min={port_min}", f"--port-max={port_max}",
            f"--num-threads={threads}", "--media-num-threads=0", f"--log-level={log_level}",
            "--timeout=3600", "--silent-timeout=3600", "--offer-timeout=3600",
            "--delete-delay=0", "--reject-invalid-sdp"]


def _child_setup(open_files: int, cpus: set[int] | None) -> None:
    """In the child before exec: die with the parent (SIGTERM when the process that started us
    ends, however it ends), the file limit, the CPUs."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    # rtpengine raises its soft limit itself, to the largest 2^n - 1 (up to 2^20 - 1) that is
    # allowed, but only if that is above what it inherits: give it the hard limit, raised to
    # `open_files` if we may (CAP_SYS_RESOURCE), and never less than we have.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = max(open_files, soft)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, max(wanted, hard)))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(wanted, hard)), hard))
    if cpus:
        os.sched_setaffinity(0, cpus)


@dataclass
class Rtpengine:
    """A running rtpengine: `pid` is the process that forwards."""
    process: subprocess.Popen
    argv: list[str]
    ng_port: int
    port_min: int
    port_max: int
    workdir: Path
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def client(self, timeout: float = 1.0, tries: int = 3) -> NgClient:
        return NgClient(self.ng_port, timeout=timeout, tries=tries)

    def open_files_limit(self) -> int:
        """The process's RLIMIT_NOFILE (soft): how many sockets it may hold. rtpengine raises
        it to 2^20-1 itself when allowed (root with CAP_SYS_RESOURCE); without that
        capability it stays at the hard limit it inherited."""
        for line in Path(f"/proc/{self.pid}/limits").read_text().splitlines():
            if line.startswith("Max open files"):
                return int(line.split()[3])
        raise RtpengineError(f"no open-files limit in /proc/{self.pid}/limits")

    def threads(self) -> list[str]:
        """The names of its threads (comm), e.g. ["rtpengine", "signal handler", "poller timer", "ICE", "poller"]."""
        names = []
        for task in sorted(Path(f"/proc/{self.pid}/task").iterdir(), key=lambda p: int(p.name)):
            try:
                names.append((task / "comm").read_text().strip())
            except OSError:
                pass  # the thread ended
        return names

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self, timeout: float = 5.0) -> int | None:
        """SIGTERM to its process group, SIGKILL after `timeout` s; its exit status."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        return self.process.returncode

    def __enter__(self) -> Rtpengine:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def start_rtpengine(ng_port: int, port_min: int = DEFAULT_PORT_MIN, port_max: int = DEFAULT_PORT_MAX, *,
                    binary: str = "rtpengine", threads: int = 1, log_level: int = 5,
                    open_files: int = OPEN_FILES, cpus: set[int] | None = None, workdir: str | Path | None = None,
                    timeout: float = 10.0, extra_args: Iterable[str] = ()) -> Rtpengine:
    """rtpengine started with `rtpengine_argv` in its own process group (so that stopping it
    reaches any helper it may start, and a terminal's ^C to the benchmark does not reach it
    before the benchmark has read its CPU), its log in `workdir` (a new temporary directory by
    default), its file limit raised to `open_files` (as far as allowed), pinned to `cpus`
    if given, and answering ping: it has bound its ng port and is ready. Needs root. A
    temporary `workdir` is left behind on stop: its log is the post-mortem."""
    workdir = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="rtpengine-"))
    log_path = workdir / "rtpengine.log"
    argv = rtpengine_argv(ng_port, port_min, port_max, binary, threads, log_level) + list(extra_args)
    with open(log_path, "wb") as log:
        try:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, process_group=0,
                                       preexec_fn=lambda: _child_setup(open_files, cpus))
        except FileNotFoundError:
            raise RtpengineError(f"{binary} not found (Debian: apt-get install rtpengine-daemon)") from None
    engine = Rtpengine(process, argv, ng_port, port_min, port_max, workdir, log_path)
    deadline = time.monotonic() + timeout
    with NgClient(ng_port, timeout=0.2, tries=1) as client:
        while True:
            if process.poll() is not None:
                raise RtpengineError(f"rtpengine exited ({process.returncode}) at start: {' '.join(argv)}\n{engine.log_tail()}")
            try:
                client.ping()
                break
            except NgError:
                if time.monotonic() > deadline:
                    engine.stop()
                    raise RtpengineError(f"rtpengine did not answer ping on 127.0.0.1:{ng_port} within {timeout:g} s\n"
                                         f"{engine.log_tail()}") from None
                time.sleep(0.05)
    if "poller" not in engine.threads():
        engine.stop()
        raise RtpengineError(f"process {engine.pid} has no poller thread: not the forwarding rtpengine")
    return engine


def rtpengine_pid(engine: Rtpengine) -> int:
    """The PID whose CPU the benchmark measures: the process we started, which forwards
    (--foreground: no daemon fork; --num-threads=1: its one poller thread)."""
    return engine.pid


# --- calls ----------------------------------------------------------------------------------

MAX_LEGS = 16000  # the generator's limit: 127.64.0.1 .. 127.64.63.250
SUITE = "AEAD_AES_128_GCM"  # RFC 7714, the suite of both sides
MASTER_LENGTH = 28  # its master key (16 bytes) and master salt (12)
# The suite the callee answers first (see setup_calls), and its master key ‖ salt length.
DETOUR_SUITE, DETOUR_LENGTH = "AEAD_AES_256_GCM", 44
# The SDES suites rtpengine 10.5 offers; all but the two above are left out of its offers
# (SDES "no-" flags): shorter SDPs, fewer keys to generate.
RTPENGINE_SUITES = ["AEAD_AES_256_GCM", "AEAD_AES_128_GCM", "AES_256_CM_HMAC_SHA1_80", "AES_256_CM_HMAC_SHA1_32",
                    "AES_192_CM_HMAC_SHA1_80", "AES_192_CM_HMAC_SHA1_32", "AES_CM_128_HMAC_SHA1_80",
                    "AES_CM_128_HMAC_SHA1_32", "F8_128_HMAC_SHA1_80", "F8_128_HMAC_SHA1_32", "NULL_HMAC_SHA1_80",
                    "NULL_HMAC_SHA1_32"]


def sockets_per_call(rtcp_mux: bool = False) -> int:
    """rtpengine's sockets (= ports) per call: an RTP and an RTCP port per leg; with rtcp-mux
    required, the callee's leg has one, the caller's still two (it is allocated at the offer,
    before rtpengine knows whether rtcp-mux will be accepted)."""
    return 3 if rtcp_mux else 4


def capacity(engine: Rtpengine, rtcp_mux: bool = False) -> int:
    """How many calls `engine` can hold: its file limit (less some for its own files) over the
    sockets each call takes, and its port range over the ports each call takes: 4 exactly
    (pairs fill the range to the last port), or about 3.3 with rtcp-mux, whose single ports
    break up the even/odd pairs the caller's leg needs (measured: 1,193 to 1,238 calls in
    4,000 ports; 3.5 is assumed)."""
    ports = engine.port_max - engine.port_min + 1
    by_ports = int(ports / 3.5) if rtcp_mux else ports // 4
    return min((engine.open_files_limit() - 64) // sockets_per_call(rtcp_mux), by_ports)


def leg_address(leg: int) -> str:
    """The source address the generator sends leg `leg` from."""
    if not 0 <= leg < MAX_LEGS:
        raise ValueError(f"leg {leg} outside 0..{MAX_LEGS - 1}")
    return f"127.64.{leg // 250}.{1 + leg % 250}"


def party_sdp(address: str, port: int, crypto: Sequence[tuple[int, str, bytes]] = (), version: int = 1,
              session: int = 1, rtcp_mux: bool = False) -> str:
    """A party's SDP: PCMU every 20 ms from address:port, SRTP with SDES (RFC 4568) `crypto`
    lines (tag, suite, master key ‖ salt) or plain RTP without them."""
    lines = ["v=0", f"o=- {session} {version} IN IP4 {address}", "s=-", f"c=IN IP4 {address}", "t=0 0",
             f"m=audio {port} {'RTP/SAVP' if crypto else 'RTP/AVP'} 0", "a=rtpmap:0 PCMU/8000", "a=ptime:20",
             "a=sendrecv"]
    if rtcp_mux:
        lines.append("a=rtcp-mux")
    lines += [f"a=crypto:{tag} {suite} inline:{base64.b64encode(key).decode()}" for tag, suite, key in crypto]
    return "\r\n".join(lines) + "\r\n"


@dataclass
class MediaDescription:
    """What an SDP rewritten by rtpengine says: where to send, the protocol, the crypto lines."""
    address: str
    port: int
    protocol: str
    crypto: dict[int, tuple[str, bytes]]  # tag -> (suite, master key ‖ salt)


_CRYPTO = re.compile(r"a=crypto:(\d+) +(\S+) +inline:([A-Za-z0-9+/]+=*)(?:\|\S*)?(?: .*)?$")


def parse_sdp(sdp: str) -> MediaDescription:
    """The first audio section of `sdp`: its connection address (the media section's c= over
    the session's), port, protocol and SDES crypto lines (base64 with or without padding:
    rtpengine leaves it out unless told to pad)."""
    address = port = protocol = None
    crypto: dict[int, tuple[str, bytes]] = {}
    in_audio = False
    for line in sdp.splitlines():
        line = line.strip()
        if line.startswith("m="):
            if in_audio:
                break
            fields = line[2:].split()
            if len(fields) >= 3 and fields[0] == "audio":
                in_audio = True
                port, protocol = int(fields[1]), fields[2]
        elif line.startswith("c=") and (in_audio or port is None):
            fields = line[2:].split()
            if len(fields) != 3 or fields[:2] != ["IN", "IP4"]:
                raise ValueError(f"not an IPv4 connection line: {line!r}")
            address = fields[2].split("/")[0]
        elif in_audio and line.startswith("a=crypto:"):
            match = _CRYPTO.match(line)
            if not match:
                raise ValueError(f"unreadable crypto line: {line!r}")
            encoded = match.group(3).rstrip("=")
            try:
                key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
            except binascii.Error as error:
                raise ValueError(f"bad key in {line!r}: {error}") from None
            crypto[int(match.group(1))] = (match.group(2), key)
    if address is None or port is None or protocol is None:
        raise ValueError(f"no audio section with an address in the SDP:\n{sdp}")
    return MediaDescription(address, port, protocol, crypto)


def call_id(prefix: str, call: int) -> str:
    return f"{prefix}-{call}"


def _offer_flags(srtp: bool, rtcp_mux: bool) -> dict:
    flags: dict = {"ICE": "remove", "DTLS": "off"}
    if srtp:
        flags["SDES"] = [f"no-{suite}" for suite in RTPENGINE_SUITES if suite not in (SUITE, DETOUR_SUITE)]
    if rtcp_mux:
        flags["rtcp-mux"] = ["require"]
    return flags


def _calls_line(media: MediaDescription, send_key: bytes | None, receive_key: bytes | None) -> str:
    return f"{media.address} {media.port} {send_key.hex() if send_key else '-'} {receive_key.hex() if receive_key else '-'} -"


def setup_calls(client: NgClient, calls: int, generator_port: int, srtp: bool, *, window: int = 50,
                call_prefix: str = "bench", rtcp_mux: bool = False) -> list[str]:
    """Sets up `calls` calls through rtpengine and returns the calls file's lines (legs 2k and
    2k+1 of call k: `RELAY_IP RELAY_PORT SEND_KEY RECEIVE_KEY -`, keys as 56 hex digits or `-`).
    Leg i is 127.64.(i // 250).(1 + i % 250):`generator_port`; call k's id is
    `{call_prefix}-{k}`, its tags "from-k" and "to-k". Each step is pipelined over all calls,
    `window` requests in flight. On an error the calls are deleted again and it is raised.

    Plain RTP: offer (caller's RTP/AVP SDP) and answer (callee's); rtpengine forwards as is.

    SRTP (AEAD_AES_128_GCM, SDES): rtpengine must decrypt and re-encrypt every packet with keys
    that differ per side, as the edge does. Left to itself it does not: between two SDES
    parties of the same suite it offers the callee the caller's own key (the crypto lines it
    was offered come first in its offer, keys copied), answers the caller with the callee's
    key, and then forwards SRTP untouched (media_socket.c: no "recrypt" when the keys match).
    Neither `SDES-no-` nor any other 10.5 flag stops the copying (`only-` and `nonew` in
    later versions keep the offered suites too), so the keys are steered instead, in two
    offer/answer rounds:
    1. offer: the caller offers AEAD_AES_128_GCM twice, tags 1 and 2 with keys K1 and K2
       (rtpengine decrypts the caller with the first of its lines in the suite finally chosen:
       K1, the caller's send key). rtpengine offers the callee both, keys copied, and
       AEAD_AES_256_GCM with a key of its own (its other suites are left out by SDES-no-).
       answer: the callee picks AEAD_AES_256_GCM, a suite the caller did not offer, so
       rtpengine has no key to copy into its answer to the caller: it answers with
       AEAD_AES_128_GCM tag 1 and a key of its own, KE.
    2. offer again (a re-INVITE: to-tag set), the same SDP: the caller's side is settled and
       keeps KE. answer: the callee picks AEAD_AES_128_GCM tag 2 with its own key KB, so
       rtpengine sends to it with K2 (a key the caller offered, i.e. made here, but not the
       one the caller sends with).
    So the caller sends with K1 and receives with KE, the callee sends with KB and receives
    with K2: four different keys, rtpengine decrypts and re-encrypts in both directions (which
    is verified here from the SDPs, and end to end in tests/test_rtpengine.py). Ports stay
    those of the first round."""
    if not 0 < 2 * calls <= MAX_LEGS:
        raise ValueError(f"{calls} calls: 1 to {MAX_LEGS // 2}")
    ids = [call_id(call_prefix, k) for k in range(calls)]
    flags = _offer_flags(srtp, rtcp_mux)
    answer_flags = {"ICE": "remove", "DTLS": "off"}

    def caller_sdp(k: int, keys: Sequence[tuple[int, str, bytes]], version: int) -> str:
        return party_sdp(leg_address(2 * k), generator_port, keys, version, 2 * k + 1, rtcp_mux)

    def callee_sdp(k: int, keys: Sequence[tuple[int, str, bytes]], version: int) -> str:
        return party_sdp(leg_address(2 * k + 1), generator_port, keys, version, 2 * k + 2, rtcp_mux)

    try:
        if not srtp:
            offers = client.requests([offer_message(ids[k], f"from-{k}", caller_sdp(k, (), 1), **flags)
                                      for k in range(calls)], window)
            answers = client.requests([answer_message(ids[k], f"from-{k}", f"to-{k}", callee_sdp(k, (), 1), **answer_flags)
                                       for k in range(calls)], window)
            lines = []
            for k in range(calls):
                lines.append(_calls_line(parse_sdp(answers[k]["sdp"]), None, None))
                lines.append(_calls_line(parse_sdp(offers[k]["sdp"]), None, None))
            return lines

        caller_keys = [[(1, SUITE, os.urandom(MASTER_LENGTH)), (2, SUITE, os.urandom(MASTER_LENGTH))] for _ in range(calls)]
        callee_keys = [os.urandom(MASTER_LENGTH) for _ in range(calls)]
        first_offers = client.requests([offer_message(ids[k], f"from-{k}", caller_sdp(k, caller_keys[k], 1), **flags)
                                        for k in range(calls)], window)
        detours = []
        for k in range(calls):
            offered = parse_sdp(first_offers[k]["sdp"]).crypto
            tags = [tag for tag, (suite, _) in offered.items() if suite == DETOUR_SUITE]
            if not tags:
                raise RtpengineError(f"rtpengine offered no {DETOUR_SUITE} for call {k}: {sorted(offered.items())}")
            detours.append(answer_message(ids[k], f"from-{k}", f"to-{k}",
                                          callee_sdp(k, [(tags[0], DETOUR_SUITE, os.urandom(DETOUR_LENGTH))], 1),
                                          **answer_flags))
        client.requests(detours, window)
        offers = client.requests([offer_message(ids[k], f"from-{k}", caller_sdp(k, caller_keys[k], 2),
                                                **{"to-tag": f"to-{k}", **flags}) for k in range(calls)], window)
        answers = client.requests([answer_message(ids[k], f"from-{k}", f"to-{k}",
                                                  callee_sdp(k, [(2, SUITE, callee_keys[k])], 2), **answer_flags)
                                   for k in range(calls)], window)
        lines = []
        for k in range(calls):
            to_callee, to_caller = parse_sdp(offers[k]["sdp"]), parse_sdp(answers[k]["sdp"])
            caller_send, caller_second = caller_keys[k][0][2], caller_keys[k][1][2]
            if to_callee.crypto.get(2) != (SUITE, caller_second):
                raise RtpengineError(f"call {k}: rtpengine's re-offer to the callee lost the caller's tag 2: "
                                     f"{sorted(to_callee.crypto)}")
            if list(to_caller.crypto) != [1] or to_caller.crypto[1][0] != SUITE:
                raise RtpengineError(f"call {k}: rtpengine answered the caller with {to_caller.crypto}, not {SUITE} tag 1")
            rtpengine_key = to_caller.crypto[1][1]
            if len(rtpengine_key) != MASTER_LENGTH or rtpengine_key in (caller_send, caller_second, callee_keys[k]):
                raise RtpengineError(f"call {k}: rtpengine answered the caller with a key of a party: it would pass SRTP through")
            lines.append(_calls_line(to_caller, caller_send, rtpengine_key))
            lines.append(_calls_line(to_callee, callee_keys[k], caller_second))
        return lines
    except BaseException as error:
        try:
            teardown_calls(client, calls, window=window, call_prefix=call_prefix)
        except NgError:
            pass  # rtpengine is gone or deaf: the error that matters is the one raised
        if isinstance(error, NgError) and "Ran out of ports" in error.reason:
            # Its port range or its file limit (the log says which: "Too many open files").
            raise RtpengineError(f"{error}: {calls} calls take {calls * sockets_per_call(rtcp_mux)} sockets; "
                                 f"see capacity() and rtpengine's log") from error
        raise


def teardown_calls(client: NgClient, calls: int, *, window: int = 50, call_prefix: str = "bench") -> int:
    """Deletes calls 0..calls-1 of `call_prefix`; how many existed. A call that is not there
    (never set up, or already deleted) is no error, as for rtpengine (it answers ok with the
    warning "Call-ID not found or tags didn't match"): this is also the cleanup after a failed
    setup."""
    replies = client.requests([{"command": "delete", "call-id": call_id(call_prefix, k)} for k in range(calls)],
                              window, check=False)
    return sum(1 for reply in replies if reply.get("result") == "ok" and "not found" not in str(reply.get("warning", "")))


def write_calls_file(path: str | Path, lines: Sequence[str]) -> Path:
    path = Path(path)
    path.write_text("".join(line + "\n" for line in lines))
    return path
