internal import PreflightCore
internal import PreflightNIO

extension PreflightTestRun {
    mutating func mark(_ group: ConnectionStateEvent.Group, _ name: String, at instant: ContinuousClock.Instant? = nil) {
        timeline.append(ConnectionStateEvent(group: group, name: name, timestamp: wallTime(instant ?? clock.now)))
    }

    /// Hands the test what was collected so far; the report is assembled only when read.
    func publish() {
        test.publish(draft())
    }

    func draft() -> PreflightReportDraft {
        PreflightReportDraft(
            callSid: callSid ?? "", edge: edgeName, selectedEdge: options.selectedEdge, application: application,
            selectedPair: selectedPair, timeline: timeline, warnings: warnings, samples: samples, timing: timing,
            settlement: settlement, networkChanges: networks.records, pathDiagnosis: pathDiagnosis, pathOutcome: pathOutcome,
            ice: ice, media: media)
    }

    mutating func takeSample() {
        guard phase == .media else { return }
        lastSample = clock.now
        // The media's counters are windowed on the system's clock, the packets' own.
        let sample = media.takeSample(at: .now, codec: codec)
        samples.append(sample)
        let update = warnings.ingest(sample)
        publish()
        test.emit(.sample(sample))
        if update.didChange {
            test.emit(.qualityWarnings(current: update.current, previous: update.previous))
        }
        // After the media ended nothing more is sent, reports included.
        if media.isSending { media.sendReport(at: .now) }
        if isAdaptive, mediaEnded == nil, settlement == nil {
            let (record, judgement) = judgeVerdict()
            // At the maximum every rule counts as ruled out: what kept the test open is the judgement before.
            if Double(samples.count) < options.duration.maximum.inSeconds { lastJudgement = judgement }
            if record.settled {
                settlement = record
                // The benchmark's mode goes on to the maximum, whose timer ends it.
                if !options.continuesAfterSettling { inputs.yield(.testEnded) }
            }
        }
    }

    /// Whether this test ends when its verdict settles: an adaptive duration on the echo
    /// application (record-playback lasts as long as the edge's application).
    var isAdaptive: Bool {
        options.duration.isAdaptive && application != TestApplication.recordPlayback.rawValue
    }

    /// The verdict as the evidence stands, as the report records it (one read of the meter), and
    /// the judgement it records. A record the maximum ended takes what kept it open from
    /// ``lastJudgement``, the last one before.
    func judgeVerdict() -> (VerdictSettlement, VerdictJudgement) {
        let meter = media.meter
        let maximum = options.duration.maximum.inSeconds
        let judge = VerdictJudge(maximumSamples: Int(min(max(maximum, 1), 86_400)))
        let probes = ice.lossProbeFates()
        let judgement = judge.judge(VerdictEvidence(
            samples: samples, roundTrips: meter.roundTrips, roundTripLoss: meter.roundTripLoss, probes: probes,
            raised: Set(warnings.raisedRecords.compactMap { QualityWarning(rawValue: $0.name) })))
        let record = judgement.settlement(
            afterSeconds: Double(samples.count), maximumSeconds: maximum, roundTripLoss: meter.roundTripLoss, probes: probes,
            before: lastJudgement)
        return (record, judgement)
    }

    /// The closing sample, unless a tick took one within half a second of the media's end:
    /// one sample a second.
    mutating func takeFinalSample() {
        if let last = lastSample, (mediaEnded ?? clock.now) - last < .milliseconds(500) { return }
        takeSample()
    }

    mutating func finalReport() -> PreflightReport {
        phase = .ended
        networks.finish(now: PreflightTest.nowMilliseconds())
        closeTimeline()
        return draft().assemble()
    }

    /// The closing states of the timeline (unless a failure already ended it).
    mutating func closeTimeline() {
        guard timeline.last?.name != "closed" else { return }
        if callOpen || phase == .ended || phase == .media {
            mark(.iceConnectionState, "closed")
            mark(.peerConnectionState, "closed")
            mark(.signalingState, "closed")
        }
    }
}

/// What a preflight test's report is made of while it runs: copies of the run's records (arrays
/// shared, not copied, until changed) and the ICE driver and media session the rest is read
/// from. Handing it over is cheap; the report is assembled from it once, when read or at the end.
struct PreflightReportDraft: Sendable {
    var callSid: String
    var edge: String
    var selectedEdge: String
    var application: String?
    var selectedPair: ICECandidatePairStats?
    var timeline: [ConnectionStateEvent]
    var warnings: WarningsEngine
    var samples: [StatsSample]
    var timing: NetworkTiming
    var settlement: VerdictSettlement?
    var networkChanges: [NetworkChangeRecord]
    var pathDiagnosis: PathDiagnosisRun?
    var pathOutcome: PathProbeOutcome?
    let ice: ICEAgentDriver
    let media: MediaSession

    func assemble() -> PreflightReport {
        let records = ice.records()
        let meter = media.meter
        var report = PreflightReport(
            callSid: callSid, edge: edge, selectedEdge: selectedEdge, iceCandidates: records.candidates,
            selectedIceCandidatePair: selectedPair, warnings: warnings.raisedRecords, warningsCleared: warnings.clearedRecords,
            networkTiming: timing, isTurnRequired: selectedPair.map(\.usesRelay))
        report.setSamples(samples)
        // Totals from everything received, including what arrived after the last sample.
        if report.uplink != nil, let uplink = meter.uplinkTotals {
            report.uplink?.setTotals(expected: Int(uplink.expected), lost: max(0, Int(uplink.expected) - Int(uplink.received)))
        }
        if report.downlink != nil, meter.downlink.expected > 0 {
            report.downlink?.setTotals(expected: meter.downlink.expected, lost: meter.downlink.lost)
        }
        report.application = application
        // The agent's entries come through a stream, the run's own are written at once: order
        // them by time (a stable sort keeps the order of entries of the same millisecond).
        report.timeline = timeline.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
        report.iceCandidatePairs = records.pairs
        report.iceCandidateErrors = records.candidateErrors
        report.verdictSettlement = settlement
        report.networkChanges = networkChanges
        if let pathDiagnosis, let pathOutcome { report.pathDiagnosis = pathDiagnosis.diagnosis(pathOutcome, report: report) }
        return report
    }
}
