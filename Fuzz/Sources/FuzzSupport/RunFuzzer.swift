import CFuzzDriver

/// A harness: libFuzzer's `LLVMFuzzerTestOneInput` signature.
public typealias FuzzHarness = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Hands the process over to libFuzzer.
///
/// SwiftPM links an executable target with `main` aliased to `<module>_main` (so that tests can
/// link the module); built with `-parse-as-library`, as libFuzzer requires, the module defines no
/// such function and the link fails. Each harness therefore defines `<module>_main` itself and
/// calls this, which runs libFuzzer's driver exactly as libFuzzer's own `main` would.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ harness: FuzzHarness
) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, harness)
}

/// The input as raw bytes (libFuzzer may pass a null pointer with a count of zero).
@inlinable
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(UnsafeBufferPointer(start: data, count: count))
}
