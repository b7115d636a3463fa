import Foundation
import Preflight
import PreflightEdge
import PreflightTesting
import Testing

/// `RegistrationOptions.fallbackEdgeURLs`: the next edge after an edge's own failure, never after
/// the token's.
@Suite(.realTime) struct RegistrationFallbackTests {
    /// Nothing listens at the first edge's address (53000): the registration is made on the next.
    @Test func anUnreachableEdgeGivesWayToTheNext() async throws {
        try await CallHarness.withEdge { harness in
            var options = RegistrationOptions(
                accessToken: try await harness.edge.callToken(identity: "bob"), edgeURL: "ws://127.0.0.1:1/signaling",
                signalingTimeout: .seconds(5))
            options.fallbackEdgeURLs = [harness.edge.signalingURL]
            let registration = try await Voice.register(options: options)
            #expect(registration.edgeURL == harness.edge.signalingURL)
            #expect(registration.identity == "bob")
            await registration.unregister()
        }
    }

    /// A token the first edge refuses (another edge's key: 20107) would be refused everywhere of
    /// one deployment: the registration fails with it, and the next edge is not tried, though
    /// it would take that token.
    @Test func aRefusedTokenTriesNoOtherEdge() async throws {
        try await CallHarness.withEdge { first in
            try await CallHarness.withEdge { second in
                var options = RegistrationOptions(accessToken: try await second.edge.callToken(identity: "bob"), edgeURL: first.edge.signalingURL)
                options.fallbackEdgeURLs = [second.edge.signalingURL]
                let error = await #expect(throws: PreflightError.self) { try await Voice.register(options: options) }
                #expect(error?.code == .invalidAccessTokenSignature, "\(String(describing: error))")
            }
        }
    }
}
