/// A microphone (input) or speaker (output) as the audio system lists it.
public struct AudioDevice: Sendable, Hashable, Codable {
    /// The identifier to select the device with (PulseAudio's source or sink name, e.g.
    /// `alsa_input.usb-…` or `spk.monitor`).
    public var id: String
    /// The name to show a person (PulseAudio's description, e.g. "Built-in Audio Analog Stereo").
    public var name: String
    /// Whether it records or plays.
    public var kind: AudioDeviceKind
    /// Whether the audio system uses it when none is chosen.
    public var isDefault: Bool
    /// For an input that hears an output (PulseAudio's monitor sources): that output's id.
    public var monitorOf: String?
    /// The device's native sample rate, Hz (streams at other rates are resampled by the server).
    public var sampleRate: Int
    /// The device's channels.
    public var channels: Int

    /// Creates a device record.
    public init(
        id: String, name: String, kind: AudioDeviceKind, isDefault: Bool = false, monitorOf: String? = nil,
        sampleRate: Int, channels: Int
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.isDefault = isDefault
        self.monitorOf = monitorOf
        self.sampleRate = sampleRate
        self.channels = channels
    }
}
