extension EModel {
    /// A codec's equipment impairment parameters (ITU-T G.113 Appendix I values).
    public struct Codec: Sendable, Hashable, Codable {
        /// Equipment impairment factor Ie without loss.
        public var equipmentImpairment: Double
        /// Packet-loss robustness factor Bpl.
        public var packetLossRobustness: Double

        /// Creates codec parameters.
        public init(equipmentImpairment: Double, packetLossRobustness: Double) {
            self.equipmentImpairment = equipmentImpairment
            self.packetLossRobustness = packetLossRobustness
        }

        /// G.711 with packet-loss concealment (G.711 Appendix I): Ie 0, Bpl 25.1.
        public static let g711WithPLC = Codec(equipmentImpairment: 0, packetLossRobustness: 25.1)
        /// G.711 without concealment: Ie 0, Bpl 4.3.
        public static let g711 = Codec(equipmentImpairment: 0, packetLossRobustness: 4.3)
    }
}
