import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Runs Foundation's XMLParser (libxml2) over a prepared document and hands its events to a FeedReader, stopping at
/// the first error (libxml2 would otherwise recover and go on) or when the reader needs nothing more.
final class XMLEventSource: NSObject, XMLParserDelegate {
    struct Failure {
        var code: Int
        var line: Int
        var column: Int
        /// The undeclared entity libxml2 just asked about, for its error text.
        var entity: String?
        /// Open elements when it happened.
        var depth: Int
    }

    private(set) var reader: FeedReader
    private(set) var failure: Failure?
    private(set) var endLine = 1
    private(set) var endColumn = 1
    private var stopped = false
    private var depth = 0
    private var lastUnresolvedEntity: String?

    init(reader: FeedReader) {
        self.reader = reader
    }

    func run(_ bytes: [UInt8]) {
        // Fed as a stream: XMLParser then hands libxml2 the document in chunks, and libxml2 (without its "huge"
        // option, which XMLParser does not offer) refuses a single chunk over 10 MB.
        let parser = XMLParser(stream: InputStream(data: Data(bytes)))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.delegate = self
        let finished = parser.parse()
        endLine = parser.lineNumber
        endColumn = parser.columnNumber
        if !stopped, failure == nil, !finished, let error = parser.parserError {
            record((error as NSError).code, parser)
        }
        parser.delegate = nil
        reader.finish()
    }

    private func stop(_ parser: XMLParser) {
        stopped = true
        parser.abortParsing()
    }

    private func record(_ code: Int, _ parser: XMLParser) {
        failure = Failure(code: code, line: parser.lineNumber, column: parser.columnNumber, entity: lastUnresolvedEntity,
                          depth: depth)
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        guard !stopped else { return }
        depth += 1
        reader.start(elementName, attributes: attributeDict)
        if reader.wantsStop { stop(parser) }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?) {
        guard !stopped else { return }
        depth -= 1
        reader.end()
        if reader.wantsStop { stop(parser) }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stopped else { return }
        reader.text(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stopped else { return }
        reader.text(String(decoding: CDATABlock, as: UTF8.self))
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        lastUnresolvedEntity = name
        return nil
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        guard !stopped else { return }
        let code = (parseError as NSError).code
        if XMLErrorText.isWarning(code) { return }
        record(code, parser)
        stop(parser)
    }

    func parser(_ parser: XMLParser, validationErrorOccurred validationError: Error) {}
}
