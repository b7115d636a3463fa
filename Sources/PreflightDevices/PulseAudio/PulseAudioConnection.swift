#if canImport(CPulseAudio)
import CPulseAudio
import Foundation

/// One connection to a PulseAudio server: a `pa_mainloop` and a `pa_context`, used from the one
/// thread that made it. Nothing runs in the background: the owner iterates the loop, in steps of
/// at most 20 ms, whenever it waits.
final class PulseAudioConnection {
    let mainloop: OpaquePointer
    let context: OpaquePointer
    let serverDescription: String
    let timeout: Double

    /// Connects, waiting at most the system's timeout.
    init(system: PulseAudioSystem, stop: StopSignal) throws(PreflightError) {
        serverDescription = system.server ?? ProcessInfo.processInfo.environment["PULSE_SERVER"] ?? "the default server"
        timeout = max(0.1, system.timeout)
        guard let mainloop = pa_mainloop_new() else {
            throw PreflightError(code: .deviceFailed, message: "PulseAudio: cannot create a main loop")
        }
        guard let context = pa_context_new(pa_mainloop_get_api(mainloop), system.applicationName) else {
            pa_mainloop_free(mainloop)
            throw PreflightError(code: .deviceFailed, message: "PulseAudio: cannot create a context")
        }
        self.mainloop = mainloop
        self.context = context
        // Never spawn a server: a check must report that none runs, not start one.
        guard pa_context_connect(context, system.server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw unavailable(pa_context_errno(context))
        }
        try wait(for: "the server to accept the connection", stop: stop) { () throws(PreflightError) -> Bool in
            let state = pa_context_get_state(context)
            if state == PA_CONTEXT_READY { return true }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                throw self.unavailable(pa_context_errno(context))
            }
            return false
        }
    }

    deinit {
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_mainloop_free(mainloop)
    }

    /// Runs the loop for at most `microseconds`: whatever is due is dispatched.
    func iterate(microseconds: Int32 = 20_000) throws(PreflightError) {
        guard pa_mainloop_prepare(mainloop, microseconds) >= 0, pa_mainloop_poll(mainloop) >= 0,
            pa_mainloop_dispatch(mainloop) >= 0
        else {
            throw PreflightError(code: .deviceFailed, message: "PulseAudio: the main loop failed")
        }
    }

    /// Iterates until `done` is true, `stop` is given (31008), or `seconds` pass (`deviceFailed`,
    /// or `deviceServiceUnavailable` while connecting, naming `what` was awaited).
    func wait(
        for what: String, seconds: Double? = nil, stop: StopSignal, until done: () throws(PreflightError) -> Bool
    ) throws(PreflightError) {
        let deadline = ContinuousClock.now + .milliseconds(Int((seconds ?? timeout) * 1000))
        while try !done() {
            if stop.isStopped { throw PreflightError(code: .cancelled, message: "stopped while waiting for \(what)") }
            if ContinuousClock.now >= deadline {
                throw PreflightError(
                    code: pa_context_get_state(context) == PA_CONTEXT_READY ? .deviceFailed : .deviceServiceUnavailable,
                    message: "PulseAudio (\(serverDescription)): timed out after \(seconds ?? timeout) s waiting for \(what)")
            }
            try iterate()
        }
    }

    /// The context's last error as a device error, `what` naming the operation.
    func error(_ what: String) -> PreflightError {
        Self.error(pa_context_errno(context), what)
    }

    /// A connection error: the server is not there, or refused us.
    private func unavailable(_ code: Int32) -> PreflightError {
        let mapped = Self.error(code, "connecting to \(serverDescription)")
        if mapped.code == .devicePermissionDenied { return mapped }
        return PreflightError(code: .deviceServiceUnavailable, message: "no audio server answers: \(mapped.message)")
    }

    /// Maps a PulseAudio error code to a device code.
    static func error(_ code: Int32, _ what: String) -> PreflightError {
        let text = String(cString: pa_strerror(code))
        let mapped: PreflightError.Code
        switch UInt32(bitPattern: code) {
        case PA_ERR_ACCESS.rawValue, PA_ERR_AUTHKEY.rawValue: mapped = .devicePermissionDenied
        case PA_ERR_NOENTITY.rawValue: mapped = .deviceNotFound
        case PA_ERR_BUSY.rawValue: mapped = .deviceBusy
        case PA_ERR_NOTSUPPORTED.rawValue, PA_ERR_INVALID.rawValue: mapped = .deviceFormatUnsupported
        case PA_ERR_CONNECTIONREFUSED.rawValue, PA_ERR_INVALIDSERVER.rawValue, PA_ERR_VERSION.rawValue:
            mapped = .deviceServiceUnavailable
        default: mapped = .deviceFailed
        }
        return PreflightError(code: mapped, message: "PulseAudio: \(what): \(text)")
    }
}
#endif
