extension ByteWriter {
    /// Runs `body` with a writer whose buffer is `output` itself, so encoders append in place
    /// without copying what `output` already holds.
    @inlinable
    static func appending(to output: inout [UInt8], _ body: (inout ByteWriter) -> Void) {
        var writer = ByteWriter(capacity: 0)
        swap(&writer.bytes, &output)
        body(&writer)
        swap(&writer.bytes, &output)
    }
}
