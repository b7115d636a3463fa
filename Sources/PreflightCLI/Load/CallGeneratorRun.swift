import Foundation
import Logging
import PreflightCore
import PreflightEdge

/// `preflight load --calls N --generator EXEC`: the edge's side of the call bridge benchmark
/// (Benchmarks/Load/README.md, calls mode). It starts the edge and sets up N two-party calls over
/// signaling (the callee registers, the caller invites `client:<callee>`, the callee accepts; both
/// with SRTP keys unless `plain`), then hands every leg's media to an outside generator: where the
/// leg sends (the edge's candidate), the keys each way and the leg's ICE check, precomputed. The
/// generator measures the edge's CPU, the bridge's loss and latency itself, so that the parties'
/// own cost (Swift clients on the same two cores) is not what is measured.
struct CallGeneratorRun {
    let calls: Int
    /// Plain RTP instead of SRTP (AEAD_AES_128_GCM) on both legs.
    let plain: Bool
    let generator: String
    let generatorArguments: [String]
    /// More `preflight serve` arguments (e.g. `--media-threads 2`).
    let edgeArguments: [String]

    /// One leg of a call as the generator needs it: a line of the calls file.
    struct Leg {
        var edge: (host: String, port: UInt16)
        /// What the leg encrypts with (its own key, sent in its invite or accept), and what the
        /// edge encrypts with towards it (the key of the edge's answer); `nil` for plain RTP.
        var sendKey: SRTPKeyingMaterial?
        var receiveKey: SRTPKeyingMaterial?
        /// The leg's own ICE ufrag, and the edge's parameters for it, for the leg's check.
        var localUfrag: String
        var remote: ICEParameters

        /// `RELAY_IP RELAY_PORT SEND_KEY RECEIVE_KEY CHECK`, keys as hex of master key ‖ salt, the
        /// check's transaction id starting with `index`, the line's number.
        func line(index: Int) throws(PreflightError) -> String {
            func key(_ material: SRTPKeyingMaterial?) -> String { material.map { LoadGeneratorRun.hex($0.masterKey + $0.masterSalt) } ?? "-" }
            let check = try LoadGeneratorRun.check(index: index, localUfrag: localUfrag, remote: remote)
            return "\(edge.host) \(edge.port) \(key(sendKey)) \(key(receiveKey)) \(LoadGeneratorRun.hex(check))"
        }
    }

    /// A call set up: its two parties' signaling and legs (caller first).
    private struct Call: Sendable {
        var signaling: [CallLoadSignaling]
        var legs: [Leg]
    }

    /// Runs the edge and the generator; returns the generator's exit status.
    func run(progress: @escaping @Sendable (String) -> Void) async throws -> Int32 {
        let edge = try await LoadRun.startEdge(sessions: 2 * calls, arguments: ["--max-duration", "3600"] + edgeArguments)
        return try await edge.stopping {
            progress("load: edge pid \(edge.pid) at \(edge.signalingURL); setting up \(calls) \(plain ? "plain RTP" : "SRTP") calls for \(generator)")
            let logger = Logger(label: "preflight.load", factory: { _ in SwiftLogNoOpLogHandler() })
            var set: [(index: Int, call: Call)] = []
            var failures: [String: Int] = [:]
            try await withThrowingTaskGroup(of: (Int, Result<Call, PreflightError>).self) { group in
                var finished = 0
                func collect(_ outcome: (Int, Result<Call, PreflightError>)) {
                    finished += 1
                    switch outcome.1 {
                    case .success(let call): set.append((outcome.0, call))
                    case .failure(let error): failures["error \(error.code.rawValue): \(error.message)", default: 0] += 1
                    }
                }
                for index in 0..<calls {
                    // At most 25 calls (50 parties) set up at a time: a ramp, not a flood of the listener.
                    if index - finished >= 25, let outcome = try await group.next() { collect(outcome) }
                    let calleeToken = try await edge.callToken(identity: "callee-\(index)", incomingAllow: true)
                    let callerToken = try await edge.callToken(identity: "caller-\(index)", incomingAllow: false)
                    let (url, plain) = (edge.signalingURL, plain)
                    group.addTask {
                        (index, await Self.setUpCall(index: index, url: url, calleeToken: calleeToken, callerToken: callerToken, plain: plain, logger: logger))
                    }
                }
                for try await outcome in group { collect(outcome) }
            }
            set.sort { $0.index < $1.index }
            let parties = set.flatMap { $0.call.signaling }
            defer {
                // Hung up and closed together: one after another, thousands of closing handshakes take minutes.
                Task {
                    await withTaskGroup(of: Void.self) { group in
                        for party in parties { group.addTask { await party.close() } }
                    }
                }
            }
            for (message, count) in failures.sorted(by: { $0.value > $1.value }) { progress("load: \(count) calls failed: \(message)") }
            guard set.count == calls else {
                throw PreflightError(code: .mediaConnectionFailed, message: "load: \(calls - set.count) of \(calls) calls were not set up")
            }
            let lines = try set.flatMap { $0.call.legs }.enumerated().map { position, leg throws(PreflightError) in try leg.line(index: position) }
            progress("load: \(calls) calls set up; running \(generator)")
            return try await LoadGeneratorRun.runGenerator(
                generator, file: lines, arguments: ["--mode", "calls", "--calls-file"],
                then: ["--server-pid", "\(edge.pid)"] + generatorArguments)
        }
    }

