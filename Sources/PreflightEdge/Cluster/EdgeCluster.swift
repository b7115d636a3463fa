import Foundation
import NIOCore
import PreflightCore
import Synchronization

/// This edge's view of the other edges that share its database: where each registered identity
/// has devices (a replica of the registrations table, kept by the edges' announcements and
/// reloaded from the table), and the queue of what this edge tells the others
/// (``ClusterMessage``, sent by ``PostgresClusterBus``). Nothing here waits.
final class EdgeCluster: Sendable {
    /// This edge's name (``EdgeConfiguration/edgeName``), unique among the edges.
    let edgeName: String
    private let directory = Mutex(Directory())
    /// What the bus sends, in order (``takeOutgoing()``), and its wake-up when there is some.
    private let outgoing = Mutex<[ClusterMessage]>([])
    private let wakeUp: AsyncStream<Void>.Continuation
    /// Yields when messages wait in ``takeOutgoing()``.
    let outgoingReady: AsyncStream<Void>
    /// Messages refused: over the outgoing queue's bound, or received invalid, expired or not for
    /// this edge.
    private let counters = Mutex(Counters())

    struct Counters: Sendable, Hashable {
        var sent = 0
        var dropped = 0
        var received = 0
        var refused = 0
        var expired = 0
        /// Notifications that were not a valid message (or named no mailbox row of this edge).
        var malformed = 0
    }

    /// Registrations of other edges: account + identity → session → its edge and when it was
    /// announced (0: loaded from the table).
    private struct Directory {
        var entries: [String: [String: (edge: String, announced: Int64)]] = [:]
        var count = 0
    }

    /// Messages waiting to be sent at most; beyond, new ones are dropped and counted (the
    /// database is down or far behind: a call's timeouts cover what is lost).
    static let maximumQueuedMessages = 4096
    /// Registrations of other edges this edge remembers at most.
    static let maximumRemoteRegistrations = 100_000

    /// This edge's media address as the other edges reach it (``ClusterMessage/TrunkOffer``),
    /// once the media socket is bound.
    private let trunk = Mutex<SocketAddress?>(nil)

    /// This edge's media address for trunks.
    var trunkAddress: SocketAddress? {
        get { trunk.withLock { $0 } }
        set { trunk.withLock { $0 = newValue } }
    }

    init(edgeName: String) {
        self.edgeName = edgeName
        (outgoingReady, wakeUp) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    var counts: Counters { counters.withLock { $0 } }

    /// Milliseconds since the Unix epoch.
    static func unixMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    // MARK: Sending

    /// Queues a message for the other edges.
    func send(_ message: ClusterMessage) {
        let queued = outgoing.withLock { queue in
            guard queue.count < Self.maximumQueuedMessages else { return false }
            queue.append(message)
            return true
        }
        counters.withLock { if queued { $0.sent += 1 } else { $0.dropped += 1 } }
        if queued { wakeUp.yield() }
    }

    /// The messages waiting to be sent, oldest first; the queue is emptied.
    func takeOutgoing() -> [ClusterMessage] {
        outgoing.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }

    /// Acts on a message from another edge: a registration goes to the replica, the rest to the
    /// router. What is not for this edge, or expired, is dropped and counted.
    func receive(_ message: ClusterMessage, router: CallRouter, now: Int64) {
        guard admits(message, now: now) else { return }
        switch message.kind {
        case .registered, .unregistered: apply(message)
        default: router.receive(message)
        }
    }

    /// A message of `kind` from this edge to `edge` (every edge when `nil`), expiring after its
    /// kind's time to live.
    func message(_ kind: ClusterMessage.Kind, to edge: String?, callSid: String? = nil, session: String? = nil) -> ClusterMessage {
        ClusterMessage(kind, from: edgeName, to: edge, now: Self.unixMilliseconds(), callSid: callSid, session: session)
    }

    /// Tells every edge that `party` registered here.
    func announceRegistered(_ party: CallRouter.Party) {
        var message = message(.registered, to: nil, session: party.sessionId)
        message.account = party.account
        message.identity = party.identity
        send(message)
    }

    /// Tells every edge that `party` is no longer registered here.
    func announceUnregistered(_ party: CallRouter.Party) {
        var message = message(.unregistered, to: nil, session: party.sessionId)
        message.account = party.account
        message.identity = party.identity
        send(message)
    }

    // MARK: Receiving

    /// Whether a received message is for this edge and still worth acting on: counted when not.
    func admits(_ message: ClusterMessage, now: Int64) -> Bool {
        counters.withLock { counters in
            counters.received += 1
            guard message.from != edgeName, message.to == nil || message.to == edgeName else {
                counters.refused += 1
                return false
            }
            guard message.expiresAt >= now else {
                counters.expired += 1
                return false
            }
            return true
        }
    }

    /// A notification that was not a valid message.
    func countMalformed() {
        counters.withLock { $0.malformed += 1 }
    }

    /// A registration announced by another edge.
    func apply(_ message: ClusterMessage) {
        guard let session = message.session, let account = message.account, let identity = message.identity else { return }
        let key = CallRouter.key(account, identity)
        directory.withLock { directory in
            switch message.kind {
            case .registered:
                guard directory.entries[key]?[session] == nil else { return }
                guard directory.count < Self.maximumRemoteRegistrations else { return }
                directory.entries[key, default: [:]][session] = (message.from, Self.unixMilliseconds())
                directory.count += 1
            case .unregistered:
                guard directory.entries[key]?[session]?.edge == message.from else { return }
                directory.entries[key]?.removeValue(forKey: session)
                if directory.entries[key]?.isEmpty == true { directory.entries.removeValue(forKey: key) }
                directory.count -= 1
            default:
                break
            }
        }
    }

    /// Replaces the replica with the registrations table's rows of the other edges (a reload:
    /// announcements lost meanwhile, registrations of edges that died and expired). What was
    /// announced since `since` (milliseconds since the Unix epoch, when the rows were read) is
    /// kept: the rows may predate it.
    func replaceRegistrations(_ rows: [(session: String, account: String, identity: String, edge: String)], announcedSince since: Int64) {
        directory.withLock { directory in
            var fresh = Directory()
            for (key, sessions) in directory.entries {
                for (session, entry) in sessions where entry.announced >= since {
                    fresh.entries[key, default: [:]][session] = entry
                    fresh.count += 1
                }
            }
            for row in rows where row.edge != edgeName && fresh.count < Self.maximumRemoteRegistrations {
                let key = CallRouter.key(row.account, row.identity)
                guard fresh.entries[key]?[row.session] == nil else { continue }
                fresh.entries[key, default: [:]][row.session] = (row.edge, 0)
                fresh.count += 1
            }
            directory = fresh
        }
    }

    /// The other edges where `identity` of `account` has registered devices, by name.
    func edges(registering account: String, identity: String) -> [String] {
        directory.withLock { directory in
            Array(Set(directory.entries[CallRouter.key(account, identity)]?.values.map(\.edge) ?? [])).sorted()
        }
    }

    /// Whether `identity` of `account` has a registered device on another edge.
    func isRegisteredElsewhere(account: String, identity: String) -> Bool {
        directory.withLock { !($0.entries[CallRouter.key(account, identity)]?.isEmpty ?? true) }
    }

    /// Registrations of other edges this edge knows.
    var remoteRegistrationCount: Int { directory.withLock { $0.count } }
}
