// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for every parser that takes bytes from the network or a user. A separate
// package so that the root package's build never needs the fuzzer runtime: `scripts/fuzz` builds
// it in release with `-sanitize=fuzzer,address -parse-as-library` applied to every module, so the
// parsers themselves carry the coverage instrumentation libFuzzer steers by.

let settings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The targets that need only PreflightCore (one executable each, named after its corpus folder).
let coreTargets = [
    "FuzzSTUNLayout", "FuzzSTUNMessage", "FuzzRTP", "FuzzRTCP", "FuzzChannelData", "FuzzTURNFramer",
    "FuzzSignalingJSON", "FuzzICECandidate", "FuzzReportJSON", "FuzzSRTP", "FuzzTelephoneEvent", "FuzzProbe",
    "FuzzWAV", "FuzzVideoFrame", "FuzzConnectivityCheck", "FuzzReportUpload", "FuzzVerdict", "FuzzICECheck", "FuzzNetlink",
    "FuzzPathErrorQueue", "FuzzSDP",
]

let package = Package(
    name: "PreflightFuzz",
    platforms: [.macOS(.v15)],
    products: (coreTargets + ["FuzzAccessToken", "FuzzOpus", "FuzzClusterMessage"]).map { .executable(name: $0, targets: [$0]) },
    dependencies: [
        // Named, because a path dependency is otherwise known by its folder name (main, a worktree, …).
        .package(name: "Preflight", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: coreTargets.map {
        .executableTarget(
            name: $0, dependencies: ["FuzzSupport", .product(name: "PreflightCore", package: "Preflight")],
            swiftSettings: settings)
    } + [
        // libFuzzer's driver entry, declared for Swift.
        .target(name: "CFuzzDriver"),
        // What every harness shares: handing `main` over to libFuzzer.
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver"], swiftSettings: settings),
        .executableTarget(
            name: "FuzzOpus",
            dependencies: ["FuzzSupport", .product(name: "PreflightOpus", package: "Preflight")],
            swiftSettings: settings),
        .executableTarget(
            name: "FuzzClusterMessage",
            dependencies: [
                "FuzzSupport", .product(name: "PreflightEdge", package: "Preflight"),
            ],
            swiftSettings: settings),
        .executableTarget(
            name: "FuzzAccessToken",
            dependencies: [
                "FuzzSupport",
                .product(name: "PreflightEdge", package: "Preflight"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: settings),
    ]
)
