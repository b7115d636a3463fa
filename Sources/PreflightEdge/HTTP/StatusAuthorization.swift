import Foundation

/// HTTP Basic authorization (RFC 7617) for the edge's `GET /status`: the user is an API key sid
/// the edge knows and the password its secret, compared in constant time.
enum StatusAuthorization {
    /// The `WWW-Authenticate` challenge sent with 401.
    static let challenge = #"Basic realm="preflight-edge", charset="UTF-8""#

    /// Whether `header` (the `Authorization` field's value) carries a known sid with its secret.
    static func isAuthorized(_ header: String?, apiKeys: [String: String]) -> Bool {
        guard let (sid, secret) = credentials(header) else { return false }
        // An unknown sid is compared against a placeholder, so that it takes the same time.
        let expected = apiKeys[sid]
        let matches = constantTimeEquals(Array(secret.utf8), Array((expected ?? String(repeating: "\0", count: 32)).utf8))
        return matches && expected != nil
    }

    /// The sid and secret of a `Basic` authorization value, or `nil` when it is not one.
    static func credentials(_ header: String?) -> (sid: String, secret: String)? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(parts[1].trimmingCharacters(in: .whitespaces))),
            let text = String(data: decoded, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        let sid = String(text[..<colon])
        let secret = String(text[text.index(after: colon)...])
        guard !sid.isEmpty, !secret.isEmpty else { return nil }
        return (sid, secret)
    }

    /// Compares two byte strings in time that depends only on the longer one's length.
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt(bitPattern: lhs.count ^ rhs.count)
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= UInt(left ^ right)
        }
        return difference == 0
    }
}
