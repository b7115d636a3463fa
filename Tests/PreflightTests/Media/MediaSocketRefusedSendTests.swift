import NIOCore
import PreflightCore
import PreflightNIO
import PreflightTesting
import Synchronization
import Testing

/// A send the system refuses closes a NIO datagram channel (every error but `EMSGSIZE` and
/// `EHOSTUNREACH`): a host that lost its only network refuses every send with `ENETUNREACH`, and
/// a call's sockets must still work when the network comes back. Here the refusal is a broadcast
/// address without `SO_BROADCAST` (`EACCES`, refused before anything leaves the host): the
/// socket is bound again on its port and keeps receiving; ``MediaSocket/close()`` ends it for good.
@Suite(.realTime) struct MediaSocketRefusedSendTests {
    /// Its owner hears of each rebind (a network's ICE checks then go again at once).
    @Test func theOwnerIsToldEachTimeTheSocketIsBoundAgain() async throws {
        let rebinds = Mutex(0)
        let socket = try await MediaSocket.bind(host: "127.0.0.1", rebound: { rebinds.withLock { $0 += 1 } }) { _ in }
        let first = socket.channel
        #expect(rebinds.withLock { $0 } == 0)
        socket.send([1], to: try SocketAddress(ipAddress: "255.255.255.255", port: 9))
        #expect(await eventually { socket.channel !== first && socket.channel.isActive && rebinds.withLock { $0 } == 1 })
        await socket.close()
        #expect(rebinds.withLock { $0 } == 1)
    }

    @Test func aRefusedSendDoesNotEndTheSocket() async throws {
        let received = Mutex<[[UInt8]]>([])
        let socket = try await MediaSocket.bind(host: "127.0.0.1") { datagram in
            received.withLock { $0.append(Array(buffer: datagram.data)) }
        }
        let port = try #require(socket.localAddress?.port)
        let first = socket.channel
        socket.send([1], to: try SocketAddress(ipAddress: "255.255.255.255", port: 9))
        #expect(await eventually { !first.isActive }, "the refused send did not close the channel: nothing to heal")
        #expect(await eventually { socket.channel !== first && socket.channel.isActive }, "not bound again")
        #expect(socket.localAddress?.port == port)
        // It receives on the same port.
        let peer = try await MediaSocket.bind(host: "127.0.0.1") { _ in }
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        #expect(await eventually {
            peer.send([7, 7], to: target)
            return received.withLock { $0.contains([7, 7]) }
        })
        // Closed on purpose, it stays closed.
        let last = socket.channel
        await socket.close()
        #expect(!last.isActive)
        #expect(socket.channel === last)
        await peer.close()
    }
}
