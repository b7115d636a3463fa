import Foundation
import PreflightCore
import PreflightDevices
import PreflightTesting
import Synchronization
import Testing

extension DeviceTests {
    /// The camera check end to end on the sources this machine has: synthetic patterns, and frames
    /// that ffmpeg makes (testsrc2, black, a looped still) piped in. V4L2 itself is tested for its
    /// coded errors on nodes that are not cameras (there is no /dev/video* here).
    @Suite struct CameraCheckTests {
        /// Where a test leaves files for a person to look at (the snapshot PNGs).
        static var artefacts: URL {
            let url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/test-artefacts")
            try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }

        @Test(arguments: [SyntheticFrameSource.Pattern.moving, .black, .frozen])
        func syntheticPatterns(_ pattern: SyntheticFrameSource.Pattern) async throws {
            let diagnostics = DeviceDiagnostics()
            let result = try await diagnostics.cameraCheck(
                source: SyntheticFrameSource(pattern: pattern, width: 160, height: 120, framesPerSecond: 30, frameLimit: 30))
            print("camera check \(result.device): \(result.frames) frames, \(result.framesPerSecond) fps, \(result.width)x\(result.height), black \(result.blackFrames), frozen \(result.frozenFrames)")
            #expect(result.frames == 30 && abs(result.framesPerSecond - 30) < 1e-6)
            #expect(result.isResolutionAsRequested && result.width == 160 && result.height == 120)
            #expect(result.isBlack == (pattern == .black))
            #expect(result.isFrozen == (pattern != .moving))
            #expect(result.device == "synthetic:\(pattern.rawValue)")
        }

        /// The track: frames to a subscriber, a snapshot, stop, one check at a time.
        @Test func theTrackDeliversFramesAndStops() async throws {
            let diagnostics = DeviceDiagnostics()
            let track = try diagnostics.startCameraCheck(source: SyntheticFrameSource(pattern: .moving, width: 160, height: 120))
            #expect(throws: PreflightError.self) { try diagnostics.startCameraCheck(source: SyntheticFrameSource(pattern: .black)) }
            var received = 0
            for await frame in track.frames() {
                #expect(frame.width == 160)
                received += 1
                if received == 5 { diagnostics.stopCameraCheck() }
            }
            let result = try await track.result()
            #expect(result.stoppedEarly && result.frames >= 5)
            let snapshot = try #require(track.latestFrame)
            let png = try PNGImage.encode(rgb: snapshot.rgb(), width: snapshot.width, height: snapshot.height)
            #expect(png.count > 160 * 120 * 3)
            // Over: another may start.
            let next = try await diagnostics.cameraCheck(source: SyntheticFrameSource(pattern: .black, width: 16, height: 16, frameLimit: 2))
            #expect(next.frames == 2)
        }

        @Test func nodesThatAreNotCamerasAreCodedErrors() throws {
            for path in ["/dev/null", "/nonexistent/video0", "/dev/video-preflight-none"] {
                #expect(throws: PreflightError.self) { try V4L2Camera(device: path) }
                do {
                    _ = try V4L2Camera(device: path)
                } catch {
                    #expect(error.code == .deviceNotFound, "\(path): \(error)")
                }
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dev-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try Data("not a device".utf8).write(to: directory.appendingPathComponent("video0"))
            #expect(V4L2Camera.cameras(in: directory.path).isEmpty)
        }

        /// ffmpeg's lavfi sources, piped in as yuv420p at their real rate (-re): a working camera
        /// (testsrc2), a black one, a frozen one (one still looped).
        @Test(
            .enabled(if: ExternalTool.canRun(needing: "ffmpeg"), "needs ffmpeg (apt-get install ffmpeg)"),
            arguments: ["testsrc2", "black", "frozen"])
        func framesFromFFmpeg(_ kind: String) async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ff-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var input: [String]
            switch kind {
            case "black": input = ["-f", "lavfi", "-i", "color=black:s=320x240:r=30"]
            case "frozen":
                let still = directory.appendingPathComponent("still.png").path
                _ = try await ExternalTool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240", "-frames:v", "1", still])
                input = ["-loop", "1", "-framerate", "30", "-i", still]
            default: input = ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30"]
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(ExternalTool.path(of: "ffmpeg")))
            process.arguments = ["-v", "error", "-re"] + input + ["-t", "2", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer {
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
            }
            // ffmpeg can take over 2 s (the default stall limit) to start on a machine busy with
            // the other tests; what is tested is what the frames say.
            let source = try RawVideoSource(
                descriptor: pipe.fileHandleForReading.fileDescriptor, width: 320, height: 240, sourceID: "ffmpeg:\(kind)",
                stallLimit: .seconds(10))
            let diagnostics = DeviceDiagnostics()
            let track = try diagnostics.startCameraCheck(source: source)
            let result = try await track.result()
            print(
                "camera check ffmpeg \(kind): \(result.frames) frames in \(String(format: "%.2f", result.duration)) s, \(String(format: "%.1f", result.framesPerSecond)) fps, \(result.width)x\(result.height), black \(result.blackFrames)/\(result.frames), frozen \(result.frozenFrames)/\(max(0, result.frames - 1)); isBlack \(result.isBlack), isFrozen \(result.isFrozen)")
            #expect(result.frames == 60)
            // -re paces at 30 fps; the rate read depends on how fast this host consumes (printed above),
            // so only its definition is checked here.
            #expect(result.framesPerSecond > 0 && abs(result.framesPerSecond - Double(result.frames - 1) / result.duration) < 1e-9)
            #expect(result.isResolutionAsRequested)
            #expect(result.isBlack == (kind == "black"))
            #expect(result.isFrozen == (kind != "testsrc2"))
            if kind == "testsrc2" { #expect(result.frozenFrames == 0 && result.blackFrames == 0) }
            let snapshot = try #require(track.latestFrame)
            let url = Self.artefacts.appendingPathComponent("camera-check-\(kind).png")
            try Data(try PNGImage.encode(rgb: snapshot.rgb(), width: snapshot.width, height: snapshot.height)).write(to: url)
            print("snapshot: \(url.path)")
        }
    }
}
