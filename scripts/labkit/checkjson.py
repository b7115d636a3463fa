"""An independent reading of 100ms's connectivity check result as Preflight writes it
(`preflight check --json`): 100ms's field names (`isSubcribeICEConnected` as 100ms spells it),
JSON types, and units (ms timestamps, kbps bitrates, ms round-trip time). Used by the Swift tests
(`python3 -m labkit.checkjson < result.json`) and by `lab check`."""

import json
import sys

STATES = ["starting", "initFetched", "signallingConnected", "iceEstablished", "mediaCaptured", "mediaPublished", "completed"]
STATS_KEYS = {"bytesSent", "bytesReceived", "packetsReceived", "packetsLost", "bitrateSent", "bitrateReceived", "roundTripTime"}


def problems(d: dict) -> list:
    """What is wrong with a result; empty when it reads as 100ms's."""
    errors = []

    def number(value) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    def integer(value) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    if not integer(d.get("testTimestamp")) or not 1.5e12 < d["testTimestamp"] < 4e12:
        errors.append("testTimestamp is not milliseconds since the epoch")
    if d.get("state") not in STATES:
        errors.append(f"state {d.get('state')!r}")
    signalling = d.get("signallingReport") or {}
    for key in ("isConnected", "isInitConnected"):
        if not isinstance(signalling.get(key), bool):
            errors.append(f"signallingReport.{key}")
    if not isinstance(signalling.get("websocketUrl"), str):
        errors.append("signallingReport.websocketUrl")
    media = d.get("mediaServerReport") or {}
    for key in ("isPublishICEConnected", "isSubcribeICEConnected"):
        if not isinstance(media.get(key), bool):
            errors.append(f"mediaServerReport.{key}")
    if "isSubscribeICEConnected" in media:
        errors.append("isSubscribeICEConnected: 100ms spells it isSubcribeICEConnected")
    score = media.get("connectionQualityScore")
    if not number(score) or not 0 <= score <= 5:
        errors.append(f"connectionQualityScore {score!r} is not 0-5")
    stats = media.get("stats") or {}
    for kind in ("audio", "video"):
        s = stats.get(kind) or {}
        missing = STATS_KEYS - set(s)
        if missing:
            errors.append(f"stats.{kind} lacks {sorted(missing)}")
            continue
        for key in ("bytesSent", "bytesReceived", "packetsReceived", "packetsLost"):
            if not integer(s[key]) or s[key] < 0:
                errors.append(f"stats.{kind}.{key} is not a count")
        for key in ("bitrateSent", "bitrateReceived", "roundTripTime"):
            if not number(s[key]) or s[key] < 0:
                errors.append(f"stats.{kind}.{key} is not a non-negative number")
        # kbps: bytes × 8 / seconds / 1000 over the media's duration.
        duration = d.get("mediaDuration") or 0
        if duration > 1 and s["bytesSent"] > 0:
            kbps = s["bytesSent"] * 8 / duration / 1000
            if abs(s["bitrateSent"] - kbps) > 0.02 * kbps + 0.5:
                errors.append(f"stats.{kind}.bitrateSent {s['bitrateSent']} is not kbps ({kbps:.1f})")
        # Milliseconds: a round trip under 1 would be seconds on any real path; loopback is the exception.
        if s["roundTripTime"] > 10_000:
            errors.append(f"stats.{kind}.roundTripTime {s['roundTripTime']} is not milliseconds")
    for key in ("publishIceCandidatesGathered", "subscribeIceCandidatesGathered"):
        candidates = media.get(key)
        if not isinstance(candidates, list) or not all(isinstance(c, dict) and "candidateType" in c and "ip" in c for c in candidates):
            errors.append(f"mediaServerReport.{key}")
    for key in ("publishICECandidatePairSelected", "subscribeICECandidatePairSelected"):
        pair = media.get(key)
        if pair is not None and not ({"localCandidate", "remoteCandidate"} <= set(pair)):
            errors.append(f"mediaServerReport.{key}")
    devices = d.get("deviceTestReport") or {}
    for device in ("camera", "microphone", "speaker"):
        outcome = devices.get(device) or {}
        if outcome.get("outcome") not in ("passed", "failed", "notTested") or not isinstance(outcome.get("tested"), bool):
            errors.append(f"deviceTestReport.{device}")
    if not isinstance(d.get("errors"), list) or not all(integer(e.get("code")) and isinstance(e.get("message"), str) for e in d["errors"]):
        errors.append("errors are not {code, message}")
    return errors


if __name__ == "__main__":
    found = problems(json.load(sys.stdin))
    print("ok" if not found else "; ".join(found))
