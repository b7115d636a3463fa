import Logging
import Synchronization
public import PreflightModel

/// The entry points of calls, as Twilio's `TwilioVoiceSDK`: place a call with
/// ``connect(options:delegate:logger:)``; receive calls with ``register(options:delegate:logger:)``
/// (``CallInvite``s then arrive on the ``Registration``) and stop with ``unregister(_:)``.
public enum Voice {
    /// Places a call and returns it at once, in ``CallState/connecting``.
    /// - Parameters:
    ///   - options: the token, the edge, `params` (`To`: whom to call) and the media settings.
    ///   - delegate: receives the call's events as callbacks, on ``ConnectOptions/delegateQueue``
    ///     (the main queue by default; optional: ``Call/events()`` gives the same).
    ///   - logger: where the call logs; nothing is logged by default.
    public static func connect(
        options: ConnectOptions, delegate: (any CallDelegate)? = nil,
        logger: Logger = Logger(label: "preflight.call", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> Call {
        let call = Call(role: .caller, from: nil, to: options.params["To"], sid: nil, clock: options.callOptions.clock, logger: logger)
        call.attach(delegate, on: options.delegateQueue)
        call.attach(messages: options.callOptions.messageDelegate, on: options.delegateQueue)
        let (stream, inputs) = AsyncStream<CallRun.Input>.makeStream()
        call.handle.withLock { $0.inputs = inputs }
        call.handle.start { await CallRun.place(call, options: options, stream: stream, inputs: inputs) }
        return call
    }

    /// Signs in and registers for calls to the token's identity (its `grants.voice.incoming.allow`
    /// must be true); several devices of one identity may register, and ring together.
    /// - Parameters:
    ///   - options: the token and the edge.
    ///   - delegate: receives invites and cancellations as callbacks, on
    ///     ``RegistrationOptions/delegateQueue`` (the main queue by default; optional:
    ///     ``Registration/events()`` gives the same).
    ///   - logger: where the registration and its calls log; nothing is logged by default.
    /// - Throws: ``PreflightError``: the edge's refusal (20106 without the incoming grant, a
    ///   refused token), 53000 when the edge cannot be reached, 53002 on a timeout.
    public static func register(
        options: RegistrationOptions, delegate: (any NotificationDelegate)? = nil,
        logger: Logger = Logger(label: "preflight.registration", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws(PreflightError) -> Registration {
        try await Registration.open(options: options, delegate: delegate, logger: logger)
    }

    /// Unregisters: no more calls ring on this registration, and its connection closes (calls
    /// accepted on it end).
    public static func unregister(_ registration: Registration) async {
        await registration.unregister()
    }
}
