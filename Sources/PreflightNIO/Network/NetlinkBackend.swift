#if os(Linux)
    import Dispatch
    import Logging
    import PreflightCore
    import Synchronization

    /// The Linux side of ``NetworkMonitor``: a ``NetlinkSocket`` read by a dispatch source on a
    /// serial queue, feeding a ``NetlinkMonitorSession``.
    enum NetlinkBackend {
        /// Opens the socket and asks for the first dumps; `publish` gets every snapshot the
        /// session gives, on the backend's queue.
        /// - Returns: what releases the socket.
        static func start(
            classifier: NetworkTypeClassifier, logger: Logger, publish: @escaping @Sendable (NetworkSnapshot) -> Void
        ) throws(PreflightError) -> @Sendable () -> Void {
            let socket = try NetlinkSocket()
            let queue = DispatchQueue(label: "preflight.network-monitor")
            let session = Mutex(NetlinkMonitorSession { link in
                classifier.classify(SysfsInterfaceFacts.facts(of: link))
            })
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: NetlinkSocket.bufferSize, alignment: 8)
            let source = DispatchSource.makeReadSource(fileDescriptor: socket.descriptor, queue: queue)
            let flush: @Sendable () -> Void = {
                for output in session.withLock({ $0.takeOutputs() }) {
                    switch output {
                    case .send(let bytes): socket.send(bytes)
                    case .snapshot(let snapshot): publish(snapshot)
                    }
                }
            }
            source.setEventHandler {
                reading: while true {
                    switch socket.read(into: buffer) {
                    case .datagram(let count):
                        let bytes = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                        session.withLock { $0.receive(bytes[...]) }
                    case .lost:
                        logger.debug("netlink: the kernel dropped notifications; dumping the interfaces again")
                        session.withLock { $0.lostMessages() }
                    case .foreign:
                        continue
                    case .empty:
                        break reading
                    }
                }
                flush()
            }
            source.setCancelHandler {
                socket.close()
                buffer.deallocate()
            }
            let handle = SendableSource(source)
            queue.async {
                session.withLock { $0.start() }
                flush()
                handle.source.resume()
            }
            return { handle.source.cancel() }
        }
    }

    /// A dispatch source handed to the function that cancels it (cancelling is thread-safe).
    final class SendableSource: @unchecked Sendable {
        let source: any DispatchSourceRead
        init(_ source: any DispatchSourceRead) { self.source = source }
    }
#endif
