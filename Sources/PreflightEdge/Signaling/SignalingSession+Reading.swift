import HummingbirdWebSocket
import Logging
import NIOCore
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
    /// cancelled. While the loop is ``inboundBuffer`` events behind, the reader waits (and the
    /// connection is not read). Once the session has ended it reads on without parsing, until
    /// the client's close frame.
    func read(_ inbound: WebSocketInboundStream, state: ReaderState) async throws {
        var ended = false
        var discarded = 0
        func deliver(_ event: Event) async {
            while !ended {
                let inbox = state.target.withLock { $0 }
                if await inbox.deliverFromClient(event) { return }
                // The queue ended: the session is over, unless it was this connection's own
                // queue and a `resume` moved the reader to another session's in the meantime.
                ended = state.target.withLock { $0 } === inbox
            }
        }
        var iterator = inbound.makeAsyncIterator()
        do {
            while let message = try await iterator.nextMessage(maxSize: SignalingMessage.maximumTextLength) {
                if ended || state.sessionEnded.load(ordering: .acquiring) {
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
                await deliver(event)
            }
        } catch is CancellationError {
            // The session ended and the client did not close in time.
        } catch {
            if Task.isCancelled { return }
            logger.debug("signaling connection ended", metadata: ["error": "\(UntrustedText.excerpt("\(error)", limit: 200))"])
            // A reset or another I/O error is a lost connection (a client whose network went
            // and came back resets the old one): parked in a call. Anything else the library
            // threw is the client breaking the WebSocket protocol.
            let lost = error is IOError || error is ChannelError
            if !lost { state.protocolError.store(true, ordering: .releasing) }
            await deliver(.closed(protocolError: !lost))
            throw error
        }
        await deliver(.closed(protocolError: false))
    }
}
