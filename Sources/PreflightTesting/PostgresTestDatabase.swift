import Foundation
import PreflightCore
import PreflightEdge

/// A PostgreSQL database and role of a test's own, on the local server (Debian's `postgresql`,
/// which `.ci/run` starts): made with `runuser -u postgres -- psql`, reached over TCP on
/// 127.0.0.1 with a password, dropped by ``drop()``.
///
/// ```swift
/// @Suite(.enabled(if: PostgresTestDatabase.canRun, Comment(rawValue: PostgresTestDatabase.skipReason)))
/// …
/// let database = try await PostgresTestDatabase.create()
/// defer { database.drop() }
/// configuration.store = database.location
/// ```
public struct PostgresTestDatabase: Sendable {
    /// The database and role name.
    public let name: String
    /// Where an edge finds it.
    public let location: StoreLocation
    /// The same as text, for `--database`.
    public let url: String

    /// Whether PostgreSQL tests run: always under CI (a missing server fails them), elsewhere
    /// as root with `psql` and a server that answers.
    public static var canRun: Bool {
        if ExternalTool.isCI { return true }
        guard ExternalTool.isRoot, ExternalTool.isAvailable("psql"), ExternalTool.isAvailable("runuser") else { return false }
        // A trait is evaluated outside any task: the one place this waits on its own thread.
        return (try? ExternalTool.runBlocking("runuser", psqlArguments("SELECT 1"))) != nil
    }

    /// Why they are skipped.
    public static let skipReason =
        "needs a running PostgreSQL server and root (apt-get install postgresql; pg_ctlcluster 15 main start)"

    /// Makes a new role and database.
    /// - Throws: ``PreflightError`` `.invalidArgument` when `psql` fails.
    public static func create() async throws(PreflightError) -> PostgresTestDatabase {
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let name = "preflight_test_\(suffix)"
        let password = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        _ = try await psql("CREATE ROLE \(name) LOGIN PASSWORD '\(password)'")
        _ = try await psql("CREATE DATABASE \(name) OWNER \(name)")
        let url = "postgres://\(name):\(password)@127.0.0.1:5432/\(name)?sslmode=disable"
        return PostgresTestDatabase(name: name, location: try StoreLocation(parsing: url), url: url)
    }

    /// Runs one statement as the `postgres` superuser; its output, unaligned.
    @discardableResult
    public static func psql(_ statement: String, database: String = "postgres") async throws(PreflightError) -> String {
        try await ExternalTool.run("runuser", psqlArguments(statement, database: database))
    }

    /// `runuser`'s arguments for ``psql(_:database:)``.
    static func psqlArguments(_ statement: String, database: String = "postgres") -> [String] {
        ["-u", "postgres", "--", "psql", "-v", "ON_ERROR_STOP=1", "-Atq", "-d", database, "-c", statement]
    }

    /// Drops the database (closing its connections) and the role. It waits for `psql` on the
    /// caller's thread (two short statements), so that it can run in a `defer`.
    public func drop() {
        _ = try? ExternalTool.runBlocking("runuser", Self.psqlArguments("DROP DATABASE IF EXISTS \(name) WITH (FORCE)"))
        _ = try? ExternalTool.runBlocking("runuser", Self.psqlArguments("DROP ROLE IF EXISTS \(name)"))
    }
}
