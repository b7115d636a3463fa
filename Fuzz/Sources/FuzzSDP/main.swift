import FuzzSupport
import PreflightCore

// A browser's SDP offer (BrowserOffer) and the edge's answer (BrowserAnswer). Properties: any
// bytes only parse or throw 70002; an offer that parses is answered or refused with 70009;
// an answer is SDP the same reader takes, with the offer's sections in the offer's order, the
// accepted ones on the edge's port with `a=setup:passive`, the rejected ones on port 0.

let candidate = ICECandidate(
    foundation: "1", component: 1, transport: "udp", priority: 2_130_706_431, address: "198.18.0.1", port: 40_000, type: .host)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSDP(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, count), as: UTF8.self)
    let offer: BrowserOffer
    do { offer = try BrowserOffer(parsing: text) } catch {
        precondition(error.code == .malformed, "an offer failed with \(error.code), not 70002")
        return 0
    }
    let answer: BrowserAnswer
    do {
        answer = try BrowserAnswer(
            answering: offer, ufrag: "edgeUfrag", password: "edgepassword0123456789ab", fingerprint: Array(repeating: 0xAB, count: 32),
            candidates: [candidate], ssrcs: (1, 2), sessionID: 1)
    } catch {
        precondition(error.code == .sdpOfferNotAnswerable, "an answer failed with \(error.code), not 70009")
        return 0
    }
    let read: BrowserOffer
    do { read = try BrowserOffer(parsing: answer.text) } catch { preconditionFailure("the answer does not parse: \(error)") }
    precondition(read.sections.map(\.kind) == offer.sections.map(\.kind), "the answer's sections are not the offer's")
    let accepted = Set([answer.audio.mid] + (answer.video.map { [$0.mid] } ?? []))
    for section in read.sections {
        if let mid = section.mid, accepted.contains(mid) {
            precondition(section.port == 40_000 && section.setup == "passive" && section.rtcpMux, "an accepted section is not the edge's")
        } else {
            precondition(section.port == 0, "a rejected section has a port")
        }
    }
    return 0
}

@_cdecl("FuzzSDP_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzSDP)
}
