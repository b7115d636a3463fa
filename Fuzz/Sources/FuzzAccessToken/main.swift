import Crypto
import Dispatch
import Foundation
import FuzzSupport
import PreflightEdge
import Synchronization

// Access tokens, as the edge receives them in the signaling `hello`. A fuzzer cannot forge an
// HMAC, so most inputs are signed here with the verifier's own secret: the claims checks behind
// the signature (expiry, not-before, lifetime, grants) only run on correctly signed tokens.
// The first byte picks the shape: 0 a raw token as sent; 1 the rest is the payload JSON under a
// fixed HS256 header; 2 the rest is "header JSON \n payload JSON". Bit 2 of the first byte sets
// `requireOutgoingGrant`.

let apiKeySID = "SKfuzz"
let secret = "fuzz-secret-0123456789abcdef-0123456789"
/// Expiry and not-before are judged against this fixed instant, so a crash reproduces.
let now = Date(timeIntervalSince1970: 1_700_000_000)

/// The value an async call produced, handed to the thread waiting for it.
final class Handoff<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
}

/// Runs `body` on the concurrency pool and blocks this (non-pool) thread until it returns:
/// libFuzzer calls the harness synchronously, the verifier is async.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let handoff = Handoff<T>()
    Task {
        let result = await body()
        handoff.value.withLock { $0 = result }
        handoff.done.signal()
    }
    handoff.done.wait()
    guard let result = handoff.value.withLock({ $0 }) else { preconditionFailure("the task finished without a value") }
    return result
}

/// Built once: key setup is not what is being fuzzed.
let verifier: AccessTokenVerifier? = runBlocking {
    try? await AccessTokenVerifier(configuration: .init(apiKeys: [apiKeySID: secret], accounts: [apiKeySID: "ACfuzz"]))
}

func base64URL(_ bytes: some Sequence<UInt8>) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// `header.payload.signature`, signed with HS256 and the verifier's secret.
func signed(header: ArraySlice<UInt8>, payload: ArraySlice<UInt8>) -> String {
    let input = base64URL(header) + "." + base64URL(payload)
    let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: Array(secret.utf8)))
    return input + "." + base64URL(mac)
}

let fixedHeader = Array(#"{"alg":"HS256","typ":"JWT","cty":"twilio-fpa;v=1"}"#.utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAccessToken(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let verifier else { preconditionFailure("the verifier could not be built") }
    let input = Array(fuzzInput(data, count))
    guard let mode = input.first else { return 0 }
    let rest = input.dropFirst()
    let token: String
    switch mode % 3 {
    case 0:
        token = String(decoding: rest, as: UTF8.self)
    case 1:
        token = signed(header: fixedHeader[...], payload: rest)
    default:
        let newline = rest.firstIndex(of: 0x0A) ?? rest.endIndex
        token = signed(header: rest[..<newline], payload: rest[newline...].dropFirst())
    }
    let requireOutgoingGrant = mode & 4 != 0
    _ = runBlocking { try? await verifier.verify(token, now: now, requireOutgoingGrant: requireOutgoingGrant) }
    return 0
}

@_cdecl("FuzzAccessToken_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzAccessToken)
}
