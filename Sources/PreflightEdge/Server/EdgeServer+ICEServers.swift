import Foundation
import PreflightCore

extension EdgeServer {
    /// The address clients are told to reach the edge at (its media candidate, its STUN URL, the
    /// init endpoint's WebSocket URL): the advertised address, else the bound one, with loopback
    /// standing for an unspecified bind.
    var advertisedAddress: String {
        let address = configuration.advertisedAddress ?? configuration.host
        return address == "0.0.0.0" || address == "::" ? "127.0.0.1" : address
    }

    /// The ICE servers a client is given (the welcome's, the init endpoint's): the edge's own STUN
    /// on `mediaPort` (when offered), then the configured servers, TURN ones without a username
    /// given time-limited credentials for the token's identity.
    func iceServers(for claims: AccessTokenClaims, mediaPort: Int) -> [ICEServer] {
        var servers: [ICEServer] = []
        if configuration.offersSTUN {
            let host = advertisedAddress.contains(":") ? "[\(advertisedAddress)]" : advertisedAddress
            servers.append(ICEServer(urls: ["stun:\(host):\(configuration.advertisedMediaPort ?? mediaPort)"]))
        }
        // Never valid longer than the token that earned them (its expiry is range-checked).
        let now = Int64(Date().timeIntervalSince1970)
        let tokenExpiry = claims.exp.flatMap { $0.isFinite && abs($0) < 1e15 ? Int64($0.rounded(.down)) : nil } ?? now
        let lifetime = min(max(0, configuration.turnCredentialLifetime.components.seconds), 366 * 86_400)
        let expiry = min(now + lifetime, tokenExpiry)
        for var server in configuration.iceServers {
            if server.username == nil, let secret = configuration.turnSecret,
                server.urls.contains(where: { $0.hasPrefix("turn:") || $0.hasPrefix("turns:") })
            {
                let credentials = TURNRESTCredentials(
                    secret: secret, identity: claims.grants.identity ?? claims.sub, expiry: expiry)
                server.username = credentials.username
                server.credential = credentials.password
            }
            servers.append(server)
        }
        return servers
    }
}
