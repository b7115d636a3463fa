import Foundation
import PreflightCore
import PreflightTesting
import Testing

/// Our encoders' packets, decoded by an independent implementation: tshark (Wireshark's
/// dissectors). Each packet must be recognised as the intended protocol, with the field values we
/// wrote, and tshark must report no malformed packet.
// Needs tshark: skipped without it outside CI, fails without it under CI=true (ExternalTool).
@Suite(.enabled(if: ExternalTool.canRun(needing: "tshark"), "needs tshark on PATH (apt-get install tshark)"))
struct TSharkInteropTests {
    static let client: (UInt8, UInt8, UInt8, UInt8) = (198, 18, 0, 1)
    static let edge: (UInt8, UInt8, UInt8, UInt8) = (198, 18, 0, 2)
    static let rtpPort: UInt16 = 40002
    static let rtcpPort: UInt16 = 40003
    static let stunPort: UInt16 = 3478

    /// One row of tshark's field output.
    struct Row {
        let fields: [String: String]
        subscript(_ name: String) -> String { fields[name] ?? "" }
    }

    static let fieldNames = [
        "frame.number", "frame.protocols", "_ws.malformed", "_ws.expert.severity",
        "rtp.version", "rtp.marker", "rtp.p_type", "rtp.seq", "rtp.timestamp", "rtp.ssrc", "rtp.csrc.item",
        "rtp.padding", "rtp.padding.count", "rtp.ext.profile", "rtp.ext.rfc5285.id",
        "rtcp.pt", "rtcp.senderssrc", "rtcp.sender.packetcount", "rtcp.ssrc.identifier", "rtcp.ssrc.fraction",
        "rtcp.ssrc.jitter", "rtcp.sdes.text", "rtcp.profile-specific-extension",
        "stun.type", "stun.id", "stun.att.username", "stun.att.priority",
        "stun.att.ipv4", "stun.att.port", "stun.att.crc32.status", "stun.att.error", "stun.channel", "stun.length",
    ]

