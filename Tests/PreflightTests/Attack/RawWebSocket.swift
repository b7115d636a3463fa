import Foundation
import NIOCore
import NIOPosix
import PreflightCore
import PreflightTesting
import Synchronization

/// A WebSocket client written by hand over a plain NIO TCP channel, so that an attack controls
/// every byte: the HTTP upgrade, each frame's header, mask and payload, and whether it ever answers
/// the edge's close frame (it never does). It records what the edge sends, frame by frame, and
/// when the edge closes the TCP connection.
final class RawWebSocket: Sendable {
    /// A frame from the edge.
    enum Frame: Sendable, Hashable {
        case text(String)
        case binary([UInt8])
        /// A close frame and its status code, when it carries one.
        case close(code: UInt16?)
        case other(opcode: UInt8)
    }

    /// RFC 6455 §5.2 opcodes.
    enum Opcode {
        static let continuation: UInt8 = 0x0
        static let text: UInt8 = 0x1
        static let binary: UInt8 = 0x2
        static let close: UInt8 = 0x8
        static let ping: UInt8 = 0x9
        static let pong: UInt8 = 0xA
    }

    let channel: any Channel
    private let inbox: Inbox
    /// When the TCP connection was established (before the upgrade).
    let connectedAt: ContinuousClock.Instant

    private init(channel: any Channel, inbox: Inbox, connectedAt: ContinuousClock.Instant) {
        self.channel = channel
        self.inbox = inbox
        self.connectedAt = connectedAt
    }

    /// Connects to `ws://127.0.0.1:port/signaling` and completes the upgrade.
    /// - Parameter answersPings: answers each of the edge's pings with a pong, as a WebSocket
    ///   library does; by default it does not (the edge's pings are counted either way).
    /// - Throws: when the connection or the upgrade fails, or the edge answers other than 101.
    static func connect(port: Int, path: String = "/signaling", answersPings: Bool = false) async throws -> RawWebSocket {
        let inbox = Inbox(answersPings: answersPings)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(InboxHandler(inbox: inbox)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let socket = RawWebSocket(channel: channel, inbox: inbox, connectedAt: .now)
        var random = SystemRandomNumberGenerator()
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString()
        let request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            switch inbox.state.withLock({ ($0.upgrade, $0.ended) }) {
            case (.some(let status), _) where status == 101: return socket
            case (.some(let status), _): throw RawWebSocketError(message: "upgrade answered with HTTP \(status)")
            case (nil, true): throw RawWebSocketError(message: "connection closed during the upgrade")
            case (nil, false): try await Task.sleep(for: .milliseconds(5))
            }
        }
        try? await channel.close()
        throw RawWebSocketError(message: "no upgrade answer within 10 s")
    }

    // MARK: Sending

    /// One client frame: FIN, opcode, masked length and payload. A zero mask key leaves the
    /// payload as it is (RFC 6455 allows any key), which lets a flood reuse one prepared buffer.
    static func frame(opcode: UInt8, payload: some Collection<UInt8>, fin: Bool = true, maskKey: [UInt8]? = nil) -> ByteBuffer {
        var random = SystemRandomNumberGenerator()
        let key = maskKey ?? (0..<4).map { _ in UInt8.random(in: 0...255, using: &random) }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(payload.count + 14)
        buffer.writeInteger((fin ? 0x80 : 0) | opcode)
        switch payload.count {
        case ..<126:
            buffer.writeInteger(0x80 | UInt8(payload.count))
        case ...0xFFFF:
            buffer.writeInteger(UInt8(0x80 | 126))
            buffer.writeInteger(UInt16(payload.count))
        default:
            buffer.writeInteger(UInt8(0x80 | 127))
            buffer.writeInteger(UInt64(payload.count))
        }
        buffer.writeBytes(key)
        if key == [0, 0, 0, 0] {
            buffer.writeBytes(payload)
        } else {
            // Masked in an array, written at once: a byte at a time through ByteBuffer costs a
            // debug build seconds for a flood, on a thread every other test needs.
            var masked = Array(payload)
            for index in masked.indices { masked[index] ^= key[index & 3] }
            buffer.writeBytes(masked)
        }
        return buffer
    }

    /// Writes bytes as they are; completes once they are handed to the kernel.
    func send(raw buffer: ByteBuffer) async throws {
        try await channel.writeAndFlush(buffer).get()
    }

    /// Sends one text frame of `text`'s UTF-8 bytes.
    func send(text: String) async throws {
        try await send(raw: Self.frame(opcode: Opcode.text, payload: Array(text.utf8)))
    }

