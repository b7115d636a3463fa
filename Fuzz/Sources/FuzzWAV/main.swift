import FuzzSupport
import PreflightCore

// WAV files (the speaker check's `--file`, the microphone check's recording read back).
// Properties: parsing ends in a value or a coded error; a parsed file never holds more samples
// than the input had bytes for, has a rate and channel count within the limits, and re-encodes
// to a file that parses to the same samples; the tone estimate and levels of what was parsed are
// finite and in range.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWAV(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    guard let file = try? WAVFile(parsing: input) else { return 0 }
    precondition(file.samples.count * 2 <= input.count, "more samples than bytes")
    precondition(WAVFile.sampleRates.contains(file.sampleRate), "sample rate out of range")
    precondition((1...WAVFile.maximumChannels).contains(file.channels), "channels out of range")
    guard let encoded = try? file.encoded(), let again = try? WAVFile(parsing: encoded) else {
        preconditionFailure("a parsed file does not re-encode")
    }
    precondition(again == file, "the re-encoded file parses differently")
    let mono = file.monoSamples
    precondition(mono.count == file.frameCount, "mono has a sample per frame")
    if let tone = ToneEstimate(samples: mono, sampleRate: file.sampleRate) {
        precondition(tone.frequency.isFinite && tone.frequency > 0, "tone frequency \(tone.frequency)")
        precondition(tone.amplitude >= 0 && tone.amplitude <= 1.5, "tone amplitude \(tone.amplitude)")
    }
    let level = AudioLevel.decibels(of: mono)
    precondition(level <= 0 && level >= AudioLevel.silenceDecibels, "level \(level)")
    return 0
}

@_cdecl("FuzzWAV_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzWAV)
}
