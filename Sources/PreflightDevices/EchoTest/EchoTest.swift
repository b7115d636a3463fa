import Foundation
import Logging
import Preflight
import PreflightCore
import Synchronization

/// Agora's audio echo test (`startEchoTestWithInterval`, `stopEchoTest`): the microphone's audio
/// goes to the edge's record-playback application, which records `interval` seconds and plays
/// them back; the playback is heard on the speaker. Preflight also says whether it came back:
/// what was played is cross-correlated with what was recorded (``EchoTestResult``).
///
/// It is a preflight test call with the microphone as its input (`fakeMicInput` false) and the
/// speaker as its output, so its network report comes with it.
public final class EchoTest: Sendable {
    /// Where the test runs.
    public let options: EchoTestOptions
    let logger: Logger
    private let running = Mutex<PreflightTest?>(nil)
    private let stopped = StopSignal()

    /// Creates the test.
    /// - Parameters:
    ///   - options: the edge, its token and the devices.
    ///   - logger: where the test logs; nothing by default.
    public init(options: EchoTestOptions, logger: Logger = Logger(label: "preflight.echo-test", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.options = options
        self.logger = logger
    }

    /// Runs the echo test to its end: `interval` seconds recorded, played back, then the edge
    /// hangs up (or ``stopEchoTest()``).
    /// - Parameter interval: seconds, 2…10 (Agora's range); default 10.
    /// - Throws: ``PreflightError``: `invalidArgument` (70005) for an interval out of range,
    ///   `deviceCheckInProgress` (70407) while one runs, a device code (70401–70406), or the
    ///   test call's error (its partial report is lost with it; use the result's report).
    public func startEchoTest(interval: Int = 10) async throws(PreflightError) -> EchoTestResult {
        guard EchoTestOptions.intervals.contains(interval) else {
            throw PreflightError(
                code: .invalidArgument,
                message: "the echo test's interval is 2 to 10 seconds (Agora's range), not \(interval)")
        }
        let microphone = try await MicrophoneAudioSource.open(device: options.inputDevice, audioSystem: options.audioSystem)
        let speaker: SpeakerAudioSink
        do {
            speaker = try await SpeakerAudioSink.open(device: options.outputDevice, audioSystem: options.audioSystem)
        } catch {
            microphone.stop()
            throw error
        }
        defer {
            microphone.stop()
            speaker.stop()
        }
        // The edge records from the first packet: start once the microphone delivers, so that
        // the interval holds what was said, not the device's start-up silence.
        _ = await microphone.waitForAudio()
        let preflightOptions = PreflightOptions(
            accessToken: options.accessToken, edgeURL: options.edgeURL, signalingTimeout: options.signalingTimeout,
            maximumDuration: .seconds(2 * interval + 20), edgeTrustedCertificatesFile: options.edgeTrustedCertificatesFile,
            fakeMicInput: false, audioInput: microphone, audioOutput: speaker, params: ["interval": "\(interval)"])
        let test = PreflightTest.run(options: preflightOptions, logger: logger)
        let started = running.withLock { running -> Bool in
            guard running == nil else { return false }
            running = test
            return true
        }
        guard started else {
            test.stop()
            throw PreflightError(code: .deviceCheckInProgress, message: "an echo test is already running; stop it first")
        }
        defer { running.withLock { $0 = nil } }
        let report: PreflightReport
        var stoppedEarly = false
        do {
            report = try await test.result()
        } catch where error.code == .cancelled {
            report = test.partialReport
            stoppedEarly = true
        }
        // What is still queued for the speaker plays out.
        try? await Task.sleep(for: .milliseconds(300))
        return Self.result(
            interval: interval, microphone: microphone, speaker: speaker, report: report, stoppedEarly: stoppedEarly)
    }

    /// Agora's form: starts the echo test and calls `completion` once with its result.
    public func startEchoTest(interval: Int = 10, completion: @escaping @Sendable (Result<EchoTestResult, PreflightError>) -> Void) {
        Task {
            do throws(PreflightError) {
                completion(.success(try await startEchoTest(interval: interval)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Ends a running echo test (the result then holds what was heard). Does nothing when none runs.
    public func stopEchoTest() {
        running.withLock { $0 }?.stop()
    }

    /// Aligns what came back with what was sent.
    static func result(
        interval: Int, microphone: MicrophoneAudioSource, speaker: SpeakerAudioSink, report: PreflightReport, stoppedEarly: Bool
    ) -> EchoTestResult {
        // What was sent (with any silence put in where the microphone was behind), not what the
        // microphone heard: that is what the edge can have recorded.
        let (sent, sendingStart) = microphone.sent
        let heard = microphone.heard.samples
        let (played, firstReceived) = speaker.played
        let alignment = EchoAlignment(sent: sent, received: played)
        var delay: Double?
        if let alignment, let sendingStart, let firstReceived {
            // The sample at `offset` was sent offset/8000 s after the first; it came back when
            // the first packet of the playback arrived.
            delay = (firstReceived - sendingStart).inSeconds - Double(alignment.offset) / 8000
        }
        return EchoTestResult(
            interval: interval, inputDevice: microphone.device, outputDevice: speaker.device,
            recordedSeconds: Double(heard.count) / 8000, playedBackSeconds: Double(played.count) / 8000, delay: delay,
            correlation: alignment?.correlation,
            heardBack: (alignment?.correlation ?? 0) >= 0.5 && (alignment?.compared ?? 0) >= 4000,
            microphoneHeardSound: AudioLevel.decibels(of: heard) > -60, microphoneUnderruns: microphone.underruns,
            deviceError: (microphone.failure ?? speaker.failure).map(ReportError.init), stoppedEarly: stoppedEarly, report: report)
    }
}
