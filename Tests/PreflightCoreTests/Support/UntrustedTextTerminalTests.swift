import PreflightCore
import Testing

/// ``UntrustedText/forTerminal(_:)``: what the CLI prints of an edge's answer can write no escape
/// sequence to the terminal.
@Suite struct UntrustedTextTerminalTests {
    @Test func controlAndBidiCharactersAreWrittenOut() {
        let hostile = "title\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m\u{202E}gnp.exe\u{0}end"
        let safe = UntrustedText.forTerminal(hostile)
        #expect(!safe.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E })
        #expect(safe == #"title\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{202e}gnp.exe\u{0}end"#)
    }

    @Test func ordinaryTextAndLineBreaksStayAsTheyAre() {
        let text = "{\"a\":\"é ✓ 北京\"}\n{\"b\":1}"
        #expect(UntrustedText.forTerminal(text) == text)
    }
}
