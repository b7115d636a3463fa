extension RTPHeaderExtension {
    /// Walks the elements of a one-byte or two-byte extension body in raw memory, returning each
    /// element's ID and the offsets of its data: no allocation and no reference counting, so the
    /// same scanner serves the owning ``RTPHeaderExtension`` and the non-owning ``RTPHeader``.
    @usableFromInline
    struct ElementScanner {
        @usableFromInline let data: UnsafeRawBufferPointer
        @usableFromInline let kind: Kind
        @usableFromInline var index: Int

        @inlinable
        init(_ data: UnsafeRawBufferPointer, kind: Kind) {
            self.data = data
            self.kind = kind
            index = 0
        }

        /// The next element's ID and data offsets within the body, or `nil` at the end (or at a
        /// one-byte ID 15, or for an opaque profile).
        @inlinable
        mutating func next() throws(PreflightError) -> (id: UInt8, range: Range<Int>)? {
            let end = data.count
            switch kind {
            case .opaque:
                return nil
            case .oneByte:
                while index < end {
                    let byte = data[index]
                    if byte == 0 {
                        index += 1  // padding between elements
                        continue
                    }
                    let id = byte >> 4
                    if id == 15 {
                        index = end  // RFC 8285 §4.2: stop, ignore the rest
                        return nil
                    }
                    let length = Int(byte & 0x0F) + 1
                    if id == 0 {
                        throw PreflightError(
                            code: .malformed,
                            message: "RTP header extension: one-byte element with ID 0 and length \(length)"
                        )
                    }
                    let start = index + 1
                    guard end - start >= length else {
                        throw PreflightError(
                            code: .truncated,
                            message:
                                "RTP header extension: one-byte element \(id) needs \(length) bytes, \(end - start) left"
                        )
                    }
                    index = start + length
                    return (id, start..<index)
                }
                return nil
            case .twoByte:
                while index < end {
                    let id = data[index]
                    if id == 0 {
                        index += 1  // padding between elements
                        continue
                    }
                    guard end - index >= 2 else {
                        throw PreflightError(
                            code: .truncated,
                            message: "RTP header extension: two-byte element \(id) has no length byte"
                        )
                    }
                    let length = Int(data[index + 1])
                    let start = index + 2
                    guard end - start >= length else {
                        throw PreflightError(
                            code: .truncated,
                            message:
                                "RTP header extension: two-byte element \(id) needs \(length) bytes, \(end - start) left"
                        )
                    }
                    index = start + length
                    return (id, start..<index)
                }
                return nil
            }
        }

        /// The data offsets of the first element with `id`; `nil` when there is none or the
        /// elements before it are malformed.
        @inlinable
        mutating func first(id: UInt8) -> Range<Int>? {
            while true {
                guard let element = try? next() else { return nil }
                if element.id == id { return element.range }
            }
        }
    }
}
