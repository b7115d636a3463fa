import Foundation
import PreflightCore

/// The microphone check's recording loop, on its device thread.
struct MicRecorder {
    let configuration: DeviceDiagnosticsConfiguration
    let stop: StopSignal
    let onLevelChange: @Sendable (Double) -> Void

    func record(device: String?, timeInMillis: Int) throws(PreflightError) -> MicCheckResult {
        let format = configuration.recordingFormat
        let input = try configuration.audioSystem.openInput(device: device, format: format, stop: stop)
        defer { input.close() }
        let channels = max(1, format.channels)
        let total = format.sampleRate * timeInMillis / 1000 * channels
        let perSecond = format.sampleRate * channels
        var samples = [Int16]()
        samples.reserveCapacity(total)
        var levels = [Double]()
        while samples.count < total, !stop.isStopped {
            // 100 ms at a time: a stop is seen within that, levels land on the second.
            let frames = min(format.sampleRate / 10, (total - samples.count) / channels)
            samples += try input.read(frameCount: max(1, frames), stop: stop)
            while samples.count >= (levels.count + 1) * perSecond {
                let level = AudioLevel.decibels(of: samples[levels.count * perSecond..<(levels.count + 1) * perSecond])
                levels.append(level)
                onLevelChange(level)
            }
        }
        let file = WAVFile(sampleRate: format.sampleRate, channels: channels, samples: samples)
        let url = configuration.recordingDirectory.appendingPathComponent("preflight-mic-check-\(UUID().uuidString).wav")
        do {
            try Data(try file.encoded()).write(to: url, options: .atomic)
        } catch {
            throw PreflightError(code: .fileUnwritable, message: "cannot write the recording \(url.path)", underlying: error)
        }
        let average = AudioLevel.decibels(of: samples)
        let silent = levels.isEmpty ? average < configuration.silenceThreshold : levels.allSatisfy { $0 < configuration.silenceThreshold }
        return MicCheckResult(
            recordingURL: url, device: input.deviceID, duration: file.duration, sampleRate: format.sampleRate, levels: levels,
            averageLevel: average, peakLevel: AudioLevel.decibels(fullScale: Double(AudioLevel.peak(of: samples)) / 32768),
            isSilent: silent, stoppedEarly: samples.count < total)
    }
}
