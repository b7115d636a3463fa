import Foundation
import NIOCore
import PreflightCore
import Testing

extension AttackTests {
    /// Attacks on the signaling WebSocket's frames: a flood after the session ended, text that is
    /// not UTF-8, and JSON built to hurt a parser.
    @Suite struct Frames {
        /// Floods of frames a client keeps sending whatever the edge answers.
        enum Flood: String, CaseIterable, Sendable, CustomTestStringConvertible {
            /// A hello with a bad token, then 60 KB text frames at once, without reading the refusal.
            case textFramesAfterABadHello
            /// One text message that never ends: a first frame without FIN, then 60 KB
            /// continuation frames without FIN.
            case endlessFragmentedMessage
            /// 125-byte pings (each answered with a pong) from a connection that never says hello.
            case pingsWithoutHello
            /// 125-byte pongs that answer no ping (they pass the edge's keepalive to the WebSocket
            /// handler, which ignores them) from a connection that never says hello.
            case pongsWithoutHello

            var testDescription: String { rawValue }

            /// The edge's options: pings do not end a session, the signaling timeout (2 s) does.
            var arguments: [String] { self == .pingsWithoutHello || self == .pongsWithoutHello ? ["--signaling-timeout", "2"] : [] }

            /// What is sent before the flood.
            func opening() -> ByteBuffer {
                switch self {
                case .textFramesAfterABadHello:
                    RawWebSocket.frame(
                        opcode: RawWebSocket.Opcode.text, payload: Array(SignalingMessage.hello(token: "not-a-jwt", client: nil).jsonText().utf8))
                case .endlessFragmentedMessage:
                    RawWebSocket.frame(opcode: RawWebSocket.Opcode.text, payload: Array(#"{"type":"hello","token":""#.utf8), fin: false)
                case .pingsWithoutHello, .pongsWithoutHello:
                    ByteBuffer()
                }
            }

            /// One write of the flood: 16 text frames of 60 KB, one 60 KB continuation frame, or 60 KB
            /// of pings. A zero mask key keeps the payload as it is, so
            /// one buffer serves every write.
            func chunk() -> ByteBuffer {
                let x = Array(repeating: UInt8(ascii: "x"), count: 60_000)
                switch self {
                case .textFramesAfterABadHello:
                    var buffer = ByteBuffer()
                    let frame = RawWebSocket.frame(opcode: RawWebSocket.Opcode.text, payload: x, maskKey: [0, 0, 0, 0])
                    for _ in 0..<16 { buffer.writeImmutableBuffer(frame) }
                    return buffer
                case .endlessFragmentedMessage:
                    return RawWebSocket.frame(opcode: RawWebSocket.Opcode.continuation, payload: x, fin: false, maskKey: [0, 0, 0, 0])
                case .pingsWithoutHello, .pongsWithoutHello:
                    var buffer = ByteBuffer()
                    let opcode = self == .pingsWithoutHello ? RawWebSocket.Opcode.ping : RawWebSocket.Opcode.pong
                    let frame = RawWebSocket.frame(opcode: opcode, payload: x.prefix(125), maskKey: [0, 0, 0, 0])
                    for _ in 0..<(60_000 / frame.readableBytes) { buffer.writeImmutableBuffer(frame) }
                    return buffer
                }
            }
        }

        /// A client keeps sending as fast as TCP lets it, up to 128 MiB: the edge must close the
        /// connection (it stops reading once the session is over), its memory bounded.
        @Test(arguments: Flood.allCases)
        func floodIsCutOffWithBoundedMemory(_ flood: Flood) async throws {
            let edge = try await AttackedEdge.start(flood.arguments)
            defer { edge.stop() }
            try await edge.expectAlive()  // warms the edge up, so the first figure is not its start-up
            let socket = try await edge.connect()
            let before = try edge.rssKiB()
            let peak = Shared(before)
            let sampler = Task {
                while !Task.isCancelled {
                    if let rss = try? edge.rssKiB() { peak.update { $0 = max($0, rss) } }
                    try? await Task.sleep(for: .milliseconds(25))
                }
            }
            let chunk = flood.chunk()
            let cap = 128 << 20
            let gaveUp = Shared(false)
            let watchdog = Task {
                // A write that never completes (the edge neither reads nor closes) would hang the test.
                try await Task.sleep(for: .seconds(20))
                gaveUp.update { $0 = true }
                await socket.close()
            }
            let start = ContinuousClock.now
            var accepted = 0
            var writeError: (any Error)?
            do {
                // The first write carries the opening and a first chunk together, so that the flood
                // is already on its way when the edge reads the opening.
                var first = flood.opening()
                first.writeImmutableBuffer(chunk)
                try await socket.send(raw: first)
                accepted += first.readableBytes
                while accepted < cap, socket.endedAt == nil {
                    try await socket.send(raw: chunk)
                    accepted += chunk.readableBytes
                }
            } catch {
                writeError = error
            }
            let floodTime = ContinuousClock.now - start
            let closed = await socket.awaitEnd(upTo: .seconds(10))
            watchdog.cancel()
            sampler.cancel()
            try await Task.sleep(for: .milliseconds(100))
            let after = try edge.rssKiB()
            let highest = peak.value
            let closedAfter = socket.endedAt.map { ($0 - start).inSeconds.formatted(digits: 2) } ?? "never"
            print(
                "flood \(flood): \(accepted >> 20) MiB (\(accepted) B) taken by the kernel in \(floodTime.inSeconds.formatted(digits: 2)) s, "
                    + "connection \(socket.wasReset ? "reset" : "closed") after \(closedAfter) s (\(writeError.map { "\($0)" } ?? "no write error")); "
                    + "edge RSS \(before) KiB before, \(highest) KiB peak, \(after) KiB after; edge sent \(socket.frames.count) frame(s) and \(socket.pongs) pong(s), \(socket.bytesReceived) B")
            #expect(closed, "the edge never closed the flooding connection")
            #expect(!gaveUp.value, "the flood's writes stalled for 20 s without the edge closing")
            if flood != .pingsWithoutHello, flood != .pongsWithoutHello {
                // Once the session is over nothing more is read (pings are legitimate until the
                // signaling timeout, so a fast edge may read many).
                #expect(accepted < cap, "the edge read \(cap >> 20) MiB without closing")
            }
            #expect(highest - before < 30 << 10, "RSS grew by \((highest - before) >> 10) MiB during the flood")
            #expect(after - before < 30 << 10, "RSS grew by \((after - before) >> 10) MiB")
            #expect(!socket.welcomed)
            switch flood {
            case .textFramesAfterABadHello:
                // The edge reads on (discarding) after its close frame until the client answers
                // or 2 s pass, so no reset destroys the refusal before the client reads it.
                #expect(socket.errorCode == PreflightError.Code.invalidAccessToken.rawValue, "\(socket.summary)")
            case .endlessFragmentedMessage:
                #expect(socket.closeCode != nil || socket.errorCode != nil, "closed without a word: \(socket.summary)")
            case .pingsWithoutHello, .pongsWithoutHello:
                // As above: the refusal arrives although the client's pings are still coming (an
                // edge that closed at once, with them unread, was reset and the 53002 lost).
                #expect(socket.errorCode == PreflightError.Code.signalingTimeout.rawValue, "\(socket.summary)")
            }
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// Byte sequences that are not UTF-8: a lone continuation, an invalid lead byte, a UTF-16
        /// surrogate, an overlong "/", a truncated sequence at the end.
        static let invalidUTF8: [(String, [UInt8])] = [
            ("C3 28", [0xC3, 0x28]), ("FF", [0xFF]), ("ED A0 80 (surrogate)", [0xED, 0xA0, 0x80]),
            ("C0 AF (overlong)", [0xC0, 0xAF]), ("E2 82 (truncated)", [0xE2, 0x82]),
        ]

        /// Text frames carrying invalid UTF-8 inside a hello: the connection is closed (close code
        /// 1007 or the TCP connection), never welcomed.
        @Test func invalidUTF8TextClosesTheConnection() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let token = Array(try await edge.token(identity: "utf8").utf8)
            var sockets: [(String, RawWebSocket)] = []
            for (name, bytes) in Self.invalidUTF8 {
                let socket = try await edge.connect()
                // A valid token with the invalid bytes in the middle of the JSON string, and at the very end.
                let text: [UInt8] = Array(#"{"type":"hello","client":""#.utf8) + bytes + Array(#"","token":""#.utf8) + token
                    + Array(#""}"#.utf8) + (name.contains("truncated") ? bytes : [])
                try await socket.send(raw: RawWebSocket.frame(opcode: RawWebSocket.Opcode.text, payload: text))
                sockets.append((name, socket))
            }
            for (name, socket) in sockets {
                let ended = await socket.awaitEnd(upTo: .seconds(8))
                #expect(ended, "\(name): the connection stayed open")
                #expect(!socket.welcomed, "\(name): welcomed")
                #expect(socket.errorCode == nil || socket.errorCode == PreflightError.Code.malformed.rawValue, "\(name): \(socket.summary)")
                let code = socket.closeCode.map { $0.map(String.init) ?? "none" } ?? "no close frame"
                print("invalid UTF-8 \(name): close code \(code), frames \(socket.frames.count), TCP closed \(ended)")
            }
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }

        /// RFC 6455 §7.4.1 and §8.1: a text frame that is not UTF-8 fails the connection with 1007
        /// ("inconsistent data"), as the edge's WebSocket configuration intends; a close frame must
        /// not claim a normal closure (1000).
        @Test func invalidUTF8IsClosedWith1007() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let socket = try await edge.connect()
            let text = Array(#"{"type":"hello","token":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
            try await socket.send(raw: RawWebSocket.frame(opcode: RawWebSocket.Opcode.text, payload: text))
            #expect(await socket.awaitEnd(upTo: .seconds(8)), "the connection stayed open")
            let code = try #require(socket.closeCode, "no close frame: \(socket.summary)")
            #expect(code == 1007, "closed with \(code.map(String.init) ?? "no code") instead of 1007")
            try await edge.expectAlive()
        }

        /// JSON built to hurt: deep nesting within and beyond the frame limit, a message one byte over
        /// 64 KiB, numbers beyond Double, duplicate keys. Each gets an error or a close, none a welcome
        /// or an answer, and the edge stays up with its memory bounded.
        @Test func hostileJSONGetsAnErrorOrAClose() async throws {
            let edge = try await AttackedEdge.start()
            defer { edge.stop() }
            let token = try await edge.token(identity: "json")
            let limit = SignalingMessage.maximumTextLength
            let filler = limit + 1 - #"{"type":"hello","token":""}"#.utf8.count
            // (name, frames to send, whether 70002 must come: false for frames over the limit, which
            // the WebSocket layer may refuse by closing).
            let cases: [(String, [String], Bool)] = [
                ("60 000 nested arrays", [String(repeating: "[", count: 60_000)], true),
                ("100 000 nested arrays", [String(repeating: "[", count: 100_000)], false),
                (
                    "10 000 nested objects in a hello",
                    [#"{"type":"hello","token":"\#(token)","client":"# + String(repeating: #"{"a":"#, count: 10_000) + "1"
                        + String(repeating: "}", count: 10_001)], true
                ),
                ("64 KiB + 1", [#"{"type":"hello","token":""# + String(repeating: "x", count: filler) + #""}"#], false),
                ("token 1e999", [#"{"type":"hello","token":1e999}"#], true),
                ("duplicate type", [#"{"type":"hello","token":"a.b.c","type":"teleport"}"#], true),
                (
                    "invite with port and priority 1e999",
                    [
                        SignalingMessage.hello(token: token, client: nil).jsonText(),
                        #"{"type":"invite","codecs":["PCMU"],"params":{},"ice":{"ufrag":"abcd","pwd":"0123456789abcdefghijkl","lite":false,"candidates":[{"foundation":"1","component":1,"transport":"udp","priority":1e999,"address":"127.0.0.1","port":1e999,"type":"host"}]}}"#,
                    ], true
                ),
            ]
            let before = try edge.rssKiB()
            var sockets: [(String, Bool, RawWebSocket)] = []
            for (name, frames, mustAnswer) in cases {
                let socket = try await edge.connect()
                for text in frames { try await socket.send(text: text) }
                sockets.append((name, mustAnswer, socket))
            }
            for (name, mustAnswer, socket) in sockets {
                let ended = await socket.awaitEnd(upTo: .seconds(8))
                #expect(ended, "\(name): the connection stayed open")
                let answered = socket.messages.contains { if case .answer = $0 { true } else { false } }
                #expect(!answered, "\(name): answered")
                if name.hasPrefix("invite") {
                    #expect(socket.welcomed, "\(name): the valid hello before it was refused: \(socket.summary)")
                } else {
                    #expect(!socket.welcomed, "\(name): welcomed")
                }
                let code = socket.errorCode
                if mustAnswer {
                    #expect(code == PreflightError.Code.malformed.rawValue || code == PreflightError.Code.invalidAccessToken.rawValue, "\(name): \(socket.summary)")
                } else {
                    #expect(code == nil || code == PreflightError.Code.malformed.rawValue, "\(name): \(socket.summary)")
                }
                let close = socket.closeCode.map { $0.map(String.init) ?? "none" } ?? "no close frame"
                print("hostile JSON \(name): error \(code.map(String.init) ?? "none"), close code \(close), TCP closed \(ended)")
            }
            let after = try edge.rssKiB()
            print("hostile JSON: edge RSS \(before) KiB before, \(after) KiB after")
            #expect(after - before < 30 << 10)
            try await edge.expectAlive()
            try edge.expectSaneLog()
        }
    }
}
