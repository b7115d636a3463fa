import Foundation

/// What an edge's init endpoint (`GET /v1/init`, docs/protocol.md) answers for a valid token:
/// the edge's name, its signaling URL and the ICE servers to use (100ms's init API).
public struct InitAnswer: Sendable, Hashable, Codable {
    /// The edge's name.
    public var edge: String
    /// The signaling WebSocket URL.
    public var websocketUrl: String
    /// STUN/TURN servers with credentials.
    public var iceServers: [ICEServer]
    /// The edge's media port as `stun:host:port` (added to 100ms's shape): it answers plain STUN
    /// Binding requests, which is how roaming measures the RTT to each edge. `nil` from an edge
    /// that does not say.
    public var mediaUrl: String?

    /// Creates an answer.
    public init(edge: String, websocketUrl: String, iceServers: [ICEServer], mediaUrl: String? = nil) {
        self.edge = edge
        self.websocketUrl = websocketUrl
        self.iceServers = iceServers
        self.mediaUrl = mediaUrl
    }

    /// The largest answer read, bytes: an edge's answer is a few hundred.
    public static let maximumLength = 64 * 1024

    /// Reads the endpoint's answer: its JSON for status 200, its `{code, message}` for a refusal.
    /// - Throws: the refusal's code (the token's 201xx), or 70601 for a body over
    ///   ``maximumLength``, one that is not the endpoint's JSON, or a status without a code.
    public init(status: UInt, body: [UInt8]) throws(PreflightError) {
        struct Refusal: Decodable {
            var code: Int
            var message: String
        }
        guard body.count <= Self.maximumLength else {
            throw PreflightError(code: .initFailed, message: "init: the answer exceeds \(Self.maximumLength) bytes")
        }
        if status == 200 {
            guard let answer = try? JSONDecoder().decode(InitAnswer.self, from: Data(body)),
                answer.websocketUrl.utf8.count <= 2048, answer.edge.utf8.count <= 256, (answer.mediaUrl?.utf8.count ?? 0) <= 300
            else {
                throw PreflightError(code: .initFailed, message: "init: the answer is not the init endpoint's JSON")
            }
            self = answer
            return
        }
        if let refusal = try? JSONDecoder().decode(Refusal.self, from: Data(body)), (20000...79999).contains(refusal.code) {
            throw PreflightError(
                code: PreflightError.Code(refusal.code), message: "init: HTTP \(status): \(UntrustedText.excerpt(refusal.message, limit: 300))")
        }
        throw PreflightError(code: .initFailed, message: "init: HTTP \(status)")
    }
}
