import Logging
import PreflightCore
import PreflightNIO
import Synchronization

/// The signaling of one party of the call load benchmark: signs in, registers for incoming calls
/// (a callee), places or answers one call, and ends it. Shared by the parties that send their own
/// media (``CallLoadParty``) and those whose media an outside generator sends
/// (``CallGeneratorRun``).
///
/// Requests are sent with ``SignalingClient/send(_:)`` and their answers read from the events
/// here, not with ``SignalingClient/register()`` or ``SignalingClient/invite(_:)``: those start
/// waiting only after the request was written, and an answer that comes sooner goes to the events
/// instead, so the request times out (seen about once in 100 calls here).
final class CallLoadSignaling: Sendable {
    let client: SignalingClient
    /// The edge's messages during set-up (read once, by ``place(to:ice:srtp:)`` or ``answerNextCall(ice:srtp:)``).
    private let setupMessages: AsyncStream<SignalingMessage>
    /// `registered` (or the edge's error) in answer to `register`.
    private let registered: AsyncStream<Result<Void, PreflightError>>
    private let call = Mutex<(sid: String?, ended: Bool)>((nil, false))
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// The call's sid once placed or offered.
    var callSid: String? { call.withLock { $0.sid } }
    /// Whether the call ended: a hangup, an error or the end of the signaling connection.
    var ended: Bool { call.withLock { $0.ended } }

    private init(client: SignalingClient, setupMessages: AsyncStream<SignalingMessage>, registered: AsyncStream<Result<Void, PreflightError>>) {
        self.client = client
        self.setupMessages = setupMessages
        self.registered = registered
    }

    /// Connects to the edge at `url` with `token`.
    static func signIn(url: String, token: String, logger: Logger) async throws(PreflightError) -> CallLoadSignaling {
        let client = SignalingClient(
            configuration: SignalingClientConfiguration(url: url, accessToken: token, clientName: "preflight-load", timeout: .seconds(30)),
            logger: logger)
        let (setupMessages, setupContinuation) = AsyncStream<SignalingMessage>.makeStream()
        let (registered, registeredContinuation) = AsyncStream<Result<Void, PreflightError>>.makeStream()
        let signaling = CallLoadSignaling(client: client, setupMessages: setupMessages, registered: registered)
        let events = Task {
            for await event in client.events {
                switch event {
                case .message(.registered):
                    registeredContinuation.yield(.success(()))
                case .message(let message):
                    if case .hangup = message { signaling.call.withLock { $0.ended = true } }
                    if case .error(let info) = message {
                        signaling.call.withLock { $0.ended = true }
                        registeredContinuation.yield(.failure(info.preflightError))
                    }
                    setupContinuation.yield(message)
                case .closed(let error):
                    signaling.call.withLock { $0.ended = true }
                    registeredContinuation.yield(.failure(
                        error ?? PreflightError(code: .signalingDisconnected, message: "signaling: the connection was closed")))
                    setupContinuation.finish()
                case .reconnecting, .reconnected:
                    continue
                }
            }
            setupContinuation.finish()
        }
        signaling.tasks.withLock { $0 = [Task { await client.run() }, events] }
        do throws(PreflightError) {
            _ = try await client.connect()
            return signaling
        } catch {
            await signaling.close()
            throw error
        }
    }

    /// Registers for incoming calls (`register` → `registered`).
    func register() async throws(PreflightError) {
        try await client.send(.register)
        try await Self.within(client.configuration.timeout, waitingFor: "registered") { [registered] in
            for await outcome in registered { return outcome }
            return .failure(PreflightError(code: .signalingDisconnected, message: "signaling: closed before registered"))
        }
    }

    /// Places a call to `callee` (`invite` with `To`) and returns the edge's answer.
    func place(to callee: String, ice: ICEParameters, srtp: SignalingMessage.SRTPKey?) async throws(PreflightError) -> SignalingMessage.Answer {
        try await client.send(.invite(.init(ice: ice, codecs: ["PCMU"], params: ["To": callee], srtp: srtp)))
        let answer = try await Self.within(client.configuration.timeout, waitingFor: "answer") { [setupMessages] () async -> Result<SignalingMessage.Answer, PreflightError> in
            for await message in setupMessages {
                switch message {
                case .answer(let answer): return .success(answer)
                case .error(let info): return .failure(info.preflightError)
                case .hangup(let hangup):
                    return .failure(PreflightError(
                        code: PreflightError.Code(hangup.code ?? PreflightError.Code.generalCallError.rawValue),
                        message: "load: the call ended before it was answered (\(hangup.reason ?? "no reason"))"))
                default: continue
                }
            }
            return .failure(PreflightError(code: .signalingDisconnected, message: "load: signaling ended before the call was answered"))
        }
        call.withLock { $0.sid = answer.callSid }
        return answer
    }

    /// Waits for the next `incoming` (at most a minute), accepts it (`accept` with the ICE
    /// parameters `ice` gives then, and `srtp`) and returns the edge's answer.
    func answerNextCall(
        ice: @escaping @Sendable () -> ICEParameters, srtp: SignalingMessage.SRTPKey?
    ) async throws(PreflightError) -> SignalingMessage.Answer {
        return try await Self.within(.seconds(60), waitingFor: "incoming and answer") { [setupMessages, client, self] () async -> Result<SignalingMessage.Answer, PreflightError> in
            var accepted: String?
            for await message in setupMessages {
                switch message {
                case .incoming(let incoming) where accepted == nil:
                    accepted = incoming.callSid
                    self.call.withLock { $0.sid = incoming.callSid }
                    do throws(PreflightError) {
                        try await client.send(.accept(.init(callSid: incoming.callSid, ice: ice(), codecs: ["PCMU"], srtp: srtp)))
                    } catch {
                        return .failure(error)
                    }
                case .answer(let answer) where answer.callSid == accepted:
                    return .success(answer)
                case .error(let info):
                    return .failure(info.preflightError)
                case .hangup(let hangup) where hangup.callSid == accepted:
                    return .failure(PreflightError(
                        code: .generalCallError, message: "load: the call ended before it was answered (\(hangup.reason ?? "no reason"))"))
                case .cancel(let cancel) where cancel.callSid == accepted:
                    return .failure(PreflightError(code: .generalCallError, message: "load: the call was cancelled before it was answered"))
                default:
                    continue
                }
            }
            return .failure(PreflightError(code: .signalingDisconnected, message: "load: signaling ended before the call was answered"))
        }
    }

    /// `body`'s result, or a 53002 timeout after `timeout`.
    private static func within<T: Sendable>(
        _ timeout: Duration, waitingFor what: String, _ body: @escaping @Sendable () async -> Result<T, PreflightError>
    ) async throws(PreflightError) -> T {
        let outcome = await withTaskGroup(of: Result<T, PreflightError>.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .failure(PreflightError(code: .signalingTimeout, message: "signaling: no \(what) within \(timeout)"))
            }
            let first = await group.next()
            group.cancelAll()
            return first ?? .failure(PreflightError(code: .cancelled, message: "load: cancelled"))
        }
        return try outcome.get()
    }

    /// Hangs up (when the call got that far) and closes the connection.
    func close() async {
        if let callSid { await client.hangup(callSid: callSid, reason: "load run over") }
        await client.close()
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }
}
