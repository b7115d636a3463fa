import Foundation
import Hummingbird
import NIOCore
import PreflightCore

extension EdgeServer {
    /// The longest `Authorization` value read: a token past this is refused unread.
    static let maximumAuthorizationLength = 8192

    /// `GET /v1/init` with `Authorization: Bearer <access token>`: the signaling URL, the ICE
    /// servers and the edge's name for a valid token (any grant); 401 with the token's error code
    /// otherwise, 503 before the edge listens.
    func initResponse(authorization: String?) async -> Response {
        let claims: AccessTokenClaims
        switch await bearerClaims(authorization, for: "init") {
        case .success(let verified): claims = verified
        case .failure(let error): return Self.refusal(.unauthorized, error)
        }
        guard let addresses = runningAddresses else {
            return Self.refusal(.serviceUnavailable, PreflightError(code: .edgeAtCapacity, message: "init: the edge is not listening yet"))
        }
        let host = advertisedAddress.contains(":") ? "[\(advertisedAddress)]" : advertisedAddress
        let url = configuration.publicSignalingURL ?? "\(tlsContext == nil ? "ws" : "wss")://\(host):\(addresses.http.port ?? 0)/signaling"
        let body = InitAnswer(
            edge: configuration.edgeName, websocketUrl: url, iceServers: iceServers(for: claims, mediaPort: addresses.media.port ?? 0),
            mediaUrl: "stun:\(host):\(configuration.advertisedMediaPort ?? addresses.media.port ?? 0)")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(body) else {
            return Self.refusal(.internalServerError, PreflightError(code: .malformed, message: "init: the answer could not be encoded"))
        }
        return Self.json(String(decoding: data, as: UTF8.self))
    }

    /// The claims of a `Bearer` access token (any grant), or its error: the init endpoint's and
    /// the report upload's one check. `what` starts the message (`"init"`, `"report"`).
    func bearerClaims(_ authorization: String?, for what: String) async -> Result<AccessTokenClaims, PreflightError> {
        guard let authorization, authorization.utf8.count <= Self.maximumAuthorizationLength,
            authorization.count > 7, authorization.prefix(7).lowercased() == "bearer "
        else {
            return .failure(PreflightError(
                code: .invalidAccessToken, message: "\(what): send the access token as Authorization: Bearer <token>"))
        }
        do {
            return .success(try await verifier.verify(
                authorization.dropFirst(7).trimmingCharacters(in: .whitespaces), requireOutgoingGrant: false))
        } catch {
            return .failure(error)
        }
    }

    /// `{"code": …, "message": …}` with `status`; a 401 carries the Bearer challenge.
    static func refusal(_ status: HTTPResponse.Status, _ error: PreflightError) -> Response {
        struct Body: Encodable {
            var code: Int
            var message: String
        }
        let data = (try? JSONEncoder().encode(Body(code: error.code.rawValue, message: error.message))) ?? Data("{}".utf8)
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if status == .unauthorized { headers[.wwwAuthenticate] = #"Bearer realm="preflight-edge""# }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
