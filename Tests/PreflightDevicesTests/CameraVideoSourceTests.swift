import Foundation
import Preflight
import PreflightCore
import PreflightDevices
import PreflightEdge
import PreflightTesting
import Testing

/// A frame source as a connectivity check's camera: its pictures are what the video test stream
/// carries.
@Suite(.realTime, .serialized) struct CameraVideoSourceTests {
    @Test func aWorkingSourcePassesAndItsFramesArePublished() async throws {
        try await LocalEdge.withRunning { edge in
            let source = CameraVideoSource(name: "synthetic camera (test)", isCamera: true) { () throws(PreflightError) -> any FrameSource in
                SyntheticFrameSource(pattern: .moving, width: 160, height: 120)
            }
            // The check's duration counts from its start, set-up included: 10 s leaves a busy
            // machine (the suite's first seconds, dozens of edges starting) time to connect.
            var options = ConnectivityCheckOptions(accessToken: try await edge.token(), edge: edge.signalingURL, duration: .seconds(10))
            options.videoInput = source
            options.videoBitrate = 200_000  // one packet a frame: light on a loaded test machine
            let result = try await Diagnostics(options: options).connectivityCheck()
            #expect(result.state == .completed, "\(result.errors)")
            #expect(result.deviceTestReport.camera == DeviceTestOutcome(tested: true, outcome: .passed, source: "synthetic camera (test)"))
            // Its frames went out and came back: each packet received, counted lost on the way up
            // (the edge's receiver reports: a loaded machine's edge drops what its socket cannot
            // hold, 65 of 269 once) or down, or in flight (its rate over twice the RTT and half a
            // second more: frames a stalled pacer sends late, at once).
            let video = result.mediaServerReport.stats.video
            let rate = result.mediaDuration > 0 ? Double(video.packetsSent) / result.mediaDuration : 0
            let inFlight = Int64((rate * (2 * video.roundTripTime / 1000 + 0.5)).rounded(.up)) + 2
            #expect(video.packetsSent > 0 && video.packetsReceived > 0, "\(video)")
            #expect(
                video.packetsReceived + video.packetsLost + video.packetsLostDownlink + inFlight >= video.packetsSent,
                "\(video), \(inFlight) in flight")
            #expect(result.errors.isEmpty)
            // The source's own pictures reached the check (160×120 frames from its thread).
            #expect(source.latestVideoFrame()?.width == 160)
        }
    }
    // A camera that cannot open: `CheckCommandTests` (70401 through `CameraVideoSource(device:)`).
}
