import FuzzSupport
import PreflightCore

// The network monitor's netlink parser and the state behind it. The input is split at each 0xFF
// 0xFE 0xFD 0xFC marker into datagrams. Properties: parsing never traps and yields at most the
// per-datagram maximum of messages, each name and kind within the text limit; a session fed the
// datagrams publishes nothing before both its dumps ended (their NLMSG_DONE answer its own
// requests' sequence numbers, so a datagram may end them), every snapshot it gives lists
// networks with at least one address and no more interfaces than the table's limit; and the
// input read as text either parses as network-type overrides, each entry then matching its own
// exact name, or is refused with invalidArgument.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNetlink(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(fuzzInput(data, count))
    var datagrams: [ArraySlice<UInt8>] = []
    var start = 0
    var index = 0
    while index + 4 <= input.count {
        if input[index] == 0xFF, input[index + 1] == 0xFE, input[index + 2] == 0xFD, input[index + 3] == 0xFC {
            datagrams.append(input[start..<index])
            start = index + 4
            index += 4
        } else {
            index += 1
        }
    }
    datagrams.append(input[start...])

    for datagram in datagrams {
        guard let messages = try? NetlinkRouteMessage.parse(datagram) else { continue }
        precondition(messages.count <= NetlinkRouteMessage.maximumMessagesPerDatagram, "too many messages")
        for case .link(let link) in messages {
            precondition((link.name?.utf8.count ?? 0) <= 3 * NetlinkRouteMessage.maximumTextLength, "a name beyond the limit")
            precondition((link.kind?.utf8.count ?? 0) <= 3 * NetlinkRouteMessage.maximumTextLength, "a kind beyond the limit")
        }
    }

    var session = NetlinkMonitorSession { link in link.isLoopback ? .loopback : .ethernet }
    session.start()
    var requests = 0
    for datagram in datagrams {
        session.receive(datagram)
        for output in session.takeOutputs() {
            switch output {
            case .send: requests += 1
            case .snapshot(let snapshot):
                precondition(session.isReady && requests >= 2, "a snapshot before the dumps ended")
                precondition(snapshot.networks.count <= NetworkInterfaceTable.maximumInterfaces, "more networks than the limit")
                precondition(snapshot.networks.allSatisfy { !$0.addresses.isEmpty }, "a network without an address")
            }
        }
    }

    if let text = String(validating: input, as: UTF8.self) {
        do throws(PreflightError) {
            let overrides = try NetworkTypeOverrides(parsing: text)
            for entry in overrides.entries where !entry.pattern.hasSuffix("*") {
                precondition(overrides.type(of: entry.pattern) != nil, "an entry does not match its own name")
            }
        } catch {
            precondition(error.code == .invalidArgument, "overrides refused with \(error.code)")
        }
    }
    return 0
}

@_cdecl("FuzzNetlink_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzNetlink)
}