    /// Sends a protocol message as one text frame.
    func send(_ message: SignalingMessage) async throws {
        try await send(text: message.jsonText())
    }

    /// Closes the TCP connection from this side.
    func close() async {
        try? await channel.close()
    }

    /// Resets the TCP connection (an RST, as a host whose network came back sends for a
    /// connection it closed meanwhile).
    func reset() async {
        if let provider = channel as? any SocketOptionProvider {
            try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }

    // MARK: Receiving

    /// Frames received so far.
    var frames: [Frame] { inbox.state.withLock { $0.frames } }
    /// Protocol messages received so far (text frames that decode).
    /// Decoded once, as they arrive: a test polls them, and a flood brings thousands.
    var messages: [SignalingMessage] { inbox.state.withLock { $0.messages } }
    /// The first `error` code the edge sent.
    var errorCode: Int? {
        for message in messages { if case .error(let info) = message { return info.code } }
        return nil
    }
    /// Whether a `welcome` came.
    var welcomed: Bool { messages.contains { if case .welcome = $0 { true } else { false } } }
    /// The edge's close frame status, when one came.
    var closeCode: UInt16?? {
        for frame in frames { if case .close(let code) = frame { return .some(code) } }
        return nil
    }
    /// A short account of what came, for failure messages: the first 8 frames (text cut at 200
    /// bytes), how many there were, and how many pongs.
    var summary: String {
        let frames = self.frames
        let shown = frames.prefix(8).map { frame -> String in
            switch frame {
            case .text(let text): "text \(text.prefix(200))"
            case .binary(let bytes): "binary \(bytes.count) B"
            case .close(let code): "close \(code.map(String.init) ?? "without code")"
            case .other(let opcode): "opcode \(opcode)"
            }
        }
        return "\(frames.count) frame(s) and \(pongs) pong(s): \(shown.joined(separator: "; "))"
    }
    /// When the TCP connection ended (EOF or reset), `nil` while it is open.
    var endedAt: ContinuousClock.Instant? { inbox.state.withLock { $0.endedAt } }
    /// Whether the edge reset the connection (RST): the kernel then drops whatever of the edge's
    /// data had not been read yet.
    var wasReset: Bool { inbox.state.withLock { $0.reset } }
    /// Pongs received (not kept in ``frames``).
    var pongs: Int { inbox.state.withLock { $0.pongs } }
    /// The edge's pings received (not kept in ``frames``: the edge's keepalive may ping during any test).
    var pings: Int { inbox.state.withLock { $0.pings } }
    /// Bytes received after the upgrade response.
    var bytesReceived: Int { inbox.state.withLock { $0.bytesReceived } }

    /// Waits until `condition` holds or `timeout` passes; returns whether it holds.
    @discardableResult
    func wait(upTo timeout: Duration, until condition: (RawWebSocket) -> Bool) async -> Bool {
        await eventually(within: timeout, every: .milliseconds(10)) { condition(self) }
    }

    /// Waits for the edge's answer to what was sent: a welcome, an error, a close frame or the end
    /// of the connection.
    func awaitVerdict(upTo timeout: Duration = .seconds(10)) async {
        await wait(upTo: timeout) { $0.welcomed || $0.errorCode != nil || $0.closeCode != nil || $0.endedAt != nil }
    }

    /// Waits for the edge to close the TCP connection; returns whether it did.
    func awaitEnd(upTo timeout: Duration) async -> Bool {
        await wait(upTo: timeout) { $0.endedAt != nil }
    }
}

struct RawWebSocketError: Error, CustomStringConvertible {
    var message: String
    var description: String { "raw WebSocket: \(message)" }
}

/// What one connection has received, shared between its channel handler and the test.
private final class Inbox: Sendable {
    struct State {
        var pending: [UInt8] = []
        /// Where the next frame starts in `pending`.
        var offset = 0
        var pongs = 0
        var pings = 0
        /// Payloads of pings parsed and not answered yet (only when answering).
        var unanswered: [[UInt8]] = []
        /// The upgrade response's status once its header is complete.
        var upgrade: Int?
        var frames: [RawWebSocket.Frame] = []
        /// The text frames that decode as protocol messages, in order.
        var messages: [SignalingMessage] = []
        var fragments: [UInt8] = []
        var fragmentOpcode: UInt8 = 0
        var bytesReceived = 0
        var ended = false
        /// Whether the connection ended with a reset (RST) rather than an orderly close (FIN).
        var reset = false
        var endedAt: ContinuousClock.Instant?
    }

