import NIOCore
import NIOEmbedded
import NIOWebSocket
@testable import PreflightEdge
import Testing

/// ``WebSocketKeepaliveHandler`` on an `EmbeddedChannel` with virtual time: frames in, frames out.
@Suite struct WebSocketKeepaliveHandlerTests {
    static func connection(firstPing: TimeAmount? = .seconds(5)) throws -> (EmbeddedChannel, EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        try channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        try channel.pipeline.syncOperations.addHandler(WebSocketKeepaliveHandler(interval: .seconds(30), firstPing: firstPing))
        return (channel, loop)
    }

    /// The client's answer: a masked pong with the ping's payload.
    static func pong(answering ping: WebSocketFrame, maskKey: WebSocketMaskingKey? = WebSocketMaskingKey([1, 2, 3, 4])) -> WebSocketFrame {
        var data = ping.data
        if let maskKey { data.webSocketMask(maskKey) }
        return WebSocketFrame(fin: true, opcode: .pong, maskKey: maskKey, data: data)
    }

    @Test func pingsEveryIntervalWhileAnsweredAndKeepsTheAnswersFromTheSession() throws {
        let (channel, loop) = try Self.connection()
        loop.advanceTime(by: .milliseconds(4_999))
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
        var payloads: Set<ByteBuffer> = []
        for round in 0..<4 {
            loop.advanceTime(by: round == 0 ? .milliseconds(1) : .seconds(30))
            let ping = try #require(try channel.readOutbound(as: WebSocketFrame.self))
            #expect(ping.opcode == .ping && ping.fin && ping.maskKey == nil)
            #expect(ping.data.readableBytes == 16)
            payloads.insert(ping.data)
            try channel.writeInbound(Self.pong(answering: ping))
            #expect(try channel.readInbound(as: WebSocketFrame.self) == nil)  // answered: not passed on
            #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
        }
        #expect(payloads.count == 4)  // a new payload each time
        #expect(channel.isActive)
    }

    @Test func aPingLeftUnansweredForAnIntervalClosesTheConnection() throws {
        let (channel, loop) = try Self.connection()
        loop.advanceTime(by: .seconds(5))
        let ping = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        // A pong with other bytes, or an unfinished one, does not answer it.
        var wrong = ping.data
        wrong.setInteger(~(wrong.getInteger(at: wrong.readerIndex, as: UInt8.self) ?? 0), at: wrong.readerIndex)
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .pong, data: wrong))
        try channel.writeInbound(WebSocketFrame(fin: false, opcode: .pong, data: ping.data))
        #expect(try channel.readInbound(as: WebSocketFrame.self)?.data == wrong)  // passed on, as any frame
        #expect(try channel.readInbound(as: WebSocketFrame.self)?.fin == false)
        loop.advanceTime(by: .milliseconds(29_999))
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)  // no second ping
    }

    @Test func theClientsFramesAndPingsPassThrough() throws {
        let (channel, loop) = try Self.connection()
        let text = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "{\"type\":\"hello\"}"))
        let clientPing = WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "are you there"))
        let unsolicited = WebSocketFrame(fin: true, opcode: .pong, data: ByteBuffer())
        for frame in [text, clientPing, unsolicited] {
            try channel.writeInbound(frame)
            #expect(try channel.readInbound(as: WebSocketFrame.self) == frame)
        }
        loop.advanceTime(by: .seconds(5))
        let ping = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        // An unmasked answer (a client that does not mask) answers too; masking is the decoder's rule.
        try channel.writeInbound(Self.pong(answering: ping, maskKey: nil))
        #expect(try channel.readInbound(as: WebSocketFrame.self) == nil)
    }

    @Test func aClosedConnectionStopsPinging() throws {
        let (channel, loop) = try Self.connection()
        try channel.close().wait()
        loop.advanceTime(by: .seconds(120))
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
    }

    /// Connections that open together spread their pings over the interval: of 200, those whose
    /// first ping came in the first half number about 100 (fewer than 50 or more than 150: a
    /// chance below 10⁻¹²).
    @Test func firstPingsAreSpreadOverTheInterval() throws {
        var early = 0
        var total = 0
        for _ in 0..<200 {
            let (channel, loop) = try Self.connection(firstPing: nil)
            loop.advanceTime(by: .seconds(15))
            if try channel.readOutbound(as: WebSocketFrame.self) != nil { early += 1 }
            loop.advanceTime(by: .seconds(15))
            if try channel.readOutbound(as: WebSocketFrame.self) != nil { total += 1 }
            _ = try? channel.finish()
        }
        #expect((50...150).contains(early), "\(early) of 200 pinged in the first 15 s")
        #expect(early + total == 200, "every connection pinged within its first interval")
    }
}