    /// Signs the callee in and registers it, signs the caller in, places the call and has the
    /// callee accept it; each party with ICE parameters of its own and, unless `plain`, an SRTP key.
    private static func setUpCall(
        index: Int, url: String, calleeToken: String, callerToken: String, plain: Bool, logger: Logger
    ) async -> Result<Call, PreflightError> {
        let callerICE = ICEParameters(ufrag: LoadGeneratorRun.iceString(8), pwd: LoadGeneratorRun.iceString(24))
        let calleeICE = ICEParameters(ufrag: LoadGeneratorRun.iceString(8), pwd: LoadGeneratorRun.iceString(24))
        let (callerKey, calleeKey) = plain ? (nil, nil) : (SRTPKeyingMaterial.random(), SRTPKeyingMaterial.random())
        var signed: [CallLoadSignaling] = []
        do throws(PreflightError) {
            let callee = try await CallLoadSignaling.signIn(url: url, token: calleeToken, logger: logger)
            signed.append(callee)
            try await callee.register()
            let answering = Task { () -> Result<SignalingMessage.Answer, PreflightError> in
                do throws(PreflightError) {
                    return .success(try await callee.answerNextCall(ice: { calleeICE }, srtp: calleeKey.map(SignalingMessage.SRTPKey.init)))
                } catch {
                    return .failure(error)
                }
            }
            let caller = try await CallLoadSignaling.signIn(url: url, token: callerToken, logger: logger)
            signed.insert(caller, at: 0)
            let callerAnswer: SignalingMessage.Answer
            do throws(PreflightError) {
                callerAnswer = try await caller.place(to: "client:callee-\(index)", ice: callerICE, srtp: callerKey.map(SignalingMessage.SRTPKey.init))
            } catch {
                // Closing the callee's connection ends its wait for the call.
                await callee.close()
                _ = await answering.value
                throw error
            }
            let calleeAnswer = try await answering.value.get()
            let legs = try [(callerICE, callerKey, callerAnswer), (calleeICE, calleeKey, calleeAnswer)].map { ice, key, answer throws(PreflightError) in
                guard let candidate = answer.ice.candidates.first(where: { $0.transport == "udp" && !$0.address.contains(":") }) else {
                    throw PreflightError(code: .mediaConnectionFailed, message: "load: the edge's answer has no IPv4 UDP candidate")
                }
                let receiveKey = try answer.srtp?.material()
                guard (key == nil) == (receiveKey == nil) else {
                    throw PreflightError(code: .mediaConnectionFailed, message: "load: the edge answered \(key == nil ? "an SRTP key to plain RTP" : "no SRTP key")")
                }
                return Leg(edge: (candidate.address, candidate.port), sendKey: key, receiveKey: receiveKey, localUfrag: ice.ufrag, remote: answer.ice)
            }
            return .success(Call(signaling: signed, legs: legs))
        } catch {
            for party in signed { await party.close() }
            return .failure(error)
        }
    }
}
