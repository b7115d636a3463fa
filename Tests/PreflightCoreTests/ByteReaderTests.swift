@testable import PreflightCore
import Testing

@Suite struct ByteReaderTests {
    @Test func readsBigEndian() throws {
        var reader = ByteReader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07], context: "test")
        #expect(try reader.readUInt8() == 0x01)
        #expect(try reader.readUInt16() == 0x0203)
        #expect(try reader.readUInt32() == 0x0405_0607)
        #expect(reader.isAtEnd)
    }

    @Test func truncatedReadThrowsWithOffset() {
        var reader = ByteReader([0x01, 0x02, 0x03], context: "test")
        _ = try? reader.readUInt16()
        #expect {
            try reader.readUInt32("ssrc")
        } throws: { error in
            guard let error = error as? PreflightError else { return false }
            return error.code == .truncated && error.message.contains("offset 2")
        }
    }

    @Test func writerRoundTrip() throws {
        var writer = ByteWriter()
        writer.write(UInt8(0xAB))
        writer.write(UInt16(0xCDEF))
        writer.write(UInt32(0x0102_0304))
        writer.write(UInt64(0x1122_3344_5566_7788))
        var reader = ByteReader(writer.bytes, context: "test")
        #expect(try reader.readUInt8() == 0xAB)
        #expect(try reader.readUInt16() == 0xCDEF)
        #expect(try reader.readUInt32() == 0x0102_0304)
        #expect(try reader.readUInt64() == 0x1122_3344_5566_7788)
    }
}
