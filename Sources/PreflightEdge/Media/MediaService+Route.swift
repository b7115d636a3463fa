import NIOCore
import PreflightCore
import Synchronization

extension MediaService {
    // MARK: Receiving

    /// Where a reply goes: back to the datagram's source, or to another address (a bridge's
    /// other leg, a check's subscribe leg).
    package enum Destination {
        case source
        case address(SocketAddress)
        /// A verified address by its key: a bridged packet's other leg, sent to without a
        /// `SocketAddress` (``SourceKey/withSockAddr(_:)``).
        case peer(SourceKey)
    }

    /// Handles one datagram from `source` and returns the datagram to send back to it, if any
    /// (what a bridge forwards to another address is left out: see ``route(_:from:at:)``).
    /// - Parameter time: seconds on a monotonic clock, for the rate limit and timestamps; the
    ///   service's own clock by default (tests pass their own).
    public func handle(_ datagram: ByteBuffer, from source: SocketAddress, at time: Double? = nil) -> ByteBuffer? {
        guard let (reply, destination) = route(datagram, from: source, at: time), destination == source else { return nil }
        return reply
    }

    /// Handles one datagram from `source` and returns the datagram to send and where: back to
    /// the source (a STUN answer, an echo, an RTCP report), or, for a bridged call's RTP, to the
    /// other leg's verified address.
    /// - Parameter time: seconds on a monotonic clock, for the rate limit and timestamps; the
    ///   service's own clock by default (tests pass their own).
    public func route(_ datagram: ByteBuffer, from source: SocketAddress, at time: Double? = nil) -> (ByteBuffer, SocketAddress)? {
        var arena = ByteBuffer()
        guard let (length, destination) = route(datagram, from: source, at: time, appendingTo: &arena),
            let reply = arena.readSlice(length: length)
        else { return nil }
        return (reply, destination)
    }

    /// Handles one datagram from `source` and appends the datagram to send, if any, to `arena`:
    /// the media channel writes a whole read burst's replies from one buffer, so that an echo
    /// costs no allocation of its own.
    /// - Returns: the reply's length (its bytes end at `arena`'s writer index) and where it goes.
    public func route(
        _ datagram: ByteBuffer, from source: SocketAddress, at time: Double? = nil, appendingTo arena: inout ByteBuffer
    ) -> (length: Int, destination: SocketAddress)? {
        // Neither IPv4 nor IPv6 (a Unix domain socket): no media source.
        guard let from = DatagramSource(source) else {
            countMalformed()
            return nil
        }
        switch route(datagram, from: from, at: time, appendingTo: &arena) {
        case nil: return nil
        case (let length, .source)?: return (length, source)
        case (let length, .address(let destination))?: return (length, destination)
        case (let length, .peer(let key))?:
            // Gone since (a session closed on another thread): nothing goes out, the bytes stay
            // unsent at the end of `arena`.
            return verifiedAddress(key).map { (length, $0) }
        }
    }

