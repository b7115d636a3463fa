#if canImport(CPulseAudio)
import CPulseAudio

extension PulseAudioConnection {
    /// What the server says of itself.
    struct ServerInformation: CustomStringConvertible {
        var name: String
        var version: String
        var defaultSink: String?
        var defaultSource: String?

        var description: String { "\(name) \(version)" }
    }

    /// Collects what a listing's callbacks deliver; lives until the listing's operation is done
    /// or cancelled, so that no callback can see it freed.
    final class Collector {
        var devices: [AudioDevice] = []
        var server: ServerInformation?
        var done = false
        var failed = false

        /// One callback of a sink or source listing: a device, or (`eol` not 0) the end.
        static func add(
            _ userdata: UnsafeMutableRawPointer?, eol: Int32, name: UnsafePointer<CChar>?, description: UnsafePointer<CChar>?,
            kind: AudioDeviceKind, monitorOf: UnsafePointer<CChar>?, spec: pa_sample_spec?
        ) {
            guard let userdata else { return }
            let collector = Unmanaged<Collector>.fromOpaque(userdata).takeUnretainedValue()
            if eol != 0 {
                collector.done = true
                collector.failed = eol < 0
                return
            }
            guard let id = PulseAudioConnection.text(name), let spec else { return }
            collector.devices.append(
                AudioDevice(
                    id: id, name: PulseAudioConnection.text(description) ?? id, kind: kind,
                    monitorOf: PulseAudioConnection.text(monitorOf), sampleRate: Int(spec.rate), channels: Int(spec.channels)))
        }
    }

    func serverInformation() throws(PreflightError) -> ServerInformation {
        let collector = Collector()
        let operation = pa_context_get_server_info(
            context,
            { _, info, userdata in
                guard let userdata else { return }
                let collector = Unmanaged<PulseAudioConnection.Collector>.fromOpaque(userdata).takeUnretainedValue()
                collector.done = true
                guard let info else {
                    collector.failed = true
                    return
                }
                collector.server = ServerInformation(
                    name: PulseAudioConnection.text(info.pointee.server_name) ?? "PulseAudio",
                    version: PulseAudioConnection.text(info.pointee.server_version) ?? "",
                    defaultSink: PulseAudioConnection.text(info.pointee.default_sink_name),
                    defaultSource: PulseAudioConnection.text(info.pointee.default_source_name))
            }, Unmanaged.passUnretained(collector).toOpaque())
        try run(operation, collector, "the server's information")
        guard let server = collector.server else { throw error("reading the server's information") }
        return server
    }

    /// Every sink (output) and source (input), defaults marked.
    func devices() throws(PreflightError) -> [AudioDevice] {
        let server = try serverInformation()
        let sinks = Collector()
        try run(
            pa_context_get_sink_info_list(
                context,
                { _, info, eol, userdata in
                    PulseAudioConnection.Collector.add(
                        userdata, eol: eol, name: info?.pointee.name, description: info?.pointee.description, kind: .output,
                        monitorOf: nil, spec: info?.pointee.sample_spec)
                }, Unmanaged.passUnretained(sinks).toOpaque()), sinks, "the list of outputs")
        let sources = Collector()
        try run(
            pa_context_get_source_info_list(
                context,
                { _, info, eol, userdata in
                    PulseAudioConnection.Collector.add(
                        userdata, eol: eol, name: info?.pointee.name, description: info?.pointee.description, kind: .input,
                        monitorOf: info?.pointee.monitor_of_sink_name, spec: info?.pointee.sample_spec)
                }, Unmanaged.passUnretained(sources).toOpaque()), sources, "the list of inputs")
        return (sinks.devices + sources.devices).map { device in
            var device = device
            device.isDefault = device.id == (device.kind == .output ? server.defaultSink : server.defaultSource)
            return device
        }
    }

    /// Iterates until a listing's last callback came, then releases its operation. On a timeout
    /// the operation is cancelled first, so its callback never runs after `collector` is gone.
    private func run(_ operation: OpaquePointer?, _ collector: Collector, _ what: String) throws(PreflightError) {
        guard let operation else { throw error("asking for \(what)") }
        defer { pa_operation_unref(operation) }
        do {
            try withExtendedLifetime(collector) { () throws(PreflightError) in
                try wait(for: what, stop: StopSignal()) { () throws(PreflightError) -> Bool in
                    collector.done || pa_operation_get_state(operation) != PA_OPERATION_RUNNING
                }
            }
        } catch {
            pa_operation_cancel(operation)
            throw error
        }
        if collector.failed || !collector.done { throw self.error("reading \(what)") }
    }

    /// A C string from the server, `nil` when absent. Names are shown to people and put in
    /// JSON: the CLI escapes control characters when it prints them.
    static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }
}
#endif
