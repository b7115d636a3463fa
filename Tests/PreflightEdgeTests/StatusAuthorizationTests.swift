import Foundation
@testable import PreflightEdge
import Testing

/// HTTP Basic credentials for `GET /status`.
@Suite struct StatusAuthorizationTests {
    static let keys = ["SK1": String(repeating: "s", count: 32)]

    static func basic(_ text: String) -> String {
        "Basic " + Data(text.utf8).base64EncodedString()
    }

    @Test func acceptsAKnownSidWithItsSecret() {
        #expect(StatusAuthorization.isAuthorized(Self.basic("SK1:" + String(repeating: "s", count: 32)), apiKeys: Self.keys))
        #expect(StatusAuthorization.isAuthorized("basic  " + Data("SK1:\(String(repeating: "s", count: 32))".utf8).base64EncodedString(), apiKeys: Self.keys))
    }

    @Test(arguments: [
        nil, "", "Basic", "Bearer abc", "Basic !!!notbase64", basic("SK1"), basic(":secret"), basic("SK1:"),
        basic("SK1:" + String(repeating: "s", count: 31)), basic("SK1:" + String(repeating: "s", count: 33)),
        basic("SK2:" + String(repeating: "s", count: 32)), basic("SK1:" + String(repeating: "S", count: 32)),
    ] as [String?])
    func refusesEverythingElse(header: String?) {
        #expect(!StatusAuthorization.isAuthorized(header, apiKeys: Self.keys))
    }

    @Test func aSecretMayContainAColon() {
        let credentials = StatusAuthorization.credentials(Self.basic("SK1:a:b"))
        #expect(credentials?.sid == "SK1")
        #expect(credentials?.secret == "a:b")
    }

    @Test func constantTimeComparison() {
        #expect(StatusAuthorization.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!StatusAuthorization.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!StatusAuthorization.constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(!StatusAuthorization.constantTimeEquals([], [0]))
        #expect(StatusAuthorization.constantTimeEquals([], []))
    }
}
