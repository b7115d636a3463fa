/// Who holds what in an in-memory store: stored bytes and rows per account and identity, in each
/// table, so that eviction has an owner.
///
/// The rule eviction follows (``heaviest()``): the store sheds rows of the account that holds the
/// most bytes, within it of the identity that holds the most, from the table where that identity
/// holds more, oldest rows first. So one identity's flood evicts its own rows first, then its
/// account's, and another account's rows go only once it holds as much as the flooder is left
/// with. A pure value: the store keeps it beside its database and changes it with every insert and
/// delete.
///
/// Cost: an entry per identity holding rows (bounded by the store's rows); ``heaviest()`` looks at
/// every account and at the identities of one, a few microseconds for thousands, once per
/// eviction step.
struct StoreLedger: Sendable {
    /// The two tables a store keeps.
    enum Table: Sendable, Hashable {
        case reports, events
    }

    /// Whose rows: the account and identity of the access token that stored them.
    struct Owner: Sendable, Hashable {
        var account: String
        var identity: String
    }

    /// Bytes and rows held.
    struct Holding: Sendable, Hashable {
        var bytes = 0
        var rows = 0
    }

    private struct IdentityHolding {
        var reports = Holding()
        var events = Holding()
        var bytes: Int { reports.bytes + events.bytes }
    }

    private struct AccountHolding {
        var bytes = 0
        var identities: [String: IdentityHolding] = [:]
    }

    private var accounts: [String: AccountHolding] = [:]
    /// Bytes held in all.
    private(set) var totalBytes = 0
    /// Rows held in all.
    private(set) var totalRows = 0

    init() {}

    /// What `owner` holds in `table`.
    func holding(of owner: Owner, in table: Table) -> Holding {
        guard let identity = accounts[owner.account]?.identities[owner.identity] else { return Holding() }
        return table == .reports ? identity.reports : identity.events
    }

    /// Bytes `account` holds in both tables.
    func bytes(ofAccount account: String) -> Int {
        accounts[account]?.bytes ?? 0
    }

    /// Counts rows stored (`rows` > 0, `bytes` > 0) or deleted (both < 0) for `owner` in `table`.
    /// Nothing goes below zero, and an owner left with nothing is forgotten.
    /// A holding left with no rows holds no bytes either (what it counted is forgotten with the
    /// totals), so the totals never keep bytes of rows that are gone.
    mutating func record(_ owner: Owner, in table: Table, bytes: Int, rows: Int) {
        var account = accounts[owner.account] ?? AccountHolding()
        var identity = account.identities[owner.identity] ?? IdentityHolding()
        var holding = table == .reports ? identity.reports : identity.events
        let before = holding
        holding.rows = max(0, holding.rows + rows)
        holding.bytes = holding.rows == 0 ? 0 : max(0, holding.bytes + bytes)
        let byteChange = holding.bytes - before.bytes
        if table == .reports { identity.reports = holding } else { identity.events = holding }
        account.bytes = max(0, account.bytes + byteChange)
        totalBytes = max(0, totalBytes + byteChange)
        totalRows = max(0, totalRows + holding.rows - before.rows)
        if identity.reports.rows == 0, identity.events.rows == 0 {
            account.identities.removeValue(forKey: owner.identity)
        } else {
            account.identities[owner.identity] = identity
        }
        accounts[owner.account] = account.identities.isEmpty ? nil : account
    }

    /// Where eviction takes its next rows from: the heaviest account's heaviest identity, and the
    /// table where it holds more bytes; `nil` for an empty store. Ties go to the smaller name, so
    /// the choice never depends on a dictionary's order.
    func heaviest() -> (owner: Owner, table: Table)? {
        guard let (accountName, account) = accounts.max(by: { Self.lighter(($0.key, $0.value.bytes), ($1.key, $1.value.bytes)) }),
            let (identityName, identity) = account.identities.max(by: { Self.lighter(($0.key, $0.value.bytes), ($1.key, $1.value.bytes)) })
        else { return nil }
        let table: Table =
            identity.events.rows == 0 || (identity.reports.rows > 0 && identity.reports.bytes >= identity.events.bytes) ? .reports : .events
        return (Owner(account: accountName, identity: identityName), table)
    }

    /// The order of ``heaviest()``: fewer bytes, or at equal bytes the larger name, is lighter.
    private static func lighter(_ first: (name: String, bytes: Int), _ second: (name: String, bytes: Int)) -> Bool {
        first.bytes != second.bytes ? first.bytes < second.bytes : first.name > second.name
    }
}
