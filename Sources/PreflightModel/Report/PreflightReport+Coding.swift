extension PreflightReport {
    enum CodingKeys: String, CodingKey {
        case callSid, edge, selectedEdge, iceCandidates, selectedIceCandidatePair, networkStats, statsSamples
        case callQuality, warnings, warningsCleared, networkTiming, isTurnRequired
        case application, uplink, downlink, eModelMOS, error, timeline, networkChanges, iceCandidatePairs, iceCandidateErrors, edgeSelection
        case verdictSettlement, pathDiagnosis
    }

    /// Decodes a report. Missing arrays and objects decode as empty; `isTurnRequired` is read
    /// from a string (`"true"`/`"false"`, as the reference report writes it) or a JSON boolean.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        callSid = try container.decodeIfPresent(String.self, forKey: .callSid) ?? ""
        edge = try container.decodeIfPresent(String.self, forKey: .edge) ?? ""
        selectedEdge = try container.decodeIfPresent(String.self, forKey: .selectedEdge) ?? ""
        iceCandidates = try container.decodeIfPresent([ICECandidateStats].self, forKey: .iceCandidates) ?? []
        selectedIceCandidatePair = try container.decodeIfPresent(
            ICECandidatePairStats.self, forKey: .selectedIceCandidatePair)
        networkStats = try container.decodeIfPresent(NetworkStats.self, forKey: .networkStats) ?? NetworkStats()
        statsSamples = try container.decodeIfPresent([StatsSample].self, forKey: .statsSamples) ?? []
        callQuality = try container.decodeIfPresent(CallQuality.self, forKey: .callQuality)
        warnings = try container.decodeIfPresent([WarningRecord].self, forKey: .warnings) ?? []
        warningsCleared = try container.decodeIfPresent([ClearedWarningRecord].self, forKey: .warningsCleared) ?? []
        networkTiming = try container.decodeIfPresent(NetworkTiming.self, forKey: .networkTiming) ?? NetworkTiming()
        if let text = try? container.decodeIfPresent(String.self, forKey: .isTurnRequired) {
            switch text {
            case "true": isTurnRequired = true
            case "false": isTurnRequired = false
            default:
                throw DecodingError.dataCorruptedError(
                    forKey: .isTurnRequired, in: container,
                    debugDescription: "isTurnRequired must be \"true\" or \"false\", got \"\(text)\"")
            }
        } else {
            isTurnRequired = try container.decodeIfPresent(Bool.self, forKey: .isTurnRequired)
        }
        application = try container.decodeIfPresent(String.self, forKey: .application)
        uplink = try container.decodeIfPresent(DirectionSummary.self, forKey: .uplink)
        downlink = try container.decodeIfPresent(DirectionSummary.self, forKey: .downlink)
        eModelMOS = try container.decodeIfPresent(MetricStats.self, forKey: .eModelMOS)
        error = try container.decodeIfPresent(ReportError.self, forKey: .error)
        timeline = try container.decodeIfPresent([ConnectionStateEvent].self, forKey: .timeline) ?? []
        networkChanges = try container.decodeIfPresent([NetworkChangeRecord].self, forKey: .networkChanges) ?? []
        iceCandidatePairs = try container.decodeIfPresent([ICECandidatePairRecord].self, forKey: .iceCandidatePairs) ?? []
        iceCandidateErrors = try container.decodeIfPresent([ICECandidateErrorRecord].self, forKey: .iceCandidateErrors) ?? []
        edgeSelection = try container.decodeIfPresent(EdgeSelection.self, forKey: .edgeSelection)
        verdictSettlement = try container.decodeIfPresent(VerdictSettlement.self, forKey: .verdictSettlement)
        pathDiagnosis = try container.decodeIfPresent(PathDiagnosis.self, forKey: .pathDiagnosis)
    }

    /// Encodes the report in the reference shape (`isTurnRequired` as a string, omitted when `nil`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(callSid, forKey: .callSid)
        try container.encode(edge, forKey: .edge)
        try container.encode(selectedEdge, forKey: .selectedEdge)
        try container.encode(iceCandidates, forKey: .iceCandidates)
        try container.encodeIfPresent(selectedIceCandidatePair, forKey: .selectedIceCandidatePair)
        try container.encode(networkStats, forKey: .networkStats)
        try container.encode(statsSamples, forKey: .statsSamples)
        try container.encodeIfPresent(callQuality, forKey: .callQuality)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(warningsCleared, forKey: .warningsCleared)
        try container.encode(networkTiming, forKey: .networkTiming)
        try container.encodeIfPresent(isTurnRequired.map { $0 ? "true" : "false" }, forKey: .isTurnRequired)
        try container.encodeIfPresent(application, forKey: .application)
        try container.encodeIfPresent(uplink, forKey: .uplink)
        try container.encodeIfPresent(downlink, forKey: .downlink)
        try container.encodeIfPresent(eModelMOS, forKey: .eModelMOS)
        try container.encodeIfPresent(error, forKey: .error)
        // Added arrays are omitted while empty, so a report without ICE details keeps the reference shape.
        if !timeline.isEmpty { try container.encode(timeline, forKey: .timeline) }
        if !networkChanges.isEmpty { try container.encode(networkChanges, forKey: .networkChanges) }
        if !iceCandidatePairs.isEmpty { try container.encode(iceCandidatePairs, forKey: .iceCandidatePairs) }
        if !iceCandidateErrors.isEmpty { try container.encode(iceCandidateErrors, forKey: .iceCandidateErrors) }
        try container.encodeIfPresent(edgeSelection, forKey: .edgeSelection)
        try container.encodeIfPresent(verdictSettlement, forKey: .verdictSettlement)
        try container.encodeIfPresent(pathDiagnosis, forKey: .pathDiagnosis)
    }
}