    /// Writes `datagrams` to a pcap, runs tshark with RTP/RTCP bound to our ports and returns one row per frame.
    static func decode(_ datagrams: [(bytes: [UInt8], port: UInt16)]) async throws -> [Row] {
        var writer = PcapWriter()
        for datagram in datagrams {
            writer.appendUDP(datagram.bytes, from: client, port: 50000, to: edge, port: datagram.port)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-tshark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("packets.pcap")
        try Data(writer.bytes).write(to: file)
        var arguments = [
            "-r", file.path, "-n",
            "-d", "udp.port==\(rtpPort),rtp", "-d", "udp.port==\(rtcpPort),rtcp",
            "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,",
        ]
        for name in fieldNames { arguments += ["-e", name] }
        // tshark warns on stderr about running as root; only its exit status and stdout matter here.
        let output = try await ExternalTool.run("tshark", arguments)
        return output.split(separator: "\n").map { line in
            let values = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Row(fields: Dictionary(uniqueKeysWithValues: zip(fieldNames, values + Array(repeating: "", count: max(0, fieldNames.count - values.count)))))
        }
    }

    @Test func rtpPacketsDecodeAsRTP() async throws {
        let timestamp: [UInt8] = [0, 0, 0, 0, 0, 0x01, 0xE2, 0x40]
        let plain = RTPPacket(
            marker: true, payloadType: 0, sequenceNumber: 1000, timestamp: 160_000, ssrc: 0x1122_3344,
            headerExtension: try RTPHeaderExtension.oneByte([.init(id: 1, data: timestamp)]),
            payload: MuLaw.encode(TestSignal().frame(10))[...])
        let withCSRCs = RTPPacket(
            payloadType: 96, sequenceNumber: 65535, timestamp: 0xFFFF_FF00, ssrc: 0xCAFE_BABE, csrcs: [7, 8],
            payload: [1, 2, 3, 4, 5][...], paddingCount: 3)
        let rows = try await Self.decode([(try plain.encoded(), Self.rtpPort), (try withCSRCs.encoded(), Self.rtpPort)])
        try #require(rows.count == 2)
        for row in rows {
            #expect(row["frame.protocols"].hasSuffix(":udp:rtp"), "\(row.fields)")
            #expect(row["_ws.malformed"].isEmpty, "\(row.fields)")
            #expect(row["rtp.version"] == "2")
        }
        #expect(rows[0]["rtp.seq"] == "1000")
        #expect(rows[0]["rtp.timestamp"] == "160000")
        #expect(rows[0]["rtp.ssrc"] == "0x11223344")
        #expect(rows[0]["rtp.marker"] == "1" || rows[0]["rtp.marker"] == "True")
        #expect(rows[0]["rtp.p_type"] == "0")
        #expect(rows[0]["rtp.ext.profile"] == "0xbede")
        #expect(rows[0]["rtp.ext.rfc5285.id"] == "1")
        #expect(rows[1]["rtp.seq"] == "65535")
        #expect(rows[1]["rtp.p_type"] == "96")
        #expect(rows[1]["rtp.csrc.item"] == "0x00000007,0x00000008")
        #expect(rows[1]["rtp.padding.count"] == "3")
    }

    @Test func rtcpCompoundDecodesAsRTCP() async throws {
        let compound = RTCPCompoundPacket([
            .senderReport(RTCPSenderReport(
                ssrc: 0x1122_3344, ntpTimestamp: NTPTimestamp(unixTime: 1_731_699_140.5), rtpTimestamp: 160_000,
                packetCount: 1026, octetCount: 164_160,
                reportBlocks: [RTCPReportBlock(ssrc: 0x5566_7788, fractionLost: 5, cumulativeLost: 12,
                                               extendedHighestSequenceNumber: 70_000, interarrivalJitter: 80)])),
            .sourceDescription(.cname("preflight@198.18.0.1", ssrc: 0x1122_3344)),
            .goodbye(RTCPGoodbye(ssrcs: [0x1122_3344], reason: "test complete")),
        ])
        let receiverReport = RTCPCompoundPacket([
            .receiverReport(RTCPReceiverReport(ssrc: 0x5566_7788, reportBlocks: [RTCPReportBlock(ssrc: 0x1122_3344, fractionLost: 0, interarrivalJitter: 8)])),
            .sourceDescription(.cname("edge", ssrc: 0x5566_7788)),
        ])
        let rows = try await Self.decode([(try compound.encoded(), Self.rtcpPort), (try receiverReport.encoded(), Self.rtcpPort)])
        try #require(rows.count == 2)
        for row in rows {
            #expect(row["frame.protocols"].hasSuffix(":udp:rtcp"), "\(row.fields)")
            #expect(row["_ws.malformed"].isEmpty, "\(row.fields)")
        }
        #expect(rows[0]["rtcp.pt"] == "200,202,203")
        #expect(rows[0]["rtcp.senderssrc"].contains("0x11223344"))
        #expect(rows[0]["rtcp.sender.packetcount"] == "1026")
        #expect(rows[0]["rtcp.ssrc.fraction"] == "5")
        #expect(rows[0]["rtcp.ssrc.jitter"] == "80")
        // tshark lists the SDES CNAME and the BYE reason under the same text field.
        #expect(rows[0]["rtcp.sdes.text"] == "preflight@198.18.0.1,test complete")
        #expect(rows[1]["rtcp.pt"] == "201,202")
    }

    @Test func stunAndChannelDataDecodeAsSTUN() async throws {
        let key = STUNIntegrityKey(Array("0123456789abcdefghij+/".utf8))
        let request = STUNMessage(
            type: STUNMessageType(method: .binding, class: .request),
            attributes: [.username("edge:client"), .priority(1_853_824_767), .iceControlling(42), .useCandidate])
        let response = STUNMessage(
            type: STUNMessageType(method: .binding, class: .successResponse), transactionID: request.transactionID,
            attributes: [.xorMappedAddress(TransportAddress(ipv4: 198, 19, 0, 9, port: 61000))])
        let error = STUNMessage(
            type: STUNMessageType(method: .allocate, class: .errorResponse),
            attributes: [.errorCode(STUNErrorCode(code: 401, reason: "Unauthorized")), .realm("lab"), .nonce("abcdef")])
        let channel = try ChannelData(channelNumber: 0x4001, data: [0x80, 0x00, 0x00, 0x01, 9, 9, 9][...])
        // The same request with one bit of its FINGERPRINT flipped: tshark must see the bad CRC,
        // which shows that its "good" verdict on the others is an independent check.
        var corrupted = try request.encoded(integrityKey: key, fingerprint: true)
        corrupted[corrupted.count - 1] ^= 0x01
        let rows = try await Self.decode([
            (try request.encoded(integrityKey: key, fingerprint: true), Self.stunPort),
            (try response.encoded(integrityKey: key, fingerprint: true), Self.stunPort),
            (try error.encoded(fingerprint: true), Self.stunPort),
            (channel.encoded(), Self.stunPort),
            (corrupted, Self.stunPort),
        ])
        try #require(rows.count == 5)
        for row in rows.prefix(4) {
            #expect(row["frame.protocols"].contains(":udp:stun"), "\(row.fields)")
            #expect(row["_ws.malformed"].isEmpty, "\(row.fields)")
        }
        let transaction = request.transactionID.bytes.map { String(format: "%02x", $0) }.joined()
        #expect(rows[0]["stun.type"] == "0x0001")
        #expect(rows[0]["stun.id"] == transaction)
        #expect(rows[0]["stun.att.username"] == "edge:client")
        #expect(rows[0]["stun.att.priority"] == "1853824767")
        // Wireshark's checksum status: 0 bad, 1 good, 2 unverified, 3 not present.
        #expect(rows[0]["stun.att.crc32.status"] == "1")
        #expect(rows[1]["stun.att.crc32.status"] == "1")
        #expect(rows[2]["stun.att.crc32.status"] == "1")
        #expect(rows[4]["stun.att.crc32.status"] == "0")
        #expect(rows[1]["stun.type"] == "0x0101")
        #expect(rows[1]["stun.id"] == transaction)
        #expect(rows[1]["stun.att.ipv4"] == "198.19.0.9")
        #expect(rows[1]["stun.att.port"] == "61000")
        #expect(rows[2]["stun.type"] == "0x0113")
        #expect(rows[2]["stun.att.error"] == "1")  // 401 = class 4, number 1
        #expect(rows[3]["stun.channel"] == "0x4001")
    }

    /// The DTMF sender's packets, wrapped in RTP as a caller's stream would send them, decoded by
    /// tshark's RFC 4733 dissector (bound to payload type 101 with Decode As).
    @Test func telephoneEventsDecodeAsRTPEvents() async throws {
        let sender = try DTMFSender(digits: "1w#", startTime: 0, startTimestamp: 160_000)
        var writer = PcapWriter()
        for (index, packet) in sender.schedule.enumerated() {
            let rtp = try RTPPacket(
                marker: packet.marker, payloadType: packet.payloadType, sequenceNumber: UInt16(2000 + index),
                timestamp: packet.timestamp, ssrc: 0x1122_3344, payload: packet.payload[...]
            ).encoded()
            writer.appendUDP(rtp, from: Self.client, port: 50000, to: Self.edge, port: Self.rtpPort)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-tshark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("events.pcap")
        try Data(writer.bytes).write(to: file)
        let fields = [
            "frame.protocols", "_ws.malformed", "rtp.marker", "rtp.p_type", "rtp.timestamp",
            "rtpevent.event_id", "rtpevent.end_of_event", "rtpevent.volume", "rtpevent.duration",
        ]
        var arguments = [
            "-r", file.path, "-n", "-d", "udp.port==\(Self.rtpPort),rtp", "-d", "rtp.pt==101,rtpevent",
            "-T", "fields", "-E", "separator=\t",
        ]
        for name in fields { arguments += ["-e", name] }
        let rows = try await ExternalTool.run("tshark", arguments).split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        try #require(rows.count == sender.schedule.count)
        for (row, packet) in zip(rows, sender.schedule) {
            try #require(row.count == fields.count, "\(row)")
            #expect(row[0].hasSuffix(":udp:rtp:rtpevent"), "\(row)")
            #expect(row[1].isEmpty, "\(row)")
            #expect((row[2] == "1" || row[2] == "True") == packet.marker, "\(row)")
            #expect(row[3] == "101")
            #expect(row[4] == String(packet.timestamp))
            #expect(row[5] == String(packet.event.event))
            #expect((row[6] == "1" || row[6] == "True") == packet.event.isEnd, "\(row)")
            #expect(row[7] == "10")
            #expect(row[8] == String(packet.event.duration))
        }
        #expect(rows.map { $0[5] } == Array(repeating: "1", count: 8) + Array(repeating: "11", count: 8))
    }
}
