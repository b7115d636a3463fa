// A stand-in for the part of AVFoundation that PreflightDevices' AVFoundation backend calls:
// declarations only, with the shapes Apple's documentation gives (names, argument labels,
// optionality, Sendable callbacks), written for this project. scripts/check-apple-backend
// type-checks the backend against it on Linux, where there is no Apple SDK. It catches our own
// mistakes (a wrong type, a missing label, a non-Sendable capture); it cannot catch a place where
// this stand-in and the real SDK differ. Nothing here runs: every body is a placeholder.
@_exported import Foundation

public typealias AVAudioFrameCount = UInt32
public typealias AVAudioChannelCount = UInt32
public typealias AVAudioNodeBus = Int

open class AVAudioFormat: NSObject {
    public init?(standardFormatWithSampleRate sampleRate: Double, channels: AVAudioChannelCount) { fatalError() }
    open var sampleRate: Double { 0 }
    open var channelCount: AVAudioChannelCount { 0 }
    open var isInterleaved: Bool { false }
}
open class AVAudioTime: NSObject {}
open class AVAudioBuffer: NSObject { open var format: AVAudioFormat { fatalError() } }
open class AVAudioPCMBuffer: AVAudioBuffer {
    public init?(pcmFormat format: AVAudioFormat, frameCapacity: AVAudioFrameCount) { fatalError() }
    open var frameLength: AVAudioFrameCount = 0
    open var floatChannelData: UnsafePointer<UnsafeMutablePointer<Float>>? { nil }
}
public typealias AVAudioNodeTapBlock = @Sendable (AVAudioPCMBuffer, AVAudioTime) -> Void
open class AVAudioNode: NSObject {
    open func installTap(onBus bus: AVAudioNodeBus, bufferSize: AVAudioFrameCount, format: AVAudioFormat?, block tapBlock: @escaping AVAudioNodeTapBlock) {}
    open func removeTap(onBus bus: AVAudioNodeBus) {}
    open func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat { fatalError() }
}
open class AVAudioIONode: AVAudioNode {}
open class AVAudioInputNode: AVAudioIONode {}
open class AVAudioMixerNode: AVAudioNode {}
public enum AVAudioPlayerNodeCompletionCallbackType: Int, @unchecked Sendable { case dataConsumed, dataRendered, dataPlayedBack }
public typealias AVAudioPlayerNodeCompletionHandler = @Sendable (AVAudioPlayerNodeCompletionCallbackType) -> Void
open class AVAudioPlayerNode: AVAudioNode {
    public override init() {}
    open func play() {}
    open func stop() {}
    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType, completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {}
}
open class AVAudioEngine: NSObject {
    public override init() {}
    open var inputNode: AVAudioInputNode { fatalError() }
    open var mainMixerNode: AVAudioMixerNode { fatalError() }
    open func attach(_ node: AVAudioNode) {}
    open func connect(_ node1: AVAudioNode, to node2: AVAudioNode, format: AVAudioFormat?) {}
    open func prepare() {}
    open func start() throws {}
    open func stop() {}
}
extension NSNotification.Name {
    public static let AVAudioEngineConfigurationChange = NSNotification.Name("AVAudioEngineConfigurationChangeNotification")
}
public struct AVMediaType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let audio = AVMediaType(rawValue: "soun")
}
public enum AVAuthorizationStatus: Int, Sendable { case notDetermined, restricted, denied, authorized }
open class AVCaptureDevice: NSObject {
    public struct DeviceType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let microphone = DeviceType(rawValue: "mic")
    }
    public enum Position: Int, Sendable { case unspecified, back, front }
    open class DiscoverySession: NSObject {
        public init(deviceTypes: [DeviceType], mediaType: AVMediaType?, position: Position) {}
        open var devices: [AVCaptureDevice] { [] }
    }
    open class func authorizationStatus(for mediaType: AVMediaType) -> AVAuthorizationStatus { .denied }
    open class func requestAccess(for mediaType: AVMediaType, completionHandler handler: @escaping @Sendable (Bool) -> Void) {}
    open class func `default`(for mediaType: AVMediaType) -> AVCaptureDevice? { nil }
    open var uniqueID: String { "" }
    open var localizedName: String { "" }
}
// iOS's audio session.
open class AVAudioSessionChannelDescription: NSObject {}
open class AVAudioSessionPortDescription: NSObject {
    open var uid: String { "" }
    open var portName: String { "" }
    open var channels: [AVAudioSessionChannelDescription]? { nil }
}
open class AVAudioSessionRouteDescription: NSObject {
    open var inputs: [AVAudioSessionPortDescription] { [] }
    open var outputs: [AVAudioSessionPortDescription] { [] }
}
open class AVAudioSession: NSObject {
    public struct Category: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let playAndRecord = Category(rawValue: "par")
    }
    public struct Mode: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let voiceChat = Mode(rawValue: "vc")
    }
    public struct CategoryOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let allowBluetooth = CategoryOptions(rawValue: 4)
        public static let defaultToSpeaker = CategoryOptions(rawValue: 8)
    }
    open class func sharedInstance() -> AVAudioSession { fatalError() }
    open var sampleRate: Double { 0 }
    open var currentRoute: AVAudioSessionRouteDescription { fatalError() }
    open var availableInputs: [AVAudioSessionPortDescription]? { nil }
    open func setCategory(_ category: Category, mode: Mode, options: CategoryOptions = []) throws {}
    open func setActive(_ active: Bool) throws {}
    open func setPreferredInput(_ inPort: AVAudioSessionPortDescription?) throws {}
}
