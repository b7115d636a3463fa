import Foundation
import NIOCore
import PreflightCore
import PreflightEdge
import Testing

extension AttackTests {
    /// A client that knows its session's credentials checks from address after address: each
    /// would be one more entry in the edge's table of verified addresses, without end.
    @Suite struct VerifiedAddresses {
        @Test func oneSessionVerifiesNoMoreAddressesThanItsLimit() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let call = try await AttackCall.open(on: edge)
            let limit = MediaService.Configuration().maximumAddressesPerSession
            var probes: [UDPProbe] = []
            for _ in 0..<(limit + 4) {
                let probe = try await UDPProbe.bind()
                try await probe.send(try call.check(nominate: false), to: call.media)
                #expect(await probe.awaitReceived(1, upTo: .seconds(30)), "check \(probes.count + 1) got no answer")
                probes.append(probe)
            }
            let answers = try probes.map { try STUNMessage(decoding: try #require($0.received.first)) }
            let verified = answers.prefix(limit), refused = answers.dropFirst(limit)
            #expect(verified.allSatisfy { $0.type == .bindingSuccess })
            #expect(refused.allSatisfy { $0.type == .bindingError && $0.errorCode?.code == 403 })
            // Media from a refused address is not echoed; from a verified one it is.
            for probe in [probes[0], probes[limit]] { try await probe.send(try AttackCall.rtp(sequence: 1), to: call.media) }
            #expect(await probes[0].awaitReceived(2, upTo: .seconds(30)), "a verified address's RTP was not echoed")
            try await Task.sleep(for: .milliseconds(300))
            #expect(probes[limit].received.count == 1, "a refused address's RTP was echoed")
            // A verified address checked again is not one more.
            try await probes[1].send(try call.check(nominate: true), to: call.media)
            #expect(await probes[1].awaitReceived(2, upTo: .seconds(30)))
            #expect(try STUNMessage(decoding: try #require(probes[1].received.last)).type == .bindingSuccess)
            print("attack: \(limit + 4) addresses checked → \(verified.count) verified, \(refused.count) refused (403)")
            for probe in probes { await probe.close() }
            try await edge.expectAlive()
            await call.hangUp()
            try edge.expectSaneLog()
        }
    }
}
