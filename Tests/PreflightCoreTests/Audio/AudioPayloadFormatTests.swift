import PreflightCore
import Testing

/// The codec names of offers and answers: what the edge chooses and what a client accepts.
@Suite struct AudioPayloadFormatTests {
    @Test(arguments: [
        (["PCMU"], "PCMU"), (["pcmu"], "PCMU"), (["opus"], "opus"), (["OPUS", "PCMU"], "opus"), (["PCMU", "opus"], "PCMU"),
        (["G722", "opus"], "opus"), (["G722", "iLBC", "pcmu"], "PCMU"),
    ])
    func theFirstKnownPreferenceIsChosen(offer: [String], chosen: String) {
        #expect(AudioPayloadFormat.firstKnown(of: offer)?.name == chosen)
    }

    @Test(arguments: [[], ["G722"], ["PCMA", "telephone-event"], [String(repeating: "opus", count: 100)]])
    func nothingKnownChoosesNothing(offer: [String]) {
        #expect(AudioPayloadFormat.firstKnown(of: offer) == nil)
    }

    /// An offer is hostile input: a known codec behind 16 unknown names is not looked for.
    @Test func onlyTheFirstSixteenEntriesAreRead() {
        let padding = (0..<16).map { "x\($0)" }
        #expect(AudioPayloadFormat.firstKnown(of: padding + ["opus"]) == nil)
        #expect(AudioPayloadFormat.firstKnown(of: Array(padding.dropLast()) + ["opus"]) == .opus)
    }

    @Test func clocksAndFrames() {
        #expect(AudioPayloadFormat.pcmu.payloadType == 0)
        #expect(AudioPayloadFormat.pcmu.frameTimestampIncrement == 160)
        #expect(AudioPayloadFormat.opus.payloadType == 111)
        #expect(AudioPayloadFormat.opus.clockRate == 48_000)
        #expect(AudioPayloadFormat.opus.frameTimestampIncrement == 960)
    }

    @Test(arguments: [("opus", UInt8(111)), ("PCMU", UInt8(0)), ("pcmu", UInt8(0))])
    func anAnswerOfAKnownCodecOnItsTypeIsAccepted(codec: String, payloadType: UInt8) throws {
        #expect(try AudioPayloadFormat.answered(codec: codec, payloadType: payloadType).payloadType == payloadType)
    }

    /// A client sends nothing it cannot read back: an answer on another type, or of a codec it
    /// does not know, is 70103.
    @Test(arguments: [("opus", UInt8(0)), ("PCMU", UInt8(111)), ("opus", UInt8(96)), ("G722", UInt8(9)), ("", UInt8(0))])
    func anyOtherAnswerIs70103(codec: String, payloadType: UInt8) {
        let error = #expect(throws: PreflightError.self) { try AudioPayloadFormat.answered(codec: codec, payloadType: payloadType) }
        #expect(error?.code == .unsupportedCodec)
    }
}
