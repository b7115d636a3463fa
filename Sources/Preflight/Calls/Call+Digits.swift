import PreflightModel
internal import PreflightCore
import Synchronization

extension Call {
    /// Sends a string of digits as RFC 4733 telephone events in the call's audio stream: `0`–`9`,
    /// `*` and `#`, each 100 ms with 50 ms between, and `w` for a 500 ms pause. The other party
    /// receives them as ``CallEvent/digitReceived(_:)``. Has no effect unless the call is
    /// ``CallState/connected`` ("Calling this method on a TVOCall that is not in the state
    /// TVOCallStateConnected has no effect").
    /// - Throws: ``PreflightError`` 70005 for any other character (named in the message) or more
    ///   than 256 characters.
    public func sendDigits(_ digits: String) throws(PreflightError) {
        // The whole string is checked before anything plays.
        _ = try DTMFSender(digits: digits, startTime: 0, startTimestamp: 0)
        guard state == .connected else { return }
        audio.digits.withLock { $0.append(digits) }
    }
}
