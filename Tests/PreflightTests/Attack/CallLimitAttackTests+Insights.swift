import Foundation
import NIOCore
import PreflightCore
import PreflightTesting
import PreflightEdge
import Testing

extension AttackTests.CallLimits {
    /// An event of about 300 bytes (four payload fields of 48).
    static let floodEvent = InsightsEvent(
        .connection, "flood", timestamp: 1,
        payload: Dictionary(uniqueKeysWithValues: (0..<4).map { ("k\($0)", String(repeating: "v", count: 48)) }))

    /// Posts full `insights` messages on `socket` round the `callSids` until `duration` passed.
    /// - Returns: the events sent to each call.
    static func flood(_ socket: RawWebSocket, _ callSids: [String], for duration: Duration) async throws -> [String: Int] {
        let events = Array(repeating: floodEvent, count: SignalingMessage.Insights.maximumEvents)
        var sent: [String: Int] = [:]
        let start = ContinuousClock.now
        var index = 0
        while ContinuousClock.now - start < duration, socket.endedAt == nil {
            let callSid = callSids[index % callSids.count]
            try await socket.send(.insights(.init(callSid: callSid, events: events)))
            sent[callSid, default: 0] += events.count
            index += 1
        }
        return sent
    }

    /// Waits until the edge has accounted for every event sent to each call (kept in the store
    /// or counted as dropped): the events kept in all.
    static func settle(_ edge: AttackedEdge, _ sent: [String: Int]) async throws -> Int {
        var kept = 0
        _ = try await eventually(within: .seconds(60), every: .milliseconds(200)) {
            kept = 0
            var accounted = true
            for (callSid, count) in sent {
                let figures = try await events(edge, callSid) ?? (0, 0)
                kept += figures.kept
                accounted = accounted && figures.kept + figures.dropped >= count
            }
            return accounted
        }
        return kept
    }

    /// One token's five test calls (the identity's five sessions): one session floods all five
    /// calls, then every session floods its own. Events taken per second stay at the session's
    /// rate, then the calls' (10 a second, bursts of 200, by default); the sessions go on.
    @Test func anInsightsFloodIsRateLimited() async throws {
        let edge = try await AttackedEdge.start()
        defer { edge.stop() }
        let token = try await edge.token(identity: "noisy")
        var calls: [(socket: RawWebSocket, callSid: String)] = []
        for _ in 0..<5 {
            let socket = try await Self.session(edge, token)
            try await socket.send(.invite(.init(ice: AttackTests.Calls.offer(), codecs: ["PCMU"])))
            await socket.wait(upTo: .seconds(10)) { Self.answerSid($0) != nil || $0.errorCode != nil }
            calls.append((socket, try #require(Self.answerSid(socket), "no answer: \(socket.summary)")))
        }
        let sids = calls.map(\.callSid)

        let start = ContinuousClock.now
        let one = try await Self.flood(calls[0].socket, sids, for: .seconds(4))
        let oneElapsed = ContinuousClock.now - start
        let oneKept = try await Self.settle(edge, one)
        // The edge reads a flood at its own pace, on a busy host well after the last send: it
        // took events from the start until it had accounted for all of them, not longer.
        let oneWindow = ContinuousClock.now - start
        let oneSent = one.values.reduce(0, +)
        print(
            "one session, five calls, \(oneElapsed.inSeconds.formatted(digits: 1)) s: \(oneSent) events sent (\(Self.perSecond(oneSent, oneElapsed))/s), \(oneKept) taken = \(Self.perSecond(oneKept, oneElapsed))/s")
        #expect(Double(oneKept) <= 200 + 10 * oneWindow.inSeconds + 1, "the session's burst of 200 and 10 a second")

        let allStart = ContinuousClock.now
        let all = try await withThrowingTaskGroup(of: [String: Int].self) { group in
            for call in calls { group.addTask { try await Self.flood(call.socket, [call.callSid], for: .seconds(4)) } }
            return try await group.reduce(into: one) { total, sent in total.merge(sent, uniquingKeysWith: +) }
        }
        let allElapsed = ContinuousClock.now - allStart
        let allKept = try await Self.settle(edge, all) - oneKept
        let allSent = all.values.reduce(0, +) - oneSent
        print(
            "five sessions, one call each, \(allElapsed.inSeconds.formatted(digits: 1)) s: \(allSent) events sent (\(Self.perSecond(allSent, allElapsed))/s), \(allKept) taken = \(Self.perSecond(allKept, allElapsed))/s")
        // Each call's bucket: its burst (what the first flood left of it) and 10 a second since.
        let total = (ContinuousClock.now - start).inSeconds
        #expect(Double(oneKept + allKept) <= 5 * (200 + 10 * total) + 5, "five calls' bursts of 200 and 10 a second each")
        for call in calls {
            #expect(call.socket.errorCode == nil && call.socket.endedAt == nil, "a flood over the rate ends no session: \(call.socket.summary)")
        }
        try await edge.expectAlive()
        try edge.expectSaneLog()
    }

    /// A call message whose `id` is over 256 bytes: `messageStatus` 70002 (its id cut to 256
    /// bytes), nothing delivered, the session goes on.
    @Test func anOverLongMessageIdIsRefused() async throws {
        let edge = try await AttackedEdge.start()
        defer { edge.stop() }
        let (alice, bob, callSid) = try await AttackTests.Calls.connectedCall(on: edge)
        let longId = String(repeating: "i", count: 40_000)
        try await alice.send(.message(.init(callSid: callSid, id: longId, message: CallMessage(content: "{}"))))
        try await alice.send(.message(.init(callSid: callSid, id: "KX-ok", message: CallMessage(content: "{}"))))
        let statuses = { alice.messages.compactMap { if case .messageStatus(let status) = $0 { status } else { nil } } }
        #expect(await alice.wait(upTo: .seconds(10)) { _ in statuses().count == 2 }, "\(alice.summary)")
        let delivered = { bob.messages.compactMap { if case .message(let message) = $0 { message.id } else { nil } } }
        await bob.wait(upTo: .seconds(5)) { _ in delivered().contains("KX-ok") }
        print(
            "a message id of \(longId.utf8.count) bytes: status \(statuses().first.map { "\($0.code.map(String.init) ?? "delivered") with an id of \($0.id.utf8.count) bytes" } ?? "none"); the other party got ids of \(delivered().map(\.utf8.count)) bytes")
        // Lengths, not the ids themselves: a failure must not print 40 KB.
        #expect(statuses().first?.code == PreflightError.Code.malformed.rawValue)
        #expect(statuses().first?.id.utf8.count == SignalingMessage.Message.maximumIdLength)
        #expect(statuses().first.map { longId.hasPrefix($0.id) } == true)
        #expect(statuses().last?.id == "KX-ok" && statuses().last?.code == nil)
        #expect(delivered().map(\.utf8.count) == [5])
        #expect(alice.endedAt == nil && alice.errorCode == nil)
        try await edge.expectAlive()
    }
}
