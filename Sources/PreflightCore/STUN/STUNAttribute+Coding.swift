// Attribute value encoding and decoding (internal; STUNMessage frames the attributes).

extension STUNAttribute {
    /// The magic cookie (RFC 8489 §5), also the XOR mask of address attributes.
    @usableFromInline static let magicCookie: UInt32 = 0x2112_A442

    @inlinable
    static func malformed(_ message: String) -> PreflightError {
        PreflightError(code: .malformed, message: "STUN: " + message)
    }

    @inlinable
    static func text(_ value: ArraySlice<UInt8>, _ name: StaticString) throws(PreflightError) -> String {
        guard let text = String(validating: value, as: UTF8.self) else {
            throw malformed("\(name) is not valid UTF-8")
        }
        return text
    }

    /// Decodes the value of an attribute of type `type` (value without padding) whose length
    /// ``STUNMessageLayout/validateValue(type:value:in:)`` has already checked; contents (UTF-8,
    /// error classes, algorithm lists) are checked here. The reads stay bounds-checked, and the
    /// few length checks left here are defence in depth for a caller that skipped the layout.
    @inlinable
    static func decode(
        type: UInt16, value: ArraySlice<UInt8>, transactionID: STUNTransactionID
    ) throws(PreflightError) -> STUNAttribute {
        var reader = ByteReader(value, context: "STUN")
        switch STUNAttributeType(rawValue: type) {
        case .xorMappedAddress:
            return .xorMappedAddress(try decodeAddress(value, xor: transactionID, "XOR-MAPPED-ADDRESS"))
        case .username:
            return .username(try text(value, "USERNAME"))
        case .messageIntegrity:
            return .messageIntegrity(value)
        case .fingerprint:
            return .fingerprint(try reader.readUInt32("FINGERPRINT"))
        case .priority:
            return .priority(try reader.readUInt32("PRIORITY"))
        case .useCandidate:
            return .useCandidate
        case .iceControlled:
            return .iceControlled(try reader.readUInt64("ICE-CONTROLLED"))
        case .iceControlling:
            return .iceControlling(try reader.readUInt64("ICE-CONTROLLING"))
        case .mappedAddress:
            return .mappedAddress(try decodeAddress(value, xor: nil, "MAPPED-ADDRESS"))
        case .messageIntegritySHA256:
            return .messageIntegritySHA256(value)
        case .errorCode:
            guard value.count >= 4 else {
                throw malformed("ERROR-CODE value must be at least 4 bytes, got \(value.count)")
            }
            let start = value.startIndex
            let errorClass = Int(value[start + 2] & 0x07)
            let number = Int(value[start + 3])
            guard (3...6).contains(errorClass), number < 100 else {
                throw malformed("ERROR-CODE class \(errorClass) number \(number) is not a code 300–699")
            }
            let reason = try text(value[(start + 4)...], "ERROR-CODE reason phrase")
            return .errorCode(STUNErrorCode(code: errorClass * 100 + number, reason: reason))
        case .realm:
            return .realm(try text(value, "REALM"))
        case .nonce:
            return .nonce(try text(value, "NONCE"))
        case .software:
            return .software(try text(value, "SOFTWARE"))
        case .alternateServer:
            return .alternateServer(try decodeAddress(value, xor: nil, "ALTERNATE-SERVER"))
        case .unknownAttributes:
            var types = [UInt16]()
            types.reserveCapacity(value.count / 2)
            while !reader.isAtEnd { types.append(try reader.readUInt16("UNKNOWN-ATTRIBUTES")) }
            return .unknownAttributes(types)
        case .passwordAlgorithm:
            let algorithm = try decodeAlgorithm(&reader)
            guard reader.isAtEnd else {
                throw malformed("PASSWORD-ALGORITHM has \(reader.remaining) byte(s) after its parameters")
            }
            return .passwordAlgorithm(algorithm)
        case .passwordAlgorithms:
            var algorithms = [STUNPasswordAlgorithm]()
            while !reader.isAtEnd { algorithms.append(try decodeAlgorithm(&reader)) }
            return .passwordAlgorithms(algorithms)
        case .userhash:
            return .userhash(value)
        case .xorPeerAddress:
            return .xorPeerAddress(try decodeAddress(value, xor: transactionID, "XOR-PEER-ADDRESS"))
        case .xorRelayedAddress:
            return .xorRelayedAddress(try decodeAddress(value, xor: transactionID, "XOR-RELAYED-ADDRESS"))
        case .lifetime:
            return .lifetime(try reader.readUInt32("LIFETIME"))
        case .requestedTransport:
            return .requestedTransport(try reader.readUInt8("REQUESTED-TRANSPORT"))
        case .data:
            return .data(value)
        case .channelNumber:
            return .channelNumber(try reader.readUInt16("CHANNEL-NUMBER"))
        default:
            return .unknown(type: type, value: value)
        }
    }

    @inlinable
    static func decodeAlgorithm(_ reader: inout ByteReader) throws(PreflightError) -> STUNPasswordAlgorithm {
        let number = try reader.readUInt16("password algorithm")
        let length = Int(try reader.readUInt16("password algorithm parameters length"))
        let parameters = try reader.readBytes(length, "password algorithm parameters")
        try reader.skip((4 - length % 4) % 4, "password algorithm parameters padding")
        return STUNPasswordAlgorithm(number: number, parameters: Array(parameters))
    }

