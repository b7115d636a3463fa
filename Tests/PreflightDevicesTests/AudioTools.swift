import Foundation
import PreflightCore
import PreflightTesting

/// Outside tools that make and measure audio independently of Preflight: sox writes tones and
/// reads back frequency and amplitude; paplay and parecord play to and record from the test's
/// PulseAudio server.
enum AudioTools {
    /// A scratch directory for one test's files.
    static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-devices-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A sine tone written by sox: `seconds` long at `frequency` Hz, peak `volume` of full scale.
    static func soxTone(_ url: URL, frequency: Int = 1000, seconds: Double, volume: Double = 0.5, rate: Int = 48_000) async throws {
        _ = try await ExternalTool.run(
            "sox", ["-n", "-r", "\(rate)", "-c", "1", "-b", "16", url.path, "synth", "\(seconds)", "sine", "\(frequency)", "vol", "\(volume)"])
    }

    /// What sox's `stat` says of a file: its rough frequency (Hz) and maximum amplitude (0…1).
    static func soxStat(_ url: URL) async throws -> (frequency: Double, maximumAmplitude: Double, rmsAmplitude: Double) {
        // sox prints stat to standard error.
        let text = try await ExternalTool.run("sh", ["-c", "sox \"$0\" -n stat 2>&1", url.path])
        func value(_ label: String) -> Double {
            let line = text.split(separator: "\n").first { $0.hasPrefix(label) } ?? ""
            return Double(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? .nan
        }
        return (value("Rough   frequency"), value("Maximum amplitude"), value("RMS     amplitude"))
    }

    /// Starts `paplay` playing `file` to `device` on `server`, asking for 20 ms of latency: with
    /// paplay's default (2 s) a null sink renders, and its monitor delivers, in 2 s bursts.
    static func play(_ file: URL, device: String, server: PulseAudioServer) throws -> Process {
        try launch("paplay", ["--latency-msec=20", "-d", device, file.path], server: server)
    }

    /// Starts `parecord` recording `device` of `server` into a file of raw mono 48 kHz 16-bit
    /// samples; stop it with ``finish(_:)``.
    static func record(_ file: URL, device: String, server: PulseAudioServer) throws -> Process {
        try launch(
            "parecord", ["--latency-msec=20", "-d", device, "--raw", "--channels=1", "--rate=48000", "--format=s16le", file.path],
            server: server)
    }

    /// Stops a player or recorder. SIGKILL: a child started from a Dispatch thread inherits its
    /// blocked signals (SIGINT and SIGTERM among them), so it would never see a polite signal.
    /// The recorder writes raw samples, so nothing is lost but what it had not written yet.
    static func finish(_ process: Process) {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits until a stream plays into `sink` of `server` (`pactl` says RUNNING): the player
    /// connected and started, whatever a busy host made it take.
    static func waitUntilPlaying(_ sink: String, server: PulseAudioServer) async throws -> Bool {
        try await eventually(every: .milliseconds(50)) {
            let sinks = try await ExternalTool.run("pactl", ["list", "short", "sinks"], environment: server.environment)
            return sinks.split(separator: "\n").contains { line in
                let fields = line.split(separator: "\t")
                return fields.count > 1 && fields[1] == sink && fields.last == "RUNNING"
            }
        }
    }

    /// Bytes a raw recording of ``record(_:device:server:)`` holds a second (48 kHz, mono, 16-bit).
    static let rawBytesPerSecond = 96_000

    /// Bytes in `file` so far (0 before it exists).
    static func size(of file: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int) ?? 0
    }

    /// Waits until the recorder writing `raw` recorded `seconds` more than `bytes`: it connected
    /// and records, or recorded that long past an event.
    static func waitForRecording(_ raw: URL, beyond bytes: Int = 0, seconds: Double) async -> Bool {
        await eventually { size(of: raw) >= bytes + Int(seconds * Double(rawBytesPerSecond)) }
    }

    /// A raw recording of ``record(_:device:server:)`` as a WAV file, for Preflight's parser and sox.
    static func wav(fromRaw raw: URL) throws -> URL {
        let bytes = Array(try Data(contentsOf: raw))
        var samples = [Int16](repeating: 0, count: bytes.count / 2)
        for index in samples.indices {
            samples[index] = Int16(bitPattern: UInt16(bytes[2 * index]) | UInt16(bytes[2 * index + 1]) << 8)
        }
        let url = raw.deletingPathExtension().appendingPathExtension("wav")
        try Data(try WAVFile(sampleRate: 48_000, samples: samples).encoded()).write(to: url)
        return url
    }

    private static func launch(_ tool: String, _ arguments: [String], server: PulseAudioServer) throws -> Process {
        guard let path = ExternalTool.path(of: tool) else { throw CocoaError(.executableNotLoadable) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(server.environment) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// The mono samples and rate of a WAV file, read by Preflight's parser.
    static func samples(_ url: URL) throws -> WAVFile {
        try WAVFile(parsing: Array(Data(contentsOf: url)))
    }

    /// The median of the tone estimates of each `segment` samples without a gap. A host too busy
    /// to feed a null sink (or to read its monitor) in time leaves runs of silence in what is
    /// heard, not another tone: the tone is judged between them. A sine of any audible amplitude
    /// is near zero for a few microseconds a cycle, never for half a millisecond.
    static func medianTone(_ samples: [Int16], sampleRate: Int, segment: Int) -> ToneEstimate? {
        let gap = max(1, sampleRate / 2000)
        let estimates = stride(from: 0, to: samples.count - segment + 1, by: segment)
            .map { Array(samples[$0..<$0 + segment]) }
            .filter { !hasGap($0, of: gap) }
            .compactMap { ToneEstimate(samples: $0, sampleRate: sampleRate) }
            .sorted { $0.frequency < $1.frequency }
        return estimates.isEmpty ? nil : estimates[estimates.count / 2]
    }

    /// Whether `samples` hold `length` samples in a row within 1 % of full scale of zero.
    static func hasGap(_ samples: [Int16], of length: Int) -> Bool {
        var run = 0
        for sample in samples {
            run = abs(Int(sample)) < 328 ? run + 1 : 0
            if run >= length { return true }
        }
        return false
    }
}
