/// What ``VerdictJudge`` concluded from the evidence at one instant.
public struct VerdictJudgement: Sendable, Hashable {
    /// Whether the callQuality band is decided and every warning raised or ruled out.
    public var settled: Bool
    /// The band the bounds decide, when they decide one.
    public var band: CallQuality?
    /// One-sided 95 % lower bound of the expected mean MOS.
    public var meanMOSLower: Double
    /// One-sided 95 % upper bound of the expected mean MOS.
    public var meanMOSUpper: Double
    /// The warnings the rules raised.
    public var raised: [QualityWarning]
    /// The warnings ruled out at 95 % (the rules would not raise them within the maximum).
    public var ruledOut: [QualityWarning]
    /// The warnings neither raised nor ruled out.
    public var undecided: [QualityWarning]
    /// Why, in words.
    public var reason: String
    /// What keeps the verdict open, one plain-words question a subject (empty when nothing does).
    public var openQuestions: [OpenQuestion] = []

    /// One thing a judgement could not decide, in plain words.
    public struct OpenQuestion: Sendable, Hashable {
        /// What is open.
        public enum Subject: Sendable, Hashable {
            /// The callQuality band: the bands the evidence still spans, best first.
            case band([CallQuality])
            /// A warning neither raised nor ruled out.
            case warning(QualityWarning)
            /// Too little evidence for any verdict yet.
            case evidence
        }

        /// What is open.
        public var subject: Subject
        /// Why, e.g. "mean MOS 4.21 ± 0.03: between excellent and great (the 4.2 edge is inside its 95 % bounds)".
        public var words: String

        /// Whether `other` asks about the same thing (the band, the same warning, the evidence).
        func isAbout(_ other: Subject) -> Bool {
            switch (subject, other) {
            case (.band, .band), (.evidence, .evidence): true
            case (.warning(let mine), .warning(let theirs)): mine == theirs
            default: false
            }
        }
    }

    /// The report's record of this judgement, made when the test ended on it (or at its maximum).
    ///
    /// `previous` is the last judgement before the maximum, for a test the maximum ended: at the
    /// maximum no window of a rule is left, so every warning counts as ruled out, and what kept
    /// the test open is that judgement's question (this one's, where it asks the same thing).
    public func settlement(
        afterSeconds: Double, maximumSeconds: Double, roundTripLoss: RoundTripLoss, probes: ProbeFates = ProbeFates(),
        before previous: VerdictJudgement? = nil
    ) -> VerdictSettlement {
        var unsettled: UnsettledVerdict?
        if !settled {
            var questions = openQuestions
            for question in previous?.openQuestions ?? [] where !questions.contains(where: { $0.isAbout(question.subject) }) {
                questions.append(question)
            }
            if !questions.isEmpty { unsettled = Self.unsettledVerdict(questions) }
        }
        return VerdictSettlement(
            settled: settled, afterSeconds: afterSeconds, maximumSeconds: maximumSeconds, meanMOSLower: meanMOSLower,
            meanMOSUpper: meanMOSUpper, roundTrips: roundTripLoss.decided, roundTripsLost: roundTripLoss.lost,
            warningsRaised: raised, warningsRuledOut: ruledOut, warningsUndecided: undecided,
            reason: settled ? reason : "the maximum of \(Int(maximumSeconds)) s was reached before the verdict settled: \(reason)",
            callQuality: settled ? band : nil, unsettled: unsettled,
            lossProbes: probes.sent > 0 ? probes.decided : nil, lossProbesLost: probes.sent > 0 ? probes.lost : nil)
    }

    /// The questions as the report's record: the band first, then the warnings, then the evidence.
    static func unsettledVerdict(_ questions: [OpenQuestion]) -> UnsettledVerdict {
        func rank(_ question: OpenQuestion) -> Int {
            switch question.subject {
            case .band: 0
            case .warning(let warning): 1 + (QualityWarning.allCases.firstIndex(of: warning) ?? 0)
            case .evidence: 100
            }
        }
        let ordered = questions.sorted { rank($0) < rank($1) }
        var bands: [CallQuality] = []
        var warnings: [QualityWarning] = []
        for question in ordered {
            switch question.subject {
            case .band(let spanned): bands = spanned
            case .warning(let warning): warnings.append(warning)
            case .evidence: break
            }
        }
        return UnsettledVerdict(bands: bands, warnings: warnings, summary: ordered.map(\.words).joined(separator: "; "))
    }
}
