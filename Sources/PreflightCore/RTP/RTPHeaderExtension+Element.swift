extension RTPHeaderExtension {
    /// One RFC 8285 extension element: a local ID and its data.
    public struct Element: Sendable, Hashable {
        /// The local identifier (one-byte form: 1–14, two-byte form: 1–255).
        public var id: UInt8
        /// The element's data (one-byte form: 1–16 bytes, two-byte form: 0–255 bytes).
        public var data: ArraySlice<UInt8>

        /// Creates an element.
        @inlinable
        public init(id: UInt8, data: ArraySlice<UInt8>) {
            self.id = id
            self.data = data
        }

        /// Creates an element from an array of bytes.
        @inlinable
        public init(id: UInt8, data: [UInt8]) {
            self.init(id: id, data: data[...])
        }
    }
}
