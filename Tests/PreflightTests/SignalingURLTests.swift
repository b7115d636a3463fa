@testable import PreflightNIO
import PreflightCore
import Testing

/// Signaling URLs taken apart for the client's connection and TLS.
@Suite struct SignalingURLTests {
    @Test func partsOfGoodURLs() throws {
        let plain = try SignalingURL("ws://127.0.0.1:8080/signaling")
        #expect(!plain.isSecure && plain.host == "127.0.0.1" && plain.port == 8080 && plain.target == "/signaling")
        #expect(plain.isAddressLiteral)
        #expect(plain.hostHeader == "127.0.0.1:8080")

        let named = try SignalingURL("WSS://edge.example.com/signaling?region=fra1#x")
        #expect(named.isSecure && named.host == "edge.example.com" && named.port == 443)
        #expect(named.target == "/signaling?region=fra1")
        #expect(!named.isAddressLiteral)
        #expect(named.hostHeader == "edge.example.com")

        let six = try SignalingURL("wss://[::1]:8443")
        #expect(six.host == "::1" && six.port == 8443 && six.target == "/")
        #expect(six.isAddressLiteral)
        #expect(six.hostHeader == "[::1]:8443")

        #expect(try SignalingURL("ws://10.0.0.300/").isAddressLiteral == false)  // not an address: a (bad) name
    }

    @Test(arguments: ["http://edge/signaling", "ws://", "ws://:80/x", "ws://edge:0/", "ws://edge:99999/", "ws://edge:x/", "wss://[::1/", "ws://user@edge/"])
    func badURLsAre53000(text: String) {
        #expect(throws: PreflightError.self) { try SignalingURL(text) }
        do {
            _ = try SignalingURL(text)
        } catch {
            #expect(error.code == .signalingConnectionError)
            #expect(error.message.hasPrefix("signaling: bad URL \(text)"))
        }
    }
}
