import Foundation

extension FeedInput {
    /// The line, column and character offset in the original document of a line/column the XML parser gave for the
    /// rewritten one (columns count characters; lines are the same in both).
    func position(line: Int, column: Int) -> (line: Int, column: Int, offset: Int) {
        let line = max(1, line)
        // The start of that line in the bytes the parser read.
        var index = 0, currentLine = 1
        while currentLine < line, index < bytes.count {
            if bytes[index] == 0x0A { currentLine += 1 }
            index += 1
        }
        // Then column - 1 characters along it.
        var characters = 1
        while characters < column, index < bytes.count, bytes[index] != 0x0A {
            index += 1
            while index < bytes.count, bytes[index] & 0xC0 == 0x80 { index += 1 }
            characters += 1
        }
        let target = sourceOffset(ofOutput: index)
        var lineStart = target
        while lineStart > 0, source[lineStart - 1] != 0x0A { lineStart -= 1 }
        let sourceColumn = Self.characterCount(source[lineStart..<target]) + 1
        return (line, sourceColumn, Self.characterCount(source[0..<target]))
    }

    private static func characterCount(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
    }
}
