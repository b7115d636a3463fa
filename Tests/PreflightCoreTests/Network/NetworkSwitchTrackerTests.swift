import PreflightCore
import Testing

/// The tracker's spec (its doc comment), one rule a test, times in milliseconds given by the test:
/// the handover lab's scenarios as the call's ICE agent reports them.
@Suite struct NetworkSwitchTrackerTests {
    static let cellular = HostNetwork(interfaceName: "cell0", interfaceIndex: 2, type: .cellular, addresses: ["198.18.1.2"])
    static let wifi = HostNetwork(interfaceName: "wifi0", interfaceIndex: 3, type: .wifi, addresses: ["198.18.2.2"])

    static func tracker(_ networks: [HostNetwork], selected: String?) -> NetworkSwitchTracker {
        var tracker = NetworkSwitchTracker(snapshot: NetworkSnapshot(networks: []))
        tracker.start(from: NetworkSnapshot(networks: networks))
        if let selected { #expect(tracker.pathSelected(localAddress: selected, now: 0) == nil) }
        return tracker
    }

    @Test func aPreferredNetworkIsRecordedWhenMediaMovesToIt() throws {
        var tracker = Self.tracker([Self.cellular], selected: "198.18.1.2")
        #expect(tracker.inUse == Self.cellular)
        #expect(tracker.networksChanged(to: NetworkSnapshot(networks: [Self.cellular, Self.wifi]), now: 1_000).isEmpty)
        #expect(tracker.isPending)
        // A consent refresh on the old network does not close it.
        #expect(tracker.pathSelected(localAddress: "198.18.1.2", now: 1_100) == nil)
        let selected = tracker.pathSelected(localAddress: "198.18.2.2", now: 1_250)
        let record = try #require(selected)
        #expect(record.reason == .preferredNetworkAppeared)
        #expect(record.from == "cell0" && record.fromType == "CELLULAR")
        #expect(record.to == "wifi0" && record.toType == "WIFI")
        #expect(record.timestamp == 1_000 && record.switchMilliseconds == 250 && record.gapMilliseconds == 0)
        #expect(tracker.inUse == Self.wifi && !tracker.isPending)
    }

    @Test func losingTheNetworkInUseCountsTheGapUntilMediaIsBack() throws {
        var tracker = Self.tracker([Self.wifi, Self.cellular], selected: "198.18.2.2")
        #expect(tracker.networksChanged(to: NetworkSnapshot(networks: [Self.cellular]), now: 5_000).isEmpty)
        #expect(tracker.inUse == nil)
        tracker.mediaLost(now: 5_001)
        let selected = tracker.pathSelected(localAddress: "198.18.1.2", now: 5_400)
        let record = try #require(selected)
        #expect(record.reason == .networkLost && record.from == "wifi0" && record.to == "cell0")
        #expect(record.gapMilliseconds == 400 && record.switchMilliseconds == 400)
    }

    @Test func theSameNetworkComingBackClosesItsLoss() throws {
        var tracker = Self.tracker([Self.wifi], selected: "198.18.2.2")
        #expect(tracker.networksChanged(to: NetworkSnapshot(networks: []), now: 0).isEmpty)
        tracker.mediaLost(now: 2_500)
        // The return is part of the loss: nothing recorded until media is back.
        #expect(tracker.networksChanged(to: NetworkSnapshot(networks: [Self.wifi]), now: 5_000).isEmpty)
        let selected = tracker.pathSelected(localAddress: "198.18.2.2", now: 5_300)
        let record = try #require(selected)
        #expect(record.reason == .networkLost && record.from == "wifi0" && record.to == "wifi0")
        #expect(record.gapMilliseconds == 5_300 && record.switchMilliseconds == 5_300)
        #expect(tracker.inUse == Self.wifi && !tracker.isPending)
    }

    @Test func changesThatDoNotMoveMediaAreRecordedAtOnce() {
        var tracker = Self.tracker([Self.wifi], selected: "198.18.2.2")
        let appeared = tracker.networksChanged(to: NetworkSnapshot(networks: [Self.wifi, Self.cellular]), now: 10)
        #expect(appeared.map(\.reason) == [.networkAppeared])
        #expect(appeared.first?.from == "wifi0" && appeared.first?.to == "wifi0" && appeared.first?.switchMilliseconds == 0)
        let gone = tracker.networksChanged(to: NetworkSnapshot(networks: [Self.wifi]), now: 20)
        #expect(gone.map(\.reason) == [.otherNetworkLost])
        // The same state again is no change.
        #expect(tracker.networksChanged(to: NetworkSnapshot(networks: [Self.wifi]), now: 30).isEmpty)
    }

    @Test func aFlapReportsEveryChange() {
        var tracker = Self.tracker([Self.wifi, Self.cellular], selected: "198.18.2.2")
        var records: [NetworkChangeRecord] = []
        records += tracker.networksChanged(to: NetworkSnapshot(networks: [Self.cellular]), now: 0)
        records += tracker.pathSelected(localAddress: "198.18.1.2", now: 300).map { [$0] } ?? []
        records += tracker.networksChanged(to: NetworkSnapshot(networks: [Self.cellular, Self.wifi]), now: 3_000)
        // Wi-Fi goes again before its pair took the media: the pending switch closes with no
        // network after, and the loss of a network not in use is recorded.
        records += tracker.networksChanged(to: NetworkSnapshot(networks: [Self.cellular]), now: 3_100)
        records += tracker.finish(now: 4_000).map { [$0] } ?? []
        #expect(records.map(\.reason) == [.networkLost, .preferredNetworkAppeared, .otherNetworkLost])
        #expect(records.map(\.to) == ["cell0", nil, "cell0"])
        #expect(records[1].switchMilliseconds == 100)
    }

    @Test func aChangeBeforeMediaConnectsNamesNoNetwork() {
        var tracker = Self.tracker([Self.cellular], selected: nil)
        let records = tracker.networksChanged(to: NetworkSnapshot(networks: [Self.cellular, Self.wifi]), now: 0)
        #expect(records.count == 1 && records.first?.from == nil && records.first?.to == nil)
        // The first state may come after media connected: the selection is kept.
        var late = NetworkSwitchTracker(snapshot: NetworkSnapshot(networks: []))
        _ = late.pathSelected(localAddress: "198.18.1.2", now: 0)
        late.start(from: NetworkSnapshot(networks: [Self.cellular]))
        #expect(late.inUse == Self.cellular)
    }

    @Test func theInsightsPayloadNamesEveryField() {
        let record = NetworkChangeRecord(
            timestamp: 1, from: Self.cellular, to: Self.wifi, reason: .preferredNetworkAppeared, gapMilliseconds: 0, switchMilliseconds: 80)
        #expect(record.insightsPayload == [
            "reason": "preferred-network-appeared", "from": "cell0", "fromType": "CELLULAR", "to": "wifi0", "toType": "WIFI",
            "gap": "0", "switchTime": "80",
        ])
    }
}
