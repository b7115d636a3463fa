extension MediaService.Configuration {
    /// How the media sockets are read and written.
    public enum IO: Sendable, Hashable {
        /// Each socket on a thread of its own, with `recvmmsg` and `sendmmsg` straight from it and
        /// no event-loop pipeline per datagram: the default on Linux, where those calls exist.
        case dedicatedThreads
        /// Each socket as a NIO channel on an event loop of the group given to
        /// ``MediaService/bind(host:port:group:)`` (vector reads, replies flushed per read
        /// burst): the default elsewhere, and available on Linux.
        case eventLoop

        /// The platform's default: ``dedicatedThreads`` on Linux, ``eventLoop`` elsewhere.
        public static var platformDefault: IO {
            #if os(Linux)
            .dedicatedThreads
            #else
            .eventLoop
            #endif
        }
    }
}
