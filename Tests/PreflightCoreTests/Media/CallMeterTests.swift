import PreflightCore
import Testing

@Suite struct CallMeterTests {
    /// 50 packets a second both ways; the uplink loses `upLost` of every 50, the downlink `downLost`.
    static func second(
        _ meter: inout CallMeter, index: Int, upLost: Set<Int> = [], downLost: Set<Int> = [], rtt: Double = 40
    ) -> StatsSample {
        // Before this second: 50 per earlier second were expected; the edge's own stream numbers
        // only what arrived, which these tests keep simple by starting each second at index·50.
        var upReceived = UInt32(meter.uplink?.received ?? 0)
        var edgeSequence = UInt16(index * 50)
        for frame in 0..<50 {
            let sequence = index * 50 + frame
            meter.recordSent(bytes: 172, audioLevel: 1000 + frame)
            guard !upLost.contains(frame) else { continue }
            upReceived += 1
            meter.recordUplink(UplinkReport(expected: UInt32(sequence + 1), received: upReceived, jitterMicroseconds: 2_000))
            defer { edgeSequence &+= 1 }
            guard !downLost.contains(frame) else { continue }
            meter.recordRTT(rtt)
            meter.recordReceived(
                ssrc: 9, sequenceNumber: edgeSequence, senderTime: UInt32(sequence * 20_000), clockRate: 1_000_000,
                arrival: Double(sequence) * 0.02, bytes: 172, audioLevel: 500)
        }
        return meter.takeSample(timestamp: Double(index + 1) * 1000, codec: "PCMU")
    }

    /// Packets late across each second's end (1 or 3 of them, alternating), none lost: the
    /// seconds show no loss after the first boundary, not a loss spike at every second, and the
    /// cumulative count ends at 0 (bench-accuracy's rtt300-j40 raised a false loss warning).
    @Test func reorderingAcrossSecondsIsNotLoss() {
        var meter = CallMeter()
        var fractions: [Double] = []
        var sequence = 0
        var held: [Int] = []
        for index in 0..<10 {
            let late = index.isMultiple(of: 2) ? 3 : 1
            // The packets held back from the previous second arrive first, then this second's
            // packets but `late` of them just before its last, which arrive in the next second.
            var order = held
            held = Array(sequence + 49 - late..<sequence + 49)
            order += (sequence..<sequence + 50).filter { !held.contains($0) }
            sequence += 50
            for s in order {
                meter.recordReceived(
                    ssrc: 9, sequenceNumber: UInt16(s), senderTime: UInt32(s * 20_000), clockRate: 1_000_000,
                    arrival: Double(index) + Double(order.firstIndex(of: s) ?? 0) * 0.02, bytes: 172, audioLevel: 500)
            }
            fractions.append(meter.takeSample(timestamp: Double(index + 1) * 1000, codec: "PCMU").downlink?.packetsLostFraction ?? -1)
        }
        #expect(fractions.dropFirst().allSatisfy { $0 == 0 }, "\(fractions)")
        #expect(meter.downlink.reordered > 0)
    }

    @Test func cleanSecondsGiveTheFormula() {
        var meter = CallMeter()
        let sample = Self.second(&meter, index: 0)
        #expect(sample.rtt == 40)
        #expect(sample.jitter == 2)  // uplink 2 ms is the worse side of a perfectly paced downlink
        #expect(sample.packetsLostFraction == 0)
        #expect(sample.mos == MeanOpinionScore.mos(rtt: 40, jitter: 2, packetLossPercent: 0))
        #expect(sample.packetsSent == 50 && sample.packetsReceived == 50 && sample.bytesSent == 50 * 172)
        #expect(sample.audioInputLevel == 1049 && sample.audioOutputLevel == 500)
        #expect(sample.uplink?.packetsExpected == 50)
        #expect(sample.eModelMOS != nil)
    }

    @Test func lossIsSplitByDirectionAndCombined() {
        var meter = CallMeter()
        _ = Self.second(&meter, index: 0)
        // Second 2: 5 of 50 lost up (10 %), then 9 of the 45 echoes lost down (20 %).
        let sample = Self.second(&meter, index: 1, upLost: [3, 10, 20, 30, 40], downLost: [1, 2, 4, 5, 6, 7, 8, 9, 11])
        #expect(sample.uplink?.packetsLost == 5)
        #expect(sample.downlink?.packetsLost == 9)
        #expect(sample.packetsLost == 14)
        #expect(abs((sample.uplink?.packetsLostFraction ?? 0) - 10) < 1e-9)
        #expect(abs((sample.downlink?.packetsLostFraction ?? 0) - 20) < 1e-9)
        // 1 − 0.9 × 0.8 = 28 % of the second's packets did not make the round trip.
        #expect(abs(sample.packetsLostFraction - 28) < 1e-9)
        #expect(sample.mos == MeanOpinionScore.mos(rtt: sample.rtt, jitter: sample.jitter, packetLossPercent: sample.packetsLostFraction))
    }

