extension MediaService {
    /// Limits that protect the edge.
    public struct Configuration: Sendable, Hashable {
        /// Datagrams per second accepted from one source address; 200 by default (audio at 20 ms
        /// frames is 50 per second, RTCP and checks add a few).
        public var packetsPerSecondPerSource: Double
        /// Largest burst from one source, datagrams; 100 by default.
        public var burstPerSource: Double
        /// How many sources are tracked for rate limiting; when full, sources idle long enough for
        /// their bucket to refill are evicted, and new sources beyond it share one bucket
        /// (``SourceRateLimiter``). 65 536 by default.
        public var maximumTrackedSources: Int
        /// The most frames a record-playback session records: 500 by default (10 s of 20 ms
        /// frames, the echo test's longest interval); each session records its own interval's worth.
        public var maximumRecordingFrames: Int
        /// Payload bytes a record-playback session records: 256 KiB by default (500 frames of up
        /// to 512 bytes; a 20 ms PCMU frame is 160 bytes).
        public var maximumRecordingBytes: Int
        /// Payload bytes all sessions' recordings hold together: 64 MiB by default (256 full
        /// recordings); a recording that would pass it stops early.
        public var maximumTotalRecordingBytes: Int
        /// The UDP socket's receive buffer, bytes: 4 MiB by default, so that the packets of
        /// hundreds of sessions arriving together are not dropped by the kernel before the event
        /// loop reads them (the kernel clamps it to `net.core.rmem_max`).
        public var receiveBufferSize: Int
        /// Sockets serving the media port, each on its own thread or event loop (``io``): 1 by default. More than one
        /// binds them all with `SO_REUSEPORT`, and the kernel spreads the sources over them by
        /// their address, so a machine with more cores serves more media (1–64).
        public var threads: Int
        /// Datagrams one system call reads (`recvmmsg`, NIO's vector reads): 32 by default; 1
        /// reads one at a time (`recvmsg`). Replies go out together at the end of each read burst
        /// (`sendmmsg`).
        public var datagramsPerRead: Int
        /// Addresses one session may have verified by checks at once: 16 by default (a client's
        /// candidate pairs, a few each way). A check from one more address is refused (403), so
        /// that a client cannot grow the edge's table of verified addresses without end.
        public var maximumAddressesPerSession: Int
        /// How the sockets are served: ``IO/platformDefault`` by default (threads of their own
        /// on Linux, event loops elsewhere). ``IO/dedicatedThreads`` where the platform lacks
        /// `recvmmsg` falls back to event loops.
        public var io: IO

        /// Creates a configuration; see each property for its default.
        public init(
            packetsPerSecondPerSource: Double = 200, burstPerSource: Double = 100, maximumTrackedSources: Int = 65_536,
            maximumRecordingFrames: Int = 500, maximumRecordingBytes: Int = 256 << 10,
            maximumTotalRecordingBytes: Int = 64 << 20, receiveBufferSize: Int = 4 << 20,
            threads: Int = 1, datagramsPerRead: Int = 32, io: IO = .platformDefault, maximumAddressesPerSession: Int = 16
        ) {
            self.io = io
            self.maximumAddressesPerSession = max(1, maximumAddressesPerSession)
            self.packetsPerSecondPerSource = packetsPerSecondPerSource
            self.burstPerSource = burstPerSource
            self.maximumTrackedSources = maximumTrackedSources
            self.maximumRecordingFrames = maximumRecordingFrames
            self.maximumRecordingBytes = maximumRecordingBytes
            self.maximumTotalRecordingBytes = maximumTotalRecordingBytes
            self.receiveBufferSize = receiveBufferSize
            self.threads = max(1, min(threads, 64))
            self.datagramsPerRead = max(1, min(datagramsPerRead, 1024))
        }
    }
}
