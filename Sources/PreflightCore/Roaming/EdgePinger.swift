/// Round-trip times to several edges' media ports by STUN Binding pings (RFC 8489 §6: a plain
/// Binding request, answered by any STUN server, the edge's ICE-lite port among them). Sans-IO:
/// the driver sends the datagrams ``nextRound(at:)`` gives, hands back what arrives with
/// ``receive(_:from:at:)``, and reads the medians. Only a Binding success with the transaction
/// ID of a ping sent to that edge counts, once.
public struct EdgePinger: Sendable {
    /// A datagram to send.
    public struct Ping: Sendable, Hashable {
        /// The edge's index.
        public var edge: Int
        /// The Binding request.
        public var bytes: [UInt8]
    }

    /// Pings sent to each edge in all.
    public let pingsPerEdge: Int
    private var pending: [STUNTransactionID: (edge: Int, sent: Double)] = [:]
    private var samples: [[Double]]
    private var sentCounts: [Int]

    /// A pinger for `edges` edges.
    /// - Parameter pingsPerEdge: 1–20; 5 by default.
    public init(edges: Int, pingsPerEdge: Int = 5) {
        self.pingsPerEdge = min(max(pingsPerEdge, 1), 20)
        samples = Array(repeating: [], count: max(edges, 0))
        sentCounts = Array(repeating: 0, count: max(edges, 0))
    }

    /// Whether every ping has been sent.
    public var isSendingDone: Bool { sentCounts.allSatisfy { $0 >= pingsPerEdge } }

    /// Whether every ping sent has been answered.
    public var isComplete: Bool { isSendingDone && pending.isEmpty }

    /// One ping to each edge, sent at `time` (seconds on a monotonic clock); none once all are out.
    public mutating func nextRound(at time: Double) -> [Ping] {
        var pings: [Ping] = []
        for edge in sentCounts.indices where sentCounts[edge] < pingsPerEdge {
            let id = STUNTransactionID.random()
            guard let bytes = try? STUNMessage(type: .bindingRequest, transactionID: id, attributes: []).encoded(fingerprint: true) else {
                continue
            }
            pending[id] = (edge, time)
            sentCounts[edge] += 1
            pings.append(Ping(edge: edge, bytes: bytes))
        }
        return pings
    }

    /// A datagram from edge `edge`'s media address, received at `time`.
    /// - Returns: whether it answered one of that edge's pings (first answer only).
    @discardableResult
    public mutating func receive(_ bytes: [UInt8], from edge: Int, at time: Double) -> Bool {
        receive(bytes, fromAnyOf: [edge], at: time)
    }

    /// A datagram from an address that is the media address of `edges` (two URLs may name the
    /// same edge), received at `time`: the transaction ID tells which ping it answers.
    /// - Returns: whether it answered one of those edges' pings (first answer only).
    @discardableResult
    public mutating func receive(_ bytes: [UInt8], fromAnyOf edges: Set<Int>, at time: Double) -> Bool {
        guard let message = try? STUNMessage(decoding: bytes), message.type == .bindingSuccess,
            let ping = pending[message.transactionID], edges.contains(ping.edge), time >= ping.sent
        else { return false }
        pending.removeValue(forKey: message.transactionID)
        samples[ping.edge].append((time - ping.sent) * 1000)
        return true
    }

    /// Pings sent to `edge`.
    public func sent(_ edge: Int) -> Int { sentCounts.indices.contains(edge) ? sentCounts[edge] : 0 }

    /// Pings `edge` answered.
    public func answered(_ edge: Int) -> Int { samples.indices.contains(edge) ? samples[edge].count : 0 }

    /// The median RTT of `edge`'s answered pings, ms; `nil` when none was answered.
    public func medianRTT(_ edge: Int) -> Double? {
        guard samples.indices.contains(edge), !samples[edge].isEmpty else { return nil }
        let sorted = samples[edge].sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The index of the lowest RTT (the first of equals); `nil` when none has one.
    public static func choose(_ rtts: [Double?]) -> Int? {
        rtts.indices.filter { rtts[$0] != nil }.min { (rtts[$0] ?? .infinity) < (rtts[$1] ?? .infinity) }
    }
}