    /// ``route(_:from:at:appendingTo:)`` for a source given as a ``DatagramSource``: the media
    /// threads' path, which makes no `SocketAddress` for a datagram that goes back to its source.
    /// - Parameter received: when the datagram arrived, on the service's clock (``now``), for a
    ///   caller that read the clock once for a whole read; what the edge sends still reads the
    ///   clock when it is sent. `time` (tests) stands for both.
    /// - Parameter entry: the source's entry in ``State/verified`` as ``lookUp(_:entries:)``
    ///   found it for a read burst, or -1; checked against the source before it is used.
    package func route(
        _ datagram: ByteBuffer, from source: DatagramSource, at time: Double? = nil, received: Double? = nil, entry: Int = -1,
        appendingTo arena: inout ByteBuffer
    ) -> (length: Int, destination: Destination)? {
        var datagram = datagram
        let now = time ?? received ?? self.now
        let size = datagram.readableBytes
        let kind = datagram.withUnsafeReadableBytes { PacketKind.classify($0) }
        // One lock per datagram for the rate limit, the source's budget and, for media, the
        // session's work.
        let outcome = state.withLock { state -> MediaOutcome in
            // One table search (none when the burst's look-up found the entry): the verified
            // entry holds its session's slot. What is found is changed in place: a session
            // copied out and back would copy its buffers.
            let verifiedIndex =
                state.verified.contains(entry: entry, key: source.key) ? entry : state.verified.entry(forKey: source.key)
            let slot = verifiedIndex.flatMap { index -> SessionTable.Slot? in
                let slot = Self.slot(of: &state.verified[entry: index])
                return state.sessions.contains(slot) ? slot : nil
            }
            let route = slot.map { Self.routing(of: &state.sessions[$0]) }
            // A probing client's datagrams pass its probe's byte rate; all but its uplink probe
            // packets (which the edge records and never answers) also pass the packet limit, so a
            // probe's pings are echoed no faster than an echo session's.
            if let slot, route?.probing == true {
                guard state.sessions[slot].probe?.admit(bytes: size, at: now) == true else {
                    state.counters.droppedOverProbeRate += 1
                    return .drop
                }
                // The payload type, from an RTP packet's second byte (RFC 3550 §5.1).
                let isUplinkProbePacket =
                    kind == .rtp && datagram.getInteger(at: datagram.readerIndex + 1, as: UInt8.self).map { $0 & 0x7F } == ProbePacket.payloadType
                if let verifiedIndex, !isUplinkProbePacket,
                    !state.verified[entry: verifiedIndex].rate.allow(at: now)
                {
                    state.counters.droppedRateLimited += 1
                    return .drop
                }
            } else if let verifiedIndex {
                guard state.verified[entry: verifiedIndex].rate.allow(at: now) else {
                    state.counters.droppedRateLimited += 1
                    return .drop
                }
            } else if let routes = state.trunkRoutes[source.key] {
                // Another edge's trunk: each datagram finds its call by SSRC and proves it by key.
                return trunkInbound(datagram, kind: kind, routes: routes, state: &state, at: now) ?? {
                    state.counters.droppedUnverified += 1
                    return .drop
                }()
            } else if !state.limiter.allow(source.key, at: now) {
                state.counters.droppedRateLimited += 1
                return .drop
            }
            if let verifiedIndex { state.verified[entry: verifiedIndex].budget.receive(bytes: size) }
            switch kind {
            case .stun:
                return .stun
            case .rtp, .rtcp:
                guard let verifiedIndex, let slot else {
                    state.counters.droppedUnverified += 1
                    return .drop
                }
                if kind == .rtp, route?.bridged == true, route?.checking == false {
                    // A bridged call's leg: decrypted, re-encrypted and written for the other leg
                    // in place, without a copy of its own.
                    return datagram.withUnsafeReadableBytes { bytes in
                        bridge(bytes, slot: slot, state: &state, at: now, arena: &arena)
                    }
                }
                if route?.encrypted == true {
                    // An encrypted leg: only what authenticates, once, goes on (decrypted).
                    do {
                        if let plain = try state.sessions[slot].unprotect(Array(datagram.readableBytesView), kind: kind) {
                            datagram = ByteBuffer(bytes: plain)
                        }
                    } catch {
                        state.counters.droppedUndecryptable += 1
                        return .drop
                    }
                }
                if kind == .rtp, route?.checking == true {
                    let ufrag = state.verified[entry: verifiedIndex].ufrag
                    return datagram.withUnsafeReadableBytes { bytes in
                        relayCheck(bytes, from: ufrag, source: source.key, state: &state, at: now)
                    }
                }
                return datagram.withUnsafeReadableBytes { bytes in
                    answer(
                        bytes, kind: kind, budget: &state.verified[entry: verifiedIndex].budget, session: &state.sessions[slot],
                        counters: &state.counters, recordingBytes: &state.recordingBytes, at: now, injected: time)
                }
            default:
                state.counters.droppedMalformed += 1
                return .drop
            }
        }
        let start = arena.writerIndex
        switch outcome {
        case .drop:
            return nil
        case .notify(let onRecording, let progress):
            onRecording(progress)
            return nil
        case .reply(let bytes):
            arena.writeBytes(bytes)
            return (bytes.count, .source)
        case .echo(let packet, let payload):
            let written = datagram.withUnsafeReadableBytes { bytes in
                let payload = UnsafeRawBufferPointer(rebasing: bytes[payload])
                return arena.writeWithUnsafeMutableBytes(minimumWritableBytes: EchoPacket.size(payloadCount: payload.count)) {
                    packet.write(payload: payload, to: $0) ?? 0
                }
            }
            return written > 0 ? (written, .source) : nil
        case .forward(let bytes, let destination):
            arena.writeBytes(bytes)
            return (bytes.count, .address(destination))
        case .forwarded(let length, let destination):
            return (length, .peer(destination))
        case .stun:
            guard let address = source.resolved() else {
                countMalformed()
                return nil
            }
            guard var reply = handleSTUN(datagram, from: address, key: source.key) else { return nil }
            arena.writeBuffer(&reply)
            return (arena.writerIndex - start, .source)
        }
    }

    /// Looks up a read burst's sources in ``State/verified`` and starts loading their entries
    /// and sessions into the CPU's cache, before ``route(_:from:at:received:entry:appendingTo:)``
    /// handles each datagram with the entry found (written to `entries`, -1 for none; one per
    /// source, the rest of a longer `entries` left as it was). At a
    /// thousand sessions a source's state has left the cache by its next packet: misses taken
    /// for the whole burst at once overlap, where misses taken a datagram at a time add up.
    func lookUp(_ sources: UnsafeBufferPointer<SourceKey>, entries: UnsafeMutableBufferPointer<Int>) {
        state.withLock { state in
            // Three passes, each loading what the next reads for every source at once: the
            // first bucket of each source, the entry that bucket names, then the search (found
            // in the cache) and the session the entry names.
            for (index, key) in zip(entries.indices, sources) {
                entries[index] = VerifiedTable.hash(key)
                state.verified.prefetchBucket(hash: entries[index])
            }
            for hash in entries.prefix(sources.count) { state.verified.prefetchEntry(hash: hash) }
            for (index, key) in zip(entries.indices, sources) {
                guard let entry = state.verified.entry(forKey: key, hash: entries[index]) else {
                    entries[index] = -1
                    continue
                }
                entries[index] = entry
                // Already on its way unless the key was not in its first bucket.
                state.verified.prefetch(entry: entry)
                state.sessions.prefetch(Self.slot(of: &state.verified[entry: entry]))
            }
        }
    }

