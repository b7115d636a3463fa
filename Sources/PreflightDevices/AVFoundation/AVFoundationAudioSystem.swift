#if canImport(AVFoundation) && (os(macOS) || os(iOS))
// AVFoundation's types predate Sendable checking; the ones this backend shares across threads
// (the tap's and the player's callbacks) capture only our own Sendable holders.
@preconcurrency import AVFoundation
import Foundation
import PreflightCore
import Synchronization

/// Audio through AVFoundation on macOS and iOS: `AVAudioEngine`'s input node records, an
/// `AVAudioPlayerNode` plays. Microphone access is asked for on first use (the app needs
/// `NSMicrophoneUsageDescription`); a refusal is 70403.
///
/// Devices: on iOS the audio session's inputs (built-in, headset, Bluetooth) can be chosen by
/// their port UID, and the output is the session's current route. On macOS the capture devices
/// are listed, but a stream uses the system's default input and output: choosing another
/// device is 70401 (say so to the user: choose it in System Settings).
///
/// This backend is compiled on Apple platforms only. It was written against AVFoundation's
/// documented API but has not been built or run by this project's CI, which runs on Linux; its
/// format conversion (`SampleConverter`), capture buffer (`CapturedAudio`) and playback queue
/// (`PlaybackLedger`) are plain Swift and are tested on every run.
public struct AVFoundationAudioSystem: AudioSystem {
    /// Creates the audio system.
    public init() {}

    /// "AVFoundation".
    public var name: String { "AVFoundation" }

    /// The inputs and outputs the platform lists (see the type's notes on choosing them).
    public func devices() throws(PreflightError) -> [AudioDevice] {
        #if os(iOS)
        let session = AVAudioSession.sharedInstance()
        // 0 when the session reports no usable rate (a NaN would trap a conversion).
        let rate = session.sampleRate.isFinite && (0...1e6).contains(session.sampleRate) ? Int(session.sampleRate.rounded()) : 0
        let currentInput = session.currentRoute.inputs.first?.uid
        let inputs = (session.availableInputs ?? []).map { port in
            AudioDevice(
                id: port.uid, name: port.portName, kind: .input, isDefault: port.uid == currentInput, sampleRate: rate,
                channels: max(1, port.channels?.count ?? 1))
        }
        let outputs = session.currentRoute.outputs.map { port in
            AudioDevice(
                id: port.uid, name: port.portName, kind: .output, isDefault: true, sampleRate: rate,
                channels: max(1, port.channels?.count ?? 1))
        }
        return inputs + outputs
        #else
        let discovery = AVCaptureDevice.DiscoverySession(deviceTypes: [.microphone], mediaType: .audio, position: .unspecified)
        let defaultInput = AVCaptureDevice.default(for: .audio)?.uniqueID
        let inputs = discovery.devices.map { device in
            AudioDevice(id: device.uniqueID, name: device.localizedName, kind: .input, isDefault: device.uniqueID == defaultInput, sampleRate: 0, channels: 1)
        }
        let output = AudioDevice(id: Self.defaultOutputID, name: "System default output", kind: .output, isDefault: true, sampleRate: 0, channels: 2)
        return inputs + [output]
        #endif
    }

    /// Opens a recording stream on the input node (see ``AudioSystem/openInput(device:format:stop:)``).
    public func openInput(device: String?, format: AudioFormat, stop: StopSignal) throws(PreflightError) -> any AudioInputStream {
        try Self.check(format)
        try Self.requireMicrophoneAccess(stop: stop)
        return try AVFoundationAudioInput(device: device, format: format)
    }

    /// Opens a playback stream through a player node (see ``AudioSystem/openOutput(device:format:stop:)``).
    public func openOutput(device: String?, format: AudioFormat, stop: StopSignal) throws(PreflightError) -> any AudioOutputStream {
        try Self.check(format)
        return try AVFoundationAudioOutput(device: device, format: format)
    }

    /// The id of macOS's only listed output: whatever the system plays to.
    static let defaultOutputID = "default"

    /// `current` when `device` is `nil` or names it; any other device is 70401, with `what` to
    /// say why only that one is taken.
    static func only(_ device: String?, current: String, what: String) throws(PreflightError) -> String {
        if let device, device != current {
            throw PreflightError(
                code: .deviceNotFound,
                message: "AVFoundation: \(what); \(UntrustedText.quoted(device)) is not it (choose it in the system's settings)")
        }
        return current
    }

    /// Rates and channel counts a stream may ask for; others are 70404.
    static func check(_ format: AudioFormat) throws(PreflightError) {
        guard (8000...192_000).contains(format.sampleRate), (1...8).contains(format.channels) else {
            throw PreflightError(
                code: .deviceFormatUnsupported,
                message: "AVFoundation: \(format.sampleRate) Hz with \(format.channels) channel(s); 8,000–192,000 Hz and 1–8 channels are taken")
        }
    }

    /// Asks for microphone access when it was never asked, waiting for the person's answer
    /// (at most 60 s, or until `stop`).
    /// - Throws: 70403 when access is denied, restricted or not answered.
    static func requireMicrophoneAccess(stop: StopSignal) throws(PreflightError) {
        switch AVCaptureDevice.authorizationStatus(for: .audio) {
        case .authorized:
            return
        case .notDetermined:
            let answer = AccessAnswer()
            AVCaptureDevice.requestAccess(for: .audio) { granted in answer.give(granted) }
            let deadline = ContinuousClock.now + .seconds(60)
            while answer.granted == nil, !stop.isStopped, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            if answer.granted == true { return }
            throw PreflightError(code: .devicePermissionDenied, message: "AVFoundation: microphone access was not granted")
        default:
            throw PreflightError(
                code: .devicePermissionDenied,
                message: "AVFoundation: microphone access is denied or restricted (Settings, Privacy, Microphone)")
        }
    }

    /// Sets the shared audio session up for recording and playing a call (iOS).
    static func activateSession() throws(PreflightError) {
        #if os(iOS)
        let session = AVAudioSession.sharedInstance()
        do {
            try session.setCategory(.playAndRecord, mode: .voiceChat, options: [.allowBluetooth, .defaultToSpeaker])
            try session.setActive(true)
        } catch {
            throw PreflightError(code: .deviceBusy, message: "AVFoundation: the audio session could not be activated", underlying: error)
        }
        #endif
    }

    /// An engine that would not start, as a device code.
    static func startFailure(_ error: any Error, _ what: String) -> PreflightError {
        PreflightError(code: .deviceFailed, message: "AVFoundation: \(what) did not start", underlying: error)
    }
}

/// The answer to a microphone access request, given on whatever thread AVFoundation calls back on.
final class AccessAnswer: Sendable {
    private let answer = Mutex<Bool?>(nil)
    func give(_ granted: Bool) { answer.withLock { $0 = granted } }
    var granted: Bool? { answer.withLock { $0 } }
}
#endif
