import Foundation

/// HTTP Basic authorization (RFC 7617) with an API key: the user is an API key sid the edge knows
/// and the password its secret, compared in constant time. It opens the REST API, the pages,
/// `/status` and `/metrics` for the key's account.
///
/// Hostile input is bounded before any work: a header over ``maximumHeaderLength`` is refused
/// unread (no base64 decoding, no comparison), and the comparison runs over
/// ``comparedLength`` bytes whatever the secret sent or known: its time depends on neither
/// secret's length nor content, and tells an unknown sid from a known one by nothing.
enum APIKeyAuthorization {
    /// The `WWW-Authenticate` challenge sent with 401.
    static let challenge = #"Basic realm="preflight-edge", charset="UTF-8""#
    /// The longest `Authorization` value read: `Basic ` and the base64 of a sid and a secret of up
    /// to ``comparedLength`` bytes each, with room to spare.
    static let maximumHeaderLength = 1024
    /// The bytes every comparison runs over; a longer secret is refused (API key secrets are
    /// 32 bytes or more, and never this long).
    static let comparedLength = 256

    /// Whether `header` (the `Authorization` field's value) carries a known sid with its secret.
    static func isAuthorized(_ header: String?, apiKeys: [String: String]) -> Bool {
        guard let (sid, secret) = credentials(header) else { return false }
        // An unknown sid is compared against a placeholder, so that it takes the same time.
        let expected = apiKeys[sid]
        let matches = constantTimeEquals(Array(secret.utf8), Array((expected ?? "").utf8), over: comparedLength)
        return matches && expected != nil
    }

    /// The account of the API key `header` authenticates, or `nil`.
    static func account(_ header: String?, apiKeys: [String: String], accounts: [String: String]) -> String? {
        guard isAuthorized(header, apiKeys: apiKeys), let (sid, _) = credentials(header) else { return nil }
        return accounts[sid]
    }

    /// The sid and secret of a `Basic` authorization value, or `nil` when it is not one, or is
    /// longer than ``maximumHeaderLength``, or its secret longer than ``comparedLength``.
    static func credentials(_ header: String?) -> (sid: String, secret: String)? {
        guard let header, header.utf8.count <= maximumHeaderLength else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(parts[1].trimmingCharacters(in: .whitespaces))),
            let text = String(data: decoded, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        let sid = String(text[..<colon])
        let secret = String(text[text.index(after: colon)...])
        guard !sid.isEmpty, !secret.isEmpty, secret.utf8.count <= comparedLength else { return nil }
        return (sid, secret)
    }

    /// Compares two byte strings in time that depends only on the longer one's length.
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        constantTimeEquals(lhs, rhs, over: max(lhs.count, rhs.count))
    }

    /// Compares two byte strings of at most `length` bytes in time that depends only on `length`:
    /// each is read as if padded with zeros to it, and the lengths are compared too.
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8], over length: Int) -> Bool {
        var difference = UInt(bitPattern: lhs.count ^ rhs.count)
        difference |= UInt(lhs.count > length ? 1 : 0) | UInt(rhs.count > length ? 1 : 0)
        for index in 0..<length {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= UInt(left ^ right)
        }
        return difference == 0
    }
}
