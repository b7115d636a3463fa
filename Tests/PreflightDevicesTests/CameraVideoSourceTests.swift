import Foundation
import Preflight
import PreflightCore
import PreflightDevices
import PreflightEdge
import Testing

/// A frame source as a connectivity check's camera: its pictures are what the video test stream
/// carries, and one that cannot open is reported and replaced by the test pattern.
@Suite(.serialized) struct CameraVideoSourceTests {
    @Test func aWorkingSourcePassesAndItsFramesArePublished() async throws {
        try await LocalEdge.withRunning { edge in
            let source = CameraVideoSource(name: "synthetic camera (test)", isCamera: true) { () throws(PreflightError) -> any FrameSource in
                SyntheticFrameSource(pattern: .moving, width: 160, height: 120)
            }
            var options = ConnectivityCheckOptions(accessToken: try await edge.token(), edge: edge.signalingURL, duration: .seconds(5))
            options.videoInput = source
            let result = try await Diagnostics(options: options).connectivityCheck()
            #expect(result.state == .completed, "\(result.errors)")
            #expect(result.deviceTestReport.camera == DeviceTestOutcome(tested: true, outcome: .passed, source: "synthetic camera (test)"))
            #expect(result.mediaServerReport.stats.video.packetsReceived > 100)
            #expect(result.errors.isEmpty)
            // The source's own pictures reached the check (160×120 frames from its thread).
            #expect(source.latestVideoFrame()?.width == 160)
        }
    }

    @Test func aSourceThatCannotOpenFailsAndThePatternStandsIn() async throws {
        try await LocalEdge.withRunning { edge in
            let source = CameraVideoSource(name: "/dev/video-gone", isCamera: true) { () throws(PreflightError) -> any FrameSource in
                throw PreflightError(code: .deviceBusy, message: "busy (test)")
            }
            var options = ConnectivityCheckOptions(accessToken: try await edge.token(), edge: edge.signalingURL, duration: .seconds(5))
            options.videoInput = source
            let result = try await Diagnostics(options: options).connectivityCheck()
            #expect(result.state == .completed)
            #expect(result.deviceTestReport.camera.outcome == .failed && result.deviceTestReport.camera.error?.code == 70402)
            #expect(result.errors.map(\.code) == [70402])
            #expect(result.mediaServerReport.stats.video.packetsReceived > 100)
        }
    }
}
