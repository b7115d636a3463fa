import Foundation
@testable import Preflight
import PreflightCore
import PreflightEdge
import PreflightNIO
import PreflightOpus
import PreflightTesting
import Synchronization
import Testing

/// Opus in tests and calls: the codec negotiated in the signaling (`[opus, PCMU]`), the edge
/// echoing, recording and bridging it untouched, the SDK encoding a 48 kHz stream and decoding
/// what comes back, levels and sinks fed from decoded audio, digits on the 48 kHz clock.
@Suite(.realTime, .serialized, .enabled(if: ExternalTool.isCI || OpusCodec.isAvailable, "needs a build with libopus-dev (apt-get install libopus-dev)"))
struct OpusMediaTests {
    typealias RecordingSink = AudioInputTests.RecordingSink

    /// A test with a WAV tone as input, to `application`, offering `codecs`.
    static func test(
        codecs: [String], application: TestApplication = .echo, seconds: Int = 3, sink: RecordingSink? = nil
    ) async throws -> PreflightReport {
        let file = try await AudioInputTests.toneFile()
        defer { try? FileManager.default.removeItem(at: file) }
        return try await LocalEdge.withRunning { edge in
            let test = PreflightTest.run(
                options: PreflightOptions(
                    accessToken: try await edge.token(application: application), edgeURL: edge.signalingURL,
                    preferredAudioCodecs: codecs, duration: .seconds(seconds), fakeMicInput: false,
                    audioInput: try WAVFileAudioSource(url: file), audioOutput: sink))
            return try await test.result()
        }
    }

    /// The heard audio's tone: the last second, past the codec's start-up.
    static func tone(_ sink: RecordingSink, sourceLocation: SourceLocation = #_sourceLocation) throws -> ToneEstimate {
        let heard = sink.samples.withLock { $0 }
        try #require(heard.count > 8000, "heard \(heard.count) samples", sourceLocation: sourceLocation)
        return try #require(ToneEstimate(samples: Array(heard.suffix(8000)), sampleRate: 8000), sourceLocation: sourceLocation)
    }

    @Test func anEchoTestInOpusHearsTheToneAndReportsOpus() async throws {
        let sink = RecordingSink()
        let report = try await Self.test(codecs: ["opus", "PCMU"], sink: sink)
        let media = report.statsSamples.filter { $0.packetsReceived > 0 }
        #expect(!media.isEmpty)
        #expect(media.allSatisfy { $0.codec == "opus" }, "\(media.map(\.codec))")
        // Levels from the frames sent and from the decoded echo: a quarter of full scale. The
        // echo's level is judged over seconds that heard most of their 50 packets (a busy host
        // may starve a second of its echo: that second's level is of what it heard).
        for (previous, sample) in zip(media, media.dropFirst()) {
            #expect(abs(Double(sample.audioInputLevel) - 8192) < 8192 * 0.05, "audioInputLevel \(sample.audioInputLevel)")
            guard sample.packetsReceived - previous.packetsReceived >= 40 else { continue }
            #expect(abs(Double(sample.audioOutputLevel) - 8192) < 8192 * 0.15, "audioOutputLevel \(sample.audioOutputLevel)")
        }
        let tone = try Self.tone(sink)
        print("Opus echo: heard \(tone.frequency) Hz at \(tone.amplitude); bytes sent \(report.statsSamples.last?.bytesSent ?? 0)")
        #expect(abs(tone.frequency - 1000) < 1)
        #expect(abs(tone.amplitude - 0.25) < 0.03)
        let last = try #require(report.statsSamples.last)
        #expect(last.packetsLost == 0)
        // What had not come back when the sample was taken was in flight: at most the 50
        // packets a second of twice the largest round trip and half a second more (frames a stalled pacer sends late, at once), and two more.
        let largestRTT = report.statsSamples.map(\.rtt).max() ?? 0
        let inFlight = Int(((largestRTT / 1000 * 2 + 0.5) * 50).rounded(.up)) + 2
        #expect(last.packetsReceived + inFlight >= last.packetsSent, "\(last.packetsReceived) of \(last.packetsSent), rtt up to \(largestRTT) ms")
    }

    /// The offer's order decides; a build without Opus leaves it out of the offer.
    @Test(arguments: [(["PCMU", "opus"], "PCMU"), (["opus"], "opus"), (["G722", "OPUS"], "opus")])
    func theEdgeTakesTheFirstPreferenceItSpeaks(codecs: [String], chosen: String) async throws {
        let report = try await Self.test(codecs: codecs, seconds: 1)
        #expect(report.statsSamples.last?.codec == chosen)
    }

    @Test func nothingTheEdgeSpeaksIs70103AndNothingIs70005() async throws {
        let unknown = await #expect(throws: PreflightError.self) { try await Self.test(codecs: ["G722"], seconds: 1) }
        #expect(unknown?.code == .unsupportedCodec)
        let empty = await #expect(throws: PreflightError.self) { try await Self.test(codecs: [], seconds: 1) }
        #expect(empty?.code == .invalidArgument)
    }

