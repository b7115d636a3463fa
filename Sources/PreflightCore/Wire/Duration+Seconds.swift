extension Duration {
    /// The duration in seconds, with its fraction: for rates, timeouts and JWT times kept as `Double`.
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
