import Crypto
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import PreflightCore
@testable import PreflightNIO
import Synchronization
import Testing

/// The signaling client's pipeline (``SignalingClientChannel``, plain `ws://`) on an
/// `EmbeddedChannel`: the upgrade request it writes, and what it makes of the edge's answers.
@Suite struct SignalingClientChannelTests {
    /// The pipeline set up for `url` on a fresh channel, connected (so the upgrade request is sent),
    /// with the upgrade's outcome captured as it completes.
    struct Harness {
        /// The upgrade's outcome, set by the future's callback.
        final class Outcome: Sendable {
            let result = Mutex<SignalingClientChannel.UpgradeResult?>(nil)
        }

        let channel = EmbeddedChannel()
        let outcome = Outcome()

        init(url: String) throws {
            let client = SignalingClientChannel(
                url: try SignalingURL(url), tls: nil, maximumFrameSize: 4096, closeTimeout: .seconds(1), upgraded: { _ in }
            ) { _, _, _ in }
            let upgrade = try client.setup(channel: channel, logger: Logger(label: "test")).wait()
            upgrade.whenSuccess { [outcome] result in outcome.result.withLock { $0 = result } }
            try channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        }

        /// Everything the pipeline wrote, as text.
        func written() throws -> String {
            var text = ""
            while let part = try channel.readOutbound(as: IOData.self) {
                guard case .byteBuffer(let buffer) = part else { continue }
                text += String(buffer: buffer)
            }
            return text
        }

        /// Whether the upgrade ended: with a WebSocket (`true`), without one (`false`), or not yet (`nil`).
        var upgraded: Bool? {
            outcome.result.withLock { result in
                switch result {
                case .websocket: true
                case .notUpgraded: false
                case nil: nil
                }
            }
        }
    }

    /// The request's header `name`, case-insensitively.
    static func header(_ name: String, in request: String) -> String? {
        request.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
    }

    @Test func theUpgradeRequestCarriesTheTargetHostAndAWebSocketKey() throws {
        let harness = try Harness(url: "ws://127.0.0.1:8080/signaling?region=fra1")
        let request = try harness.written()
        #expect(request.hasPrefix("GET /signaling?region=fra1 HTTP/1.1\r\n"))
        #expect(Self.header("Host", in: request) == "127.0.0.1:8080")
        #expect(Self.header("Upgrade", in: request)?.lowercased() == "websocket")
        #expect(Self.header("Sec-WebSocket-Version", in: request) == "13")
        let key = try #require(Self.header("Sec-WebSocket-Key", in: request))
        #expect(Data(base64Encoded: key)?.count == 16)
        #expect(harness.upgraded == nil)
        _ = try harness.channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aSwitchingProtocolsAnswerWithTheRightAcceptKeyGivesAWebSocket() throws {
        let harness = try Harness(url: "ws://127.0.0.1:8080/signaling")
        let key = try #require(Self.header("Sec-WebSocket-Key", in: try harness.written()))
        let accept = Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
        try harness.channel.writeInbound(ByteBuffer(string:
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"))
        // The pipeline is rebuilt for the WebSocket in tasks the event loop runs next.
        harness.channel.embeddedEventLoop.run()
        #expect(harness.upgraded == true)
        _ = try harness.channel.finish(acceptAlreadyClosed: true)
    }

    @Test(arguments: [
        "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    ])
    func anyOtherAnswerIsNotAnUpgrade(response: String) throws {
        let harness = try Harness(url: "ws://127.0.0.1:8080/signaling")
        _ = try harness.written()
        try harness.channel.writeInbound(ByteBuffer(string: response))
        #expect(harness.upgraded == false)
        _ = try harness.channel.finish(acceptAlreadyClosed: true)
    }
}
