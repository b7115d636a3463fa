// A stand-in for the part of Apple's Network framework that PreflightNIO's path backend
// (Sources/PreflightNIO/Network/PathBackend.swift) calls: declarations only, with the shapes
// Apple's documentation gives (names, argument labels, optionality, Sendable conformances and
// callbacks), written for this project. scripts/check-apple-backend compiles it with library
// evolution on, as Apple's SDK is, and type-checks the backend against it on Linux, where there is
// no Apple SDK. It catches our own mistakes (a wrong type, a missing label, a non-Sendable
// capture, a switch that is not exhaustive); it cannot catch a place where this stand-in and the
// real SDK differ. Nothing here runs: every body is a placeholder.
@_exported import Dispatch

public struct NWInterface: Hashable, CustomDebugStringConvertible, Sendable {
    public enum InterfaceType: Hashable, Sendable {
        case other, wifi, cellular, wiredEthernet, loopback
    }

    public var type: NWInterface.InterfaceType { .other }
    public var name: String { "" }
    public var index: Int { 0 }
    public var debugDescription: String { "" }
}

public struct NWPath: Equatable, CustomDebugStringConvertible, Sendable {
    public enum Status: Equatable, Hashable, Sendable {
        case satisfied, unsatisfied, requiresConnection
    }

    public var status: NWPath.Status { .unsatisfied }
    public var availableInterfaces: [NWInterface] { [] }
    public func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool { false }
    public var debugDescription: String { "" }
}

final public class NWPathMonitor: @unchecked Sendable {
    public init() {}
    @preconcurrency final public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)?
    final public var currentPath: NWPath { fatalError() }
    final public func start(queue: DispatchQueue) {}
    final public func cancel() {}
}
