#if canImport(Network)
    import Dispatch
    import Network
    import PreflightCore
    import Synchronization

    /// The Apple side of ``NetworkMonitor``: an `NWPathMonitor` on a serial queue of its own.
    ///
    /// `NWPathMonitor` says which interfaces a path can use and of what type, not their addresses:
    /// on each update the backend reads those with `getifaddrs` (``InterfaceAddressEntry/system()``)
    /// and builds the snapshot with ``PathMonitorSnapshots`` (IPv4 first, then IPv6 that is not
    /// link-local; an interface without an address is left out; an unsatisfied path has no
    /// networks). A snapshot equal to the last one is not published.
    enum PathBackend {
        /// Starts the path monitor; `publish` gets the first snapshot and every one that differs
        /// from the one before, on the backend's queue.
        /// - Returns: what cancels the monitor.
        static func start(
            classifier: NetworkTypeClassifier, publish: @escaping @Sendable (NetworkSnapshot) -> Void
        ) -> @Sendable () -> Void {
            let monitor = NWPathMonitor()
            let queue = DispatchQueue(label: "preflight.network-monitor")
            let snapshots = Mutex(PathMonitorSnapshots(classifier: classifier))
            monitor.pathUpdateHandler = { path in
                let interfaces = path.availableInterfaces.map {
                    PathInterface(name: $0.name, index: $0.index, appleType: appleType(of: $0.type))
                }
                let changed = snapshots.withLock {
                    $0.update(isSatisfied: path.status == .satisfied, interfaces: interfaces, addresses: InterfaceAddressEntry.system())
                }
                if let changed { publish(changed) }
            }
            monitor.start(queue: queue)
            return { monitor.cancel() }
        }

        /// `NWInterface`'s type as ``NetworkInterfaceFacts`` names it.
        static func appleType(of type: NWInterface.InterfaceType) -> NetworkInterfaceFacts.AppleType {
            switch type {
            case .wifi: .wifi
            case .cellular: .cellular
            case .wiredEthernet: .wiredEthernet
            case .loopback: .loopback
            case .other: .other
            @unknown default: .other
            }
        }
    }
#endif
