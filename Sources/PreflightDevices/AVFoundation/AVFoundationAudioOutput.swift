#if canImport(AVFoundation) && (os(macOS) || os(iOS))
@preconcurrency import AVFoundation
import Foundation
import PreflightCore

/// A playback stream through an `AVAudioPlayerNode` on its own `AVAudioEngine`: each write
/// becomes a buffer scheduled on the player, at most half a second ahead (a ``PlaybackLedger``
/// paces the writer as a device would), and a drain waits until the player reports the last
/// buffer played back (see ``AVFoundationAudioSystem``).
final class AVFoundationAudioOutput: AudioOutputStream {
    let deviceID: String
    private let engine = AVAudioEngine()
    private let player = AVAudioPlayerNode()
    private let playerFormat: AVAudioFormat
    private let ledger = PlaybackLedger()
    private let format: AudioFormat
    private var observer: (any NSObjectProtocol)?
    private var closed = false

    init(device: String?, format: AudioFormat) throws(PreflightError) {
        self.format = format
        try AVFoundationAudioSystem.activateSession()
        #if os(iOS)
        deviceID = try AVFoundationAudioSystem.only(
            device, current: AVAudioSession.sharedInstance().currentRoute.outputs.first?.uid ?? "default",
            what: "on iOS the audio route chooses the output")
        #else
        deviceID = try AVFoundationAudioSystem.only(
            device, current: AVFoundationAudioSystem.defaultOutputID, what: "on macOS a stream plays to the default output")
        #endif
        guard let playerFormat = AVAudioFormat(standardFormatWithSampleRate: Double(format.sampleRate), channels: AVAudioChannelCount(format.channels)) else {
            throw PreflightError(code: .deviceFormatUnsupported, message: "AVFoundation: no player format for \(format.sampleRate) Hz, \(format.channels) channel(s)")
        }
        self.playerFormat = playerFormat
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: playerFormat)
        let ledger = self.ledger
        observer = NotificationCenter.default.addObserver(forName: .AVAudioEngineConfigurationChange, object: engine, queue: nil) { _ in
            ledger.fail(PreflightError(code: .deviceFailed, message: "AVFoundation: the output device changed or went away"))
        }
        engine.prepare()
        do {
            try engine.start()
        } catch {
            throw AVFoundationAudioSystem.startFailure(error, "playing to \(deviceID)")
        }
        player.play()
    }

    deinit { close() }

    func write(_ samples: [Int16], stop: StopSignal) throws(PreflightError) {
        guard !closed else { throw PreflightError(code: .deviceFailed, message: "AVFoundation: write to a closed stream") }
        let channels = format.channels
        let total = samples.count / channels
        var start = 0
        while start < total, !stop.isStopped {
            // At most half a second queued: the writer is paced by the device.
            try ledger.wait(untilAtMost: format.sampleRate / 2, stop: stop, stall: .seconds(2), what: "AVFoundation: playing to \(deviceID)")
            let frames = min(total - start, format.sampleRate / 10)
            guard let buffer = AVAudioPCMBuffer(pcmFormat: playerFormat, frameCapacity: AVAudioFrameCount(frames)),
                let planes = buffer.floatChannelData
            else {
                throw PreflightError(code: .deviceFailed, message: "AVFoundation: no buffer for \(frames) frames")
            }
            buffer.frameLength = AVAudioFrameCount(frames)
            for frame in 0..<frames {
                for channel in 0..<channels {
                    planes[channel][frame] = Float(samples[(start + frame) * channels + channel]) / 32768
                }
            }
            ledger.scheduled(frames)
            let ledger = self.ledger
            player.scheduleBuffer(buffer, completionCallbackType: .dataPlayedBack) { _ in ledger.finished(frames) }
            start += frames
        }
    }

    func drain(stop: StopSignal) throws(PreflightError) {
        guard !closed else { return }
        try ledger.wait(untilAtMost: 0, stop: stop, stall: .seconds(2), what: "AVFoundation: playing to \(deviceID)")
    }

    func close() {
        guard !closed else { return }
        closed = true
        if let observer { NotificationCenter.default.removeObserver(observer) }
        player.stop()
        engine.stop()
    }
}
#endif
