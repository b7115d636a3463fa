import ArgumentParser
import Foundation
import Preflight
import PreflightDevices

/// Where `preflight run` takes its audio from instead of the test signal (Twilio's
/// `fakeMicInput` false), and where it plays what comes back.
public struct TestAudioOptions: ParsableArguments, Sendable {
    /// A microphone.
    @Option(help: "Send this microphone's audio (an input id from `preflight devices`, or \"default\").")
    public var microphone: String?
    /// A WAV file.
    @Option(name: .customLong("audio-file"), help: "Send this 16-bit PCM WAV file's audio (mixed to mono, at 8 kHz, repeated).")
    public var audioFile: String?
    /// A speaker.
    @Option(help: "Play the received audio on this speaker (an output id, or \"default\").")
    public var speaker: String?
    /// Which audio server.
    @OptionGroup public var audio: AudioSystemOptions

    /// Creates the options (ArgumentParser requirement).
    public init() {}

    /// Checks that one audio source is named.
    public func validate() throws {
        if microphone != nil, audioFile != nil { throw ValidationError("--microphone and --audio-file each name the audio to send; give one") }
    }

    /// The opened devices and file.
    struct Opened: Sendable {
        var input: (any AudioFrameSource)?
        var output: (any AudioFrameSink)?
        var microphone: MicrophoneAudioSource?
        var speaker: SpeakerAudioSink?

        func close() {
            microphone?.stop()
            speaker?.stop()
        }
    }

    /// Opens what was asked for.
    func open() async throws(PreflightError) -> Opened {
        let system = audio.diagnostics.configuration.audioSystem
        var opened = Opened()
        if let audioFile { opened.input = try WAVFileAudioSource(url: URL(fileURLWithPath: audioFile)) }
        if let microphone {
            let source = try await MicrophoneAudioSource.open(device: microphone == "default" ? nil : microphone, audioSystem: system)
            opened.microphone = source
            opened.input = source
        }
        if let speaker {
            do {
                let sink = try await SpeakerAudioSink.open(device: speaker == "default" ? nil : speaker, audioSystem: system)
                opened.speaker = sink
                opened.output = sink
            } catch {
                opened.close()
                throw error
            }
        }
        return opened
    }
}
