public import Dispatch

/// How ``CallInvite/accept(options:delegate:logger:)`` answers a call, as Twilio's
/// `TVOAcceptOptions`: the call's media settings (the signaling is the registration's).
public struct AcceptOptions: Sendable {
    /// The media settings.
    public var callOptions: CallOptions
    /// The dispatch queue the call's ``CallDelegate`` and ``CallOptions/messageDelegate`` run on
    /// (Twilio's `delegateQueue`): the main queue by default, as "TVOCallDelegate methods are
    /// called on the main dispatch queue by default or on the delegateQueue provided". Give a
    /// serial queue: callbacks are queued on it in the events' order. The main queue runs only
    /// while something services it: an app's run loop does; a command-line program must call
    /// `dispatchMain()`, run a `RunLoop`, or be an `async` `main` (Swift's runtime then drains the
    /// main queue), or pass a queue of its own (docs/protocol.md, "Delegate queues").
    /// ``Call/events()`` does not depend on it. Not a constructor argument: set it on the value.
    public var delegateQueue: DispatchQueue = .main

    /// Creates options; the media settings' defaults by default.
    public init(callOptions: CallOptions = CallOptions()) {
        self.callOptions = callOptions
    }
}
