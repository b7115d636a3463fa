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
        // What an app sees: the report, errors, warnings, quality scales, call states. `Preflight`
        // re-exports it, so `import Preflight` is all an app needs.
        .library(name: "PreflightModel", targets: ["PreflightModel"]),
        .library(name: "PreflightCore", targets: ["PreflightCore"]),
        .library(name: "PreflightNIO", targets: ["PreflightNIO"]),
        .library(name: "Preflight", targets: ["Preflight"]),
        .library(name: "PreflightEdge", targets: ["PreflightEdge"]),
        // Microphone, speaker and camera: apart from the SDK, so that an app that only tests the
        // network links no audio library.
        .library(name: "PreflightDevices", targets: ["PreflightDevices"]),
        .library(name: "PreflightOpus", targets: ["PreflightOpus"]),
        .library(name: "PreflightHTML", targets: ["PreflightHTML"]),
        .library(name: "PreflightTesting", targets: ["PreflightTesting"]),
        .executable(name: "preflight", targets: ["preflight"]),
        .executable(name: "preflight-bench", targets: ["PreflightBenchmarks"]),
        .executable(name: "preflight-store-bench", targets: ["StoreBenchmarks"]),
        .executable(name: "preflight-echo-bench", targets: ["EchoBenchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // TLS for TURN over TLS (`turns:`); already built for the WebSocket client's wss.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The edge's self-signed DTLS certificate for browsers (already built for NIOSSL).
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // The edge's HTTP and WebSocket server; default traits off (no swift-configuration).
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The SDK's WebSocket client (no Hummingbird server code in the SDK).
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        // The edge's report store: one SQL layer (SQLKit) over SQLite (embedded) and PostgreSQL
        // (shared by many edges); PostgresNIO's own pool (PostgresClient), no AsyncKit pool.
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        // HTTP field names for the edge's page headers (Hummingbird's own types).
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // The edge records with swift-metrics; `/metrics` renders a Prometheus registry.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // The app's vocabulary, pure values with no dependency: the report and its records,
        // errors and their codes, quality warnings, quality scales, call states, ICE server options.
        .target(
            name: "PreflightModel",
            swiftSettings: sharedSwiftSettings
        ),
        // Pure code, no I/O: wire codecs (STUN, RTP, RTCP, signaling), ICE and TURN logic,
        // measurement, the warnings engine. Re-exports PreflightModel.
        .target(
            name: "PreflightCore",
            dependencies: [
                "PreflightModel",
                "CPreflightSHA1",
                "CPreflightAEAD",
                .product(name: "Crypto", package: "swift-crypto"),
                // Single-block AES (`AES.permute`) for the SRTP key derivation's AES-CM PRF.
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // SHA-1 compression (x86 SHA extensions or portable C) for STUN's HMAC-SHA1 hot path.
        .target(name: "CPreflightSHA1"),
        // AES-128-GCM keyed once, from the system's libcrypto loaded at run time, for SRTP's
        // per-packet path (swift-crypto's AES.GCM keys a context and allocates for every packet);
        // without libcrypto SRTP goes through swift-crypto.
        .target(name: "CPreflightAEAD"),
        // Transports of the client: UDP media session, ICE checks, the signaling WebSocket client.
        .target(
            name: "PreflightNIO",
            dependencies: [
                "PreflightCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // The public client SDK: PreflightTest and its events and report. Re-exports PreflightModel;
        // PreflightCore and PreflightNIO are internal imports (not part of its public API).
        .target(
            name: "Preflight",
            dependencies: [
                "PreflightModel",
                "PreflightCore",
                "PreflightNIO",
                // Opus in tests and calls (libopus when the build has it; PCMU only without).
                "PreflightOpus",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // PulseAudio's client library (Debian libpulse-dev). Its module map names the header by
        // absolute path, so that without libpulse-dev the module is unavailable and
        // PreflightDevices builds without it (module.modulemap says why).
        .systemLibrary(
            name: "CPulseAudio",
            pkgConfig: "libpulse",
            providers: [.apt(["libpulse-dev"])]
        ),
        // libopus (Debian libopus-dev); unavailable without it, like CPulseAudio (module.modulemap).
        .systemLibrary(
            name: "COpus",
            pkgConfig: "opus",
            providers: [.apt(["libopus-dev"])]
        ),
        // Opus as an RTP payload (RFC 7587): an encoder and a decoder of 20 ms 48 kHz frames.
        .target(
            name: "PreflightOpus",
            dependencies: [
                "PreflightModel",
                .target(name: "COpus", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // HTML pages of reports and the edge's dashboard: pure text, no I/O, no script.
        .target(
            name: "PreflightHTML",
            dependencies: ["PreflightModel"],
            swiftSettings: sharedSwiftSettings
        ),
        // The V4L2 ioctls, which Swift cannot call (their request numbers are C macros); stubs
        // that return ENOSYS elsewhere.
        .target(name: "CV4L2"),
        // recvmmsg/sendmmsg for the edge's media threads (Swift's Glibc lacks them); ENOSYS
        // stubs elsewhere.
        .target(name: "CMediaBatch"),
        // Devices: audio through PulseAudio on Linux, cameras through V4L2, the checks.
        .target(
            name: "PreflightDevices",
            dependencies: [
                "Preflight",
                "PreflightModel",
                "PreflightCore",
                .target(name: "CPulseAudio", condition: .when(platforms: [.linux])),
                "CV4L2",
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/speaker-check.wav")],
            swiftSettings: sharedSwiftSettings
        ),
        // The edge server: Hummingbird signaling, access tokens (jwt-kit), the UDP media service
        // (ICE-lite checks, echo and record-playback applications).
        .target(
            name: "PreflightEdge",
            dependencies: [
                "PreflightCore",
                "CMediaBatch",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "PreflightHTML",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // Shipped test support: coturn as a child process, the impairment relay (the in-process
        // edge is PreflightEdge's LocalEdge).
        .target(
            name: "PreflightTesting",
            dependencies: [
                "PreflightCore",
                "PreflightEdge",
                .product(name: "Logging", package: "swift-log"),
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
                "PreflightNIO",
                "Preflight",
                "PreflightEdge",
                "PreflightDevices",
                "PreflightHTML",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
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
        // The edge's echo path: time and heap allocations per packet
        // (`swift run -c release preflight-echo-bench`).
        .executableTarget(
            name: "EchoBenchmarks",
            dependencies: [
                "PreflightCore", "PreflightEdge", "CAllocationCounter", .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/EchoBenchmarks",
            swiftSettings: sharedSwiftSettings
        ),
        // Counts a thread's heap allocations by interposing malloc: benchmarks only.
        .target(name: "CAllocationCounter", path: "Benchmarks/CAllocationCounter"),
        // Store throughput: `swift run -c release preflight-store-bench [--postgres URL]`; the
        // in-memory store's eviction: `… --eviction 100000,1000000` (the previous edge's
        // statement run on SQLite itself as the anchor).
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                "PreflightCore", "PreflightEdge", .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ],
            path: "Benchmarks/StoreBenchmarks",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "PreflightCoreTests",
            dependencies: [
                "PreflightModel",
                "PreflightCore",
                // ExternalTool: the skip rule for tests that need tshark or python3.
                "PreflightTesting",
                "CPreflightSHA1",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "PreflightEdgeTests",
            dependencies: [
                "PreflightCore",
                "PreflightEdge",
                // PostgresTestDatabase: the store's tests on a real PostgreSQL server.
                "PreflightTesting",
                "PreflightHTML",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "PreflightTests",
            dependencies: [
                "Preflight",
                "PreflightCore",
                "PreflightNIO",
                "PreflightEdge",
                "PreflightTesting",
                // The report page of a test with a path diagnosis.
                "PreflightHTML",
                // Opus in tests and calls: whether this build has libopus.
                "PreflightOpus",
                // HMAC-SHA256 for hand-signed hostile tokens in the attack suite.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // EmbeddedChannel tests of PreflightNIO's handlers.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "PreflightDevicesTests",
            dependencies: [
                "PreflightDevices",
                // The Opus codec's tests (an outside decoder reads its payloads).
                "PreflightOpus",
                "Preflight",
                "PreflightCore",
                // LocalEdge: the echo test's record-playback application.
                "PreflightEdge",
                // PulseAudioServer (headless PulseAudio) and ExternalTool.
                "PreflightTesting",
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "PreflightCLITests",
            dependencies: [
                "PreflightCLI",
                "PreflightCore",
                "PreflightEdge",
                // EdgeHTTPClient: a report uploaded as the SDK uploads it.
                "PreflightNIO",
                "PreflightDevices",
                // PulseAudioServer for the device commands.
                "PreflightTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
    ]
)
