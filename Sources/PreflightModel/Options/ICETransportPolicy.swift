/// Which candidates the ICE agent may use (WebRTC's `RTCIceTransportPolicy`).
public enum ICETransportPolicy: String, Sendable, Hashable, CaseIterable {
    /// Host, server-reflexive and relayed candidates.
    case all
    /// Relayed candidates only: media must go through a TURN server (tests that TURN works).
    case relay
}
