#if canImport(CPulseAudio)
import CPulseAudio

/// A PulseAudio record stream (a source, or a sink's monitor).
final class PulseAudioInput: AudioInputStream {
    private let stream: PulseAudioStream
    /// Recorded bytes not yet returned; at most one read's worth and one fragment.
    private var pending: [UInt8] = []
    private var closed = false
    let deviceID: String

    init(connection: PulseAudioConnection, device: String?, format: AudioFormat, stop: StopSignal) throws(PreflightError) {
        // Fragments of 20 ms: the server hands over audio at least that often.
        stream = try PulseAudioStream.open(
            connection: connection, name: "Preflight microphone", format: format,
            what: "recording from \(device ?? "the default input")", stop: stop
        ) { stream in
            var attributes = pa_buffer_attr(
                maxlength: bufferDefault, tlength: bufferDefault, prebuf: bufferDefault, minreq: bufferDefault,
                fragsize: stream.bytes(milliseconds: 20))
            return pa_stream_connect_record(stream.stream, device, &attributes, streamFlags)
        }
        deviceID = stream.deviceName
    }

    deinit { close() }

    func read(frameCount: Int, stop: StopSignal) throws(PreflightError) -> [Int16] {
        guard !closed else { throw PreflightError(code: .deviceFailed, message: "PulseAudio: read from a closed stream") }
        let wanted = max(0, frameCount) * stream.format.bytesPerFrame
        var lastData = ContinuousClock.now
        while pending.count < wanted, !stop.isStopped {
            try stream.checkAlive("recording from \(deviceID)")
            let readable = pa_stream_readable_size(stream.stream)
            if readable > 0, readable != Int.max {
                var data: UnsafeRawPointer?
                var length = 0
                guard pa_stream_peek(stream.stream, &data, &length) >= 0 else {
                    throw stream.connection.error("reading from \(deviceID)")
                }
                if length > 0 {
                    if let data {
                        pending.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
                    } else {
                        // A hole in the stream (the server dropped audio): it is silence.
                        pending.append(contentsOf: repeatElement(0, count: length))
                    }
                    pa_stream_drop(stream.stream)
                    lastData = .now
                }
                continue
            }
            // 5 s, not 2: the monitor of an idle sink delivers in bursts as long as the sink's
            // latency (2 s for a null sink), although the stream asks for 20 ms fragments.
            if ContinuousClock.now - lastData > .seconds(5) {
                throw PreflightError(code: .deviceFailed, message: "PulseAudio: \(deviceID) delivered nothing for 5 s")
            }
            try stream.connection.iterate()
        }
        let count = min(wanted, pending.count - pending.count % stream.format.bytesPerFrame)
        var samples = [Int16](repeating: 0, count: count / 2)
        for index in samples.indices {
            samples[index] = Int16(bitPattern: UInt16(pending[2 * index]) | UInt16(pending[2 * index + 1]) << 8)
        }
        pending.removeFirst(count)
        return samples
    }

    func close() {
        guard !closed else { return }
        closed = true
        stream.close()
    }
}
#endif
