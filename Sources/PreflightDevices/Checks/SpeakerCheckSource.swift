import Foundation

/// What a speaker check played. In JSON: `{"kind": "micCheckRecording" | "file" |
/// "bundledRecording", "path": "/tmp/…"}` (no path for the bundled recording).
public enum SpeakerCheckSource: Sendable, Hashable, Codable {
    /// The last microphone check's recording.
    case micCheckRecording(URL)
    /// A file the caller chose.
    case file(URL)
    /// Preflight's bundled pre-recorded voice (no microphone check had recorded anything).
    case bundledRecording

    private enum CodingKeys: String, CodingKey {
        case kind, path
    }

    private enum Kind: String, Codable {
        case micCheckRecording, file, bundledRecording
    }

    /// Decodes `{"kind": …, "path": …}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .kind) {
        case .bundledRecording: self = .bundledRecording
        case .file: self = .file(URL(fileURLWithPath: try container.decode(String.self, forKey: .path)))
        case .micCheckRecording: self = .micCheckRecording(URL(fileURLWithPath: try container.decode(String.self, forKey: .path)))
        }
    }

    /// Encodes `{"kind": …, "path": …}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .bundledRecording:
            try container.encode(Kind.bundledRecording, forKey: .kind)
        case .file(let url):
            try container.encode(Kind.file, forKey: .kind)
            try container.encode(url.path, forKey: .path)
        case .micCheckRecording(let url):
            try container.encode(Kind.micCheckRecording, forKey: .kind)
            try container.encode(url.path, forKey: .path)
        }
    }
}
