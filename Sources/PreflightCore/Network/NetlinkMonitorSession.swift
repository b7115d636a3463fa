/// The Linux network monitor's protocol, sans-IO: which dumps to ask the kernel for, what the
/// answers and the multicast notifications change, and when the host's networks changed.
///
/// - ``start()`` asks for every link; when that dump is done, for every address; then the
///   session is ``isReady`` and gives its first ``NetworkSnapshot``.
/// - ``receive(_:)`` takes each datagram from the kernel: dump answers and the notifications of
///   the groups the socket joined (`RTMGRP_LINK`, `RTMGRP_IPV4_IFADDR`, `RTMGRP_IPV6_IFADDR`).
///   After each datagram, once ready, a snapshot goes out if the usable networks differ from the
///   last one given.
/// - ``lostMessages()``: the kernel dropped notifications (`ENOBUFS`), or a datagram did not
///   parse: the table is forgotten and both dumps run again (after the one in flight ends: a
///   socket runs one dump at a time). A dump refused as busy (`EBUSY`) is asked again.
///
/// The driver sends what ``takeOutputs()`` says and delivers the snapshots.
public struct NetlinkMonitorSession: Sendable {
    /// What the session asks of its driver.
    public enum Output: Sendable, Hashable {
        /// Send this request to the kernel.
        case send([UInt8])
        /// The usable networks changed (the first is the state after the first dumps).
        case snapshot(NetworkSnapshot)
    }

    enum Phase: Sendable, Hashable {
        case idle
        case dumping(NetlinkRouteMessage.Dump, sequence: UInt32)
        case ready
    }

    let classify: @Sendable (NetlinkRouteMessage.Link) -> NetworkType
    var table = NetworkInterfaceTable()
    var phase = Phase.idle
    /// A resynchronisation waits for the dump in flight.
    var resyncPending = false
    var hasBeenReady = false
    var sequence: UInt32 = 0
    var lastSnapshot: NetworkSnapshot?
    var outputs: [Output] = []
    /// How many times the table was dumped again after lost messages.
    public private(set) var resyncs = 0

    /// A session that classifies each link with `classify`.
    public init(classify: @escaping @Sendable (NetlinkRouteMessage.Link) -> NetworkType) {
        self.classify = classify
    }

    /// Whether both dumps have completed once (the snapshot is the host's state).
    public var isReady: Bool { hasBeenReady }

    /// The usable networks as the session knows them now.
    public var snapshot: NetworkSnapshot { table.snapshot }

    /// Starts the first dumps.
    public mutating func start() {
        guard phase == .idle, !hasBeenReady else { return }
        dump(.links)
    }

    /// Takes what the session asks for, oldest first.
    public mutating func takeOutputs() -> [Output] {
        defer { outputs.removeAll() }
        return outputs
    }

    /// A datagram from the kernel.
    public mutating func receive(_ datagram: ArraySlice<UInt8>) {
        let messages: [NetlinkRouteMessage]
        do throws(PreflightError) {
            messages = try NetlinkRouteMessage.parse(datagram)
        } catch {
            lostMessages()
            return
        }
        for message in messages {
            switch message {
            case .done(let sequence):
                dumpEnded(sequence: sequence, busy: false)
            case .error(let errno, let sequence):
                // EBUSY (16): another dump ran; anything else ends the dump as it stands.
                dumpEnded(sequence: sequence, busy: errno == 16)
            default:
                table.apply(message, classify: classify)
            }
        }
        publish()
    }

    /// The kernel dropped messages (`ENOBUFS`): dump everything again.
    public mutating func lostMessages() {
        resyncs += 1
        if case .dumping = phase {
            resyncPending = true
        } else {
            table.reset()
            dump(.links)
        }
    }

    mutating func dumpEnded(sequence: UInt32, busy: Bool) {
        guard case .dumping(let dump, let current) = phase, sequence == current else { return }
        if busy {
            self.dump(dump)
            return
        }
        if resyncPending {
            resyncPending = false
            table.reset()
            self.dump(.links)
            return
        }
        switch dump {
        case .links:
            self.dump(.addresses)
        case .addresses:
            phase = .ready
            hasBeenReady = true
        }
    }

    mutating func dump(_ dump: NetlinkRouteMessage.Dump) {
        sequence &+= 1
        phase = .dumping(dump, sequence: sequence)
        outputs.append(.send(NetlinkRouteMessage.dumpRequest(dump, sequence: sequence)))
    }

    /// A snapshot, once ready and only when it changed; none while a resynchronisation's dumps
    /// run (the table is partial then).
    mutating func publish() {
        guard hasBeenReady, phase == .ready else { return }
        let now = table.snapshot
        guard now != lastSnapshot else { return }
        lastSnapshot = now
        outputs.append(.snapshot(now))
    }
}
