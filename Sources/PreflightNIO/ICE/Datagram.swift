import NIOCore

/// One UDP datagram received by a ``MediaSocket``, with its arrival time taken on the event loop
/// (not when a task gets round to it), so that RTT and jitter do not include scheduling delay.
public struct Datagram: Sendable {
    /// The datagram's bytes.
    public var data: ByteBuffer
    /// Who sent it.
    public var source: SocketAddress
    /// When it arrived, on the continuous clock.
    public var arrival: ContinuousClock.Instant

    /// Creates a datagram record.
    public init(data: ByteBuffer, source: SocketAddress, arrival: ContinuousClock.Instant) {
        self.data = data
        self.source = source
        self.arrival = arrival
    }
}
