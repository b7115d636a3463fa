import Logging
import NIOCore

/// Hummingbird logs "Error handling upgrade result" at error level for every connection that
/// closes before its request head is complete: each connection the caps refuse, each the header
/// or idle timeout closes, each port scan. A flood of them must not flood the log, so this
/// handler passes that one message on at debug level; everything else goes through unchanged.
struct ClosedBeforeRequestLogFilter: LogHandler {
    /// The handler the events go to.
    var base: any LogHandler

    var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    /// Whether `event` is the message of a connection closed before its request head.
    static func isClosedBeforeRequest(_ event: LogEvent) -> Bool {
        event.level >= .error && event.message.description == "Error handling upgrade result"
            && event.metadata?["error.type"] == .string("\(ChannelError.inappropriateOperationForState)")
    }

    func log(event: LogEvent) {
        guard Self.isClosedBeforeRequest(event) else {
            base.log(event: event)
            return
        }
        guard base.logLevel <= .debug else { return }
        var quieter = event
        quieter.level = .debug
        base.log(event: quieter)
    }

    /// `logger` with its handler behind this filter.
    static func filtering(_ logger: Logger) -> Logger {
        var filtered = logger
        filtered.handler = ClosedBeforeRequestLogFilter(base: logger.handler)
        return filtered
    }
}
