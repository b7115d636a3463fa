/// Audio level of a frame of 16-bit PCM, on the 0…32767 scale that the stats samples'
/// `audioInputLevel`/`audioOutputLevel` and the constant-audio-level warnings use.
public enum AudioLevel {
    /// The largest level: full scale of 16-bit PCM.
    public static let maximum = 32767

    /// The peak absolute sample value of `samples` (0 for an empty frame). `Int16.min` counts as 32767.
    @inlinable
    public static func peak(of samples: some Sequence<Int16>) -> Int {
        var peak = 0
        for sample in samples {
            let magnitude = sample == .min ? maximum : Int(abs(sample))
            if magnitude > peak { peak = magnitude }
        }
        return peak
    }

    /// The peak absolute value of the μ-law frame's decoded samples.
    @inlinable
    public static func peak(ofMuLaw bytes: some Sequence<UInt8>) -> Int {
        var peak = 0
        for byte in bytes {
            let magnitude = Int(abs(Int32(MuLaw.decode(byte))))
            if magnitude > peak { peak = magnitude }
        }
        return min(peak, maximum)
    }
}
