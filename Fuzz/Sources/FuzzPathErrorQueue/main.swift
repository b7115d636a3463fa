import FuzzSupport
import PreflightCore

// The path diagnosis's error-queue reader, its ICMP datagram reader (Apple's), and the address
// text it hands on. The first byte picks
// the word size (even: 8, odd: 4), the next two the control buffer's length; the rest is the
// control buffer and then the quoted payload. Properties: reading never traps; an error read has
// an offender whose text parses back as an address of 4 or 16 bytes, and a transaction ID exactly
// when the payload starts with a STUN Binding request; a verdict over observations answered by
// that offender never traps and keeps its hops; and the input read as text either parses as an
// address block, which then contains its own address, or is refused with 71002.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPathErrorQueue(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    if input.count >= 3 {
        let wordSize = input[0] % 2 == 0 ? 8 : 4
        let length = min(input.count - 3, Int(input[1]) << 8 | Int(input[2]))
        let control = Array(input[3..<(3 + length)])
        let payload = input[(3 + length)...]
        if let report = ICMPErrorReport(control: control, payload: payload, wordSize: wordSize) {
            let bytes = IPNetwork.addressBytes(report.offender)
            precondition(bytes?.count == 4 || bytes?.count == 16, "an offender that is no address: \(report.offender)")
            precondition((report.transactionID != nil) == (ICMPErrorReport.probeTransactionID(payload) != nil), "the probe's ID misread")
            let hops = [
                PathProber.HopObservation(ttl: 1, sent: Int(input[1]) + 1, roundTrips: [0.001], answerers: [report.offender: 1]),
                PathProber.HopObservation(ttl: 2, sent: 3, roundTrips: [0.002, 0.0025], answerers: [report.offender: 2], reachedDestination: true),
            ]
            let diagnosis = PathVerdict().diagnose(
                hops: hops, destinationAddress: report.offender, destination: .init(lossUp: 0.1, lossDown: 0.02, jitter: 12, packets: 900),
                localNetwork: .wifi, probesSent: 4, answersReceived: 3)
            precondition(diagnosis.hops.count == 2, "the verdict dropped hops")
        }
    }
    // The Apple backend's reader: an ICMP datagram socket's read, IPv4 and ICMPv6.
    for ipv6 in [false, true] {
        if let message = ICMPMessage(parsing: input, ipv6: ipv6) {
            precondition(IPNetwork.addressBytes(message.quotedDestination)?.count == (ipv6 ? 16 : 4), "a quoted destination that is no address")
        }
    }
    if let text = String(validating: input, as: UTF8.self) {
        do {
            let block = try IPNetwork(text)
            let address = String(text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)[0])
            precondition(block.contains(address), "\(text) does not contain its own address")
        } catch {
            precondition(error.code == .invalidPathDiagnosisOption, "refused with \(error.code)")
        }
    }
    return 0
}

@_cdecl("FuzzPathErrorQueue_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzPathErrorQueue)
}
