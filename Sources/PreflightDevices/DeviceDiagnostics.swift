import Foundation
import Logging
import Synchronization

/// The device checks of 100ms's pre-call diagnostics: the microphone check (record for a while,
/// a level every second), the speaker check (play that recording, or a bundled one), and the
/// audio device list.
///
/// Each check has an `async` form that returns its result (``micCheck(timeInMillis:device:onLevelChange:)``,
/// ``speakerCheck(file:device:)``) and the vendor's form with a completion
/// (``startMicCheck(timeInMillis:device:completion:onLevelChange:)``,
/// ``startSpeakerCheck(file:device:completion:)``); `stop…` ends a running check early, and its
/// result then holds what was done. One check of each kind runs at a time; a second one fails
/// with `deviceCheckInProgress` (70407). Device I/O runs on threads of its own, never on Swift
/// concurrency's.
public final class DeviceDiagnostics: Sendable {
    /// The configuration the checks run with.
    public let configuration: DeviceDiagnosticsConfiguration
    let logger: Logger
    let state = Mutex(State())

    struct State {
        var micCheck: StopSignal?
        var speakerCheck: StopSignal?
        var cameraCheck: CameraTrack?
        /// The last microphone check's recording, which the speaker check plays.
        var lastRecording: URL?
    }

    /// The kinds of check, one of each at a time.
    enum Check: String {
        case mic = "microphone check"
        case speaker = "speaker check"
    }

    /// Creates the diagnostics.
    /// - Parameters:
    ///   - configuration: the audio system, recording format and thresholds; the defaults by default.
    ///   - logger: where the checks log; a `preflight.devices` logger by default.
    public init(configuration: DeviceDiagnosticsConfiguration = .init(), logger: Logger = Logger(label: "preflight.devices")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// The audio devices, inputs and outputs, defaults marked.
    /// - Throws: ``PreflightError`` `deviceServiceUnavailable` (70405) when no audio server answers.
    public func audioDevices() async throws(PreflightError) -> [AudioDevice] {
        let system = configuration.audioSystem
        return try await DeviceThread.run("preflight.devices", stop: StopSignal()) { () throws(PreflightError) in
            try system.devices()
        }
    }

    /// The last microphone check's recording, if one recorded anything.
    public var lastRecording: URL? { state.withLock { $0.lastRecording } }

    /// Registers a check of `kind` with its stop signal, or throws 70407 when one runs.
    func begin(_ kind: Check) throws(PreflightError) -> StopSignal {
        let stop = StopSignal()
        let started = state.withLock { state -> Bool in
            switch kind {
            case .mic:
                guard state.micCheck == nil else { return false }
                state.micCheck = stop
            case .speaker:
                guard state.speakerCheck == nil else { return false }
                state.speakerCheck = stop
            }
            return true
        }
        guard started else {
            throw PreflightError(code: .deviceCheckInProgress, message: "a \(kind.rawValue) is already running; stop it first")
        }
        return stop
    }

    /// Forgets a finished check of `kind`.
    func end(_ kind: Check) {
        state.withLock { state in
            switch kind {
            case .mic: state.micCheck = nil
            case .speaker: state.speakerCheck = nil
            }
        }
    }
}
