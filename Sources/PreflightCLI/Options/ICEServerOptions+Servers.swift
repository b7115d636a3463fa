import ArgumentParser
import Foundation
import PreflightCore

extension ICEServerOptions {
    /// The `--ice-server` entries with their TURN credentials: the fixed ones, or ones made from
    /// the TURN secret for one hour (coturn's "TURN REST API", ``TURNRESTCredentials``); empty
    /// without `--ice-server`.
    /// - Parameter environment: where `PREFLIGHT_TURN_SECRET` is read.
    /// - Throws: ``CommandFailure`` (70005) for a TURN secret file that cannot be read or an empty secret.
    func servers(environment: [String: String]) throws -> [ICEServer] {
        guard !iceServers.isEmpty else { return [] }
        if turnUsername == nil, let secret = try resolvedTURNSecret(environment: environment) {
            let credentials = TURNRESTCredentials(
                secret: secret, identity: "preflight", expiry: Int64(Date().timeIntervalSince1970) + 3600)
            return [ICEServer(urls: iceServers, username: credentials.username, credential: credentials.password)]
        }
        return [ICEServer(urls: iceServers, username: turnUsername, credential: turnCredential)]
    }

    /// The rule shared by the commands that take these options as a client (`run`, `call`):
    /// TURN credentials need a TURN URL to go with.
    func checkCredentialsHaveATURNServer() throws {
        if givesTURNCredentials, !Self.containsTURN(iceServers) {
            throw ValidationError("TURN credentials (--turn-username, --turn-secret-file) need a turn: or turns: --ice-server")
        }
    }
}
