/// An RTP header extension (RFC 3550 §5.3.1), kept as its raw words.
///
/// The 16-bit ``profile`` says how ``data`` is laid out: `0xBEDE` is the RFC 8285 one-byte form,
/// `0x1000`–`0x100F` the two-byte form (the low nibble holds the "appbits"), anything else is
/// opaque to Preflight and kept untouched. Decoding never parses the elements; call
/// ``elements()`` or ``element(id:)`` when they are needed.
public struct RTPHeaderExtension: Sendable, Hashable {
    /// The profile-defined 16-bit identifier ("defined by profile" in RFC 3550).
    public var profile: UInt16
    /// The extension body after the 4-byte extension header, without copying (bytes, a multiple of 4).
    public var data: ArraySlice<UInt8>

    /// The RFC 8285 one-byte header profile.
    public static let oneByteProfile: UInt16 = 0xBEDE
    /// The RFC 8285 two-byte header profile with appbits 0; `0x1000`–`0x100F` are all two-byte.
    public static let twoByteProfile: UInt16 = 0x1000

    /// Creates an extension from its profile and raw body.
    /// - Parameters:
    ///   - profile: the 16-bit profile identifier.
    ///   - data: the body; the encoder rejects a length that is not a multiple of 4 bytes.
    @inlinable
    public init(profile: UInt16, data: ArraySlice<UInt8>) {
        self.profile = profile
        self.data = data
    }

    /// Creates an extension from its profile and raw body (bytes, a multiple of 4).
    @inlinable
    public init(profile: UInt16, data: [UInt8]) {
        self.init(profile: profile, data: data[...])
    }

    /// How ``data`` is laid out, derived from ``profile``.
    @inlinable
    public var kind: Kind {
        if profile == Self.oneByteProfile { return .oneByte }
        if profile & 0xFFF0 == Self.twoByteProfile {
            return .twoByte(appBits: UInt8(truncatingIfNeeded: profile & 0x0F))
        }
        return .opaque
    }

    /// Parses the RFC 8285 elements in order.
    ///
    /// Padding bytes (0) between elements are skipped; in the one-byte form an element with ID 15
    /// ends parsing (RFC 8285 §4.2). An opaque profile yields no elements.
    /// - Throws: ``PreflightError`` `.truncated` when an element runs past the end of ``data``,
    ///   `.malformed` for a one-byte element with ID 0 and a non-zero length.
    public func elements() throws(PreflightError) -> [Element] {
        let data = self.data
        let kind = self.kind
        let ranges = try data.withRawBytes { buffer throws(PreflightError) in
            var scanner = ElementScanner(buffer, kind: kind)
            var ranges: [(id: UInt8, range: Range<Int>)] = []
            while let element = try scanner.next() {
                ranges.append(element)
            }
            return ranges
        }
        return ranges.map { Element(id: $0.id, data: slice($0.range)) }
    }

    /// The data of the first element with this ID, without copying or allocating; `nil` when
    /// there is none, the profile is opaque, or the elements before it are malformed.
    @inlinable
    public func element(id: UInt8) -> ArraySlice<UInt8>? {
        let kind = self.kind
        let range = data.withUnsafeBytes { buffer in
            var scanner = ElementScanner(buffer, kind: kind)
            return scanner.first(id: id)
        }
        return range.map { slice($0) }
    }

    /// The part of ``data`` at `range`, given in offsets from its start.
    @inlinable
    func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
        data[(data.startIndex + range.lowerBound)..<(data.startIndex + range.upperBound)]
    }

    /// Builds a one-byte-header extension (profile `0xBEDE`), zero-padded to a multiple of 4 bytes.
    /// - Parameter elements: IDs 1–14, each with 1–16 bytes of data.
    /// - Throws: ``PreflightError`` `.invalidArgument` for an ID or length the form cannot carry.
    public static func oneByte(_ elements: [Element]) throws(PreflightError) -> RTPHeaderExtension {
        var size = 0
        for element in elements {
            guard (1...14).contains(element.id) else {
                throw PreflightError(
                    code: .invalidArgument,
                    message: "RTP header extension: one-byte element ID \(element.id) is outside 1–14"
                )
            }
            guard (1...16).contains(element.data.count) else {
                throw PreflightError(
                    code: .invalidArgument,
                    message:
                        "RTP header extension: one-byte element \(element.id) has \(element.data.count) bytes, allowed 1–16"
                )
            }
            size += 1 + element.data.count
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(paddedSize(size))
        for element in elements {
            bytes.append(element.id << 4 | UInt8(truncatingIfNeeded: element.data.count - 1))
            bytes.append(contentsOf: element.data)
        }
        return try padded(bytes, profile: oneByteProfile)
    }

    /// Builds a two-byte-header extension (profile `0x1000 | appBits`), zero-padded to a multiple of 4 bytes.
    /// - Parameters:
    ///   - elements: IDs 1–255, each with 0–255 bytes of data.
    ///   - appBits: the 4 application bits carried in the profile's low nibble (0–15).
    /// - Throws: ``PreflightError`` `.invalidArgument` for an ID, length or appBits value out of range.
    public static func twoByte(_ elements: [Element], appBits: UInt8 = 0) throws(PreflightError) -> RTPHeaderExtension {
        guard appBits <= 0x0F else {
            throw PreflightError(
                code: .invalidArgument,
                message: "RTP header extension: two-byte appbits \(appBits) do not fit in 4 bits"
            )
        }
        var size = 0
        for element in elements {
            guard element.id != 0 else {
                throw PreflightError(
                    code: .invalidArgument,
                    message: "RTP header extension: two-byte element ID 0 is reserved for padding"
                )
            }
            guard element.data.count <= 255 else {
                throw PreflightError(
                    code: .invalidArgument,
                    message:
                        "RTP header extension: two-byte element \(element.id) has \(element.data.count) bytes, allowed 0–255"
                )
            }
            size += 2 + element.data.count
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(paddedSize(size))
        for element in elements {
            bytes.append(element.id)
            bytes.append(UInt8(truncatingIfNeeded: element.data.count))
            bytes.append(contentsOf: element.data)
        }
        return try padded(bytes, profile: twoByteProfile | UInt16(appBits))
    }

    /// Rounds a byte count up to a whole number of 32-bit words.
    @inlinable
    static func paddedSize(_ size: Int) -> Int { (size + 3) & ~3 }

    private static func padded(_ bytes: [UInt8], profile: UInt16) throws(PreflightError) -> RTPHeaderExtension {
        var bytes = bytes
        bytes.append(contentsOf: repeatElement(0, count: paddedSize(bytes.count) - bytes.count))
        let result = RTPHeaderExtension(profile: profile, data: bytes)
        try result.validate()
        return result
    }

    /// Checks that the body can be encoded: whole words, at most 65535 of them.
    @inlinable
    func validate() throws(PreflightError) {
        guard data.count % 4 == 0 else {
            throw PreflightError(
                code: .invalidArgument,
                message: "RTP header extension: data is \(data.count) bytes, not a multiple of 4"
            )
        }
        guard data.count / 4 <= Int(UInt16.max) else {
            throw PreflightError(
                code: .invalidArgument,
                message: "RTP header extension: data is \(data.count / 4) words, more than 65535"
            )
        }
    }
}
