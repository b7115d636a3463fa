/// The 96-bit STUN transaction identifier (RFC 8489 §6), stored inline (no allocation).
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    /// Bytes 0–3 of the identifier, big-endian.
    @usableFromInline var high: UInt32
    /// Bytes 4–11 of the identifier, big-endian.
    @usableFromInline var low: UInt64

    /// Creates an identifier from its two big-endian parts: bytes 0–3 and bytes 4–11.
    @inlinable
    public init(high: UInt32, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Creates an identifier from exactly 12 bytes; `nil` for any other count.
    @inlinable
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 12 else { return nil }
        var h: UInt32 = 0
        var l: UInt64 = 0
        var i = 0
        for byte in bytes {
            if i < 4 { h = h << 8 | UInt32(byte) } else { l = l << 8 | UInt64(byte) }
            i += 1
        }
        self.init(high: h, low: l)
    }

    /// The 12 bytes in wire order.
    public var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(12)
        appendBytes(to: &out)
        return out
    }

    /// Appends the 12 bytes in wire order.
    @inlinable
    func appendBytes(to out: inout [UInt8]) {
        // Two writes: a (UInt32, UInt64) tuple would carry alignment padding between its fields.
        withUnsafeBytes(of: high.bigEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: low.bigEndian) { out.append(contentsOf: $0) }
    }

    /// Byte `index` (0–11) of the identifier.
    @inlinable
    func byte(_ index: Int) -> UInt8 {
        if index < 4 { return UInt8(truncatingIfNeeded: high >> UInt32((3 - index) * 8)) }
        return UInt8(truncatingIfNeeded: low >> UInt64((11 - index) * 8))
    }

    /// A random identifier drawn from `generator` (RFC 8489 §6 asks for a cryptographically random one:
    /// use a secure generator outside tests).
    public static func random(using generator: inout some RandomNumberGenerator) -> Self {
        Self(high: generator.next(), low: generator.next())
    }

    /// A random identifier from the system's cryptographically secure generator.
    public static func random() -> Self {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// The 24 hex digits, e.g. "b7e7a701bc34d686fa87dfae".
    public var description: String {
        var text = ""
        for i in 0..<12 {
            let b = byte(i)
            if b < 16 { text += "0" }
            text += String(b, radix: 16)
        }
        return text
    }
}
