import PreflightCore
import Testing

@Suite struct ICECheckListTests {
    static func candidate(_ foundation: String, _ type: ICECandidateType, _ address: String, priority: UInt32) -> ICECandidate {
        ICECandidate(foundation: foundation, priority: priority, address: address, port: 5000, type: type)
    }

    @Test func pairPriorityFollowsRFC8445() {
        // 2^32·min(G,D) + 2·max(G,D) + (G>D ? 1 : 0)
        #expect(ICECheckList.pairPriority(controlling: 10, controlled: 20) == (10 << 32) + 40)
        #expect(ICECheckList.pairPriority(controlling: 20, controlled: 10) == (10 << 32) + 41)
        // Out-of-range priorities (a broken peer's) are clamped to 2^31-1 instead of overflowing.
        #expect(ICECheckList.pairPriority(controlling: .max, controlled: .max) == (0x7FFF_FFFF << 32) + 2 * 0x7FFF_FFFF)
    }

    @Test func formsPairsBySameFamilyPrunesReflexiveAndOrdersByPriority() {
        let local = [
            Self.candidate("1", .host, "198.18.0.2", priority: 2_130_706_431),
            Self.candidate("2", .serverReflexive, "198.18.1.2", priority: 1_694_498_815),
            Self.candidate("3", .relay, "198.18.3.2", priority: 41_885_439),
            Self.candidate("4", .host, "2001:db8::2", priority: 2_130_706_175),
        ]
        let remote = [Self.candidate("1", .host, "198.18.2.2", priority: 2_130_706_431)]
        let list = ICECheckList(local: local, remote: remote)
        #expect(list.pairs.map(\.local) == [0, 2])
        #expect(list.pairs.allSatisfy { $0.state == .waiting })
    }

    @Test func checksArePacedRetransmittedAndFailAfterRc() {
        let local = [Self.candidate("1", .host, "10.0.0.1", priority: 200), Self.candidate("2", .relay, "10.0.0.9", priority: 100)]
        let remote = [Self.candidate("1", .host, "10.0.0.2", priority: 300)]
        var list = ICECheckList(local: local, remote: remote)
        let first = list.poll(now: 0)
        #expect(first.count == 1 && first[0].pair == 0 && !first[0].useCandidate)
        #expect(list.poll(now: 0.01).isEmpty)  // Ta = 50 ms
        let second = list.poll(now: 0.05)
        #expect(second.map(\.pair) == [1])
        // Retransmissions repeat the transaction at 250 ms, then 500 ms, …
        let retry = list.poll(now: 0.25)
        #expect(retry.first?.transactionID == first[0].transactionID)
        var now = 0.25
        while list.pairs[0].state == .inProgress, now < 30 {
            now += 0.05
            _ = list.poll(now: now)
        }
        #expect(list.pairs[0].state == .failed)
        #expect(list.pairs[0].requestsSent == 7)
        // ICE has failed only once every pair has.
        #expect(list.hasFailed == (list.pairs[1].state == .failed))
        _ = list.poll(now: now + 10)
        #expect(list.pairs[1].state == .failed)
        #expect(list.hasFailed)
    }

    @Test func nominatesTheBestValidPairAndSelectsItOnSuccess() throws {
        let local = [Self.candidate("1", .host, "10.0.0.1", priority: 200), Self.candidate("2", .relay, "10.0.0.9", priority: 100)]
        let remote = [Self.candidate("1", .host, "10.0.0.2", priority: 300)]
        var list = ICECheckList(local: local, remote: remote, configuration: .init(nominationDelay: 0.5))
        let hostValue = list.poll(now: 0).first
        let host = try #require(hostValue)
        let relayValue = list.poll(now: 0.05).first
        let relay = try #require(relayValue)
        // The relay pair validates first; the host pair is better and still pending: wait.
        #expect(list.handleSuccess(relay.transactionID, mappedAddress: nil, now: 0.06) == .validated(pair: 1))
        #expect(list.poll(now: 0.1).allSatisfy { !$0.useCandidate })
        #expect(list.handleSuccess(host.transactionID, mappedAddress: nil, now: 0.12) == .validated(pair: 0))
        let nominationValue = list.poll(now: 0.15).first { $0.useCandidate }
        let nomination = try #require(nominationValue)
        #expect(nomination.pair == 0)
        #expect(list.handleSuccess(nomination.transactionID, mappedAddress: nil, now: 0.16) == .selected(pair: 0))
        #expect(list.selected == 0)
        #expect(list.pairs[0].nominated)
        // Consent checks ride on the selected pair.
        let consentValue = list.consentCheck(now: 2)
        let consent = try #require(consentValue)
        #expect(consent.pair == 0 && !consent.useCandidate)
        #expect(list.handleSuccess(consent.transactionID, mappedAddress: nil, now: 2.01) == .consent(pair: 0))
    }

