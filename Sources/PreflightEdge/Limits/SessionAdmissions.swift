import PreflightCore

/// Counts the signaling sessions a token has opened: in all, per account and per identity, each
/// against its limit. A session is admitted only once its `hello` carried a valid token, so
/// connections that never authenticate hold no slot (they are bounded by the HTTP connection
/// limits and the signaling timeout instead).
public struct SessionAdmissions: Sendable {
    /// The limits: sessions in all, per account, per identity of an account.
    public struct Limits: Sendable, Hashable {
        /// Sessions in all; 1000 by default.
        public var total: Int
        /// Sessions of one account (the token's `sub`); 500 by default.
        public var perAccount: Int
        /// Sessions of one identity of one account; 5 by default (a user runs one test at a time;
        /// a few more cover retries while the edge notices a dead connection).
        public var perIdentity: Int

        /// Creates limits; see each property for its default.
        public init(total: Int = 1000, perAccount: Int = 500, perIdentity: Int = 5) {
            self.total = total
            self.perAccount = perAccount
            self.perIdentity = perIdentity
        }
    }

    /// Who holds a slot: released with ``release(_:)``, once (a second release changes nothing).
    public struct Holder: Sendable, Hashable {
        /// The account sid.
        public let account: String
        /// The identity within the account.
        public let identity: String
        /// Tells this admission apart from the same identity's others.
        let serial: Int
    }

    struct Member: Hashable {
        var account: String
        var identity: String
    }

    /// The limits in force.
    public let limits: Limits
    /// Sessions admitted now.
    public private(set) var total = 0
    private var accounts: [String: Int] = [:]
    private var identities: [Member: Int] = [:]
    private var live: Set<Int> = []
    private var nextSerial = 0

    /// No sessions yet.
    public init(limits: Limits) {
        self.limits = limits
    }

    /// Admits a session of `identity` in `account`, or says which limit refuses it.
    /// - Throws: ``PreflightError`` 70101 (``PreflightError/Code/edgeAtCapacity``) when the edge is
    ///   full, 70104 (``PreflightError/Code/sessionLimitReached``) when the account or identity is.
    public mutating func admit(account: String, identity: String) throws(PreflightError) -> Holder {
        let member = Member(account: account, identity: identity)
        guard total < limits.total else {
            throw PreflightError(code: .edgeAtCapacity, message: "edge at capacity: \(limits.total) sessions")
        }
        guard accounts[account, default: 0] < limits.perAccount else {
            throw PreflightError(
                code: .sessionLimitReached,
                message: "account \(UntrustedText.quoted(account)) holds its maximum of \(limits.perAccount) sessions")
        }
        guard identities[member, default: 0] < limits.perIdentity else {
            throw PreflightError(
                code: .sessionLimitReached,
                message: "identity \(UntrustedText.quoted(identity)) holds its maximum of \(limits.perIdentity) sessions")
        }
        total += 1
        accounts[account, default: 0] += 1
        identities[member, default: 0] += 1
        nextSerial += 1
        live.insert(nextSerial)
        return Holder(account: account, identity: identity, serial: nextSerial)
    }

    /// Frees the slot `holder` was admitted with.
    public mutating func release(_ holder: Holder) {
        guard live.remove(holder.serial) != nil else { return }
        let member = Member(account: holder.account, identity: holder.identity)
        total -= 1
        let held = identities[member, default: 1]
        identities[member] = held > 1 ? held - 1 : nil
        let account = accounts[holder.account, default: 1]
        accounts[holder.account] = account > 1 ? account - 1 : nil
    }

    /// Sessions `account` holds now.
    public func sessions(ofAccount account: String) -> Int { accounts[account, default: 0] }
}
