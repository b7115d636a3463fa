public import PreflightModel

/// What a run says about each change of the host's networks: a pure value fed the monitor's
/// changes and the ICE agent's selected path, with times in (milliseconds since the Unix epoch)
/// and ``NetworkChangeRecord``s out. The spec:
///
/// - The network **in use** is the one of the selected pair's local address (a host candidate's
///   address, a server-reflexive one's base); `nil` before media connects, or when the pair's
///   address is on no known network (a relayed candidate's).
/// - A change that **takes the network in use away** (its interface gone, or the address in use
///   gone from it) opens a pending record, reason ``NetworkChangeRecord/Reason/networkLost``,
///   whose media loss starts then.
/// - A change that **brings a network more preferred** than the one in use (``NetworkType``'s
///   order) opens a pending record, reason ``NetworkChangeRecord/Reason/preferredNetworkAppeared``;
///   its media loss starts only if the agent reports media lost before the switch.
/// - Any other change is recorded at once with media where it was: ``NetworkChangeRecord/Reason/networkAppeared``
///   when networks appeared, ``NetworkChangeRecord/Reason/otherNetworkLost`` when they only went;
///   before media connects, likewise with no network on either side.
/// - A pending record closes when the agent selects a pair: a lost network's record on any
///   network (the same one come back included), a preferred network's only on another network
///   than before. `gap` is from the media loss to the selection (0 without a loss), `switchTime`
///   from the change to the selection.
/// - A change while a preferred network's record is pending closes it first, with no network
///   after (`to` `nil`): a flapping network reports every change. A lost network's record stays
///   open through later changes (the network coming back, another appearing) until media is
///   back; those changes are part of it. ``finish(now:)`` closes a pending record with no
///   network after.
public struct NetworkSwitchTracker: Sendable {
    private struct Pending: Sendable {
        let timestamp: Int64
        let from: HostNetwork?
        let reason: NetworkChangeRecord.Reason
        var lostAt: Int64?
    }

    /// The host's networks as last told.
    public private(set) var snapshot: NetworkSnapshot
    /// The local address (or base) of the selected pair.
    private var selectedAddress: String?
    private var pending: Pending?

    /// A tracker that starts from `snapshot`, media not yet connected.
    public init(snapshot: NetworkSnapshot) {
        self.snapshot = snapshot
    }

    /// The network media uses now.
    public var inUse: HostNetwork? { network(of: selectedAddress) }

    /// The first state of the host's networks, which may come after media connected: nothing
    /// changed, nothing is recorded.
    public mutating func start(from snapshot: NetworkSnapshot) {
        self.snapshot = snapshot
    }

    /// Whether a change is waiting for the agent to select its pair.
    public var isPending: Bool { pending != nil }

    /// The network `address` (a local candidate's address or base) belongs to in the snapshot.
    public func network(of address: String?) -> HostNetwork? {
        guard let address else { return nil }
        return snapshot.networks.first { $0.addresses.contains(address) }
    }

    /// The networks changed to `next`.
    /// - Returns: what is recorded at once (a pending record this change closes, and this change
    ///   when it does not move media).
    public mutating func networksChanged(to next: NetworkSnapshot, now: Int64) -> [NetworkChangeRecord] {
        let (appeared, disappeared) = next.difference(from: snapshot)
        let used = inUse
        snapshot = next
        guard !appeared.isEmpty || !disappeared.isEmpty else { return [] }
        if pending?.reason == .networkLost { return [] }
        var records: [NetworkChangeRecord] = []
        if let closed = close(to: nil, now: now) { records.append(closed) }
        if let used, let address = selectedAddress,
            !next.networks.contains(where: { $0.interfaceName == used.interfaceName && $0.addresses.contains(address) })
        {
            pending = Pending(timestamp: now, from: used, reason: .networkLost, lostAt: now)
            selectedAddress = nil
        } else if let used = inUse, appeared.contains(where: { $0.type.isPreferred(over: used.type) }) {
            pending = Pending(timestamp: now, from: used, reason: .preferredNetworkAppeared, lostAt: nil)
        } else {
            records.append(NetworkChangeRecord(
                timestamp: now, from: inUse, to: inUse, reason: appeared.isEmpty ? .otherNetworkLost : .networkAppeared,
                gapMilliseconds: 0, switchMilliseconds: 0))
        }
        return records
    }

    /// The agent lost media (the selected pair fell silent, or its network went).
    public mutating func mediaLost(now: Int64) {
        if pending != nil, pending?.lostAt == nil { pending?.lostAt = now }
    }

    /// The agent selected a pair whose local address (or base) is `localAddress`.
    /// - Returns: the pending record this closes, if any.
    public mutating func pathSelected(localAddress: String?, now: Int64) -> NetworkChangeRecord? {
        let network = network(of: localAddress)
        selectedAddress = localAddress
        guard let pending else { return nil }
        if pending.reason == .preferredNetworkAppeared, network?.interfaceName == pending.from?.interfaceName { return nil }
        return close(to: network, now: now)
    }

    /// The run ended: a pending record closes with no network after.
    public mutating func finish(now: Int64) -> NetworkChangeRecord? {
        close(to: nil, now: now)
    }

    private mutating func close(to network: HostNetwork?, now: Int64) -> NetworkChangeRecord? {
        guard let open = pending else { return nil }
        pending = nil
        return NetworkChangeRecord(
            timestamp: open.timestamp, from: open.from, to: network, reason: open.reason,
            gapMilliseconds: open.lostAt.map { max(0, now - $0) } ?? 0, switchMilliseconds: max(0, now - open.timestamp))
    }
}
