/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as used by the STUN FINGERPRINT (RFC 8489 §14.7).
@usableFromInline
enum CRC32 {
    /// The byte-wise lookup table, built once on first use.
    @usableFromInline static let table: [UInt32] = (0..<256).map { (n: UInt32) -> UInt32 in
        var c = n
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The CRC-32 of `bytes`.
    @inlinable
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        table.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { input in
                var crc: UInt32 = 0xFFFF_FFFF
                for byte in input {
                    crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
                }
                return crc ^ 0xFFFF_FFFF
            }
        }
    }
}
