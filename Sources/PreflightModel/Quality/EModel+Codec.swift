extension EModel {
    /// A codec's equipment impairment parameters (ITU-T G.113 Appendix I values).
    package struct Codec: Sendable, Hashable, Codable {
        /// Equipment impairment factor Ie without loss.
        package var equipmentImpairment: Double
        /// Packet-loss robustness factor Bpl.
        package var packetLossRobustness: Double

        /// Creates codec parameters.
        package init(equipmentImpairment: Double, packetLossRobustness: Double) {
            self.equipmentImpairment = equipmentImpairment
            self.packetLossRobustness = packetLossRobustness
        }

        /// G.711 with packet-loss concealment (G.711 Appendix I): Ie 0, Bpl 25.1.
        package static let g711WithPLC = Codec(equipmentImpairment: 0, packetLossRobustness: 25.1)
        /// G.711 without concealment: Ie 0, Bpl 4.3.
        package static let g711 = Codec(equipmentImpairment: 0, packetLossRobustness: 4.3)
    }
}
