/// The settings of a ``MediaSession``.
public struct MediaSessionConfiguration: Sendable {
    /// The SSRC of what the session sends: random by default.
    public var ssrc: UInt32
    /// The first RTP sequence number: random by default (RFC 3550 §5.1).
    public var firstSequence: UInt16
    /// The first RTP timestamp: random by default.
    public var firstTimestamp: UInt32
    /// The RTCP CNAME.
    public var cname: String
    /// Whether packets that arrive after a later one count as lost (as a jitter buffer would
    /// drop them): `false` by default.
    public var countsReorderedAsLost: Bool

    /// Creates a configuration; every parameter has the default documented on its property.
    public init(
        ssrc: UInt32? = nil, firstSequence: UInt16? = nil, firstTimestamp: UInt32? = nil, cname: String,
        countsReorderedAsLost: Bool = false
    ) {
        var random = SystemRandomNumberGenerator()
        self.ssrc = ssrc ?? random.next()
        self.firstSequence = firstSequence ?? random.next()
        self.firstTimestamp = firstTimestamp ?? random.next()
        self.cname = cname
        self.countsReorderedAsLost = countsReorderedAsLost
    }
}
