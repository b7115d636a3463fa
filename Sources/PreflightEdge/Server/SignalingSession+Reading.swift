import HummingbirdWebSocket
import Logging
import PreflightCore
import Synchronization

extension SignalingSession {
    /// What the reader and the session loop tell each other.
    final class ReaderState: Sendable {
        /// Set by the loop when the session is over: the reader stops parsing.
        let sessionEnded = Atomic(false)
        /// Set by the reader before it rethrows a WebSocket protocol error.
        let protocolError = Atomic(false)
        /// The session queue the reader feeds: its own session's, or after a `resume` the
        /// resumed session's.
        let target: Mutex<SessionInbox>

        init(target: SessionInbox) {
            self.target = Mutex(target)
        }
    }

    /// Parses the client's frames into events until the connection ends or the reader is
    /// cancelled. When the client is more than ``inboundBuffer`` events ahead of the loop the
    /// queue is finished, which ends the session. Once the session has ended it reads on without parsing, until the
    /// client's close frame.
    func read(_ inbound: WebSocketInboundStream, state: ReaderState) async throws {
        var flooded = false
        var discarded = 0
        func deliver(_ event: Event) {
            let inbox = state.target.withLock { $0 }
            if !inbox.deliverFromClient(event) {
                // Ends the session; what follows is read and discarded like after any end.
                logger.info("signaling session ended: the client sends faster than the protocol allows")
                inbox.finish()
                flooded = true
            }
        }
        var iterator = inbound.makeAsyncIterator()
        do {
            while let message = try await iterator.nextMessage(maxSize: SignalingMessage.maximumTextLength) {
                if flooded || state.sessionEnded.load(ordering: .acquiring) {
                    discarded += 1
                    if discarded > Self.closeDrainMessages { return }
                    continue
                }
                let event: Event
                switch message {
                case .text(let text):
                    do throws(PreflightError) {
                        event = .message(try SignalingMessage(jsonText: text))
                    } catch {
                        event = .malformed(error)
                    }
                case .binary:
                    event = .malformed(PreflightError(code: .malformed, message: "signaling: binary frames are not part of the protocol"))
                }
                deliver(event)
            }
        } catch is CancellationError {
            // The session ended and the client did not close in time.
        } catch {
            if Task.isCancelled { return }
            logger.debug("signaling connection ended", metadata: ["error": "\(UntrustedText.excerpt("\(error)", limit: 200))"])
            state.protocolError.store(true, ordering: .releasing)
            deliver(.closed(protocolError: true))
            throw error
        }
        deliver(.closed(protocolError: false))
    }
}
