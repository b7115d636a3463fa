import PreflightCore
@testable import PreflightEdge
import Testing

@Suite struct CallEventLogTests {
    static let event = InsightsEvent(.connection, "ringing", timestamp: 1)

    @Test func onlyPartiesPostAndOnlyTheAccountReads() {
        let log = CallEventLog()
        log.open(callSid: "CA1", account: "AC1", identity: "alice", role: .caller)
        log.open(callSid: "CA1", account: "AC1", identity: "bob", role: .callee)
        // Another account cannot join the call's log.
        log.open(callSid: "CA1", account: "AC2", identity: "mallory", role: .callee)
        #expect(log.append([Self.event], callSid: "CA1", account: "AC1", identity: "alice", at: 5) != nil)
        #expect(log.append([Self.event], callSid: "CA1", account: "AC1", identity: "bob", at: 6) != nil)
        #expect(log.append([Self.event], callSid: "CA1", account: "AC2", identity: "mallory", at: 7) == nil)
        #expect(log.append([Self.event], callSid: "CA1", account: "AC1", identity: "carol", at: 7) == nil)
        #expect(log.append([Self.event], callSid: "CA2", account: "AC1", identity: "alice", at: 7) == nil)
        #expect(log.append([Self.event], callSid: "CA1", account: "AC1", identity: "alice", at: 8)?.map(\.party) == ["caller"])
        #expect(log.append([Self.event], callSid: "CA1", account: "AC1", identity: "bob", at: 9)?.map(\.receivedAt) == [9])
        #expect(log.isParty(callSid: "CA1", account: "AC1", identity: "bob"))
        #expect(!log.isParty(callSid: "CA1", account: "AC1", identity: "mallory"))
        #expect(log.dropped(callSid: "CA1", account: "AC2") == nil)
    }

    @Test func aCallKeepsAtMostItsLimitAndCountsTheRest() {
        let log = CallEventLog()
        log.open(callSid: "CA1", account: "AC1", identity: "alice", role: .caller)
        let batch = Array(repeating: Self.event, count: 100)
        var kept = 0
        for _ in 0..<21 { kept += log.append(batch, callSid: "CA1", account: "AC1", identity: "alice", at: 1)?.count ?? 0 }
        #expect(kept == CallEventLog.maximumEventsPerCall)
        #expect(log.dropped(callSid: "CA1", account: "AC1") == 2_100 - CallEventLog.maximumEventsPerCall)
        #expect(log.droppedEvents == 100)
    }

    @Test func theOldestCallIsForgottenFirst() {
        let log = CallEventLog()
        for index in 0...CallEventLog.maximumCalls {
            log.open(callSid: "CA\(index)", account: "AC1", identity: "alice", role: .caller)
        }
        #expect(!log.isParty(callSid: "CA0", account: "AC1", identity: "alice"))
        #expect(log.isParty(callSid: "CA1", account: "AC1", identity: "alice"))
        #expect(log.isParty(callSid: "CA\(CallEventLog.maximumCalls)", account: "AC1", identity: "alice"))
    }

    @Test(arguments: [
        ("client:bob", DialTarget.client(identity: "bob")),
        ("echo", .application(.echo)),
        ("record-playback", .application(.recordPlayback)),
    ])
    func dialTargetsParse(text: String, target: DialTarget) {
        #expect(DialTarget(text) == target)
    }

    @Test(arguments: ["client:", "", "+15550100", "Echo", "client:" + String(repeating: "x", count: 300)])
    func notATarget(text: String) {
        #expect(DialTarget(text) == nil)
    }

    @Test func theRouteTableComesFirst() {
        #expect(DialTarget.resolve("+15550100", routes: ["+15550100": .client(identity: "bob")]) == .client(identity: "bob"))
        #expect(DialTarget.resolve("echo", routes: ["echo": .client(identity: "eve")]) == .client(identity: "eve"))
        #expect(DialTarget.resolve("client:x", routes: [:]) == .client(identity: "x"))
    }
}
