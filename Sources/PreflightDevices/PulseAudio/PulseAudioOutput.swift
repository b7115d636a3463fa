#if canImport(CPulseAudio)
import CPulseAudio

/// A PulseAudio playback stream (a sink).
final class PulseAudioOutput: AudioOutputStream {
    private let stream: PulseAudioStream
    private var closed = false
    let deviceID: String

    init(connection: PulseAudioConnection, device: String?, format: AudioFormat, stop: StopSignal) throws(PreflightError) {
        // 100 ms in the server's buffer: enough against scheduling hiccups, little to wait for.
        stream = try PulseAudioStream.open(
            connection: connection, name: "Preflight speaker", format: format, what: "playing to \(device ?? "the default output")",
            stop: stop
        ) { stream in
            var attributes = pa_buffer_attr(
                maxlength: bufferDefault, tlength: stream.bytes(milliseconds: 100), prebuf: bufferDefault,
                minreq: bufferDefault, fragsize: bufferDefault)
            return pa_stream_connect_playback(stream.stream, device, &attributes, streamFlags, nil, nil)
        }
        deviceID = stream.deviceName
    }

    deinit { close() }

    func write(_ samples: [Int16], stop: StopSignal) throws(PreflightError) {
        guard !closed else { throw PreflightError(code: .deviceFailed, message: "PulseAudio: write to a closed stream") }
        var bytes = [UInt8]()
        bytes.reserveCapacity(samples.count * 2)
        for sample in samples {
            let value = UInt16(bitPattern: sample)
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        var offset = 0
        var lastProgress = ContinuousClock.now
        while offset < bytes.count, !stop.isStopped {
            try stream.checkAlive("playing to \(deviceID)")
            let writable = pa_stream_writable_size(stream.stream)
            if writable > 0, writable != Int.max {
                let count = min(writable, bytes.count - offset)
                let status = bytes.withUnsafeBytes { buffer -> Int32 in
                    guard let base = buffer.baseAddress else { return -1 }
                    // No free callback: libpulse copies the bytes.
                    return pa_stream_write(stream.stream, base + offset, count, nil, 0, PA_SEEK_RELATIVE)
                }
                guard status >= 0 else { throw stream.connection.error("writing to \(deviceID)") }
                offset += count
                lastProgress = .now
                continue
            }
            if ContinuousClock.now - lastProgress > .seconds(2) {
                throw PreflightError(code: .deviceFailed, message: "PulseAudio: \(deviceID) took nothing for 2 s")
            }
            try stream.connection.iterate()
        }
    }

    func drain(stop: StopSignal) throws(PreflightError) {
        guard !closed else { return }
        guard let operation = pa_stream_drain(stream.stream, nil, nil) else {
            throw stream.connection.error("draining \(deviceID)")
        }
        defer { pa_operation_unref(operation) }
        do {
            // What is buffered is at most the 100 ms asked for, plus the device's own latency.
            try stream.connection.wait(for: "\(deviceID) to play what was written", seconds: 5, stop: stop) {
                () throws(PreflightError) -> Bool in
                try stream.checkAlive("playing to \(deviceID)")
                return pa_operation_get_state(operation) != PA_OPERATION_RUNNING
            }
        } catch {
            pa_operation_cancel(operation)
            if error.code == .cancelled { return }
            throw error
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        stream.close()
    }
}
#endif
