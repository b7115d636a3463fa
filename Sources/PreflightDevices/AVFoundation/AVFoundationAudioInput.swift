#if canImport(AVFoundation) && (os(macOS) || os(iOS))
@preconcurrency import AVFoundation
import Foundation
import PreflightCore

/// A recording stream from `AVAudioEngine`'s input node: a tap copies each buffer into a
/// ``CapturedAudio`` on the engine's thread, and ``read(frameCount:stop:)`` converts on the
/// reader's (see ``AVFoundationAudioSystem``).
final class AVFoundationAudioInput: AudioInputStream {
    let deviceID: String
    private let engine = AVAudioEngine()
    private let captured: CapturedAudio
    private let format: AudioFormat
    private var converter: SampleConverter?
    private var converterInput: (rate: Double, channels: Int)?
    private var pending: [Int16] = []
    private var observer: (any NSObjectProtocol)?
    private var closed = false

    init(device: String?, format: AudioFormat) throws(PreflightError) {
        self.format = format
        let captured = CapturedAudio(capacity: 2 * 192_000)
        self.captured = captured
        try AVFoundationAudioSystem.activateSession()
        #if os(iOS)
        let session = AVAudioSession.sharedInstance()
        if let device {
            guard let port = session.availableInputs?.first(where: { $0.uid == device }) else {
                throw PreflightError(code: .deviceNotFound, message: "AVFoundation: no input \(UntrustedText.quoted(device))")
            }
            do { try session.setPreferredInput(port) } catch {
                throw PreflightError(code: .deviceBusy, message: "AVFoundation: input \(UntrustedText.quoted(device)) cannot be chosen", underlying: error)
            }
        }
        deviceID = device ?? session.currentRoute.inputs.first?.uid ?? "default"
        #else
        deviceID = try AVFoundationAudioSystem.only(
            device, current: AVCaptureDevice.default(for: .audio)?.uniqueID ?? "default", what: "on macOS a stream records from the default input")
        #endif
        let input = engine.inputNode
        let hardware = input.outputFormat(forBus: 0)
        guard hardware.sampleRate > 0, hardware.channelCount > 0 else {
            throw PreflightError(code: .deviceNotFound, message: "AVFoundation: there is no input device")
        }
        input.installTap(onBus: 0, bufferSize: 1024, format: hardware) { buffer, _ in
            guard let data = buffer.floatChannelData else { return }
            let channels = Int(buffer.format.channelCount)
            let planes = (0..<(buffer.format.isInterleaved ? 1 : channels)).map { UnsafePointer(data[$0]) }
            captured.append(planes: planes, frames: Int(buffer.frameLength), channels: channels, sampleRate: buffer.format.sampleRate)
        }
        observer = NotificationCenter.default.addObserver(forName: .AVAudioEngineConfigurationChange, object: engine, queue: nil) { _ in
            captured.fail(PreflightError(code: .deviceFailed, message: "AVFoundation: the input device changed or went away"))
        }
        engine.prepare()
        do {
            try engine.start()
        } catch {
            input.removeTap(onBus: 0)
            throw AVFoundationAudioSystem.startFailure(error, "recording from \(deviceID)")
        }
    }

    deinit { close() }

    func read(frameCount: Int, stop: StopSignal) throws(PreflightError) -> [Int16] {
        guard !closed else { throw PreflightError(code: .deviceFailed, message: "AVFoundation: read from a closed stream") }
        let wanted = max(0, frameCount) * format.channels
        var lastData = ContinuousClock.now
        while pending.count < wanted, !stop.isStopped {
            let chunk = captured.take()
            if let failure = chunk.failure { throw failure }
            if !chunk.samples.isEmpty {
                if converterInput?.rate != chunk.sampleRate || converterInput?.channels != chunk.channels {
                    converter = SampleConverter(
                        inputRate: chunk.sampleRate, inputChannels: chunk.channels, outputRate: format.sampleRate,
                        outputChannels: format.channels)
                    converterInput = (chunk.sampleRate, chunk.channels)
                }
                if var active = converter {
                    pending += active.convert(chunk.samples)
                    converter = active
                }
                lastData = .now
                continue
            }
            if ContinuousClock.now - lastData > .seconds(5) {
                throw PreflightError(code: .deviceFailed, message: "AVFoundation: \(deviceID) delivered nothing for 5 s")
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        let count = min(wanted, pending.count - pending.count % format.channels)
        let samples = Array(pending.prefix(count))
        pending.removeFirst(count)
        return samples
    }

    func close() {
        guard !closed else { return }
        closed = true
        if let observer { NotificationCenter.default.removeObserver(observer) }
        engine.inputNode.removeTap(onBus: 0)
        engine.stop()
    }
}
#endif
