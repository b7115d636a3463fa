extension TransportAddress {
    /// Parses dotted-quad IPv4 text such as "192.0.2.1" (exactly four decimal octets, no leading
    /// `+`, at most three digits each); `nil` if the text is not such an address.
    public init?(ipv4 text: String, port: UInt16) {
        guard let value = Self.parseIPv4(Substring(text)) else { return nil }
        self.init(family: .ipv4, high: 0, low: UInt64(value), port: port)
    }

    /// Parses IPv6 text such as "2001:db8::1", including the compressed `::` form and a trailing
    /// dotted IPv4 part ("::ffff:192.0.2.1"); `nil` if the text is not such an address. Zone
    /// identifiers ("%eth0") are not accepted.
    public init?(ipv6 text: String, port: UInt16) {
        guard let (h, l) = Self.parseIPv6(Substring(text)) else { return nil }
        self.init(family: .ipv6, high: h, low: l, port: port)
    }

    /// Parses either an IPv4 or an IPv6 address (without brackets or port).
    public init?(host: String, port: UInt16) {
        if let address = Self(ipv4: host, port: port) {
            self = address
        } else if let address = Self(ipv6: host, port: port) {
            self = address
        } else {
            return nil
        }
    }

    /// Parses the ``description`` form back: "198.18.0.1:3478" or "[2001:db8::1]:3478".
    public init?(_ description: String) {
        let text = Substring(description)
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.first == ":", let port = UInt16(rest.dropFirst()),
                let (h, l) = Self.parseIPv6(host)
            else { return nil }
            self.init(family: .ipv6, high: h, low: l, port: port)
        } else {
            guard let colon = text.lastIndex(of: ":"),
                let port = UInt16(text[text.index(after: colon)...]),
                let value = Self.parseIPv4(text[..<colon])
            else { return nil }
            self.init(family: .ipv4, high: 0, low: UInt64(value), port: port)
        }
    }

    static func parseIPv4(_ text: Substring) -> UInt32? {
        var value: UInt32 = 0
        var octets = 0
        var current: UInt32 = 0
        var digits = 0
        for char in text.utf8 {
            if char == UInt8(ascii: ".") {
                guard digits > 0, octets < 3 else { return nil }
                value = value << 8 | current
                octets += 1
                current = 0
                digits = 0
            } else if char >= UInt8(ascii: "0"), char <= UInt8(ascii: "9") {
                digits += 1
                current = current * 10 + UInt32(char - UInt8(ascii: "0"))
                guard digits <= 3, current <= 255 else { return nil }
            } else {
                return nil
            }
        }
        guard digits > 0, octets == 3 else { return nil }
        return value << 8 | current
    }

    static func parseIPv6(_ text: Substring) -> (UInt64, UInt64)? {
        guard !text.isEmpty else { return nil }
        var head = [UInt16]()
        var tail = [UInt16]()
        var sawDoubleColon = false
        if let range = text.firstRange(of: "::") {
            sawDoubleColon = true
            let before = text[..<range.lowerBound]
            let after = text[range.upperBound...]
            if after.contains("::") { return nil }
            guard let h = parseGroups(before, allowIPv4: false) else { return nil }
            guard let t = parseGroups(after, allowIPv4: true) else { return nil }
            head = h
            tail = t
        } else {
            guard let h = parseGroups(text, allowIPv4: true) else { return nil }
            head = h
        }
        let total = head.count + tail.count
        if sawDoubleColon {
            guard total <= 7 else { return nil }
        } else {
            guard total == 8 else { return nil }
        }
        var groups = head
        groups.append(contentsOf: repeatElement(0, count: 8 - total))
        groups.append(contentsOf: tail)
        var h: UInt64 = 0
        var l: UInt64 = 0
        for (i, group) in groups.enumerated() {
            if i < 4 { h = h << 16 | UInt64(group) } else { l = l << 16 | UInt64(group) }
        }
        return (h, l)
    }

    /// Parses colon-separated hex groups; the last one may be a dotted IPv4 address (two groups).
    private static func parseGroups(_ text: Substring, allowIPv4: Bool) -> [UInt16]? {
        if text.isEmpty { return [] }
        var groups = [UInt16]()
        let pieces = text.split(separator: ":", omittingEmptySubsequences: false)
        for (i, piece) in pieces.enumerated() {
            if i == pieces.count - 1, allowIPv4, piece.contains(".") {
                guard let v4 = parseIPv4(piece) else { return nil }
                groups.append(UInt16(truncatingIfNeeded: v4 >> 16))
                groups.append(UInt16(truncatingIfNeeded: v4))
                continue
            }
            guard !piece.isEmpty, piece.utf8.count <= 4, piece.utf8.allSatisfy(\.isHexDigitASCII),
                let group = UInt16(piece, radix: 16)
            else { return nil }
            groups.append(group)
        }
        return groups
    }
}

extension UInt8 {
    /// Whether this byte is an ASCII hex digit (0-9, a-f, A-F).
    fileprivate var isHexDigitASCII: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66)
    }
}