    /// Record-playback keeps the Opus payloads and plays them back on the 48 kHz clock.
    @Test func recordPlaybackInOpusPlaysTheToneBack() async throws {
        let sink = RecordingSink()
        let report = try await Self.test(codecs: ["opus"], application: .recordPlayback, sink: sink)
        #expect(report.statsSamples.last?.codec == "opus")
        let tone = try Self.tone(sink)
        print("Opus record-playback: heard \(tone.frequency) Hz at \(tone.amplitude)")
        #expect(abs(tone.frequency - 1000) < 1)
        #expect(abs(tone.amplitude - 0.25) < 0.03)
    }

    /// Both parties of a bridged call carry the caller's Opus; the callee hears the tone, its
    /// stats name the codec, and digits travel as telephone-event/48000.
    @Test func aCallInOpusCarriesAudioAndDigits() async throws {
        let file = try await AudioInputTests.toneFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let sink = RecordingSink()
        try await CallHarness.withEdge { harness in
            let connected = try await harness.connectedCall(
                callerOptions: CallOptions(preferredAudioCodecs: ["opus", "PCMU"], fakeMicInput: false, audioInput: try WAVFileAudioSource(url: file)),
                calleeOptions: CallOptions(preferredAudioCodecs: ["opus"], audioOutput: sink))
            let events = connected.callee.events()
            let received = Mutex<[Character]>([])
            let listener = Task {
                for await event in events {
                    if case .digitReceived(let digit) = event, received.withLock({ $0.append(digit); return $0.count }) == 3 { return }
                }
            }
            // A second and a half of the caller's Opus reached the callee's sink, past the codec's start-up.
            #expect(await eventually { sink.samples.withLock { $0.count } > 12_000 }, "heard \(sink.samples.withLock { $0.count }) samples")
            try connected.caller.sendDigits("7#1")
            _ = await eventually { received.withLock { $0.count } >= 3 }
            listener.cancel()
            #expect(String(received.withLock { $0 }) == "7#1")
            let stats = try #require(connected.callee.getStats())
            #expect(stats.remoteAudioTrackStats.first?.codec == "opus")
            #expect(stats.localAudioTrackStats.first?.codec == "opus")
            #expect(stats.remoteAudioTrackStats.first?.packetsLost == 0)
            let tone = try Self.tone(sink)
            print("Opus call: the callee heard \(tone.frequency) Hz at \(tone.amplitude)")
            #expect(abs(tone.frequency - 1000) < 1)
            connected.caller.disconnect()
            #expect(await connected.callee.endingError() == nil)
            await connected.bob.unregister()
        }
    }

    /// A device that cannot carry the caller's codec is turned away with 70103; the caller's
    /// call then ends as rejected (no other device rang).
    @Test func aCalleeWithoutTheCallersCodecIsTurnedAway() async throws {
        try await CallHarness.withEdge { harness in
            let bob = try await harness.register("bob")
            let invites = bob.events()
            let caller = try await harness.connect(to: "client:bob", callOptions: CallOptions(preferredAudioCodecs: ["opus"]))
            let invite = try #require(await next(invites)?.invite)
            let callee = invite.accept(options: AcceptOptions(callOptions: CallOptions(preferredAudioCodecs: ["PCMU"])))
            #expect(await callee.endingError()?.code == .unsupportedCodec)
            #expect(await caller.endingError()?.code == .callRejected)
            await bob.unregister()
        }
    }

    /// The Opus RTP stream as it leaves the media session: payload type 111, timestamps 960
    /// apart (48 kHz, RFC 7587 §4.1), and payloads that an outside decoder (PyPI opuslib, on
    /// libopus' C API rather than our code) decodes to the tone that went in.
    @Test(.enabled(if: ExternalTool.canRun(needing: "python3"), "needs python3 and PyPI opuslib"))
    func theWireCarriesRFC7587PayloadsThatAnOutsideDecoderReads() async throws {
        let file = try await AudioInputTests.toneFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let packets = Mutex<[[UInt8]]>([])
        let session = MediaSession(
            configuration: MediaSessionConfiguration(cname: "wire"), origin: .now, wallClockOrigin: 0,
            transmit: { bytes in packets.withLock { $0.append(bytes) }; return true })
        let codec = try OpusAudioCodec()
        session.use(codec)
        await session.send(FiniteSource(inner: ExternalAudioMediaSource(input: try WAVFileAudioSource(url: file), codec: codec), frames: 50))
        let sent = packets.withLock { $0 }
        #expect(sent.count == 50)
        var payloads: [[UInt8]] = []
        var previous: RTPHeader?
        for bytes in sent {
            let header = try bytes.withUnsafeBytes { try RTPHeader(parsing: $0) }
            #expect(header.payloadType == 111)
            if let previous {
                #expect(header.timestamp &- previous.timestamp == 960)
                #expect(header.sequenceNumber &- previous.sequenceNumber == 1)
            }
            previous = header
            payloads.append(Array(bytes[header.payloadRange]))
        }
        let result = try await OutsideOpusDecoder.decode(payloads)
        print("opuslib read the media path's payloads: \(result)")
        #expect(result.samples == 50 * 960)
        #expect(abs(result.frequency - 1000) < 2)
        #expect(abs(result.amplitude - 0.25) < 0.03)
    }
}

/// The first `frames` frames of a source.
struct FiniteSource<Inner: MediaSource>: MediaSource {
    var inner: Inner
    var frames: Int
    var payloadType: UInt8 { inner.payloadType }

    mutating func nextFrame() -> MediaFrame? {
        guard frames > 0 else { return nil }
        frames -= 1
        return inner.nextFrame()
    }
}
