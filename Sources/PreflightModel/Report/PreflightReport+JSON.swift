import Foundation

extension PreflightReport {
    /// The report as JSON in the reference shape, keys sorted so that equal reports give equal bytes.
    /// - Parameter prettyPrinted: indent for people to read; compact otherwise.
    public func jsonData(prettyPrinted: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
        return try encoder.encode(self)
    }

    /// Decodes a report from JSON in the reference shape.
    /// - Throws: ``PreflightError`` with code ``PreflightError/Code/malformed`` and the decoder's
    ///   explanation as `underlying` when the JSON is not a report.
    public init(jsonData: Data) throws(PreflightError) {
        do {
            self = try JSONDecoder().decode(PreflightReport.self, from: jsonData)
        } catch {
            throw PreflightError(code: .malformed, message: "report: not a valid report JSON", underlying: error)
        }
    }
}
