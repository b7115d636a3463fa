/// A user-defined message between the parties of a call (Twilio's `TVOCallMessage`), sent with
/// ``Call/sendMessage(_:)``.
public struct CallMessage: Sendable, Hashable, Codable {
    /// The content, at most ``maximumContentLength`` bytes.
    public var content: String
    /// Its MIME type; `"application/json"` by default.
    public var contentType: String
    /// The message's type; `"user-defined-message"`, the only one there is.
    public var messageType: String

    /// The largest content, in bytes: 10 KB.
    public static let maximumContentLength = 10 * 1024
    /// The most messages one call sends within ``rateWindow``.
    public static let maximumPerWindow = 10
    /// The window of ``maximumPerWindow``, seconds.
    public static let rateWindow = 60.0

    /// Creates a message.
    public init(content: String, contentType: String = "application/json", messageType: String = "user-defined-message") {
        self.content = content
        self.contentType = contentType
        self.messageType = messageType
    }
}
