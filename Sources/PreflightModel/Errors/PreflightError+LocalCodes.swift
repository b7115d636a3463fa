extension PreflightError.Code {
    // MARK: Local resources (Preflight's own range, 70200–70299; docs/errors.md)

    /// 70201: a local socket could not be bound: the address is not one of this host's, the port
    /// is in use or needs privileges, or the bound socket has no local address.
    public static let socketBindFailed = Self(70201)
    /// 70202: a child process could not be launched: the executable is missing or not executable,
    /// or it exited before it was ready.
    public static let processLaunchFailed = Self(70202)
    /// 70203: a local file could not be read (missing, unreadable, not a regular file).
    public static let fileUnreadable = Self(70203)
    /// 70204: a local file could not be written (the directory is missing or not writable, the
    /// disk is full).
    public static let fileUnwritable = Self(70204)
}
