extension StatsSample {
    enum CodingKeys: String, CodingKey {
        case timestamp, rtt, jitter, mos, packetsLost, packetsLostFraction, packetsSent, packetsReceived
        case bytesSent, bytesReceived, codec, audioInputLevel, audioOutputLevel
        case uplink, downlink, eModelMOS
    }

    /// Decodes a sample; `timestamp` is read from the reference report's string form
    /// (`"1731699140337.642090"`) or from a JSON number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let text = try? container.decode(String.self, forKey: .timestamp) {
            guard let value = Double(text), value.isFinite else {
                throw DecodingError.dataCorruptedError(
                    forKey: .timestamp, in: container,
                    debugDescription: "timestamp must be milliseconds as a decimal string, got \"\(text)\"")
            }
            timestamp = value
        } else {
            timestamp = try container.decode(Double.self, forKey: .timestamp)
        }
        rtt = try container.decode(Double.self, forKey: .rtt)
        jitter = try container.decode(Double.self, forKey: .jitter)
        mos = try container.decode(Double.self, forKey: .mos)
        packetsLost = try container.decode(Int.self, forKey: .packetsLost)
        packetsLostFraction = try container.decode(Double.self, forKey: .packetsLostFraction)
        packetsSent = try container.decode(Int.self, forKey: .packetsSent)
        packetsReceived = try container.decode(Int.self, forKey: .packetsReceived)
        bytesSent = try container.decode(Int.self, forKey: .bytesSent)
        bytesReceived = try container.decode(Int.self, forKey: .bytesReceived)
        codec = try container.decode(String.self, forKey: .codec)
        audioInputLevel = try container.decode(Int.self, forKey: .audioInputLevel)
        audioOutputLevel = try container.decode(Int.self, forKey: .audioOutputLevel)
        uplink = try container.decodeIfPresent(DirectionStats.self, forKey: .uplink)
        downlink = try container.decodeIfPresent(DirectionStats.self, forKey: .downlink)
        eModelMOS = try container.decodeIfPresent(Double.self, forKey: .eModelMOS)
    }

    /// Encodes the sample with `timestamp` as a string with six decimals, as the reference report does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(FixedDecimalFormat.sixDecimals(timestamp), forKey: .timestamp)
        try container.encode(rtt, forKey: .rtt)
        try container.encode(jitter, forKey: .jitter)
        try container.encode(mos, forKey: .mos)
        try container.encode(packetsLost, forKey: .packetsLost)
        try container.encode(packetsLostFraction, forKey: .packetsLostFraction)
        try container.encode(packetsSent, forKey: .packetsSent)
        try container.encode(packetsReceived, forKey: .packetsReceived)
        try container.encode(bytesSent, forKey: .bytesSent)
        try container.encode(bytesReceived, forKey: .bytesReceived)
        try container.encode(codec, forKey: .codec)
        try container.encode(audioInputLevel, forKey: .audioInputLevel)
        try container.encode(audioOutputLevel, forKey: .audioOutputLevel)
        try container.encodeIfPresent(uplink, forKey: .uplink)
        try container.encodeIfPresent(downlink, forKey: .downlink)
        try container.encodeIfPresent(eModelMOS, forKey: .eModelMOS)
    }
}
