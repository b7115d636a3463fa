#if canImport(CPulseAudio)
import CPulseAudio

/// What a PulseAudio record or playback stream shares: creating it, waiting until it is ready,
/// checking that it is still alive, and ending it.
struct PulseAudioStream {
    let connection: PulseAudioConnection
    let stream: OpaquePointer
    let format: AudioFormat

    /// Creates an unconnected stream in `format` (16-bit little-endian PCM).
    init(connection: PulseAudioConnection, name: String, format: AudioFormat) throws(PreflightError) {
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(clamping: format.sampleRate), channels: UInt8(clamping: format.channels))
        guard format.sampleRate > 0, format.channels > 0, pa_sample_spec_valid(&spec) != 0 else {
            throw PreflightError(
                code: .deviceFormatUnsupported,
                message: "PulseAudio: \(format.sampleRate) Hz with \(format.channels) channel(s) is not a format it takes")
        }
        guard let stream = pa_stream_new(connection.context, name, &spec, nil) else {
            throw connection.error("creating a stream")
        }
        self.connection = connection
        self.stream = stream
        self.format = format
    }

    /// Creates a stream, connects it with `connect` (record or playback) and waits until it is
    /// ready; a failure names `what` and leaves nothing behind.
    static func open(
        connection: PulseAudioConnection, name: String, format: AudioFormat, what: String, stop: StopSignal,
        connect: (PulseAudioStream) -> Int32
    ) throws(PreflightError) -> PulseAudioStream {
        let stream = try PulseAudioStream(connection: connection, name: name, format: format)
        guard connect(stream) >= 0 else {
            let error = connection.error(what)
            stream.close()
            throw error
        }
        do {
            try stream.waitUntilReady(what, stop: stop)
        } catch {
            stream.close()
            throw error
        }
        return stream
    }

    /// Bytes of `milliseconds` of audio.
    func bytes(milliseconds: Int) -> UInt32 {
        UInt32(clamping: format.sampleRate * format.bytesPerFrame * milliseconds / 1000)
    }

    /// Waits until the stream is ready; a failure names `what` (e.g. "recording from mic").
    func waitUntilReady(_ what: String, stop: StopSignal) throws(PreflightError) {
        try connection.wait(for: "the stream to start", stop: stop) { () throws(PreflightError) -> Bool in
            let state = pa_stream_get_state(stream)
            if state == PA_STREAM_READY { return true }
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED { throw connection.error(what) }
            return false
        }
    }

    /// Throws when the stream or the connection broke (the device was removed, the server died).
    func checkAlive(_ what: String) throws(PreflightError) {
        guard pa_stream_get_state(stream) == PA_STREAM_READY else {
            let error = connection.error(what)
            throw PreflightError(code: .deviceFailed, message: error.message)
        }
    }

    /// The device's name (the default's real name when none was asked for).
    var deviceName: String {
        PulseAudioConnection.text(pa_stream_get_device_name(stream)) ?? ""
    }

    func close() {
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
    }
}

/// The flags of a stream that asks for the latency it sets and does not follow a default device
/// that changes while a check runs.
let streamFlags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_DONT_MOVE.rawValue)

/// "Unlimited" or "server's choice" in `pa_buffer_attr`.
let bufferDefault = UInt32.max
#endif
