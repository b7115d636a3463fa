extension WAVFile {
    /// Parses a WAV file.
    /// - Parameter bytes: the whole file.
    /// - Throws: ``PreflightError`` `truncated` (70001) when a header or chunk is cut short,
    ///   `malformed` (70002) when it is not RIFF/WAVE, lacks `fmt ` or `data`, or breaks a limit
    ///   (channels, sample rate, size), `deviceFormatUnsupported` (70404) when its samples are not
    ///   16-bit integer PCM.
    public init(parsing bytes: [UInt8]) throws(PreflightError) {
        var reader = LittleEndianReader(bytes: bytes)
        guard try reader.tag("RIFF") == "RIFF" else { throw Self.malformed("no RIFF header") }
        _ = try reader.uint32("RIFF size")  // many writers get it wrong; the chunks are what count
        guard try reader.tag("WAVE") == "WAVE" else { throw Self.malformed("RIFF form is not WAVE") }
        var format: (channels: Int, sampleRate: Int)?
        while reader.remaining > 0 {
            let id = try reader.tag("chunk id")
            let size = Int(try reader.uint32("chunk size"))
            switch id {
            case "fmt ":
                format = try Self.parseFormat(try reader.bytes(size, "fmt chunk"))
            case "data":
                guard let format else { throw Self.malformed("data chunk before the fmt chunk") }
                // A writer that stopped before fixing up the size (0 or 0xFFFFFFFF) leaves the
                // data running to the end of the file: take what is there.
                let available = min(size, reader.remaining)
                guard available <= Self.maximumDataBytes else {
                    throw Self.malformed("data chunk of \(available) bytes, more than the \(Self.maximumDataBytes) allowed")
                }
                let data = try reader.bytes(available - available % 2, "data chunk")
                var samples = [Int16](repeating: 0, count: data.count / 2)
                var index = data.startIndex
                for n in samples.indices {
                    samples[n] = Int16(bitPattern: UInt16(data[index]) | UInt16(data[index + 1]) << 8)
                    index += 2
                }
                self.init(sampleRate: format.sampleRate, channels: format.channels, samples: samples)
                return
            default:
                try reader.skip(min(size, reader.remaining), "chunk \(id)")
            }
            // Chunks are padded to an even length.
            if size % 2 == 1, reader.remaining > 0 { try reader.skip(1, "chunk padding") }
        }
        throw Self.malformed(format == nil ? "no fmt chunk" : "no data chunk")
    }

    /// The file's bytes: a canonical 44-byte header (format 1, 16-bit PCM) and the samples.
    /// - Throws: ``PreflightError`` `invalidArgument` (70005) when the sample rate or channel
    ///   count is outside the limits or the samples are more than ``maximumDataBytes``.
    public func encoded() throws(PreflightError) -> [UInt8] {
        guard Self.sampleRates.contains(sampleRate), (1...Self.maximumChannels).contains(channels),
            samples.count * 2 <= Self.maximumDataBytes
        else {
            throw PreflightError(
                code: .invalidArgument,
                message: "WAV: \(sampleRate) Hz, \(channels) channel(s), \(samples.count) samples cannot be written")
        }
        let dataBytes = samples.count * 2
        var bytes = [UInt8]()
        bytes.reserveCapacity(44 + dataBytes)
        func append(_ text: String) { bytes.append(contentsOf: Array(text.utf8)) }
        func append32(_ value: Int) { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) } }
        func append16(_ value: Int) { bytes.append(UInt8(truncatingIfNeeded: value)); bytes.append(UInt8(truncatingIfNeeded: value >> 8)) }
        append("RIFF")
        append32(36 + dataBytes)
        append("WAVE")
        append("fmt ")
        append32(16)
        append16(1)  // PCM
        append16(channels)
        append32(sampleRate)
        append32(sampleRate * channels * 2)  // byte rate
        append16(channels * 2)  // block align
        append16(16)  // bits per sample
        append("data")
        append32(dataBytes)
        for sample in samples { append16(Int(sample)) }
        return bytes
    }

    /// Checks the `fmt ` chunk: 16-bit integer PCM within the limits.
    static func parseFormat(_ chunk: ArraySlice<UInt8>) throws(PreflightError) -> (channels: Int, sampleRate: Int) {
        var reader = LittleEndianReader(bytes: Array(chunk))
        var formatTag = Int(try reader.uint16("format tag"))
        let channels = Int(try reader.uint16("channels"))
        let sampleRate = Int(try reader.uint32("sample rate"))
        _ = try reader.uint32("byte rate")
        let blockAlign = Int(try reader.uint16("block align"))
        let bitsPerSample = Int(try reader.uint16("bits per sample"))
        if formatTag == 0xFFFE {
            // WAVE_FORMAT_EXTENSIBLE: cbSize, valid bits, channel mask, then the subformat GUID,
            // whose first two bytes are the format tag.
            _ = try reader.uint16("extension size")
            _ = try reader.uint16("valid bits")
            _ = try reader.uint32("channel mask")
            formatTag = Int(try reader.uint16("subformat"))
        }
        guard (1...maximumChannels).contains(channels) else {
            throw malformed("\(channels) channels; 1 to \(maximumChannels) are allowed")
        }
        guard sampleRates.contains(sampleRate) else {
            throw malformed("sample rate \(sampleRate) Hz; \(sampleRates.lowerBound) to \(sampleRates.upperBound) are allowed")
        }
        guard formatTag == 1, bitsPerSample == 16 else {
            throw PreflightError(
                code: .deviceFormatUnsupported,
                message: "WAV: format \(formatTag) with \(bitsPerSample)-bit samples; only 16-bit PCM (format 1) is read")
        }
        guard blockAlign == channels * 2 else {
            throw malformed("block align \(blockAlign) does not match \(channels) channel(s) of 16 bits")
        }
        return (channels, sampleRate)
    }

    static func malformed(_ what: String) -> PreflightError {
        PreflightError(code: .malformed, message: "WAV: \(what)")
    }
}

/// Reads little-endian integers and four-character tags, checking every length (RIFF is
/// little-endian, unlike the network formats `ByteReader` reads).
struct LittleEndianReader {
    let bytes: [UInt8]
    private(set) var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - index }

    mutating func bytes(_ count: Int, _ field: String) throws(PreflightError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw PreflightError(
                code: .truncated, message: "WAV: truncated \(field): need \(count) byte(s) at offset \(index), \(remaining) left")
        }
        defer { index += count }
        return bytes[index..<index + count]
    }

    mutating func skip(_ count: Int, _ field: String) throws(PreflightError) { _ = try bytes(count, field) }

    mutating func uint16(_ field: String) throws(PreflightError) -> UInt16 {
        let run = try bytes(2, field)
        return UInt16(run[run.startIndex]) | UInt16(run[run.startIndex + 1]) << 8
    }

    mutating func uint32(_ field: String) throws(PreflightError) -> UInt32 {
        let run = try bytes(4, field)
        var value: UInt32 = 0
        for (shift, byte) in zip(stride(from: 0, to: 32, by: 8), run) { value |= UInt32(byte) << UInt32(shift) }
        return value
    }

    /// Four bytes as text; bytes outside printable ASCII become `?` (the tag is only compared and printed).
    mutating func tag(_ field: String) throws(PreflightError) -> String {
        String(decoding: try bytes(4, field).map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
