import Logging
import NIOCore
@testable import PreflightEdge
import Synchronization
import Testing

/// The log filter that keeps connections closed before their request head out of error logs.
@Suite struct ClosedBeforeRequestLogFilterTests {
    /// Records what reaches it.
    final class Recorder: Sendable {
        let events = Mutex<[(Logger.Level, String)]>([])
    }

    struct RecordingHandler: LogHandler {
        let recorder: Recorder
        var metadataProvider: Logger.MetadataProvider?
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.events.withLock { $0.append((event.level, event.message.description)) }
        }
    }

    static func logger(level: Logger.Level, recorder: Recorder) -> Logger {
        ClosedBeforeRequestLogFilter.filtering(
            Logger(label: "test", factory: { _ in RecordingHandler(recorder: recorder, logLevel: level) }))
    }

    @Test func aConnectionClosedBeforeItsRequestIsLoggedAtDebugOnly() {
        let closed: Logger.Metadata = ["error.type": .string("\(ChannelError.inappropriateOperationForState)")]
        let atInfo = Recorder()
        let info = Self.logger(level: .info, recorder: atInfo)
        info.error("Error handling upgrade result", metadata: closed)
        info.error("Error handling upgrade result", metadata: ["error.type": "something else"])
        info.error("another error", metadata: closed)
        info.info("request")
        #expect(atInfo.events.withLock { $0.map(\.0) } == [.error, .error, .info])
        #expect(atInfo.events.withLock { $0.map(\.1) } == ["Error handling upgrade result", "another error", "request"])

        let atDebug = Recorder()
        Self.logger(level: .debug, recorder: atDebug).error("Error handling upgrade result", metadata: closed)
        #expect(atDebug.events.withLock { $0.map(\.0) } == [.debug])
    }
}
