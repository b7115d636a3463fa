extension ICEAgent {
    /// What the agent asks its driver to do, in order (``ICEAgent/takeOutputs()``).
    public enum Output: Sendable {
        /// Send these bytes.
        case transmit([UInt8], Transport)
        /// Resolve a server's host name (getaddrinfo blocks: off the agent), then call
        /// ``ICEAgent/serverResolved(_:address:now:)``.
        case resolve(ServerID, host: String, port: Int)
        /// Open the TCP or TLS connection to a TURN server (TLS for `turns:`), then call
        /// ``ICEAgent/streamConnected(_:now:)`` or ``ICEAgent/streamFailed(_:reason:now:)``.
        case connect(ServerID, address: TransportAddress, url: ICEServerURL)
        /// Close the stream connection to a server.
        case closeStream(ServerID)
        /// Something the agent's owner wants to know.
        case event(Event)
    }

    /// What happened, for the agent's owner.
    public enum Event: Sendable {
        /// A state change or a candidate, for the connection's timeline.
        case timeline(ConnectionStateEvent)
        /// A STUN or TURN server gave no candidate (also in ``ICEAgent/candidateErrors``).
        case serverFailed(ICECandidateErrorRecord)
        /// Gathering is over: the parameters to offer (credentials and candidates), and the
        /// candidates as the report lists them.
        case gatheringComplete(ICEParameters, candidateStats: [ICECandidateStats])
        /// A server-reflexive or relayed candidate came after gathering completed (a network
        /// that appeared asked the servers: ``ICEAgent/gatherServers(on:now:)``): to tell the
        /// remote side. A relayed one is already paired and checked.
        case candidateGathered(ICECandidate)
        /// The first nominated pair succeeded: media may flow. `at` is the agent's time.
        case connected(ICECandidatePairStats, at: Double)
        /// Another pair was nominated while connected.
        case pairChanged(ICECandidatePairStats, at: Double)
        /// The selected pair fell silent; every pair is being checked again.
        case disconnected(PreflightError, at: Double)
        /// A pair answered again after a disconnection.
        case reconnected(ICECandidatePairStats, at: Double)
        /// A TURN server refused to bind a channel: Send indications carry the data instead.
        case channelBindRefused(server: ServerID, peer: TransportAddress, STUNErrorCode?)
        /// ICE failed; the agent does nothing more.
        case failed(PreflightError)
    }

    /// What a received datagram was, for the driver: media goes on to the media session.
    public enum Inbound: Sendable, Equatable {
        /// Consumed by the agent (STUN, TURN) or dropped (not from the selected pair).
        case consumed
        /// RTP or RTCP over the selected pair: the datagram as it arrived.
        case media
        /// RTP or RTCP over the selected pair, unwrapped from the relay: these bytes.
        case relayedMedia([UInt8])
    }
}
