import Foundation
import Preflight
import PreflightEdge
import PreflightTesting
import Testing

/// The Insights events of a call reach the edge, which serves them to the account's API key.
@Suite(.realTime, .serialized) struct CallInsightsTests {
    struct EventsBody: Decodable {
        struct Event: Decodable {
            var party: String
            var group: String
            var name: String
            var timestamp: Int64
            var payload: [String: String]
        }
        var callSid: String
        var events: [Event]
    }

    /// `GET /v1/calls/{sid}/events` with the edge's API key, parsed.
    static func events(_ harness: CallHarness, callSid: String, authorized: Bool = true) async throws -> (status: String, body: EventsBody?) {
        let port = try #require(URL(string: harness.edge.signalingURL)?.port)
        let credentials = Data("\(LocalEdge.apiKeySID):\(harness.edge.secret)".utf8).base64EncodedString()
        let reply = try await RawHTTP.get(
            port: port, path: "/v1/calls/\(callSid)/events", headers: authorized ? ["Authorization: Basic \(credentials)"] : [])
        let status = String(reply.text.split(separator: "\r\n").first ?? "")
        guard let range = reply.text.range(of: "\r\n\r\n") else { return (status, nil) }
        let body = try? JSONDecoder().decode(EventsBody.self, from: Data(reply.text[range.upperBound...].utf8))
        return (status, body)
    }

    @Test func everyGroupOfACallReachesTheEdge() async throws {
        try await CallHarness.withEdge { harness in
            let call = try await harness.connectedCall()
            let (caller, callee, bob) = (call.caller, call.callee, call.bob)
            caller.setMuted(true)
            caller.setMuted(false)
            caller.setOnHold(true)
            caller.setOnHold(false)
            // The next sample flushes the queued events to the edge while the call goes on.
            #expect(await caller.sample { _ in true } != nil, "no sample")
            caller.disconnect()
            #expect(await caller.endingError() == nil)
            #expect(await callee.endingError() == nil)
            await caller.postFeedback(score: .four, issue: .echo)
            await callee.postFeedback()
            let callSid = try #require(caller.sid)
            // The events arrive over signaling: wait until both parties' last ones are there.
            var body: EventsBody?
            _ = try await eventually {
                body = try await Self.events(harness, callSid: callSid).body
                return body?.events.filter { $0.group == "feedback" }.count == 2
            }
            let events = try #require(body?.events)
            #expect(body?.callSid == callSid)
            func names(_ party: String, _ group: String) -> [String] {
                events.filter { $0.party == party && $0.group == group }.map(\.name)
            }
            #expect(names("caller", "connection") == [
                "ringing", "accepted-by-remote", "connected", "muted", "unmuted", "hold", "unhold", "disconnect-called",
                "disconnected-by-local",
            ])
            #expect(names("callee", "connection") == ["ringing", "connected", "disconnected-by-remote"])
            for party in ["caller", "callee"] {
                #expect(names(party, "ice-gathering-state") == ["new", "gathering", "complete"], "\(party)")
                #expect(names(party, "ice-connection-state").contains("checking"), "\(party)")
                #expect(names(party, "ice-connection-state").contains("connected"), "\(party)")
                #expect(names(party, "pc-connection-state").contains("connected"), "\(party)")
                // ICE completes with its connection (the client nominates; the edge is ICE-lite),
                // and the call's end closes ICE and the peer connection.
                let ice = names(party, "ice-connection-state")
                if let connected = ice.firstIndex(of: "connected") {
                    #expect(ice.dropFirst(connected + 1).first == "completed", "\(party): \(ice)")
                }
                #expect(ice.last == "closed", "\(party): \(ice)")
                #expect(names(party, "pc-connection-state").last == "closed", "\(party)")
                #expect(names(party, "signaling-state") == ["have-local-offer", "stable", "closed"], "\(party)")
                let candidates = events.filter { $0.party == party && $0.name == "ice-candidate" }
                #expect(candidates.contains { $0.payload["isRemote"] == "false" && $0.payload["candidateType"] == "host" })
                #expect(candidates.contains { $0.payload["isRemote"] == "true" })
                #expect(names(party, "ice-candidate").contains("selected-ice-candidate-pair"), "\(party)")
                // Each candidate and pair once, with what it is (not again, empty, from the ICE timeline).
                let candidateGroup = events.filter { $0.party == party && $0.group == "ice-candidate" }
                #expect(candidateGroup.allSatisfy { !$0.payload.isEmpty }, "\(party): \(candidateGroup)")
            }
            // accepted-by-remote is stamped when the edge's answer arrives, before ICE starts its
            // checks with the answer's candidates (and so before it connects).
            let accepted = try #require(events.first { $0.party == "caller" && $0.name == "accepted-by-remote" })
            let checking = try #require(events.first { $0.party == "caller" && $0.group == "ice-connection-state" && $0.name == "checking" })
            #expect(accepted.timestamp <= checking.timestamp, "accepted-by-remote \(accepted.timestamp), checking \(checking.timestamp)")
            let feedback = try #require(events.first { $0.party == "caller" && $0.group == "feedback" })
            #expect(feedback.name == "received")
            #expect(feedback.payload == ["score": "4", "issue": "echo"])
            #expect(events.first { $0.party == "callee" && $0.group == "feedback" }?.name == "received-none")
            #expect(events.allSatisfy { $0.timestamp > 1_700_000_000_000 })
            await bob.unregister()
        }
    }

    /// `accepted-by-remote` comes with the edge's answer, not with ICE: a caller whose ICE cannot
    /// connect (relayed candidates only, and no TURN server to relay through) still posts it when
    /// the answer arrives, and never `connected`.
    @Test func acceptedByRemoteIsPostedWhenTheAnswerArrivesEvenIfICEFails() async throws {
        try await CallHarness.withEdge { harness in
            let caller = try await harness.connect(to: "echo", callOptions: CallOptions(iceTransportPolicy: .relay, iceTimeout: .seconds(1)))
            let error = await caller.endingError()
            #expect(error?.code == .mediaConnectionFailed, "\(String(describing: error))")
            #expect(!caller.states.contains(.connected))
            let callSid = try #require(caller.sid)
            var names: [String] = []
            #expect(try await eventually {
                let events = try await Self.events(harness, callSid: callSid).body?.events ?? []
                names = events.filter { $0.party == "caller" && $0.group == "connection" }.map(\.name)
                return names.contains("error")
            }, "\(names)")
            #expect(names.contains("accepted-by-remote"), "\(names)")
            #expect(!names.contains("connected"), "\(names)")
        }
    }

    @Test func theEventsAreOnlyForTheAccountsAPIKey() async throws {
        try await CallHarness.withEdge { harness in
            let call = try await harness.connect(to: "echo")
            #expect(await call.wait(for: .connected))
            call.disconnect()
            await call.endingError()
            let callSid = try #require(call.sid)
            #expect(try await Self.events(harness, callSid: callSid, authorized: false).status.contains("401"))
            #expect(try await Self.events(harness, callSid: "CA" + String(repeating: "0", count: 32)).status.contains("404"))
            #expect(try await Self.events(harness, callSid: callSid).status.contains("200"))
        }
    }
}
