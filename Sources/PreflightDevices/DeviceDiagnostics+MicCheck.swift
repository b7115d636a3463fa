import Foundation
import Logging
import PreflightCore
import Synchronization

extension DeviceDiagnostics {
    /// Records the microphone for `timeInMillis` into a temporary WAV file, reporting the level
    /// of each second as it goes.
    /// - Parameters:
    ///   - timeInMillis: 1,000…60,000 ms (100ms's name); default 10,000.
    ///   - device: an input's ``AudioDevice/id``, or `nil` for the default input.
    ///   - onLevelChange: called once a second, on the check's own thread, with the last second's
    ///     RMS level in dBFS (−160 for digital silence).
    /// - Returns: the recording and its levels; after ``stopMicCheck()``, what was recorded until then.
    /// - Throws: ``PreflightError``: `invalidArgument` (70005) for a duration out of range,
    ///   `deviceCheckInProgress` (70407), a device code (70401–70406), `fileUnwritable` (70204),
    ///   `cancelled` (31008) when stopped before the device opened.
    public func micCheck(
        timeInMillis: Int = 10_000, device: String? = nil, onLevelChange: @escaping @Sendable (Double) -> Void = { _ in }
    ) async throws(PreflightError) -> MicCheckResult {
        try Self.checkDuration(timeInMillis, format: configuration.recordingFormat)
        let stop = try begin(.mic)
        defer { end(.mic) }
        return try await performMicCheck(timeInMillis: timeInMillis, device: device, stop: stop, onLevelChange: onLevelChange)
    }

    /// 100ms's form: starts a microphone check and calls `completion` once with its result.
    /// A duration out of range or a check already running fails through `completion` too.
    /// - Parameters:
    ///   - timeInMillis: 1,000…60,000 ms; default 10,000.
    ///   - device: an input's ``AudioDevice/id``, or `nil` for the default input.
    ///   - completion: called once, on a background thread, with the result or the error.
    ///   - onLevelChange: called once a second with the last second's level in dBFS.
    public func startMicCheck(
        timeInMillis: Int = 10_000, device: String? = nil,
        completion: @escaping @Sendable (Result<MicCheckResult, PreflightError>) -> Void,
        onLevelChange: @escaping @Sendable (Double) -> Void = { _ in }
    ) {
        // Registered before this returns, so that a stopMicCheck() right after it is not lost.
        let stop: StopSignal
        do throws(PreflightError) {
            try Self.checkDuration(timeInMillis, format: configuration.recordingFormat)
            stop = try begin(.mic)
        } catch {
            Task { completion(.failure(error)) }
            return
        }
        Task {
            let result: Result<MicCheckResult, PreflightError>
            do throws(PreflightError) {
                result = .success(try await performMicCheck(timeInMillis: timeInMillis, device: device, stop: stop, onLevelChange: onLevelChange))
            } catch {
                result = .failure(error)
            }
            // Over before the caller hears of it: a check started from the completion may run.
            end(.mic)
            completion(result)
        }
    }

    /// Ends a running microphone check early; its result holds what was recorded. Does nothing
    /// when none runs.
    public func stopMicCheck() {
        state.withLock { $0.micCheck?.stop() }
    }

    static func checkDuration(_ timeInMillis: Int, format: AudioFormat) throws(PreflightError) {
        // The recording is held in memory: at most 60 s of 48 kHz stereo (11.5 MB).
        guard (8000...48_000).contains(format.sampleRate), (1...2).contains(format.channels) else {
            throw PreflightError(
                code: .invalidArgument,
                message: "a microphone check records 8,000 to 48,000 Hz, 1 or 2 channels, not \(format.sampleRate) Hz × \(format.channels)")
        }
        let range = DeviceDiagnosticsConfiguration.micCheckDurations
        guard range.contains(timeInMillis) else {
            throw PreflightError(
                code: .invalidArgument,
                message: "a microphone check lasts \(range.lowerBound) to \(range.upperBound) ms, not \(timeInMillis)")
        }
    }

    private func performMicCheck(
        timeInMillis: Int, device: String?, stop: StopSignal, onLevelChange: @escaping @Sendable (Double) -> Void
    ) async throws(PreflightError) -> MicCheckResult {
        let configuration = self.configuration
        logger.debug("microphone check", metadata: ["device": "\(device ?? "default")", "ms": "\(timeInMillis)"])
        let result = try await DeviceThread.run("preflight.mic-check", stop: stop) { () throws(PreflightError) in
            try MicRecorder(configuration: configuration, stop: stop, onLevelChange: onLevelChange)
                .record(device: device, timeInMillis: timeInMillis)
        }
        // Keep one recording: the newest, which the speaker check plays.
        let previous = state.withLock { state -> URL? in
            let previous = state.lastRecording
            state.lastRecording = result.duration > 0 ? result.recordingURL : previous
            return result.duration > 0 ? previous : nil
        }
        if let previous, previous != result.recordingURL { try? FileManager.default.removeItem(at: previous) }
        logger.debug(
            "microphone check done",
            metadata: ["device": "\(result.device)", "seconds": "\(result.duration)", "dBFS": "\(result.averageLevel)"])
        return result
    }
}
