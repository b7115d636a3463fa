extension ICEParameters {
    /// Fresh random credentials of RFC 8445 §5.3 lengths: an 8-character ufrag and a
    /// 24-character password of ice-chars, from the system's secure generator.
    public static func randomCredentials() -> (ufrag: String, pwd: String) {
        var random = SystemRandomNumberGenerator()
        func iceChars(_ count: Int) -> String {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
            return String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] })
        }
        return (iceChars(8), iceChars(24))
    }
}
