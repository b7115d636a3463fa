import Foundation
import PreflightCore

/// The pre-recorded voice the speaker check plays when no microphone check recorded anything:
/// `Resources/speaker-check.wav`, 5.7 s of a synthetic voice (espeak-ng) saying "This is the
/// Preflight speaker check. If you can hear this voice, your speaker works.", 16 kHz mono.
///
/// Found beside the executable in SwiftPM's resource bundle, without `Bundle.module` (whose
/// accessor stops the process when the bundle is missing): a missing bundle is a coded error.
enum BundledRecording {
    static let fileName = "speaker-check.wav"
    static let bundleNames = ["Preflight_PreflightDevices.resources", "Preflight_PreflightDevices.bundle"]

    /// Where the recording may be: the resource bundle beside the executable (Linux) or in the
    /// app's resources (Apple platforms), then beside the test bundle.
    static var candidates: [URL] {
        var directories = [Bundle.main.bundleURL, Bundle.main.executableURL?.deletingLastPathComponent()]
        directories += [Bundle.main.resourceURL]
        directories += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        var urls: [URL] = []
        for directory in directories.compactMap({ $0 }) {
            for name in bundleNames {
                urls.append(directory.appendingPathComponent(name).appendingPathComponent(fileName))
                urls.append(directory.appendingPathComponent(name).appendingPathComponent("Contents/Resources").appendingPathComponent(fileName))
            }
        }
        return urls
    }

    static var url: URL? {
        candidates.first { FileManager.default.fileExists(atPath: $0.path) }
    }

    static func load() throws(PreflightError) -> WAVFile {
        guard let url else {
            throw PreflightError(
                code: .fileUnreadable,
                message: "the bundled speaker-check recording is missing (\(bundleNames[0]) beside the executable); pass a file instead")
        }
        return try WAVFile(parsing: DeviceDiagnostics.readFile(url))
    }
}
