extension SignalingMessage {
    /// The body of `connectivityCheck`: a connectivity check's two media connections (100ms's
    /// publish and subscribe peer connections), each with its own ICE agent. The edge forwards
    /// the audio and video RTP that arrives on the publish connection to the subscribe
    /// connection (docs/protocol.md).
    public struct ConnectivityCheck: Sendable, Hashable, Codable {
        /// The publish connection's ICE parameters and candidates.
        public var publish: ICEParameters
        /// The subscribe connection's ICE parameters and candidates.
        public var subscribe: ICEParameters
        /// Audio codecs by preference, as an invite's.
        public var codecs: [String]

        /// The RTP payload type of the check's video test stream (``VideoTestPacketizer``).
        public static let videoPayloadType: UInt8 = 96

        /// Creates the body.
        public init(publish: ICEParameters, subscribe: ICEParameters, codecs: [String]) {
            self.publish = publish
            self.subscribe = subscribe
            self.codecs = codecs
        }
    }
}
