import NIOCore
import NIOPosix
import PreflightCore
import PreflightEdge
import Testing

/// ``MediaService/Configuration/threads``: several `SO_REUSEPORT` sockets on one port, real
/// sockets on loopback. The kernel spreads sources over the sockets by address, so every source
/// being answered shows that each socket serves; closing the endpoint frees the port. Both ways
/// of serving the sockets: threads of their own (`recvmmsg`/`sendmmsg`) and event loops.
@Suite struct MediaThreadsTests {
    typealias Datagrams = NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>

    @Test(arguments: [1, 2, 4], [MediaService.Configuration.IO.dedicatedThreads, .eventLoop])
    func everySourceIsAnsweredWhicheverSocketItReaches(threads: Int, io: MediaService.Configuration.IO) async throws {
        let service = MediaService(configuration: .init(threads: threads, io: io))
        let group = MultiThreadedEventLoopGroup.singleton
        let server = try await service.bind(host: "127.0.0.1", port: 0, group: group)
        let serverAddress = server.localAddress
        let sources = 40
        let answered = try await withThrowingTaskGroup(of: Bool?.self) { tasks in
            for _ in 0..<sources {
                tasks.addTask {
                    let client = try await DatagramBootstrap(group: group).bind(host: "127.0.0.1", port: 0) { channel in
                        channel.eventLoop.makeCompletedFuture { try Datagrams(wrappingChannelSynchronously: channel) }
                    }
                    return try await client.executeThenClose { inbound, outbound in
                        let request = STUNMessage(type: .bindingRequest, attributes: [])
                        try await outbound.write(AddressedEnvelope(remoteAddress: serverAddress, data: ByteBuffer(bytes: try request.encoded())))
                        var replies = inbound.makeAsyncIterator()
                        guard let reply = try await replies.next() else { return false }
                        return (try? STUNMessage(decoding: Array(reply.data.readableBytesView)))?.transactionID == request.transactionID
                    }
                }
            }
            // Loopback loses nothing at this rate; a deadline keeps a lost datagram from hanging the test.
            tasks.addTask {
                try await Task.sleep(for: .seconds(10))
                return nil
            }
            var answered = 0
            var finished = 0
            for try await outcome in tasks {
                guard let outcome else { break }
                if outcome { answered += 1 }
                finished += 1
                if finished == sources { break }
            }
            tasks.cancelAll()
            return answered
        }
        #expect(answered == sources)
        #expect(service.counters.bindingsAnswered == sources)
        await server.close()
        // Every socket of the port closes with the first: a plain bind to it succeeds again.
        var rebound: (any Channel)?
        for _ in 0..<50 where rebound == nil {
            rebound = try? await DatagramBootstrap(group: group).bind(host: "127.0.0.1", port: serverAddress.port ?? 0).get()
            if rebound == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(rebound != nil)
        try await rebound?.close()
    }
}
