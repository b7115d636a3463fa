import Foundation
import PreflightCore
@testable import PreflightDevices
import Testing

extension DeviceTests {
    /// The camera code's pure parts: format negotiation, the buffer ring, the verdicts.
    @Suite struct CameraLogicTests {
        static let yuyv = CameraPixelFormat.yuyv.rawValue
        static let mjpeg: UInt32 = 0x4750_4A4D  // 'MJPG'

        @Test func negotiationPrefersAnUncompressedFormatAtTheRequestedSize() throws {
            let offered = CameraFormatNegotiation(offered: [
                (Self.mjpeg, [(1920, 1080), (640, 480)]),
                (CameraPixelFormat.nv12.rawValue, [(640, 480)]),
                (Self.yuyv, [(1280, 720), (640, 480), (320, 240)]),
            ])
            let choice = try offered.choose(width: 640, height: 480)
            #expect(choice.format == .yuyv && choice.width == 640 && choice.height == 480)
            // No exact size: the smallest that is at least as large, else the largest.
            let larger = try offered.choose(width: 800, height: 600)
            #expect(larger.width == 1280 && larger.height == 720)
            let largest = try offered.choose(width: 4000, height: 3000)
            #expect(largest.width == 1280 && largest.height == 720)
        }

        @Test func aCameraThatOnlySpeaksMJPEGIs70404() {
            #expect(throws: PreflightError.self) { try CameraFormatNegotiation(offered: [(Self.mjpeg, [(640, 480)])]).choose(width: 640, height: 480) }
            do {
                _ = try CameraFormatNegotiation(offered: [(Self.mjpeg, [(640, 480)])]).choose(width: 640, height: 480)
            } catch {
                #expect(error.code == .deviceFormatUnsupported)
                #expect(error.message.contains("MJPG"))
            }
            // A driver that lists no sizes is asked for the requested one.
            let choice = try? CameraFormatNegotiation(offered: [(Self.yuyv, [])]).choose(width: 352, height: 288)
            #expect(choice?.width == 352 && choice?.height == 288)
        }

        @Test func theBufferRingHoldsOneAtATimeAndCountsDroppedFrames() throws {
            var ring = BufferCycle(count: 4)
            for index in 0..<4 { try ring.willQueue(index) }
            #expect(throws: PreflightError.self) { try ring.willQueue(2) }  // already the driver's
            #expect(throws: PreflightError.self) { try ring.willQueue(4) }  // not in the ring
            try ring.didDequeue(1, sequence: 10)
            #expect(ring.held == 1)
            #expect(throws: PreflightError.self) { try ring.didDequeue(2, sequence: 11) }  // one held already
            try ring.willQueue(1)
            try ring.didDequeue(1, sequence: 11)  // back from the driver again
            #expect(ring.droppedFrames == 0)
            try ring.willQueue(1)
            try ring.didDequeue(3, sequence: 14)  // frames 12 and 13 were dropped
            #expect(ring.droppedFrames == 2)
            #expect(throws: PreflightError.self) { try ring.didDequeue(3, sequence: 15) }  // not the driver's any more
            var wrap = BufferCycle(count: 2)
            try wrap.willQueue(0)
            try wrap.willQueue(1)
            try wrap.didDequeue(0, sequence: UInt32.max - 1)
            try wrap.willQueue(0)
            try wrap.didDequeue(1, sequence: 2)  // skipped UInt32.max, 0 and 1
            #expect(wrap.droppedFrames == 3)
        }

        @Test func theCheckerJudgesMovingBlackAndFrozenFrames() throws {
            var moving = CameraFrameChecker(requestedWidth: 64, requestedHeight: 48)
            for n in 0..<31 { moving.add(try VideoFrameTestsFrames.moving(n)) }
            let result = moving.result(source: "test", droppedFrames: 0, stoppedEarly: false)
            #expect(result.frames == 31 && abs(result.framesPerSecond - 30) < 1e-9 && abs(result.duration - 1) < 1e-9)
            #expect(result.isResolutionAsRequested && !result.isBlack && !result.isFrozen && result.frozenFrames == 0)

            var black = CameraFrameChecker(requestedWidth: 64, requestedHeight: 48)
            for n in 0..<10 { black.add(try VideoFrame.filled(width: 64, height: 48, luma: 16, timestamp: Double(n) / 30)) }
            let blackResult = black.result(source: "test", droppedFrames: 0, stoppedEarly: false)
            #expect(blackResult.isBlack && blackResult.blackFrames == 10 && blackResult.isFrozen)

            var frozen = CameraFrameChecker(requestedWidth: 640, requestedHeight: 480)
            let still = try VideoFrameTestsFrames.moving(5)
            for n in 0..<10 {
                var frame = still
                frame.timestamp = Double(n) / 15
                frozen.add(frame)
            }
            let frozenResult = frozen.result(source: "test", droppedFrames: 0, stoppedEarly: false)
            #expect(frozenResult.isFrozen && frozenResult.frozenFrames == 9 && !frozenResult.isBlack)
            #expect(!frozenResult.isResolutionAsRequested && frozenResult.width == 64)
            #expect(abs(frozenResult.framesPerSecond - 15) < 1e-9)
        }
    }
}

/// Frames for the checker (the core tests' helper is in another test target).
enum VideoFrameTestsFrames {
    static func moving(_ n: Int, width: Int = 64, height: Int = 48) throws -> VideoFrame {
        let luma = (0..<(width * height)).map { UInt8(16 + (($0 % width) * 3 + ($0 / width) + n * 9) % 200) }
        let chroma = [UInt8](repeating: 128, count: (width / 2) * (height / 2))
        return try VideoFrame(width: width, height: height, luma: luma, chromaBlue: chroma, chromaRed: chroma, timestamp: Double(n) / 30)
    }
}

extension DeviceTests {
    /// Sizes and formats a caller may get wrong are coded errors, not traps or huge allocations.
    @Suite struct DeviceArgumentTests {
        @Test(arguments: [(0, 480), (640, 0), (Int.max, Int.max), (8193, 8)] as [(Int, Int)])
        func syntheticFramesOutOfRange(width: Int, height: Int) async {
            let diagnostics = DeviceDiagnostics()
            do {
                _ = try await diagnostics.cameraCheck(source: SyntheticFrameSource(pattern: .moving, width: width, height: height, frameLimit: 1))
                Issue.record("\(width)×\(height) made frames")
            } catch {
                #expect(error.code == .invalidArgument)
            }
        }

        @Test(arguments: [AudioFormat(sampleRate: Int.max, channels: 1), AudioFormat(sampleRate: 48_000, channels: 32), AudioFormat(sampleRate: 0)])
        func aMicCheckFormatOutOfRangeIs70005(_ format: AudioFormat) async {
            let diagnostics = DeviceDiagnostics(
                configuration: DeviceDiagnosticsConfiguration(audioSystem: UnavailableAudioSystem(reason: "none"), recordingFormat: format))
            do {
                _ = try await diagnostics.micCheck(timeInMillis: 1000)
                Issue.record("\(format) recorded")
            } catch {
                #expect(error.code == .invalidArgument)
            }
        }
    }
}
