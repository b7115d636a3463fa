/// How ``CallInvite/accept(options:delegate:logger:)`` answers a call, as Twilio's
/// `TVOAcceptOptions`: the call's media settings (the signaling is the registration's).
public struct AcceptOptions: Sendable {
    /// The media settings.
    public var callOptions: CallOptions

    /// Creates options; the media settings' defaults by default.
    public init(callOptions: CallOptions = CallOptions()) {
        self.callOptions = callOptions
    }
}
