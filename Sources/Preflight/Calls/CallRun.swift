import Foundation
import Logging
import PreflightModel
internal import PreflightCore
internal import PreflightNIO
import Synchronization

/// One call's run: an ``ICEAgentDriver`` connects its media to the edge, a ``MediaSession``
/// sends its audio and measures what arrives, the signaling (its own ``SignalingClient`` for a
/// caller, the registration's for a callee) carries the call's messages, and the
/// ``CallStateMachine`` of the ``Call`` turns all of it into the reference's callbacks. One
/// task owns the run's state; the pieces post ``Input``s to it.
struct CallRun: SessionRun {
    let call: Call
    let signaling: SignalingClient
    let ice: ICEAgentDriver
    let media: MediaSession
    let audio: CallAudioSource.Switch
    let inputs: AsyncStream<Input>.Continuation
    let options: CallOptions
    /// The caller's parameters for the edge's application (`To`, custom parameters).
    let params: [String: String]
    /// The invite's or accept's codecs: the preferences this build can send.
    let offeredCodecs: [String]
    let startTime: Int64
    var logger: Logger { call.logger }

    enum Input: Sendable {
        case session(SessionInput)
        case sampleTick
        case user(UserAction)
        case hangupDeadline
        /// The other party sent a DTMF digit.
        case digit(Character)
    }

    enum UserAction: Sendable {
        case disconnect
        case feedback(InsightsEvent)
        case message(id: String, CallMessage)
    }

    /// What is lost now; the call reports reconnecting while anything is.
    enum Interruption: Hashable {
        case signaling, media
    }

    var callSid: String?
    /// The invite or accept went out: the edge knows the call.
    var offered = false
    /// The call is up at the edge (not hung up by either side).
    var callOpen = false
    var mediaStarted = false
    /// `disconnect()` came before the edge named the call: the hangup waits for its sid.
    var hangupPending = false
    var interrupted: Set<Interruption> = []
    var warnings = WarningsEngine()
    /// Insights events not yet sent.
    var insights: [InsightsEvent] = []
    /// The key this device encrypts its media with, offered in the invite or accept.
    var srtpKey: SRTPKeyingMaterial?
    /// What each change of the host's networks did to the call.
    /// (A call waits for a network until consent expires: it only records them.)
    var networks = RunNetworks(edgeOnLoopback: false)
    /// Whether the edge takes `candidates` (its welcome says so).
    var edgeTakesCandidates = false
    /// Local candidates found after the offer, waiting for the edge to name the call.
    var unsentCandidates: [ICECandidate] = []

    /// Whether the run is over: the call ended and nothing is left to tell the edge.
    var isOver: Bool { call.isDisconnected && !hangupPending }
}

extension CallRun {
    /// The ICE agent and media session of a call, bound to fresh sockets, and the codecs to offer.
    /// Fails with 70005 when `fakeMicInput` is false and there is no `audioInput`, 70103 when
    /// no preferred codec can be sent.
    static func makeMedia(
        options: CallOptions, edgeURL: String, startTime: Int64, origin: ContinuousClock.Instant, logger: Logger,
        audio: CallAudioSource.Switch, inputs: AsyncStream<Input>.Continuation
    ) async throws(PreflightError) -> (ICEAgentDriver, MediaSession, codecs: [String]) {
        if !options.fakeMicInput, options.audioInput == nil {
            throw PreflightError(code: .invalidArgument, message: "fakeMicInput is false but no audioInput was given")
        }
        let networkTypeOverrides = try NetworkFollower.overrides(networkTypes: options.networkTypes)
        let codecs = try AudioCodecs.offer(options.preferredAudioCodecs)
        let audioReceived: (@Sendable ([Int16]) -> Void)?
        if let output = options.audioOutput {
            // On hold the far party's audio is not played ("the remote's playback disabled").
            audioReceived = { samples in if !audio.held.load(ordering: .relaxed) { output.play(samples) } }
        } else {
            audioReceived = nil
        }
        let ice = try await ICEAgentDriver.bind(
            configuration: ICEAgentDriverConfiguration(
                agent: ICEAgent.Configuration(
                    transportPolicy: options.iceTransportPolicy, gatheringTimeout: options.gatheringTimeout,
                    checkTimeout: options.iceTimeout, disconnectTimeout: options.mediaTimeout,
                    consentTimeout: options.consentTimeout, wallClockOrigin: Double(startTime), peerName: "the edge"),
                offersLoopback: HostInterfaces.isLoopback(url: edgeURL),
                turnTrustedCertificatesFile: options.turnTrustedCertificatesFile, networkTypeOverrides: networkTypeOverrides),
            origin: origin, logger: logger, events: { inputs.yield(.session(.ice($0, on: .main))) })
        let media = MediaSession(
            configuration: MediaSessionConfiguration(cname: "preflight-\(ice.localUfrag)"),
            origin: origin, wallClockOrigin: Double(startTime), eventLoop: ice.eventLoop, transmit: { ice.sendMedia($0) },
            telephoneEvents: { report in
                if case .started = report, let digit = report.character { inputs.yield(.digit(digit)) }
            }, audioReceived: audioReceived)
        ice.receiveMedia { media.receive($0) }
        return (ice, media, codecs)
    }

    mutating func loop(_ stream: AsyncStream<Input>, group: inout TaskGroup<Void>) async {
        for await input in stream {
            do throws(PreflightError) {
                try await handle(input, group: &group)
            } catch {
                await fail(error)
            }
            if isOver || Task.isCancelled { break }
        }
    }

    /// Tears the run down: hangs up a call still open at the edge, stops media, closes ICE.
    mutating func finish() async {
        // Media stops first: the call is over here whatever the edge still has to be told.
        media.stopSending()
        if let record = networks.finish(now: Self.nowMilliseconds()) { note(record) }
        // The call's peer connection closes: ICE, the connection and the signaling state, as
        // WebRTC's close() reports them.
        note(.iceConnectionState, "closed")
        note(.peerConnectionState, "closed")
        note(.signalingState, "closed")
        await flushInsights()
        if call.role == .callee, !offered, let callSid {
            // Disconnected before the accept went out: the invite is declined, so it stops
            // ringing here at once.
            try? await signaling.send(.reject(callSid: callSid))
        }
        if let callSid, callOpen {
            await signaling.hangup(callSid: callSid, reason: "disconnected")
        }
        await ice.close()
    }

    static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
