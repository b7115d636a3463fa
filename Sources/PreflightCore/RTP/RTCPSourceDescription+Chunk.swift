extension RTCPSourceDescription {
    /// The SDES items of one source.
    public struct Chunk: Sendable, Hashable {
        /// The source (SSRC or CSRC) described.
        public var ssrc: UInt32
        /// The items, in wire order.
        public var items: [Item]

        /// Creates a chunk.
        public init(ssrc: UInt32, items: [Item]) {
            self.ssrc = ssrc
            self.items = items
        }

        /// The text of the first CNAME item, if any.
        public var cname: String? {
            items.first { $0.type == Item.cnameType }?.text
        }
    }
}
