extension RTCPSourceDescription {
    /// One SDES item: a type and its value (RFC 3550 §6.5).
    public struct Item: Sendable, Hashable {
        /// CNAME, the canonical end-point identifier.
        public static let cnameType: UInt8 = 1
        /// NAME, the user name.
        public static let nameType: UInt8 = 2
        /// TOOL, the application or tool name.
        public static let toolType: UInt8 = 6
        /// NOTE, a notice about the source.
        public static let noteType: UInt8 = 7
        /// PRIV, private extensions (the value starts with its own prefix length and prefix).
        public static let privateType: UInt8 = 8

        /// The item type, 1–255 (0 ends the item list and is not an item).
        public var type: UInt8
        /// The value, 0–255 bytes (UTF-8 text for the standard types).
        public var value: ArraySlice<UInt8>

        /// Creates an item from raw bytes.
        public init(type: UInt8, value: ArraySlice<UInt8>) {
            self.type = type
            self.value = value
        }

        /// Creates an item from text, stored as UTF-8.
        public init(type: UInt8, text: String) {
            self.init(type: type, value: ArraySlice(text.utf8))
        }

        /// A CNAME item.
        public static func cname(_ text: String) -> Item {
            Item(type: cnameType, text: text)
        }

        /// The value decoded as UTF-8 (invalid sequences become U+FFFD).
        public var text: String {
            String(decoding: value, as: UTF8.self)
        }
    }
}
