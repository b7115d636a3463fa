/// What the edge may still send to one address: never more datagrams than it received from that
/// address, and never more bytes than it received plus ``allowancePerDatagram`` for each datagram
/// (an echo carries a few more header bytes than the packet it answers). The budget belongs to
/// the address, not to a session, so a second address that joins a session cannot draw on what
/// the first one sent (no redirection, no amplification).
public struct SendBudget: Sendable, Hashable {
    /// Bytes a reply may exceed the datagram it answers by, on average: 64.
    public static let allowancePerDatagram = 64

    /// Datagrams received from the address.
    public private(set) var datagramsReceived = 0
    /// Bytes received from the address.
    public private(set) var bytesReceived = 0
    /// Datagrams sent to the address.
    public private(set) var datagramsSent = 0
    /// Bytes sent to the address.
    public private(set) var bytesSent = 0

    /// An empty budget.
    public init() {}

    /// Counts a datagram of `bytes` received from the address.
    public mutating func receive(bytes: Int) {
        datagramsReceived += 1
        bytesReceived += max(0, bytes)
    }

    /// Whether a datagram of `bytes` may be sent now.
    public func allows(bytes: Int) -> Bool {
        datagramsSent < datagramsReceived
            && bytesSent + bytes <= bytesReceived + Self.allowancePerDatagram * datagramsReceived
    }

    /// Spends the budget on a datagram of `bytes` when it allows it.
    /// - Returns: whether the datagram may be sent.
    public mutating func spend(bytes: Int) -> Bool {
        guard allows(bytes: bytes) else { return false }
        datagramsSent += 1
        bytesSent += bytes
        return true
    }
}
