import PreflightCore
import Testing

@Suite struct ICEServerURLTests {
    @Test(arguments: [
        ("stun:198.18.3.2", ICEServerURL.Scheme.stun, "198.18.3.2", 3478, ICEServerURL.Transport.udp),
        ("stun:198.18.3.2:19302", .stun, "198.18.3.2", 19302, .udp),
        ("turn:198.18.3.2:3478?transport=udp", .turn, "198.18.3.2", 3478, .udp),
        ("turn:turn.example.com?transport=tcp", .turn, "turn.example.com", 3478, .tcp),
        ("turns:turn.example.com:443?transport=tcp", .turns, "turn.example.com", 443, .tcp),
        ("turns:turn.example.com", .turns, "turn.example.com", 5349, .tcp),
        ("turn:[2001:db8::1]:3478", .turn, "2001:db8::1", 3478, .udp),
        ("TURN:198.18.3.2", .turn, "198.18.3.2", 3478, .udp),
    ])
    func parses(_ text: String, scheme: ICEServerURL.Scheme, host: String, port: Int, transport: ICEServerURL.Transport) throws {
        let url = try ICEServerURL(text)
        #expect(url.scheme == scheme)
        #expect(url.host == host)
        #expect(url.port == port)
        #expect(url.transport == transport)
        #expect(url.description == text)
    }

    @Test(arguments: [
        "198.18.3.2", "http://x", "turn:", "turn:host:0", "turn:host:70000", "turn:host?transport=sctp",
        "turns:host?transport=udp", "stun:host?transport=udp", "turn://host:3478", "turn:[2001:db8::1", "turn:host:abc",
    ])
    func refuses(_ text: String) {
        #expect(throws: PreflightError.self) { try ICEServerURL(text) }
        do {
            _ = try ICEServerURL(text)
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains(text))
        }
    }
}

@Suite struct TURNRESTCredentialsTests {
    /// The vector: `printf '%s' "1700000000:alice" | openssl dgst -sha1 -hmac s3cret -binary | base64`.
    @Test func matchesTheOpenSSLVector() {
        let credentials = TURNRESTCredentials(secret: "s3cret", identity: "alice", expiry: 1_700_000_000)
        #expect(credentials.username == "1700000000:alice")
        #expect(credentials.password == "TtElzSjT0GdnTQ9xdcRNxx96yQs=")
    }

    @Test func verifiesOnlyUnexpiredCredentialsOfTheSameSecret() {
        let credentials = TURNRESTCredentials(secret: "s3cret", identity: "alice", expiry: 2000)
        #expect(TURNRESTCredentials.verify(username: credentials.username, password: credentials.password, secret: "s3cret", now: 1999))
        #expect(!TURNRESTCredentials.verify(username: credentials.username, password: credentials.password, secret: "s3cret", now: 2000))
        #expect(!TURNRESTCredentials.verify(username: credentials.username, password: credentials.password, secret: "other", now: 1))
        #expect(!TURNRESTCredentials.verify(username: "2000:bob", password: credentials.password, secret: "s3cret", now: 1))
        #expect(!TURNRESTCredentials.verify(username: "alice", password: credentials.password, secret: "s3cret", now: 1))
    }
}
