import Foundation

/// Parses RSS 2.0 and Atom documents the way qBittorrent does (spec §6).
public enum FeedParser {
    /// Larger documents are refused with an error, unparsed.
    public static let maximumSize = 32 << 20

    /// - Parameters:
    ///   - previousLastBuildDate: the lastBuildDate of this feed's previous parse; when the document repeats it,
    ///     reading stops there and the result is `unchanged`.
    ///   - now: the parse's start time, the date of items whose date element cannot be read.
    public static func parse(_ data: Data, previousLastBuildDate: String = "", now: Date = Date()) -> ParsedFeed {
        guard data.count <= maximumSize else {
            return ParsedFeed(error: "The feed is larger than the maximum size of \(maximumSize) bytes.")
        }
        let input: FeedInput
        switch FeedInput.prepare(data) {
        case .success(let prepared): input = prepared
        case .failure(let refusal): return ParsedFeed(error: refusal.message)
        }
        let source = XMLEventSource(reader: FeedReader(previousLastBuildDate: previousLastBuildDate,
                                                       fallbackDate: .local(now)))
        source.run(input.bytes)
        let reader = source.reader

        var error: String?
        if let failure = source.failure {
            let position = input.position(line: failure.line, column: failure.column)
            let message = XMLErrorText.message(code: failure.code, entity: failure.entity, openElements: failure.depth)
            error = XMLErrorText.text(message, line: position.line, column: position.column, offset: position.offset)
        } else if !reader.sawRoot {
            // libxml2 says nothing about a document without any element; qBittorrent's reader calls it premature.
            let position = input.position(line: source.endLine, column: source.endColumn)
            error = XMLErrorText.text("Premature end of document.", line: position.line, column: position.column,
                                      offset: position.offset)
        } else if !reader.foundChannel {
            error = "Invalid RSS feed."
        }
        return ParsedFeed(title: reader.title, lastBuildDate: reader.lastBuildDate, articles: reader.articles,
                          error: error, unchanged: reader.unchanged)
    }
}
