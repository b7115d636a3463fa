/// Version information for Preflight.
public enum PreflightVersion {
    /// The semantic version of this build of Preflight.
    public static let current = "0.1.0"
}
