extension ArraySlice where Element == UInt8 {
    /// `withUnsafeBytes` for a body that throws ``PreflightError``: the standard library's version
    /// is `rethrows` and would widen the error to `any Error`.
    @inlinable
    func withRawBytes<Result>(
        _ body: (UnsafeRawBufferPointer) throws(PreflightError) -> Result
    ) throws(PreflightError) -> Result {
        let outcome: Swift.Result<Result, PreflightError> = withUnsafeBytes { buffer in
            do throws(PreflightError) {
                return .success(try body(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