    /// Decodes MAPPED-ADDRESS style values; with `xor`, undoes the RFC 8489 §14.2 obfuscation.
    @inlinable
    static func decodeAddress(
        _ value: ArraySlice<UInt8>, xor transactionID: STUNTransactionID?, _ name: StaticString
    ) throws(PreflightError) -> TransportAddress {
        var reader = ByteReader(value, context: "STUN")
        _ = try reader.readUInt8(name)
        let familyByte = try reader.readUInt8(name)
        guard let family = TransportAddress.Family(rawValue: familyByte) else {
            throw malformed("\(name) has address family \(familyByte), expected 1 (IPv4) or 2 (IPv6)")
        }
        guard value.count == 4 + family.addressLength else {
            throw malformed("\(name) value must be \(4 + family.addressLength) bytes for \(family), got \(value.count)")
        }
        var port = try reader.readUInt16(name)
        var high: UInt64 = 0
        var low: UInt64
        if family == .ipv4 {
            low = UInt64(try reader.readUInt32(name))
        } else {
            high = try reader.readUInt64(name)
            low = try reader.readUInt64(name)
        }
        if let transactionID {
            port ^= UInt16(truncatingIfNeeded: magicCookie >> 16)
            if family == .ipv4 {
                low ^= UInt64(magicCookie)
            } else {
                high ^= UInt64(magicCookie) << 32 | UInt64(transactionID.high)
                low ^= transactionID.low
            }
        }
        return TransportAddress(family: family, high: high, low: low, port: port)
    }

    /// Appends the attribute (header, value, padding) to `out`.
    @inlinable
    func encode(
        into out: inout [UInt8], transactionID: STUNTransactionID, padding: UInt8
    ) throws(PreflightError) {
        let headerStart = out.count
        let typeValue = type.rawValue
        out.append(UInt8(truncatingIfNeeded: typeValue >> 8))
        out.append(UInt8(truncatingIfNeeded: typeValue))
        out.append(0)
        out.append(0)
        // Write through ByteWriter without copying: move the buffer in and out.
        var writer = ByteWriter(capacity: 0)
        swap(&out, &writer.bytes)
        switch self {
        case .mappedAddress(let address), .alternateServer(let address):
            Self.encodeAddress(address, xor: nil, into: &writer)
        case .xorMappedAddress(let address), .xorPeerAddress(let address), .xorRelayedAddress(let address):
            Self.encodeAddress(address, xor: transactionID, into: &writer)
        case .username(let text), .realm(let text), .nonce(let text), .software(let text):
            writer.write(contentsOf: text.utf8)
        case .userhash(let bytes), .messageIntegrity(let bytes), .messageIntegritySHA256(let bytes),
            .data(let bytes), .unknown(_, let bytes):
            writer.write(contentsOf: bytes)
        case .fingerprint(let value), .priority(let value), .lifetime(let value):
            writer.write(value)
        case .errorCode(let error):
            writer.write(UInt16(0))
            writer.write(UInt8(truncatingIfNeeded: error.code / 100) & 0x07)
            writer.write(UInt8(truncatingIfNeeded: error.code % 100))
            writer.write(contentsOf: error.reason.utf8)
        case .unknownAttributes(let types):
            for type in types { writer.write(type) }
        case .passwordAlgorithm(let algorithm):
            Self.encodeAlgorithm(algorithm, into: &writer)
        case .passwordAlgorithms(let algorithms):
            for algorithm in algorithms { Self.encodeAlgorithm(algorithm, into: &writer) }
        case .useCandidate:
            break
        case .iceControlled(let value), .iceControlling(let value):
            writer.write(value)
        case .requestedTransport(let proto):
            writer.write(proto)
            writer.writeZeros(3)
        case .channelNumber(let number):
            writer.write(number)
            writer.write(UInt16(0))
        }
        swap(&out, &writer.bytes)
        let length = out.count - headerStart - 4
        guard length <= 0xFFFF else {
            out.removeSubrange(headerStart...)
            throw PreflightError(
                code: .invalidArgument,
                message: "STUN: attribute 0x\(String(typeValue, radix: 16)) value is \(length) bytes, at most 65535 fit"
            )
        }
        out[headerStart + 2] = UInt8(truncatingIfNeeded: length >> 8)
        out[headerStart + 3] = UInt8(truncatingIfNeeded: length)
        let pad = (4 - length % 4) % 4
        if pad > 0 { out.append(contentsOf: repeatElement(padding, count: pad)) }
    }

    @inlinable
    static func encodeAlgorithm(_ algorithm: STUNPasswordAlgorithm, into writer: inout ByteWriter) {
        writer.write(algorithm.number)
        writer.write(UInt16(truncatingIfNeeded: algorithm.parameters.count))
        writer.write(contentsOf: algorithm.parameters)
        writer.writeZeros((4 - algorithm.parameters.count % 4) % 4)
    }

    @inlinable
    static func encodeAddress(
        _ address: TransportAddress, xor transactionID: STUNTransactionID?, into writer: inout ByteWriter
    ) {
        var port = address.port
        var high = address.high
        var low = address.low
        if let transactionID {
            port ^= UInt16(truncatingIfNeeded: magicCookie >> 16)
            if address.family == .ipv4 {
                low ^= UInt64(magicCookie)
            } else {
                high ^= UInt64(magicCookie) << 32 | UInt64(transactionID.high)
                low ^= transactionID.low
            }
        }
        writer.write(UInt8(0))
        writer.write(address.family.rawValue)
        writer.write(port)
        if address.family == .ipv4 {
            writer.write(UInt32(truncatingIfNeeded: low))
        } else {
            writer.write(high)
            writer.write(low)
        }
    }
}