    let state = Mutex(State())
    let answersPings: Bool

    init(answersPings: Bool) { self.answersPings = answersPings }

    /// Parses what arrived; returns the payloads of pings to answer (when answering).
    func receive(_ bytes: [UInt8]) -> [[UInt8]] {
        state.withLock { state in
            state.pending += bytes
            if state.upgrade == nil {
                let terminator: [UInt8] = Array("\r\n\r\n".utf8)
                guard let end = state.pending.firstRange(of: terminator) else { return [] }
                let head = String(decoding: state.pending[..<end.lowerBound], as: UTF8.self)
                let statusLine = head.split(separator: "\r\n").first ?? ""
                let parts = statusLine.split(separator: " ")
                state.upgrade = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                state.pending.removeFirst(end.upperBound)
                state.offset = 0
            }
            Self.parseFrames(&state)
            defer { state.unanswered = [] }
            return answersPings ? state.unanswered : []
        }
    }

    func end(reset: Bool = false) {
        state.withLock { state in
            if reset { state.reset = true }
            guard !state.ended else { return }
            state.ended = true
            state.endedAt = .now
        }
    }

    /// Server frames (RFC 6455 §5.2): unmasked, lengths of 7, 16 or 64 bits. Parsed in place from
    /// `pending` at `offset` (linear in what arrives, so a flood of small frames is read as fast as
    /// the edge writes it).
    private static func parseFrames(_ state: inout State) {
        while state.pending.count - state.offset >= 2 {
            let base = state.offset
            let available = state.pending.count - base
            let first = state.pending[base]
            let second = state.pending[base + 1]
            let fin = first & 0x80 != 0
            let opcode = first & 0x0F
            let masked = second & 0x80 != 0
            var length = Int(second & 0x7F)
            var header = 2
            if length == 126 {
                guard available >= 4 else { break }
                length = Int(state.pending[base + 2]) << 8 | Int(state.pending[base + 3])
                header = 4
            } else if length == 127 {
                guard available >= 10 else { break }
                length = state.pending[(base + 2)..<(base + 10)].reduce(0) { $0 << 8 | Int($1) }
                header = 10
            }
            let maskOffset = base + header
            if masked { header += 4 }
            guard length >= 0, available >= header + length else { break }
            var payload = Array(state.pending[(base + header)..<(base + header + length)])
            if masked {
                for index in payload.indices { payload[index] ^= state.pending[maskOffset + index % 4] }
            }
            state.offset += header + length
            state.bytesReceived += header + length
            switch opcode {
            case RawWebSocket.Opcode.close:
                state.frames.append(.close(code: payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil))
            case RawWebSocket.Opcode.text, RawWebSocket.Opcode.binary, RawWebSocket.Opcode.continuation:
                if opcode != RawWebSocket.Opcode.continuation { state.fragmentOpcode = opcode }
                state.fragments += payload
                guard fin else { continue }
                let message = state.fragments
                state.fragments = []
                if state.fragmentOpcode == RawWebSocket.Opcode.text {
                    let text = String(decoding: message, as: UTF8.self)
                    state.frames.append(.text(text))
                    if let decoded = try? SignalingMessage(jsonText: text) { state.messages.append(decoded) }
                } else {
                    state.frames.append(.binary(message))
                }
            case RawWebSocket.Opcode.pong:
                // Counted, not kept: a ping flood brings tens of thousands.
                state.pongs += 1
            case RawWebSocket.Opcode.ping:
                state.pings += 1
                state.unanswered.append(payload)
            default:
                state.frames.append(.other(opcode: opcode))
            }
        }
        if state.offset > 1 << 16 || state.offset == state.pending.count {
            state.pending.removeFirst(state.offset)
            state.offset = 0
        }
    }
}

/// Feeds the channel's bytes to its ``Inbox`` and notes the end of the connection.
private final class InboxHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let inbox: Inbox

    init(inbox: Inbox) { self.inbox = inbox }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let pings = inbox.receive(Array(unwrapInboundIn(data).readableBytesView))
        guard !pings.isEmpty else { return }
        for payload in pings { context.write(NIOAny(RawWebSocket.frame(opcode: RawWebSocket.Opcode.pong, payload: payload)), promise: nil) }
        context.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        inbox.end()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset by the edge is an end too; the channel closes itself after this.
        inbox.end(reset: (error as? IOError)?.errnoCode == ECONNRESET)
        context.close(promise: nil)
    }
}
