import ArgumentParser
import PreflightCLI
import PreflightCore
import Testing

@Suite struct CommandTests {
    @Test func versionMatchesCore() {
        #expect(PreflightCommand.configuration.version == PreflightVersion.current)
    }

    @Test func rejectsUnknownOption() {
        #expect(throws: (any Error).self) { try PreflightCommand.parse(["--no-such-flag"]) }
    }
}
