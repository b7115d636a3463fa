import Foundation

/// Writes UDP datagrams into a classic libpcap file (LINKTYPE_RAW: each record is an IPv4 packet),
/// so that tools such as tshark can decode what our encoders produced.
struct PcapWriter {
    private(set) var bytes: [UInt8] = []
    private var microseconds: UInt64 = 1_700_000_000_000_000

    init() {
        appendLittleEndian(UInt32(0xA1B2_C3D4))  // magic: microsecond timestamps
        appendLittleEndian(UInt16(2))  // version 2.4
        appendLittleEndian(UInt16(4))
        appendLittleEndian(UInt32(0))  // thiszone
        appendLittleEndian(UInt32(0))  // sigfigs
        appendLittleEndian(UInt32(65_535))  // snaplen
        appendLittleEndian(UInt32(101))  // LINKTYPE_RAW
    }

    /// Appends one UDP datagram from `source` to `destination` (IPv4 dotted quads), 20 ms after the previous one.
    mutating func appendUDP(
        _ payload: [UInt8], from source: (UInt8, UInt8, UInt8, UInt8), port sourcePort: UInt16,
        to destination: (UInt8, UInt8, UInt8, UInt8), port destinationPort: UInt16
    ) {
        var packet: [UInt8] = []
        let totalLength = 20 + 8 + payload.count
        // IPv4 header without options; checksum filled in below.
        packet += [0x45, 0x00, UInt8(totalLength >> 8), UInt8(totalLength & 0xFF), 0x00, 0x01, 0x40, 0x00, 64, 17, 0, 0]
        packet += [source.0, source.1, source.2, source.3, destination.0, destination.1, destination.2, destination.3]
        var sum: UInt32 = 0
        for index in stride(from: 0, to: 20, by: 2) {
            sum += UInt32(packet[index]) << 8 | UInt32(packet[index + 1])
        }
        while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
        let checksum = ~UInt16(sum)
        packet[10] = UInt8(checksum >> 8)
        packet[11] = UInt8(checksum & 0xFF)
        // UDP header; checksum 0 means "not computed", which IPv4 allows.
        let udpLength = 8 + payload.count
        packet += [UInt8(sourcePort >> 8), UInt8(sourcePort & 0xFF), UInt8(destinationPort >> 8), UInt8(destinationPort & 0xFF)]
        packet += [UInt8(udpLength >> 8), UInt8(udpLength & 0xFF), 0, 0]
        packet += payload

        microseconds += 20_000
        appendLittleEndian(UInt32(microseconds / 1_000_000))
        appendLittleEndian(UInt32(microseconds % 1_000_000))
        appendLittleEndian(UInt32(packet.count))
        appendLittleEndian(UInt32(packet.count))
        bytes += packet
    }

    private mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}
