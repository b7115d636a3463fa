internal import PreflightCore
internal import PreflightNIO

extension TaskGroup where ChildTaskResult == Void {
    /// Starts what every feature's run needs from the session layer: the signaling connection and
    /// its events, the ICE driver, and the `hello` whose `welcome` (or failure) starts the run.
    /// - Parameters:
    ///   - event: wraps a signaling event as the run's input.
    ///   - welcomed: wraps the `hello`'s outcome as the run's input.
    mutating func startSessionLayer<Input: Sendable>(
        signaling: SignalingClient, ice: ICEAgentDriver, inputs: AsyncStream<Input>.Continuation,
        event: @escaping @Sendable (SignalingClient.Event) -> Input,
        welcomed: @escaping @Sendable (Result<SignalingMessage.Welcome, PreflightError>) -> Input
    ) {
        addTask { await signaling.run() }
        addTask { for await message in signaling.events { inputs.yield(event(message)) } }
        addTask { await ice.run() }
        addTask {
            do throws(PreflightError) {
                inputs.yield(welcomed(.success(try await signaling.connect())))
            } catch {
                inputs.yield(welcomed(.failure(error)))
            }
        }
    }
}
