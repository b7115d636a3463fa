// swift-tools-version: 6.1
import PackageDescription

/// Settings every target shares: Swift 6 language mode with the upcoming features we rely on.
let sharedSwiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Preflight",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "PreflightCore", targets: ["PreflightCore"]),
        .library(name: "PreflightEdge", targets: ["PreflightEdge"]),
        .executable(name: "preflight", targets: ["preflight"]),
        .executable(name: "preflight-bench", targets: ["PreflightBenchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // Pure code, no I/O: wire codecs, measurement, quality scales, warnings, report, call state.
        .target(
            name: "PreflightCore",
            dependencies: ["CPreflightSHA1", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: sharedSwiftSettings
        ),
        // SHA-1 compression (x86 SHA extensions or portable C) for STUN's HMAC-SHA1 hot path.
        .target(name: "CPreflightSHA1"),
        // The edge server. So far: access tokens (JWT HS256, verified with jwt-kit) and the UDP
        // media service (ICE-lite checks, echo).
        .target(
            name: "PreflightEdge",
            dependencies: [
                "PreflightCore",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // The command line: ArgumentParser commands. The executable below is a thin `@main`.
        .target(
            name: "PreflightCLI",
            dependencies: [
                "PreflightCore",
                "PreflightEdge",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .executableTarget(
            name: "preflight",
            dependencies: ["PreflightCLI"],
            swiftSettings: sharedSwiftSettings
        ),
        // Throughput benchmarks: `swift run -c release preflight-bench`.
        .executableTarget(
            name: "PreflightBenchmarks",
            dependencies: ["PreflightCore"],
            path: "Benchmarks/CoreBenchmarks",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "PreflightCoreTests",
            dependencies: [
                "PreflightCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "PreflightEdgeTests",
            dependencies: [
                "PreflightEdge",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "PreflightCLITests",
            dependencies: ["PreflightCLI", "PreflightEdge"],
            swiftSettings: sharedSwiftSettings
        ),
    ]
)
