import Foundation
@testable import PreflightEdge
import Testing

/// HTTP Basic credentials of an API key (the REST API, the pages, `/status`, `/metrics`).
@Suite struct APIKeyAuthorizationTests {
    static let keys = ["SK1": String(repeating: "s", count: 32)]

    static func basic(_ text: String) -> String {
        "Basic " + Data(text.utf8).base64EncodedString()
    }

    @Test func acceptsAKnownSidWithItsSecret() {
        #expect(APIKeyAuthorization.isAuthorized(Self.basic("SK1:" + String(repeating: "s", count: 32)), apiKeys: Self.keys))
        #expect(APIKeyAuthorization.isAuthorized("basic  " + Data("SK1:\(String(repeating: "s", count: 32))".utf8).base64EncodedString(), apiKeys: Self.keys))
    }

    @Test(arguments: [
        nil, "", "Basic", "Bearer abc", "Basic !!!notbase64", basic("SK1"), basic(":secret"), basic("SK1:"),
        basic("SK1:" + String(repeating: "s", count: 31)), basic("SK1:" + String(repeating: "s", count: 33)),
        basic("SK2:" + String(repeating: "s", count: 32)), basic("SK1:" + String(repeating: "S", count: 32)),
        // Over the header cap, and a secret over the compared length: refused before comparing.
        "Basic " + String(repeating: "A", count: 80_000), basic("SK1:" + String(repeating: "s", count: 257)),
    ] as [String?])
    func refusesEverythingElse(header: String?) {
        #expect(!APIKeyAuthorization.isAuthorized(header, apiKeys: Self.keys))
    }

    @Test func aSecretMayContainAColon() {
        let credentials = APIKeyAuthorization.credentials(Self.basic("SK1:a:b"))
        #expect(credentials?.sid == "SK1")
        #expect(credentials?.secret == "a:b")
    }

    /// An 80 KB header costs no decoding and no comparison: it is refused on its length.
    @Test func aHugeHeaderIsRefusedUnread() {
        let huge = Self.basic("SK1:" + String(repeating: "s", count: 60_000))
        #expect(APIKeyAuthorization.credentials(huge) == nil)
        #expect(APIKeyAuthorization.credentials(Self.basic("SK1:" + String(repeating: "s", count: 256)))?.secret.count == 256)
    }

    @Test func theComparisonRunsOverTheFixedLength() {
        let secret = Array(String(repeating: "s", count: 32).utf8)
        #expect(APIKeyAuthorization.constantTimeEquals(secret, secret, over: 256))
        #expect(!APIKeyAuthorization.constantTimeEquals(secret, secret + [0], over: 256))
        #expect(!APIKeyAuthorization.constantTimeEquals(secret, [], over: 256))
        // A string longer than the length never equals, even a copy of itself.
        let long = [UInt8](repeating: 1, count: 300)
        #expect(!APIKeyAuthorization.constantTimeEquals(long, long, over: 256))
    }

    @Test func constantTimeComparison() {
        #expect(APIKeyAuthorization.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!APIKeyAuthorization.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!APIKeyAuthorization.constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(!APIKeyAuthorization.constantTimeEquals([], [0]))
        #expect(APIKeyAuthorization.constantTimeEquals([], []))
    }
}
