import Foundation
import Logging
import PreflightCore
import Synchronization

extension EdgeServer {
    /// Drains the edge before it stops (SIGTERM with ``EdgeConfiguration/drainLimit``): a new
    /// session is refused with 70109 (`edgeDraining`), a session in no call is told the same
    /// and closed (its client registers on another edge), a session in a call is closed when the
    /// call ends; the other edges see the edge draining. At the drain limit every call still up
    /// ends (a hangup with 70109 to both parties). Returns once no session is left, or a moment
    /// after the limit.
    func drain() async {
        guard !draining.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let start = ContinuousClock.now
        logger.info("edge draining", metadata: ["sessions": "\(sessionCount)", "limit": "\(configuration.drainLimit)"])
        await clusterBus?.markDraining()
        post(.draining(limitReached: false))
        while sessionCount > 0, ContinuousClock.now - start < configuration.drainLimit {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if sessionCount > 0 {
            post(.draining(limitReached: true))
            // The hangups reach the other edges' parties through the bus before it stops.
            let ending = ContinuousClock.now
            while sessionCount > 0, ContinuousClock.now - ending < .seconds(1) {
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        try? await Task.sleep(for: .milliseconds(200))
        logger.info("edge drained", metadata: ["after": "\(ContinuousClock.now - start)", "sessionsLeft": "\(sessionCount)"])
    }

    private func post(_ event: SignalingSession.Event) {
        for inbox in liveSessions.withLock({ Array($0.values) }) { inbox.post(event) }
    }
}