    /// The address a verified session sends its media to, found by its key: for a caller that
    /// sends to `SocketAddress`es; `nil` when no live session has it as its peer now.
    func verifiedAddress(_ key: SourceKey) -> SocketAddress? {
        state.withLock { state in
            guard let entry = state.verified.entry(forKey: key) else { return nil }
            let slot = Self.slot(of: &state.verified[entry: entry])
            guard state.sessions.contains(slot), state.sessions[slot].peerKey == key else { return nil }
            return state.sessions[slot].peer
        }
    }

    /// A verified address's session slot, read without copying the entry (its ufrag).
    static func slot(of peer: inout VerifiedPeer) -> SessionTable.Slot {
        peer.session
    }

    /// What decides where a session's datagram goes, read without copying the session.
    private static func routing(of session: inout Session) -> (probing: Bool, encrypted: Bool, checking: Bool, bridged: Bool) {
        (session.probesUplink, session.isEncrypted, session.isCheck, session.application == nil)
    }

    /// What a verified test session's RTP or RTCP gets back: an echo, an RTCP report, or nothing
    /// (a recorded frame), within the source's ``SendBudget``.
    /// - Parameters: budget, session, counters, recordingBytes: the source's budget, its session
    ///   and the parts of ``State`` they change, passed apart so that each is changed in place.
    private func answer(
        _ bytes: UnsafeRawBufferPointer, kind: PacketKind, budget: inout SendBudget, session: inout Session,
        counters: inout Counters, recordingBytes: inout Int, at now: Double, injected: Double?
    ) -> MediaOutcome {
        // What a reply that the budget refuses must not have changed: the edge's stream
        // (no gap in its sequence numbers) and, for RTCP, the closed loss interval.
        let stream = (sequence: session.sequence, packets: session.packetsSent, octets: session.octetsSent)
        let uplink = kind == .rtcp ? session.uplink : nil
        var reply =
            kind == .rtp
            ? media(bytes, session: &session, counters: &counters, recordingBytes: &recordingBytes, at: now, injected: injected)
            : control(bytes, session: &session, counters: &counters, at: now, injected: injected).map { MediaOutcome.reply($0) }
        if session.isEncrypted, let plain = reply?.bytes(payloadFrom: bytes) {
            guard let protected = try? session.protect(plain, kind: kind) else {
                return .drop
            }
            reply = .reply(protected)
        }
        if let reply, case .notify = reply { return reply }
        guard let reply, let size = reply.size else {
            return .drop
        }
        guard budget.spend(bytes: size) else {
            // Not sent: the session's stream must not count the packet (no gap in its
            // sequence numbers), but what it received still counts.
            (session.sequence, session.packetsSent, session.octetsSent) = stream
            if let uplink { session.uplink = uplink }
            counters.droppedOverBudget += 1
            return .drop
        }
        if kind == .rtp { counters.packetsEchoed += 1 } else { counters.rtcpAnswered += 1 }
        return reply
    }

    enum MediaOutcome {
        case drop
        case reply([UInt8])
        /// An echo to write with its payload, the range of the received datagram it comes from.
        case echo(EchoPacket, payload: Range<Int>)
        case forward([UInt8], to: SocketAddress)
        /// A packet for another address already written to the end of the caller's buffer (its
        /// last `length` bytes): a bridged call's media.
        case forwarded(length: Int, to: SourceKey)
        case stun
        /// Nothing goes back; the session's owner is told how its recording progressed (called
        /// once the lock is released).
        case notify(@Sendable (RecordingProgress) -> Void, RecordingProgress)

        /// The bytes of a reply to the source: written out for an echo (to be encrypted).
        func bytes(payloadFrom datagram: UnsafeRawBufferPointer) -> [UInt8]? {
            switch self {
            case .reply(let bytes): return bytes
            case .echo(let packet, let payload):
                let source = UnsafeRawBufferPointer(rebasing: datagram[payload])
                return [UInt8](unsafeUninitializedCapacity: EchoPacket.size(payloadCount: source.count)) { buffer, count in
                    count = packet.write(payload: source, to: UnsafeMutableRawBufferPointer(buffer)) ?? 0
                }
            default: return nil
            }
        }

        /// The size of a reply to the source.
        var size: Int? {
            switch self {
            case .reply(let bytes): bytes.count
            case .echo(_, let payload): EchoPacket.size(payloadCount: payload.count)
            default: nil
            }
        }
    }
}
