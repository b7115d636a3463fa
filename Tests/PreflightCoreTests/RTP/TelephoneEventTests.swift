import PreflightCore
import Testing

/// RFC 4733 §2.3 payloads, computed by hand from the figure: event, E|R|volume, duration.
@Suite struct TelephoneEventTests {
    @Test(arguments: [
        (TelephoneEvent(event: 1, volume: 10, duration: 160), [0x01, 0x0A, 0x00, 0xA0] as [UInt8]),
        (TelephoneEvent(event: 11, isEnd: true, volume: 10, duration: 800), [0x0B, 0x8A, 0x03, 0x20]),
        (TelephoneEvent(event: 10, isEnd: true, reserved: true, volume: 63, duration: 65_535), [0x0A, 0xFF, 0xFF, 0xFF]),
        (TelephoneEvent(event: 0, reserved: true, volume: 0, duration: 0), [0x00, 0x40, 0x00, 0x00]),
        (TelephoneEvent(event: 15, volume: 36, duration: 0x1234), [0x0F, 0x24, 0x12, 0x34]),
        (TelephoneEvent(event: 200, volume: 5, duration: 1), [0xC8, 0x05, 0x00, 0x01]),
    ])
    func encodesAndDecodes(event: TelephoneEvent, bytes: [UInt8]) throws {
        #expect(try event.encoded() == bytes)
        #expect(try TelephoneEvent(decoding: bytes) == event)
    }

    @Test func decodesTheFirstOfSeveralEvents() throws {
        let event = try TelephoneEvent(decoding: [0x05, 0x8A, 0x03, 0x20, 0x06, 0x0A, 0x00, 0xA0])
        #expect(event == TelephoneEvent(event: 5, isEnd: true, volume: 10, duration: 800))
    }

    @Test(arguments: [[], [0x01], [0x01, 0x0A, 0x00]] as [[UInt8]])
    func refusesShortPayloads(bytes: [UInt8]) {
        #expect { try TelephoneEvent(decoding: bytes) } throws: { ($0 as? PreflightError)?.code == .truncated }
    }

    @Test func refusesAVolumeAbove63() {
        #expect { try TelephoneEvent(event: 1, volume: 64, duration: 0).encoded() } throws: {
            ($0 as? PreflightError)?.code == .invalidArgument
        }
    }

    @Test func mapsDTMFCharacters() {
        let characters: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#", "A", "B", "C", "D"]
        for (code, character) in characters.enumerated() {
            #expect(TelephoneEvent.event(for: character) == UInt8(code))
            #expect(TelephoneEvent(event: UInt8(code), duration: 0).character == character)
        }
        #expect(TelephoneEvent.event(for: "b") == 13)
        #expect(TelephoneEvent.event(for: "x") == nil)
        #expect(TelephoneEvent.event(for: "ß") == nil)
        #expect(TelephoneEvent(event: 16, duration: 0).character == nil)
    }
}
