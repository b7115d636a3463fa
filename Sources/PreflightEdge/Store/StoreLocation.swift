import Foundation
import PreflightCore

/// Where an edge keeps its reports and call Insights events (`preflight serve --database`).
///
/// - `sqlite::memory:`: SQLite in memory, lost when the edge stops (the embedded edge's default);
/// - `sqlite:PATH`: an SQLite file, made when missing;
/// - `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`: PostgreSQL,
///   which many edges can share (`postgresql://` also reads).
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// SQLite in memory.
    case sqliteInMemory
    /// An SQLite file.
    case sqlite(path: String)
    /// A PostgreSQL database.
    case postgres(PostgresLocation)

    /// A PostgreSQL server and database.
    public struct PostgresLocation: Sendable, Hashable {
        /// The server's host name or address.
        public var host: String
        /// Its port; 5432 by default.
        public var port: Int
        /// The role to log in as.
        public var username: String
        /// Its password; none for trust or peer authentication.
        public var password: String?
        /// The database.
        public var database: String
        /// TLS to the server: `disable`, `prefer` (the default) or `require`.
        public var tls: TLSMode

        /// Creates a location; see each property.
        public init(host: String, port: Int = 5432, username: String, password: String?, database: String, tls: TLSMode = .prefer) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.tls = tls
        }

        /// How the client uses TLS to the server (libpq's `sslmode`, its three common values).
        public enum TLSMode: String, Sendable, Hashable {
            /// Never TLS.
            case disable
            /// TLS when the server offers it.
            case prefer
            /// TLS or no connection.
            case require
        }
    }

    /// The longest location text read.
    static let maximumLength = 4096

    /// Parses `--database`'s text.
    /// - Throws: ``PreflightError`` `.invalidArgument` for any other text.
    public init(parsing text: String) throws(PreflightError) {
        func invalid(_ why: String) -> PreflightError {
            PreflightError(
                code: .invalidArgument,
                message: "database: \(why); give sqlite::memory:, sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        guard text.utf8.count <= Self.maximumLength, !text.contains("\0") else { throw invalid("the location is too long") }
        if text == "sqlite::memory:" || text == ":memory:" {
            self = .sqliteInMemory
            return
        }
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw invalid("sqlite: names no file") }
            self = .sqlite(path: path)
            return
        }
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else {
            throw invalid("unknown scheme in \(UntrustedText.quoted(text))")
        }
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw invalid("not a URL with a host")
        }
        guard let user = components.user, !user.isEmpty else { throw invalid("the URL names no user") }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !database.isEmpty, !database.contains("/") else { throw invalid("the URL names no database") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("port \(port) is out of range") }
        var tls = PostgresLocation.TLSMode.prefer
        for item in components.queryItems ?? [] {
            guard item.name == "sslmode" else { throw invalid("unknown parameter \(UntrustedText.quoted(item.name))") }
            guard let mode = PostgresLocation.TLSMode(rawValue: item.value ?? "") else {
                throw invalid("sslmode must be disable, prefer or require")
            }
            tls = mode
        }
        self = .postgres(PostgresLocation(
            host: host, port: port, username: user, password: components.password, database: database, tls: tls))
    }

    /// The location without its password, for logs and `/status`.
    public var description: String {
        switch self {
        case .sqliteInMemory: "sqlite::memory:"
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let location): "postgres://\(location.username)@\(location.host):\(location.port)/\(location.database)"
        }
    }
}
