/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as used by the STUN FINGERPRINT (RFC 8489 §14.7).
///
/// Slicing-by-8: eight 256-entry tables let the loop fold eight input bytes per step instead of one.
@usableFromInline
enum CRC32 {
    /// `tables[k * 256 + n]`: the CRC of byte `n` followed by `k` zero bytes. Built once on first use.
    @usableFromInline static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            tables[n] = c
        }
        for k in 1..<8 {
            for n in 0..<256 {
                let previous = tables[(k - 1) * 256 + n]
                tables[k * 256 + n] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The CRC-32 of `bytes`.
    @inlinable
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    /// The CRC-32 of `input`.
    @inlinable
    static func checksum(_ input: UnsafeRawBufferPointer) -> UInt32 {
        tables.withUnsafeBufferPointer { t in
            do {
                var crc: UInt32 = 0xFFFF_FFFF
                var i = 0
                let count = input.count
                // Wrapping arithmetic: indices stay within `count` by the loop conditions.
                while count &- i >= 8 {
                    let low =
                        crc
                        ^ (UInt32(input[i]) | UInt32(input[i &+ 1]) << 8 | UInt32(input[i &+ 2]) << 16
                            | UInt32(input[i &+ 3]) << 24)
                    crc =
                        t[1792 &+ Int(low & 0xFF)] ^ t[1536 &+ Int((low >> 8) & 0xFF)]
                        ^ t[1280 &+ Int((low >> 16) & 0xFF)] ^ t[1024 &+ Int(low >> 24)]
                        ^ t[768 &+ Int(input[i &+ 4])] ^ t[512 &+ Int(input[i &+ 5])]
                        ^ t[256 &+ Int(input[i &+ 6])] ^ t[Int(input[i &+ 7])]
                    i &+= 8
                }
                while i < count {
                    crc = t[Int((crc ^ UInt32(input[i])) & 0xFF)] ^ (crc >> 8)
                    i &+= 1
                }
                return crc ^ 0xFFFF_FFFF
            }
        }
    }
}
