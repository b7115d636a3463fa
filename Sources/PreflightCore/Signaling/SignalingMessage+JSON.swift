import Foundation

extension SignalingMessage: Codable {
    private enum TypeKey: String, CodingKey { case type }
    private enum HelloKeys: String, CodingKey { case token, client }
    private enum RingingKeys: String, CodingKey { case callSid }
    private enum RegisteredKeys: String, CodingKey { case identity }

    /// Decodes a message by its `type` field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TypeKey.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "hello":
            let body = try decoder.container(keyedBy: HelloKeys.self)
            self = .hello(
                token: try body.decode(String.self, forKey: .token),
                client: try body.decodeIfPresent(String.self, forKey: .client))
        case "welcome": self = .welcome(try Welcome(from: decoder))
        case "resume": self = .resume(try Resume(from: decoder))
        case "resumed": self = .resumed(try Resumed(from: decoder))
        case "invite": self = .invite(try Invite(from: decoder))
        case "ringing":
            self = .ringing(callSid: try decoder.container(keyedBy: RingingKeys.self).decode(String.self, forKey: .callSid))
        case "answer": self = .answer(try Answer(from: decoder))
        case "hangup": self = .hangup(try Hangup(from: decoder))
        case "error": self = .error(try ErrorInfo(from: decoder))
        case "register": self = .register
        case "registered":
            self = .registered(identity: try decoder.container(keyedBy: RegisteredKeys.self).decode(String.self, forKey: .identity))
        case "incoming": self = .incoming(try Incoming(from: decoder))
        case "insights": self = .insights(try Insights(from: decoder))
        case "candidates": self = .candidates(try Candidates(from: decoder))
        case "message": self = .message(try Message(from: decoder))
        case "messageStatus": self = .messageStatus(try MessageStatus(from: decoder))
        case "cancel": self = .cancel(try Cancel(from: decoder))
        case "probe": self = .probe(try Probe(from: decoder))
        case "probeTrain": self = .probeTrain(try ProbeTrain(from: decoder))
        case "probeArrivals": self = .probeArrivals(try ProbeArrivals(from: decoder))
        case "connectivityCheck": self = .connectivityCheck(try ConnectivityCheck(from: decoder))
        case "accept": self = .accept(try Accept(from: decoder))
        case "reject":
            self = .reject(callSid: try decoder.container(keyedBy: RingingKeys.self).decode(String.self, forKey: .callSid))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown message type \"\(type)\"")
        }
    }

    /// Encodes the message's fields with its `type`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TypeKey.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .hello(let token, let client):
            var body = encoder.container(keyedBy: HelloKeys.self)
            try body.encode(token, forKey: .token)
            try body.encodeIfPresent(client, forKey: .client)
        case .welcome(let body): try body.encode(to: encoder)
        case .resume(let body): try body.encode(to: encoder)
        case .resumed(let body): try body.encode(to: encoder)
        case .invite(let body): try body.encode(to: encoder)
        case .ringing(let callSid):
            var body = encoder.container(keyedBy: RingingKeys.self)
            try body.encode(callSid, forKey: .callSid)
        case .answer(let body): try body.encode(to: encoder)
        case .hangup(let body): try body.encode(to: encoder)
        case .error(let body): try body.encode(to: encoder)
        case .register: break
        case .registered(let identity):
            var body = encoder.container(keyedBy: RegisteredKeys.self)
            try body.encode(identity, forKey: .identity)
        case .incoming(let body): try body.encode(to: encoder)
        case .insights(let body): try body.encode(to: encoder)
        case .candidates(let body): try body.encode(to: encoder)
        case .message(let body): try body.encode(to: encoder)
        case .messageStatus(let body): try body.encode(to: encoder)
        case .cancel(let body): try body.encode(to: encoder)
        case .probe(let body): try body.encode(to: encoder)
        case .probeTrain(let body): try body.encode(to: encoder)
        case .probeArrivals(let body): try body.encode(to: encoder)
        case .connectivityCheck(let body): try body.encode(to: encoder)
        case .accept(let body): try body.encode(to: encoder)
        case .reject(let callSid):
            var body = encoder.container(keyedBy: RingingKeys.self)
            try body.encode(callSid, forKey: .callSid)
        }
    }

    /// The largest text frame the protocol accepts, bytes: candidates and parameters fit easily.
    public static let maximumTextLength = 64 * 1024

    /// Decodes one text frame.
    /// - Throws: ``PreflightError`` `.malformed` (with the decoder's explanation) for text that is not a
    ///   protocol message, too long, not JSON, or has an unknown `type` or missing fields.
    public init(jsonText text: String) throws(PreflightError) {
        guard text.utf8.count <= Self.maximumTextLength else {
            throw PreflightError(
                code: .malformed,
                message: "signaling: message of \(text.utf8.count) bytes exceeds \(Self.maximumTextLength)")
        }
        do {
            self = try JSONDecoder().decode(SignalingMessage.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw PreflightError(code: .malformed, message: "signaling: \(UntrustedText.excerpt(Self.explain(error), limit: 200))", underlying: error)
        } catch {
            throw PreflightError(code: .malformed, message: "signaling: not a JSON message", underlying: error)
        }
    }

    /// The message as one compact JSON text frame (keys sorted for stable output).
    public func jsonText() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain value types cannot fail; an empty object is the fallback that keeps this total.
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func explain(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "" : " at \(keys)"
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field \"\(key.stringValue)\"\(path(context))"
        case .typeMismatch(_, let context): return "wrong type\(path(context)): \(context.debugDescription)"
        case .valueNotFound(_, let context): return "missing value\(path(context))"
        case .dataCorrupted(let context): return "\(context.debugDescription)\(path(context))"
        @unknown default: return "undecodable message"
        }
    }
}
