import FuzzSupport
import PreflightCore

// RFC 4733 telephone events. Properties: a decoded event re-encodes to the payload's first four
// bytes; a receiver fed arbitrary (timestamp, payload) records reports an end only after the
// start of the same event, at most two reports per packet, and never the same event twice among
// its remembered ones; and the input read as a digit string, when the sender accepts it, gives
// packets from which a receiver reports every digit exactly once, start and end, in order.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTelephoneEvent(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    if let event = try? TelephoneEvent(decoding: input) {
        precondition((try? event.encoded()) == Array(input.prefix(4)), "a decoded event re-encodes differently")
    }

    var receiver = DTMFReceiver()
    var started: [UInt32] = []
    var index = 0
    while index + 8 <= input.count {
        let timestamp = input[index..<index + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let reports = try? receiver.receive(timestamp: timestamp, payload: input[(index + 4)..<(index + 8)]) else {
            preconditionFailure("a 4-byte payload was refused")
        }
        precondition(reports.count <= 2, "more than two reports for one packet")
        for report in reports {
            switch report {
            case .started(_, let stamp):
                precondition(!started.suffix(DTMFReceiver.rememberedEventCount).contains(stamp), "event \(stamp) started twice")
                started.append(stamp)
            case .ended(_, let stamp, _):
                precondition(started.last(where: { $0 == stamp }) != nil, "event \(stamp) ended before it started")
            }
        }
        index += 8
    }
    if input.count < TelephoneEvent.encodedSize {
        precondition((try? receiver.receive(timestamp: 0, payload: input[...])) == nil, "a short payload was accepted")
    }

    if let digits = String(validating: input, as: UTF8.self),
        let sender = try? DTMFSender(digits: digits, startTime: 0, startTimestamp: UInt32(truncatingIfNeeded: count))
    {
        var fresh = DTMFReceiver()
        var reports: [DTMFReceiver.Report] = []
        for packet in sender.schedule {
            guard let more = try? fresh.receive(timestamp: packet.timestamp, payload: packet.payload[...]) else {
                preconditionFailure("the receiver refused the sender's packet")
            }
            reports += more
        }
        let played = digits.filter { $0 != DTMFSender.pauseCharacter }
        precondition(reports.count == 2 * played.count, "reports do not match the digits")
        precondition(reports.compactMap(\.character) == played.flatMap { [$0, $0] }, "reported digits differ from the sent ones")
    }
    return 0
}

@_cdecl("FuzzTelephoneEvent_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzTelephoneEvent)
}
