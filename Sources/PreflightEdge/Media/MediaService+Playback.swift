import NIOCore
import PreflightCore
import Synchronization

extension MediaService {
    /// Sends a session's recording back to its verified peer, one frame every 20 ms (deadline
    /// paced, so timer slack does not add up), with the edge's send time on each packet, as far
    /// as the peer's own ``SendBudget`` allows.
    /// - Returns: the number of frames sent; fewer than recorded when the session ends, the task
    ///   is cancelled or the peer has not sent enough to receive more.
    public func playRecording(localUfrag: String, frameInterval: Duration = .milliseconds(20)) async -> Int {
        let frames = state.withLock { state -> (frames: [[UInt8]], payloadType: UInt8)? in
            guard state.sessions[localUfrag] != nil else { return nil }
            state.sessions[localUfrag]?.recordingClosed = true
            guard let session = state.sessions[localUfrag] else { return nil }
            return (session.recording, session.format.payloadType)
        }
        guard let frames, !frames.frames.isEmpty else { return 0 }
        let clock = ContinuousClock()
        let start = clock.now
        var sent = 0
        for (index, payload) in frames.frames.enumerated() {
            do {
                try await Task.sleep(until: start + frameInterval * index, clock: clock)
            } catch {
                break
            }
            guard send(payload, payloadType: frames.payloadType, marker: index == 0, localUfrag: localUfrag) else { break }
            sent += 1
        }
        return sent
    }

    /// Builds and writes one packet of the session's stream to its verified peer.
    private func send(_ payload: [UInt8], payloadType: UInt8, marker: Bool, localUfrag: String) -> Bool {
        let now = self.now
        let envelope = state.withLock { state -> (MediaOutlet, [UInt8], SocketAddress)? in
            guard let outlet = state.outlet, var session = state.sessions[localUfrag], let peer = session.peer,
                var verified = state[verified: peer], verified.ufrag == localUfrag
            else { return nil }
            guard let bytes = session.originate(
                payload, payloadType: payloadType, marker: marker, at: now,
                headerExtension: MediaExtension.edgeExtension(sendMicroseconds: Self.microseconds(now)))
            else { return nil }
            // The peer's own budget: what it sent, not what the session recorded from anyone.
            guard verified.budget.spend(bytes: bytes.count) else {
                state.counters.droppedOverBudget += 1
                return nil
            }
            state[verified: peer] = verified
            state.sessions[localUfrag] = session
            state.counters.packetsPlayedBack += 1
            return (outlet, bytes, peer)
        }
        guard let (outlet, bytes, peer) = envelope else { return false }
        if outlet.send(bytes, to: peer) { datagramsSent.add(1, ordering: .relaxed) }
        return true
    }

    /// Sets the socket that playback and probe trains write to (done by ``bind(host:port:group:)``).
    func attach(_ outlet: MediaOutlet) {
        state.withLock { $0.outlet = outlet }
    }
}