    @Test func nominatesAWorsePairAfterTheDelayWhenTheBetterOneStaysSilent() throws {
        let local = [Self.candidate("1", .host, "10.0.0.1", priority: 200), Self.candidate("2", .relay, "10.0.0.9", priority: 100)]
        let remote = [Self.candidate("1", .host, "10.0.0.2", priority: 300)]
        var list = ICECheckList(local: local, remote: remote, configuration: .init(nominationDelay: 0.5))
        _ = list.poll(now: 0)
        let relayValue = list.poll(now: 0.05).first
        let relay = try #require(relayValue)
        _ = list.handleSuccess(relay.transactionID, mappedAddress: nil, now: 0.1)
        #expect(list.poll(now: 0.3).allSatisfy { !$0.useCandidate })
        let nominationValue = list.poll(now: 0.65).first { $0.useCandidate }
        let nomination = try #require(nominationValue)
        #expect(nomination.pair == 1)
    }

    @Test func errorsFailPairsAndAllFailedMeansICEFailed() throws {
        let local = [Self.candidate("1", .host, "10.0.0.1", priority: 200)]
        let remote = [Self.candidate("1", .host, "10.0.0.2", priority: 300)]
        var list = ICECheckList(local: local, remote: remote)
        let checkValue = list.poll(now: 0).first
        let check = try #require(checkValue)
        #expect(list.handleError(check.transactionID, error: .unauthorized) == .failed(pair: 0))
        #expect(list.pairs[0].error == .unauthorized)
        #expect(list.hasFailed)
        #expect(list.handleSuccess(check.transactionID, mappedAddress: nil, now: 1) == nil)
    }

    @Test func restartChecksEveryPairAgainAndRenominates() throws {
        let local = [Self.candidate("1", .host, "10.0.0.1", priority: 200)]
        let remote = [Self.candidate("1", .host, "10.0.0.2", priority: 300)]
        var list = ICECheckList(local: local, remote: remote)
        let checkValue = list.poll(now: 0).first
        let check = try #require(checkValue)
        _ = list.handleSuccess(check.transactionID, mappedAddress: nil, now: 0.01)
        let nominationValue = list.poll(now: 0.05).first
        let nomination = try #require(nominationValue)
        _ = list.handleSuccess(nomination.transactionID, mappedAddress: nil, now: 0.06)
        list.restart(now: 5)
        #expect(list.pairs[0].state == .waiting)
        #expect(list.selected == 0)
        let againValue = list.poll(now: 5).first
        let again = try #require(againValue)
        _ = list.handleSuccess(again.transactionID, mappedAddress: nil, now: 5.01)
        let renominationValue = list.poll(now: 5.05).first { $0.useCandidate }
        let renomination = try #require(renominationValue)
        #expect(list.handleSuccess(renomination.transactionID, mappedAddress: nil, now: 5.06) == .selected(pair: 0))
    }
}

@Suite struct TURNStreamFramerTests {
    @Test func splitsSTUNAndPaddedChannelDataAcrossArbitraryChunks() throws {
        let stun = try STUNMessage(type: .bindingRequest, transactionID: .random(), attributes: [.software("x")]).encoded()
        let channel = try ChannelData(channelNumber: 0x4001, data: [1, 2, 3, 4, 5][...]).encoded(padded: true)
        let stream = stun + channel + stun
        for chunk in [1, 3, 7, stream.count] {
            var framer = TURNStreamFramer()
            var frames: [[UInt8]] = []
            var offset = 0
            while offset < stream.count {
                framer.append(stream[offset..<min(offset + chunk, stream.count)])
                offset += chunk
                while let frame = try framer.next() { frames.append(frame) }
            }
            #expect(frames == [stun, Array(channel.prefix(9)), stun])
        }
    }

    @Test func refusesBytesThatAreNeitherSTUNNorChannelData() {
        var framer = TURNStreamFramer()
        framer.append([0x80, 0, 0, 0, 0])
        #expect(throws: PreflightError.self) { try framer.next() }
    }
}
