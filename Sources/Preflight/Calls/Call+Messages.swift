import Foundation
import PreflightModel
internal import PreflightCore
import Synchronization

extension Call {
    /// Sends a user-defined message to the other party of the call and returns its identifier
    /// (the `voiceEventSid` of ``CallMessageDelegate``). What became of it arrives as
    /// ``CallEvent/messageSent(id:)`` or ``CallEvent/messageFailed(id:error:)``: content over
    /// 10 KB (31209), a type other than `user-defined-message` (31210), a call that is not
    /// connected (31211) or more than 10 messages within a minute (70107) fail at once.
    @discardableResult
    public func sendMessage(_ message: CallMessage) -> String {
        var random = SystemRandomNumberGenerator()
        let id = "KX" + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }.joined()
        let now = clock.now
        let outcome = handle.withLock { state -> Result<AsyncStream<CallRun.Input>.Continuation, PreflightError> in
            state.messageTimes.removeAll { now - $0 > .seconds(CallMessage.rateWindow) }
            guard state.machine.state == .connected, state.sid != nil, let inputs = state.inputs else {
                return .failure(PreflightError(code: .callMessageUnexpectedState, message: "call message: the call is not connected"))
            }
            guard message.messageType == "user-defined-message" else {
                return .failure(PreflightError(code: .callMessageTypeInvalid, message: "call message: the type must be user-defined-message"))
            }
            guard message.content.utf8.count <= CallMessage.maximumContentLength else {
                return .failure(PreflightError(
                    code: .callMessageTooLarge,
                    message: "call message: \(message.content.utf8.count) bytes of content exceed \(CallMessage.maximumContentLength)"))
            }
            guard state.messageTimes.count < CallMessage.maximumPerWindow else {
                return .failure(PreflightError(
                    code: .callMessageRateLimited, message: "call message: more than \(CallMessage.maximumPerWindow) within a minute"))
            }
            state.messageTimes.append(now)
            return .success(inputs)
        }
        switch outcome {
        case .success(let inputs): inputs.yield(.user(.message(id: id, message)))
        case .failure(let error): emit(.messageFailed(id: id, error: error))
        }
        return id
    }
}
