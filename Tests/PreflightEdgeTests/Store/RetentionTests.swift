import Foundation
import Logging
import PreflightCore
@testable import PreflightEdge
import Testing

/// `--retention-days` on a running edge: the sweep deletes what is older than the retention.
@Suite struct RetentionTests {
    @Test func theSweepDeletesReportsOlderThanTheRetention() async throws {
        try await LocalEdge.withRunning { edge in
            let store = edge.server.store
            let now = ReportStore.now()
            try await store.insert(StoreHarness.report(sid: "OLD", account: LocalEdge.accountSID, receivedAt: now - 3 * 86_400_000))
            try await store.insert(StoreHarness.report(sid: "NEW", account: LocalEdge.accountSID, receivedAt: now - 3_600_000))
            await edge.server.sweep(retention: .seconds(2 * 86_400))
            let left = try await store.reports(account: LocalEdge.accountSID, filter: ReportFilter()).reports.map(\.sid)
            #expect(left == ["NEW"])
        }
    }
}