    @Test func aSecondWithoutRoundTripsKeepsTheLastRTTAndSilenceIsLevelZero() {
        var meter = CallMeter()
        _ = Self.second(&meter, index: 0, rtt: 120)
        let quiet = meter.takeSample(timestamp: 3000, codec: "PCMU")
        #expect(quiet.rtt == 120)
        #expect(quiet.audioOutputLevel == 0)
        #expect(quiet.packetsLostFraction == 0)
    }

    @Test func staleUplinkReportsAreIgnored() {
        var meter = CallMeter()
        meter.recordUplink(UplinkReport(expected: 100, received: 90, jitterMicroseconds: 0))
        meter.recordUplink(UplinkReport(expected: 60, received: 60, jitterMicroseconds: 0))
        #expect(meter.uplink?.expected == 100)
        // A late packet filled a gap (received 91), and the echo saying so overtook an earlier one.
        meter.recordUplink(UplinkReport(expected: 100, received: 91, jitterMicroseconds: 0))
        meter.recordUplink(UplinkReport(expected: 100, received: 90, jitterMicroseconds: 0))
        #expect(meter.uplinkTotals?.received == 91)
        #expect(meter.uplink?.received == 90)  // the samples read the last arrival
    }
}

@Suite struct MediaExtensionTests {
    @Test(arguments: [0, 1, 0xFFFF_FFFF, 0x0123_4567_89AB_CDEF] as [UInt64])
    func echoFieldsRoundTrip(value: UInt64) throws {
        let report = EchoReport(
            originalSequence: UInt16(truncatingIfNeeded: value), holdMicroseconds: UInt32(truncatingIfNeeded: value >> 8),
            clientSendMicroseconds: value, edgeSendMicroseconds: ~value,
            uplink: UplinkReport(expected: UInt32(truncatingIfNeeded: value), received: 7, jitterMicroseconds: 1234))
        let packet = RTPPacket(
            payloadType: 0, sequenceNumber: 1, timestamp: 2, ssrc: 3, headerExtension: MediaExtension.echoExtension(report),
            payload: [1, 2, 3][...])
        let bytes = try packet.encoded()
        let decoded = try bytes.withUnsafeBytes { raw in
            let header = try RTPHeader(parsing: raw)
            return (MediaExtension.echoReport(header, in: raw), MediaExtension.sendTime(header, in: raw), MediaExtension.edgeSendTime(header, in: raw))
        }
        #expect(decoded.0 == report)
        #expect(decoded.1 == value)
        #expect(decoded.2 == ~value)
        #expect(try RTPPacket(decoding: bytes).payload == [1, 2, 3][...])
    }

    @Test func aClientPacketIsNotAnEcho() throws {
        let packet = RTPPacket(
            payloadType: 0, sequenceNumber: 1, timestamp: 2, ssrc: 3,
            headerExtension: MediaExtension.clientExtension(sendMicroseconds: 42), payload: [0][...])
        let bytes = try packet.encoded()
        try bytes.withUnsafeBytes { raw in
            let header = try RTPHeader(parsing: raw)
            #expect(MediaExtension.sendTime(header, in: raw) == 42)
            #expect(MediaExtension.echoReport(header, in: raw) == nil)
        }
    }

    @Test func roundTripFromAReportBlock() {
        let sent = NTPTimestamp(unixTime: 1_700_000_000)
        // Answered after 0.25 s in the edge; arrives 0.3 s after the report was sent: RTT 50 ms.
        let block = RTCPReportBlock(ssrc: 1, lastSenderReport: sent.middle32Bits, delaySinceLastSenderReport: 65536 / 4)
        let rtt = block.roundTripTime(arrival: NTPTimestamp(unixTime: 1_700_000_000.3))
        #expect(abs((rtt ?? 0) - 50) < 0.1)
        #expect(RTCPReportBlock(ssrc: 1).roundTripTime(arrival: sent) == nil)
    }
}
