import Foundation
import Hummingbird
import NIOCore
import PreflightCore

extension EdgeServer {
    /// `GET /v1/init` for a valid access token (any grant, ``AccessTokenAuthentication``): the
    /// signaling URL, the ICE servers (with TURN credentials for the token's identity) and the
    /// edge's name; 503 before the edge listens.
    func initResponse(_ context: EdgeRequestContext) throws(PreflightError) -> Response {
        guard let claims = context.claims else {
            throw PreflightError(code: .invalidAccessToken, message: "init: send the access token as Authorization: Bearer <token>")
        }
        guard let addresses = runningAddresses else {
            throw PreflightError(code: .edgeAtCapacity, message: "init: the edge is not listening yet")
        }
        let host = advertisedAddress.contains(":") ? "[\(advertisedAddress)]" : advertisedAddress
        let url = configuration.publicSignalingURL ?? "\(tlsContext == nil ? "ws" : "wss")://\(host):\(addresses.http.port ?? 0)/signaling"
        let body = InitAnswer(
            edge: configuration.edgeName, websocketUrl: url, iceServers: iceServers(for: claims, mediaPort: addresses.media.port ?? 0),
            mediaUrl: "stun:\(host):\(configuration.advertisedMediaPort ?? addresses.media.port ?? 0)")
        return try Self.encoded(body)
    }
}
