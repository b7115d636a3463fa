import Foundation
import PreflightCore
import Testing

@testable import PreflightDevices

/// The plain-Swift parts of the AVFoundation backend, which run on every platform: the device's
/// float frames converted to a stream's format chunk by chunk, the bounded capture buffer, and
/// the playback queue that paces a writer. (The AVFoundation calls around them build on Apple
/// platforms only and are not run here.)
@Suite struct AppleAudioLogicTests {
    /// A sine at `frequency`, `channels` interleaved copies, amplitude `amplitude` of full scale.
    static func sine(frequency: Double, rate: Double, frames: Int, channels: Int = 1, amplitude: Float = 0.5) -> [Float] {
        (0..<frames).flatMap { index in
            Array(repeating: amplitude * Float(sin(2 * Double.pi * frequency * Double(index) / rate)), count: channels)
        }
    }

    /// Converts `input` in chunks of the given sizes (cycled).
    static func convert(_ input: [Float], chunks: [Int], converter: SampleConverter) -> [Int16] {
        var converter = converter
        var output: [Int16] = []
        var start = 0
        var index = 0
        let channels = converter.inputChannels
        while start < input.count / channels {
            let frames = min(chunks[index % chunks.count], input.count / channels - start)
            output += converter.convert(Array(input[(start * channels)..<((start + frames) * channels)]))
            start += frames
            index += 1
        }
        return output
    }

    /// 48 kHz stereo (a Mac's microphone) to 8 kHz mono (the SDK's path), in the odd buffer sizes
    /// a device delivers: the tone and its level survive, and the frame count is the rate's.
    @Test(arguments: [[1024], [480], [512, 100, 7, 2000], [1]])
    func aDevicesStereo48kHzBecomes8kHzMono(chunks: [Int]) throws {
        let input = Self.sine(frequency: 1000, rate: 48_000, frames: 48_000, channels: 2)
        let output = Self.convert(input, chunks: chunks, converter: SampleConverter(inputRate: 48_000, inputChannels: 2, outputRate: 8000, outputChannels: 1))
        #expect(abs(output.count - 8000) <= 1)
        let tone = try #require(ToneEstimate(samples: Array(output.dropFirst(80)), sampleRate: 8000))
        #expect(abs(tone.frequency - 1000) < 1)
        // The moving average over six input frames takes sinc(1/8) of a 1 kHz tone: 2.6 %.
        #expect(abs(tone.amplitude - 0.5 * 0.974) < 0.01, "amplitude \(tone.amplitude)")
    }

    /// However the device cuts its buffers, the stream hears the same samples.
    @Test func theOutputDoesNotDependOnTheChunks() {
        let input = Self.sine(frequency: 440, rate: 44_100, frames: 10_000)
        let make = { SampleConverter(inputRate: 44_100, inputChannels: 1, outputRate: 16_000, outputChannels: 1) }
        let whole = Self.convert(input, chunks: [10_000], converter: make())
        let pieces = Self.convert(input, chunks: [1, 333, 64, 1024], converter: make())
        #expect(whole == pieces)
        #expect(abs(whole.count - 10_000 * 16_000 / 44_100) <= 1)
    }

    @Test func monoIsCopiedToEveryChannelAndEqualRatesPassThrough() {
        var converter = SampleConverter(inputRate: 48_000, inputChannels: 1, outputRate: 48_000, outputChannels: 2)
        let output = converter.convert([0, 0.25, -0.5, 1.5, -2, .nan])
        #expect(output == [0, 0, 8192, 8192, -16384, -16384, 32767, 32767, -32768, -32768, 0, 0])
    }

    /// Rates and channel counts from a caller are held to sane ranges: no argument makes a
    /// converter allocate without bound.
    @Test func absurdFormatsAreHeldToRange() {
        var up = SampleConverter(inputRate: 1, inputChannels: 0, outputRate: Int.max, outputChannels: 1000)
        let output = up.convert([0.1, 0.2])
        #expect(up.outputChannels == 32)
        #expect(output.count <= 2 * 384_000 * 32)
        var down = SampleConverter(inputRate: .infinity, inputChannels: 1, outputRate: 0, outputChannels: 1)
        #expect(down.convert([Float](repeating: 0.1, count: 100)).count <= 1)
    }

    @Test func theCaptureBufferKeepsThePresentAndCountsWhatItDropped() throws {
        let captured = CapturedAudio(capacity: 1000)
        let left = [Float](repeating: 0.25, count: 600)
        let right = [Float](repeating: -0.25, count: 600)
        left.withUnsafeBufferPointer { l in
            right.withUnsafeBufferPointer { r in
                guard let l = l.baseAddress, let r = r.baseAddress else { return }
                captured.append(planes: [l, r], frames: 600, channels: 2, sampleRate: 48_000)
                captured.append(planes: [l, r], frames: 600, channels: 2, sampleRate: 48_000)
            }
        }
        #expect(captured.droppedFrames == 200)
        let chunk = captured.take()
        #expect(chunk.samples.count == 2000)
        #expect(chunk.channels == 2)
        #expect(Array(chunk.samples.prefix(4)) == [0.25, -0.25, 0.25, -0.25])
        #expect(chunk.lastDelivery != nil)
        #expect(captured.take().samples.isEmpty)
        // A new format (another device) starts afresh; a failure reaches the reader.
        captured.fail(PreflightError(code: .deviceFailed, message: "gone"))
        #expect(captured.take().failure?.code == .deviceFailed)
    }

    @Test func thePlaybackQueuePacesTheWriterAndReportsAStall() throws {
        let ledger = PlaybackLedger()
        ledger.scheduled(4800)
        ledger.scheduled(4800)
        #expect(ledger.queuedFrames == 9600)
        // The player finishes a buffer on its own thread: the writer waiting for room goes on.
        let finisher = Thread { Thread.sleep(forTimeInterval: 0.05); ledger.finished(4800) }
        finisher.start()
        let started = ContinuousClock.now
        try ledger.wait(untilAtMost: 4800, stop: StopSignal(), stall: .seconds(2), what: "test")
        #expect(ContinuousClock.now - started >= .milliseconds(40))
        #expect(ledger.queuedFrames == 4800)
        // Nothing finishes: a stall is 70406, a stop returns at once.
        let stall = #expect(throws: PreflightError.self) {
            try ledger.wait(untilAtMost: 0, stop: StopSignal(), stall: .milliseconds(100), what: "test")
        }
        #expect(stall?.code == .deviceFailed)
        let stop = StopSignal()
        stop.stop()
        try ledger.wait(untilAtMost: 0, stop: stop, stall: .milliseconds(100), what: "test")
        ledger.fail(PreflightError(code: .deviceFailed, message: "route changed"))
        #expect(throws: PreflightError.self) { try ledger.wait(untilAtMost: 0, stop: StopSignal(), stall: .seconds(2), what: "test") }
    }
}
