import Foundation
import Logging
import PreflightCore
import Synchronization

extension DeviceDiagnostics {
    /// Plays audio on the speaker: `file` when given, else the last microphone check's
    /// recording, else Preflight's bundled pre-recorded voice (100ms's order).
    /// - Parameters:
    ///   - file: a 16-bit PCM WAV file to play instead, or `nil`.
    ///   - device: an output's ``AudioDevice/id``, or `nil` for the default output.
    /// - Returns: what was played; after ``stopSpeakerCheck()``, what was played until then.
    /// - Throws: ``PreflightError``: `deviceCheckInProgress` (70407), a device code
    ///   (70401–70406), `fileUnreadable` (70203) or a WAV error (70001, 70002, 70404) for the
    ///   file, `cancelled` (31008) when stopped before the device opened.
    public func speakerCheck(file: URL? = nil, device: String? = nil) async throws(PreflightError) -> SpeakerCheckResult {
        let stop = try begin(.speaker)
        defer { end(.speaker) }
        return try await performSpeakerCheck(file: file, device: device, stop: stop)
    }

    /// 100ms's form: starts a speaker check and calls `completion` once with its result.
    /// - Parameters:
    ///   - file: a WAV file to play instead of the recording, or `nil` (100ms's behaviour).
    ///   - device: an output's ``AudioDevice/id``, or `nil` for the default output.
    ///   - completion: called once, on a background thread, with the result or the error.
    public func startSpeakerCheck(
        file: URL? = nil, device: String? = nil, completion: @escaping @Sendable (Result<SpeakerCheckResult, PreflightError>) -> Void
    ) {
        let stop: StopSignal
        do throws(PreflightError) {
            stop = try begin(.speaker)
        } catch {
            Task { completion(.failure(error)) }
            return
        }
        Task {
            let result: Result<SpeakerCheckResult, PreflightError>
            do throws(PreflightError) {
                result = .success(try await performSpeakerCheck(file: file, device: device, stop: stop))
            } catch {
                result = .failure(error)
            }
            // Over before the caller hears of it: a check started from the completion may run.
            end(.speaker)
            completion(result)
        }
    }

    /// Ends a running speaker check early. Does nothing when none runs.
    public func stopSpeakerCheck() {
        state.withLock { $0.speakerCheck?.stop() }
    }

    private func performSpeakerCheck(file: URL?, device: String?, stop: StopSignal) async throws(PreflightError) -> SpeakerCheckResult {
        let source: SpeakerCheckSource
        if let file {
            source = .file(file)
        } else if let recording = lastRecording, FileManager.default.fileExists(atPath: recording.path) {
            source = .micCheckRecording(recording)
        } else {
            source = .bundledRecording
        }
        let audio = try Self.load(source)
        let system = configuration.audioSystem
        logger.debug("speaker check", metadata: ["device": "\(device ?? "default")", "source": "\(source)"])
        return try await DeviceThread.run("preflight.speaker-check", stop: stop) { () throws(PreflightError) in
            let output = try system.openOutput(
                device: device, format: AudioFormat(sampleRate: audio.sampleRate, channels: audio.channels), stop: stop)
            defer { output.close() }
            // 100 ms at a time, so that a stop is seen within about 200 ms (what is buffered).
            let chunk = max(1, audio.sampleRate / 10) * audio.channels
            var played = 0
            while played < audio.samples.count, !stop.isStopped {
                let end = min(audio.samples.count, played + chunk)
                try output.write(Array(audio.samples[played..<end]), stop: stop)
                played = end
            }
            if !stop.isStopped { try output.drain(stop: stop) }
            let stoppedEarly = stop.isStopped
            return SpeakerCheckResult(
                source: source, device: output.deviceID,
                duration: Double(played / audio.channels) / Double(audio.sampleRate),
                level: AudioLevel.decibels(of: audio.samples[0..<played]), stoppedEarly: stoppedEarly)
        }
    }

    /// Reads and parses what a speaker check plays.
    static func load(_ source: SpeakerCheckSource) throws(PreflightError) -> WAVFile {
        switch source {
        case .file(let url), .micCheckRecording(let url):
            return try WAVFile(parsing: readFile(url))
        case .bundledRecording:
            return try BundledRecording.load()
        }
    }

    /// A file's bytes, refusing what is not a regular file or is larger than any WAV Preflight
    /// plays (so a hostile path such as /dev/zero cannot fill memory).
    static func readFile(_ url: URL) throws(PreflightError) -> [UInt8] {
        let limit = WAVFile.maximumDataBytes + 1 << 20
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard let attributes, attributes[.type] as? FileAttributeType == .typeRegular else {
            throw PreflightError(code: .fileUnreadable, message: "\(url.path) is missing or not a regular file")
        }
        guard let size = attributes[.size] as? Int, size <= limit else {
            throw PreflightError(code: .malformed, message: "WAV: \(url.path) is larger than \(limit) bytes")
        }
        do {
            return Array(try Data(contentsOf: url))
        } catch {
            throw PreflightError(code: .fileUnreadable, message: "cannot read \(url.path)", underlying: error)
        }
    }
}
