import Logging
import Synchronization
import PreflightModel
internal import PreflightCore
internal import PreflightNIO

/// A call ringing on a ``Registration`` (Twilio's `TVOCallInvite`): answer it with
/// ``accept(options:delegate:logger:)`` or decline it with ``reject()``; each works once.
public final class CallInvite: Sendable {
    /// The call's identifier.
    public let callSid: String
    /// The caller (`client:<identity>`).
    public let from: String
    /// Whom the caller dialed (`client:<identity>` or a number of the edge's route table).
    public let to: String
    /// The caller's custom parameters (its `params` but `To`).
    public let customParameters: [String: String]
    let registration: Registration

    init(callSid: String, from: String, to: String, customParameters: [String: String], registration: Registration) {
        self.callSid = callSid
        self.from = from
        self.to = to
        self.customParameters = customParameters
        self.registration = registration
    }

    /// Answers the call on this device and returns it, in ``CallState/connecting``: the other
    /// devices that rang get a cancellation. When the call no longer rings here (the caller hung
    /// up, another device answered first) it fails to connect (31000).
    /// - Parameters:
    ///   - options: the call's media settings.
    ///   - delegate: receives the call's events as callbacks, on ``AcceptOptions/delegateQueue``
    ///     (the main queue by default; optional: ``Call/events()`` gives the same).
    ///   - logger: where the call logs; the registration's logger by default.
    public func accept(options: AcceptOptions = AcceptOptions(), delegate: (any CallDelegate)? = nil, logger: Logger? = nil) -> Call {
        let call = Call(role: .callee, from: from, to: to, sid: callSid, clock: options.callOptions.clock, logger: logger ?? registration.logger)
        call.attach(delegate, on: options.delegateQueue)
        call.attach(messages: options.callOptions.messageDelegate, on: options.delegateQueue)
        let (stream, inputs) = AsyncStream<CallRun.Input>.makeStream()
        call.handle.withLock { $0.inputs = inputs }
        guard registration.claim(callSid) else {
            call.apply(.failed(PreflightError(
                code: .generalCallError, message: "call invite \(callSid) was already accepted, rejected or cancelled")))
            inputs.finish()
            call.teardown.finish()
            return call
        }
        call.handle.start { [self] in
            await CallRun.answer(call, invite: self, registration: registration, options: options, stream: stream, inputs: inputs)
        }
        return call
    }

    /// Declines the call on this device (once; after ``accept(options:delegate:logger:)`` it does
    /// nothing). The caller fails with 31603 when every device that rang declined. It returns at
    /// once; ``Registration/unregister()`` waits until the rejection went out.
    public func reject() {
        guard registration.claim(callSid) else { return }
        registration.send(.reject(callSid: callSid))
    }
}
