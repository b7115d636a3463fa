/// Where Agora's echo test runs: the edge, and the devices it uses.
public struct EchoTestOptions: Sendable {
    /// The shortest and longest interval, seconds (Agora's range).
    public static let intervals = 2...10

    /// An access token whose outgoing application is the edge's record-playback application.
    public var accessToken: String
    /// The edge's signaling URL.
    public var edgeURL: String
    /// The microphone's ``AudioDevice/id``, or `nil` for the default input.
    public var inputDevice: String?
    /// The speaker's ``AudioDevice/id``, or `nil` for the default output.
    public var outputDevice: String?
    /// The audio system; the platform's by default.
    public var audioSystem: (any AudioSystem)?
    /// Extra CA certificates for a `wss://` edge (PEM file), as ``PreflightOptions`` takes them.
    public var edgeTrustedCertificatesFile: String?
    /// How long connecting and setting up the call may take, as ``PreflightOptions`` takes it
    /// (10 s by default).
    public var signalingTimeout: Duration

    /// Creates options; see each property for its default.
    public init(
        accessToken: String, edgeURL: String, inputDevice: String? = nil, outputDevice: String? = nil,
        audioSystem: (any AudioSystem)? = nil, edgeTrustedCertificatesFile: String? = nil, signalingTimeout: Duration = .seconds(10)
    ) {
        self.accessToken = accessToken
        self.edgeURL = edgeURL
        self.inputDevice = inputDevice
        self.outputDevice = outputDevice
        self.audioSystem = audioSystem
        self.edgeTrustedCertificatesFile = edgeTrustedCertificatesFile
        self.signalingTimeout = signalingTimeout
    }
}
