import PreflightCore
import Testing

/// The error queue's bytes as Linux writes them (64-bit: an 8-byte `cmsg_len`).
@Suite struct ICMPErrorReportTests {
    static func control(level: Int32, type: Int32, data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        withUnsafeBytes(of: UInt64(16 + data.count).littleEndian) { out += $0 }
        withUnsafeBytes(of: level.littleEndian) { out += $0 }
        withUnsafeBytes(of: type.littleEndian) { out += $0 }
        out += data
        while out.count % 8 != 0 { out.append(0) }
        return out
    }

    static func extendedError(origin: UInt8, type: UInt8, code: UInt8, offender: [UInt8]) -> [UInt8] {
        [113, 0, 0, 0, origin, type, code, 0] + [UInt8](repeating: 0, count: 8) + offender
    }

    static func sockaddrIn(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> [UInt8] {
        [2, 0, 0x9C, 0x40, a, b, c, d] + [UInt8](repeating: 0, count: 8)
    }

    static let probe: (STUNTransactionID, [UInt8]) = {
        let id = STUNTransactionID(high: 0x0102_0304, low: 0x0506_0708_090A_0B0C)
        let bytes = (try? STUNMessage(type: STUNMessageType(method: .binding, class: .request), transactionID: id, attributes: []).encoded()) ?? []
        return (id, bytes)
    }()

    @Test func timeExceededFromARouterWithTheQuotedProbe() throws {
        let data = Self.extendedError(origin: 2, type: 11, code: 0, offender: Self.sockaddrIn(198, 18, 41, 1))
        let report = try #require(ICMPErrorReport(control: Self.control(level: 0, type: 11, data: data), payload: Self.probe.1[...]))
        #expect(report.kind == .timeExceeded)
        #expect(report.offender == "198.18.41.1")
        #expect(report.transactionID == Self.probe.0)
    }

    @Test func portUnreachableAndAnRFC792QuoteWithoutTheID() throws {
        let data = Self.extendedError(origin: 2, type: 3, code: 3, offender: Self.sockaddrIn(203, 0, 113, 5))
        let report = try #require(ICMPErrorReport(control: Self.control(level: 0, type: 11, data: data), payload: []))
        #expect(report.kind == .unreachable(code: 3))
        #expect(report.transactionID == nil)
    }

    @Test func ipv6TimeExceeded() throws {
        var sockaddr6: [UInt8] = [10, 0, 0, 0, 0, 0, 0, 0]
        sockaddr6 += [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1] + [0, 0, 0, 0]
        let data = Self.extendedError(origin: 3, type: 3, code: 0, offender: sockaddr6)
        let report = try #require(ICMPErrorReport(control: Self.control(level: 41, type: 25, data: data), payload: Self.probe.1[...]))
        #expect(report.kind == .timeExceeded)
        #expect(report.offender == "2001:db8::1")
    }

    @Test func otherMessagesAndBrokenBuffersGiveNothing() {
        let data = Self.extendedError(origin: 1, type: 0, code: 0, offender: Self.sockaddrIn(127, 0, 0, 1))
        // A local error (origin 1), another control message, a length past the end, a short struct.
        #expect(ICMPErrorReport(control: Self.control(level: 0, type: 11, data: data), payload: []) == nil)
        #expect(ICMPErrorReport(control: Self.control(level: 1, type: 29, data: [1, 2, 3, 4]), payload: []) == nil)
        var long = Self.control(level: 0, type: 11, data: Self.extendedError(origin: 2, type: 11, code: 0, offender: Self.sockaddrIn(1, 2, 3, 4)))
        long[0] = 200
        #expect(ICMPErrorReport(control: long, payload: []) == nil)
        #expect(ICMPErrorReport(control: Self.control(level: 0, type: 11, data: [0, 0, 0]), payload: []) == nil)
        #expect(ICMPErrorReport(control: [], payload: []) == nil)
        #expect(ICMPErrorReport(control: [1, 2, 3], payload: [], wordSize: 3) == nil)
    }
}
