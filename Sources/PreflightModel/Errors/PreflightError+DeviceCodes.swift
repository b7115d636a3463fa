extension PreflightError.Code {
    // MARK: Devices (Preflight's own range, 70400–70499; docs/errors.md)

    /// 70401: no such device: the named microphone, speaker or camera does not exist, or the
    /// system has no device of the kind asked for.
    public static let deviceNotFound = Self(70401)
    /// 70402: the device is held by another application (PulseAudio's "busy", V4L2's `EBUSY`).
    public static let deviceBusy = Self(70402)
    /// 70403: the application may not use the device: the audio server refused access or the
    /// authentication cookie, the device node is not readable, or the user denied permission.
    public static let devicePermissionDenied = Self(70403)
    /// 70404: the device cannot deliver or take audio or video in a format Preflight can use, or
    /// a file's audio format is not one Preflight reads (16-bit PCM WAV).
    public static let deviceFormatUnsupported = Self(70404)
    /// 70405: there is no device service to ask: no audio server answers (PulseAudio or
    /// PipeWire's pulse server), or this build or platform has no device backend.
    public static let deviceServiceUnavailable = Self(70405)
    /// 70406: the device failed while it was in use: the stream broke, the server went away, or
    /// the device stopped delivering.
    public static let deviceFailed = Self(70406)
    /// 70407: a check of the same kind is already running on this `DeviceDiagnostics`.
    public static let deviceCheckInProgress = Self(70407)
}
